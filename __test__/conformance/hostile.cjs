'use strict';
// Hostile values: every value and text row of the adversarial catalogue
// (__test__/helpers/adversarial-cases.js, whose expectations are Node's verdicts) through every
// public entry point, with its foreign-code counter (Proxy traps, getters, setters,
// planted functions: none may run), and the runtime's own host objects. A verdict may
// differ from Node's only where runtime.cjs's DIFFERENCES names the check, and never as
// an accept where Node rejects.

const { createHash } = require('node:crypto');
const EventEmitter = require('node:events');

const AGENT = 'Adversarial agent';
const TOOL = 'adversarial_tool';
/** Node 20's (and V8's) longest string; rows built to exceed it are sized for V8. */
const V8_MAX_STRING_LENGTH = 536870888;

function envelopeHash(json) {
  const envelope = `{"agentName":${JSON.stringify(AGENT)},"argsCanonicalJson":${JSON.stringify(json)},"kind":"tool","toolName":${JSON.stringify(TOOL)}}`;
  return createHash('sha256').update(envelope, 'utf8').digest('hex');
}

/** Own keys and descriptors of Object.prototype and Array.prototype, to see pollution. */
function intrinsicState() {
  const out = [];
  for (const target of [Object.prototype, Array.prototype]) {
    for (const key of Reflect.ownKeys(target)) {
      const d = Object.getOwnPropertyDescriptor(target, key);
      out.push(`${String(key)}:${typeof d.value}:${typeof d.get}:${d.enumerable}`);
    }
  }
  return out.join('|');
}

module.exports = function hostile(h, pkg, extra) {
  const { assert, attempt, check, skip, fail, describeError, show } = h;
  const { canonicalize, createSnapshot, decodeView, decodeRequest, prepareToolCall, SnapshotDomainError, ToolArgumentsValidationError } = pkg;
  const { DIFFERENCES, RUNTIME, seenCodes } = extra;
  const { MAX_STRING_LENGTH } = require('node:buffer').constants;
  const INTRINSICS = intrinsicState();
  const usedDifferences = new Set();

  /** A verdict: { code } for a rejection, { json } for an accept. */
  function verdictOf(result, Class, stage) {
    if (result.ok) return { json: typeof result.value === 'string' ? result.value : result.value.argsCanonicalJson };
    const e = result.error;
    if (!(e instanceof Class)) fail(`expected ${Class.name}, got ${describeError(e)}`);
    if (stage !== undefined && e.stage !== stage) fail(`expected stage ${stage}, got ${describeError(e)}`);
    if (e.code !== undefined) seenCodes.add(e.code);
    return { code: e.code };
  }

  /**
   * The verdicts this runtime may give: Node's, and a documented difference (which must
   * be a rejection where Node rejects). Several versions of a runtime may differ among
   * themselves, so Node's verdict always stays acceptable.
   */
  function acceptableVerdicts(id, node) {
    const difference = DIFFERENCES[id];
    if (difference === undefined) return [node];
    if (node.code !== undefined && difference.verdict.code === undefined) fail(`${id}: a documented difference may not accept what Node rejects`);
    return [node, difference.verdict];
  }

  function matches(actual, expected) {
    if (expected.code !== undefined) return actual.code === expected.code;
    return actual.code === undefined && (expected.json === undefined || actual.json === expected.json);
  }

  function sameVerdict(id, label, actual, acceptable) {
    const list = Array.isArray(acceptable) ? acceptable : [acceptable];
    const node = list[0];
    if (node.code !== undefined && actual.code === undefined) fail(`${label}: ACCEPTED (${show(actual.json)}) where Node rejects with ${node.code}`);
    if (list.some((expected) => matches(actual, expected))) {
      if (list.length > 1 && !matches(actual, node)) usedDifferences.add(id);
      return;
    }
    const wanted = list.map((v) => (v.code !== undefined ? v.code : show(v.json))).join(' or ');
    fail(`${label}: ${actual.code !== undefined ? `rejected with ${actual.code}` : `JSON ${show(actual.json)}`}, expected ${wanted}`);
  }

  function checkValue(id, make, nodeVerdict, options = {}) {
    const { newCounter } = extra.catalogue;
    const counter = newCounter();
    const value = make(counter);
    const env = options.envFactory ? options.envFactory(counter) : (run) => run();
    const r = env(() => {
      const canon = attempt(() => canonicalize(value));
      const traced = attempt(() => canonicalize(value, { includePath: true }));
      const snap = attempt(() => createSnapshot({ agentName: AGENT, toolName: TOOL, value }));
      const prepared = attempt(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{}', schema: () => value }));
      let views = null;
      if (snap.ok && !options.skipViews) {
        views = [
          attempt(() => decodeView(snap.value)),
          attempt(() => decodeView(snap.value)),
          attempt(() => decodeView(snap.value.argsCanonicalJson)),
          prepared.ok ? attempt(() => prepared.value.policyView()) : null,
          prepared.ok ? attempt(() => prepared.value.policyView()) : null,
        ];
      }
      return { canon, traced, snap, prepared, views };
    });
    assert.equal(counter.count, 0, `code of the value or of a planted patch ran (${counter.log.join(', ')})`);
    assert.equal(intrinsicState(), INTRINSICS, 'Object.prototype or Array.prototype changed');

    const expected = acceptableVerdicts(id, nodeVerdict);
    const verdicts = [
      ['canonicalize', verdictOf(r.canon, SnapshotDomainError)],
      ['canonicalize with includePath', verdictOf(r.traced, SnapshotDomainError)],
      ['createSnapshot', verdictOf(r.snap, ToolArgumentsValidationError, 'snapshot')],
      ['prepareToolCall', verdictOf(r.prepared, ToolArgumentsValidationError, 'snapshot')],
    ];
    for (const [label, actual] of verdicts) {
      // A schema whose output is a native Promise (whatever its prototype) is an async
      // schema for prepareToolCall (issue 9), as core/adversarial.test.js has it.
      const promise =
        label === 'prepareToolCall' &&
        nodeVerdict.code !== undefined &&
        pkg.ERROR_CODES.includes('async_schema') &&
        require('node:util').types.isPromise(value);
      sameVerdict(id, label, actual, promise ? [{ code: 'async_schema' }] : expected);
    }
    if (typeof options.includePath === 'string') assert.equal(r.traced.error.path, options.includePath, 'JSON Pointer');
    if (verdicts[0][1].code === undefined) {
      const json = verdicts[0][1].json;
      assert.equal(r.snap.value.proposalHash, envelopeHash(json), 'proposal hash against SHA-256 of the envelope');
      assert.equal(r.prepared.value.proposalHash, r.snap.value.proposalHash, 'prepareToolCall hash');
      if (r.views !== null) {
        const parsed = JSON.parse(json);
        const seen = [];
        for (let i = 0; i < r.views.length; i++) {
          if (r.views[i] === null) continue;
          assert.ok(r.views[i].ok, `view ${i} threw ${r.views[i].ok || describeError(r.views[i].error)}`);
          assert.deepEqual(r.views[i].value, parsed, `view ${i} equals JSON.parse of the canonical JSON`);
          if (typeof parsed === 'object' && parsed !== null) {
            assert.ok(r.views[i].value !== value, `view ${i} is the input value`);
            assert.ok(!seen.includes(r.views[i].value), `view ${i} is another view's object`);
            seen.push(r.views[i].value);
          }
        }
        assert.equal(canonicalize(r.views[0].value), json, 'a view canonicalizes back');
      }
    }
  }

  function checkText(row) {
    const parsed = attempt(() => JSON.parse(row.text));
    if (row.jsonParse === false || row.request.code === 'invalid_json') assert.ok(!parsed.ok, 'JSON.parse accepts text the row calls invalid');
    if (row.request.code === undefined && !row.request.blank) assert.ok(parsed.ok, 'JSON.parse rejects text the row calls valid');

    const view = attempt(() => decodeView(row.text));
    if (row.view.code !== undefined) sameVerdict(row.id, 'decodeView', verdictOf(view, SnapshotDomainError), row.view);
    else {
      assert.ok(view.ok, `decodeView threw ${view.ok || describeError(view.error)}`);
      assert.deepEqual(view.value, parsed.value, 'decodeView equals JSON.parse');
      assert.equal(canonicalize(view.value), row.view.json, 'decodeView canonicalizes to the expected JSON');
    }

    const request = attempt(() => decodeRequest(row.text, { toolName: TOOL }));
    if (row.request.code !== undefined) sameVerdict(row.id, 'decodeRequest', verdictOf(request, ToolArgumentsValidationError, 'json'), row.request);
    else {
      assert.ok(request.ok, `decodeRequest threw ${request.ok || describeError(request.error)}`);
      assert.deepEqual(request.value, row.request.blank ? {} : parsed.value, 'decodeRequest equals JSON.parse (negative zero included)');
    }

    const prepared = attempt(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: row.text }));
    if (row.prepare.code !== undefined) {
      sameVerdict(row.id, 'prepareToolCall', verdictOf(prepared, ToolArgumentsValidationError, row.prepare.stage), row.prepare);
    } else {
      assert.ok(prepared.ok, `prepareToolCall threw ${prepared.ok || describeError(prepared.error)}`);
      assert.equal(prepared.value.argsCanonicalJson, row.prepare.json, 'prepareToolCall JSON');
      assert.deepEqual(prepared.value.policyView(), JSON.parse(row.prepare.json), 'policy view');
      assert.deepEqual(prepared.value.policyView(), JSON.parse(row.prepare.json), 'a second policy view');
    }
    assert.equal(intrinsicState(), INTRINSICS, 'Object.prototype or Array.prototype changed');
  }

  /** A stored record that verifySnapshot and decodeView refuse with the row's code. */
  function checkStored(row) {
    for (const [label, fn] of [
      ['verifySnapshot', pkg.verifySnapshot],
      ['decodeView', decodeView],
    ]) {
      const counter = extra.catalogue.newCounter();
      const record = row.make(counter);
      if (label === 'decodeView' && (record === null || typeof record !== 'object')) continue;
      const result = attempt(() => fn(record));
      sameVerdict(row.id, label, verdictOf(result, SnapshotDomainError), [row.expect]);
      assert.equal(counter.count, 0, `${label} ran code of the record (${counter.log.join(', ')})`);
    }
  }

  /** An asynchronous schema: prepareToolCall fails at the row's stage with its code, running nothing counted. */
  function checkSchema(row) {
    const counter = extra.catalogue.newCounter();
    const result = attempt(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: row.rawArguments, schema: row.schema(counter) }));
    sameVerdict(row.id, 'prepareToolCall', verdictOf(result, ToolArgumentsValidationError, row.expect.stage), [{ code: row.expect.code }]);
    assert.equal(counter.count, 0, `code of the schema output ran (${counter.log.join(', ')})`);
  }

  // ---------------------------------------------------------------------------------
  // The catalogue

  const { CASES } = extra.catalogue;
  const kinds = {};
  for (const row of CASES) {
    const id = `hostile: ${row.id}`;
    kinds[row.kind] = (kinds[row.kind] || 0) + 1;
    if (row.kind === 'value') {
      const node = row.expect.code !== undefined ? { code: row.expect.code } : { json: row.expect.json };
      extra.nodeVerdicts[id] = node;
      if (row.expect.code === 'size_limit' && MAX_STRING_LENGTH !== V8_MAX_STRING_LENGTH) {
        skip(id, `sized for V8's string limit (${V8_MAX_STRING_LENGTH}); ${RUNTIME.name}'s is ${MAX_STRING_LENGTH}, see "errors: size_limit" checks`);
        continue;
      }
      const run = () => checkValue(id, row.make, node, row);
      check(
        id,
        row.knownBug
          ? () => {
              const result = attempt(run);
              return { skip: `known bug (todo in the catalogue): ${row.knownBug}; ${result.ok ? 'now passes' : 'still fails'}` };
            }
          : run,
      );
    } else if (row.kind === 'text') {
      check(id, () => checkText(row));
    } else if (row.kind === 'stored') {
      check(id, () => checkStored(row));
    } else if (row.kind === 'schema') {
      check(id, () => checkSchema(row));
    }
  }
  const others = CASES.filter((row) => !['value', 'text', 'stored', 'schema'].includes(row.kind));
  if (others.length > 0) {
    const byKind = [...new Set(others.map((row) => row.kind))].map((kind) => `${kinds[kind]} ${kind}`).join(', ');
    skip(
      'hostile: catalogue rows of other kinds',
      `${byKind} row(s) call the raw native binding or internals, not the public API (run by core/adversarial.test.js under Node)`,
    );
  }
  check('hostile: the catalogue holds value and text rows', () => assert.ok((kinds.value || 0) > 100 && (kinds.text || 0) > 50, `kinds ${show(kinds)}`));

  // ---------------------------------------------------------------------------------
  // The runtime's own host objects, with Node 20's verdicts

  const HOST = [
    ['process.env', () => process.env, 'non_plain_object'],
    ['process', () => process, 'non_plain_object'],
    ['globalThis', () => globalThis, 'non_plain_object'],
    ['console', () => console, 'non_plain_object'],
    ['the node:fs exports', () => require('node:fs'), 'unsupported_type'],
    ['Math', () => Math, 'symbol_key'],
    ['JSON', () => JSON, 'symbol_key'],
    ['Intl', () => Intl, 'symbol_key'],
    ['a URL', () => new URL('https://example.com/a?b=1'), 'non_plain_object'],
    ['URLSearchParams', () => new URLSearchParams('a=1'), 'non_plain_object'],
    ['a TextEncoder', () => new TextEncoder(), 'non_plain_object'],
    ['an AbortController', () => new AbortController(), 'non_plain_object'],
    ['an AbortSignal', () => new AbortController().signal, 'non_plain_object'],
    ['a Blob', () => new Blob(['x']), 'non_plain_object'],
    ['Headers', () => new Headers({ a: '1' }), 'non_plain_object'],
    ['a node:crypto Hash', () => createHash('sha256'), 'non_plain_object'],
    ['an EventEmitter', () => new EventEmitter(), 'non_plain_object'],
    ['fs.statSync()', () => require('node:fs').statSync('/'), 'non_plain_object'],
    [
      'a Timeout',
      () => {
        const t = setTimeout(() => {}, 1);
        clearTimeout(t);
        return t;
      },
      'non_plain_object',
    ],
    ['the module object', () => module, 'non_plain_object'],
    [
      'a MessagePort',
      () => {
        const c = new MessageChannel();
        c.port1.close();
        c.port2.close();
        return c.port1;
      },
      'non_plain_object',
    ],
    ['a Buffer', () => Buffer.from('abc'), 'non_plain_object'],
    ['path.parse()', () => require('node:path').parse('/a/b.c'), { json: '{"base":"b.c","dir":"/a","ext":".c","name":"b","root":"/"}' }],
    ['querystring.parse() (null prototype)', () => require('node:querystring').parse('b=2&a=1'), { json: '{"a":"1","b":"2"}' }],
  ];
  for (const [name, make, node] of HOST) {
    const id = `host objects: ${name}`;
    const verdict = typeof node === 'string' ? { code: node } : node;
    extra.nodeVerdicts[id] = verdict;
    check(id, () => checkValue(id, () => make(), verdict));
  }
  check('host objects: a module namespace object', async () => {
    const namespace = await import('node:path');
    const id = 'host objects: a module namespace object';
    extra.nodeVerdicts[id] = { code: 'non_plain_object' };
    checkValue(id, () => namespace, { code: 'non_plain_object' }, { skipViews: true });
  });

  // The documented differences met in this run, named in the output.
  check('hostile: documented differences of this runtime', () => {
    for (const id of usedDifferences)
      process.stdout.write(`note ${id}: ${RUNTIME.name} gives ${DIFFERENCES[id].verdict.code}, Node ${extra.nodeVerdicts[id].code} (${DIFFERENCES[id].why})\n`);
  });
};
