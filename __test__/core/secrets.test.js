'use strict';
// No error of the package carries the payload. For every error path, a secret is seeded
// into the payload (keys and values, right at the failing spot where the path allows it)
// and every rendering of the error is searched for it: message, stack, String(error),
// util.inspect with showHidden and depth 10, util.format('%o'), JSON.stringify, and
// what Node prints for an uncaught error. Paths covered:
// - domain codes through canonicalize, createSnapshot and prepareToolCall (schema
//   output), for every error row of the adversarial catalogue, the value wrapped among
//   secret keys and values;
// - text codes through decodeView (text and stored snapshot), decodeRequest and
//   prepareToolCall at stage json, with and without includePath;
// - stage schema with zod 3 schemas whose error messages quote the payload: the error
//   has no `cause` and no property holding the ZodError (no renderer, no cloning path
//   reaches it); the application reads it with error.getSchemaError();
// - stage snapshot through prepareToolCall;
// - TypeErrors for malformed arguments (names with lone surrogates, bad options).

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const util = require('node:util');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const z = require('zod3');

const {
  canonicalize,
  createSnapshot,
  decodeView,
  decodeRequest,
  prepareToolCall,
  proposalHash,
  SnapshotDomainError,
  ToolArgumentsValidationError,
  ERROR_CODES,
} = require('../..');
const { CASES, newCounter } = require('../helpers/adversarial-cases');

const AGENT = 'Secrets agent';
const TOOL = 'secrets_tool';
const ROOT = path.join(__dirname, '..', '..');

let serial = 0;
/** A fresh secret: no '/' or '~' (so it survives in pointers as itself), not integer-like. */
function newSecret() {
  serial += 1;
  return `Sekret${serial}q${Math.random().toString(36).slice(2, 10)}Zx`;
}

function capture(fn, label) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail(`${label}: expected a throw`);
}

/** Every rendering a log line, a crash report or an API response could hold. */
function renderings(error) {
  return {
    message: String(error.message),
    stack: String(error.stack),
    'String()': String(error),
    'util.inspect showHidden depth 10': util.inspect(error, { showHidden: true, depth: 10 }),
    'util.inspect depth Infinity': util.inspect(error, { depth: Infinity }),
    "util.format('%o')": util.format('%o', error),
    "util.format('%s')": util.format('%s', error),
    'JSON.stringify': JSON.stringify(error),
    'JSON.stringify in an object': JSON.stringify({ error }),
    'Object.keys values': JSON.stringify(Object.keys(error).map((k) => (k === 'path' ? '' : error[k]))),
  };
}

function assertNoSecret(error, secrets, label, { pathAllowed = false } = {}) {
  for (const [how, text] of Object.entries(renderings(error))) {
    // With includePath the caller asked for the pointer, which is made of payload keys:
    // the enumerable `path` field may hold a secret key, nothing else may.
    if (pathAllowed && typeof error.path === 'string' && /inspect|format|JSON/.test(how)) continue;
    for (const secret of secrets) {
      assert.ok(!text.includes(secret), `${label}: ${how} contains the payload secret: ${text.slice(0, 400)}`);
    }
  }
  if (pathAllowed) {
    for (const how of ['message', 'stack', 'String()']) {
      for (const secret of secrets) assert.ok(!renderings(error)[how].includes(secret), `${label} (includePath): ${how} contains the secret`);
    }
  }
}

function assertCode(error, code, klass, label) {
  assert.ok(error instanceof klass, `${label}: ${error && error.name}: ${error && error.message}`);
  assert.equal(error.code, code, `${label}: code`);
  assert.ok(ERROR_CODES.includes(error.code), `${label}: listed code`);
}

describe('domain errors of every catalogue row carry no payload', () => {
  const rows = CASES.filter((row) => row.kind === 'value' && row.expect.code !== undefined);

  test(`${rows.length} rows through canonicalize, createSnapshot and prepareToolCall`, () => {
    let checked = 0;
    for (const row of rows) {
      const secret = newSecret();
      const counter = newCounter();
      const offending = row.make(counter);
      // The failing value among secret keys and values; a secret-named key leads to it.
      const value = { [secret]: `${secret} value`, list: [secret, { [`${secret}-key`]: offending }], z: secret };
      const env = row.envFactory ? row.envFactory(counter) : (run) => run();
      const errors = env(() => ({
        canonicalize: capture(() => canonicalize(value), row.id),
        snapshot: capture(() => createSnapshot({ agentName: AGENT, toolName: TOOL, value }), row.id),
        prepared: capture(
          () => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: JSON.stringify({ [secret]: secret }), schema: () => value }),
          row.id,
        ),
        traced: capture(() => canonicalize(value, { includePath: true }), row.id),
      }));
      assertCode(errors.canonicalize, row.expect.code, SnapshotDomainError, `${row.id}: canonicalize`);
      assertCode(errors.snapshot, row.expect.code, ToolArgumentsValidationError, `${row.id}: createSnapshot`);
      assertCode(errors.prepared, row.expect.code, ToolArgumentsValidationError, `${row.id}: prepareToolCall`);
      assert.equal(errors.prepared.stage, 'snapshot', `${row.id}: prepareToolCall stage`);
      assertNoSecret(errors.canonicalize, [secret], `${row.id}: canonicalize`);
      assertNoSecret(errors.snapshot, [secret], `${row.id}: createSnapshot`);
      assertNoSecret(errors.prepared, [secret], `${row.id}: prepareToolCall`);
      assertNoSecret(errors.traced, [secret], `${row.id}: canonicalize includePath`, { pathAllowed: true });
      if (row.expect.code === 'size_limit' || row.expect.code === 'reentrant_call') {
        // The size of the whole canonical JSON has no single offending member, and a
        // re-entered call fails the outer call as a whole.
        assert.equal(errors.traced.path, undefined, `${row.id}: ${row.expect.code} has no pointer`);
      } else {
        assert.ok(errors.traced.path.startsWith(`/list/1/${secret}-key`), `${row.id}: the pointer leads to the value: ${errors.traced.path}`);
      }
      checked += 4;
    }
    assert.ok(checked >= 4 * 100, `only ${checked} errors checked`);
  });
});

describe('text errors carry no payload', () => {
  /** Texts with the secret at the failing spot; `code` for snapshot text, `requestCode` for provider text. */
  function texts(s) {
    return [
      ['a duplicate secret key', `{"${s}":1,"${s}":"${s}"}`, 'duplicate_key'],
      ['a duplicate secret key spelled with an escape', `{"${s}":1,"\\u${s.charCodeAt(0).toString(16).padStart(4, '0')}${s.slice(1)}":2}`, 'duplicate_key'],
      ['a duplicate key deep under secret keys', `{"${s}":[{"${s}":{"k":1,"k":"${s}"}}]}`, 'duplicate_key'],
      ['a lone surrogate inside a secret string', `{"a":"${s}\\ud800${s}"}`, 'lone_surrogate'],
      ['a lone surrogate inside a secret key', `{"${s}\\udc00":"${s}"}`, 'lone_surrogate'],
      ['a raw lone surrogate next to a secret', `["${s}\ud800"]`, 'lone_surrogate'],
      ['an overflow after a secret key', `{"${s}":1e999}`, 'non_finite_number'],
      ['negative zero after a secret key', `{"${s}":["${s}",-0]}`, 'negative_zero', null],
      ['a trailing comma after a secret', `{"${s}":"${s}",}`, 'invalid_json'],
      ['a secret bare word', `{"a":${s}}`, 'invalid_json'],
      ['an unterminated secret string', `["${s}`, 'invalid_json'],
      ['a secret after the document', `{} ${s}`, 'invalid_json'],
      ['a raw control character in a secret', `["${s}\u0001${s}"]`, 'invalid_json'],
      ['nesting past the limit under a secret key', `{"${s}":${'['.repeat(1100)}`, 'depth_limit'],
      ['a long secret string with a lone surrogate (BIG_STRING length)', `["${s.repeat(200)}\\udbff"]`, 'lone_surrogate'],
    ];
  }

  test('decodeView (text and stored), decodeRequest and prepareToolCall, with and without includePath', () => {
    let checked = 0;
    for (const [label, text, code, requestCode = code] of texts(newSecret())) {
      const secret = /Sekret\d+q[a-z0-9]+Zx/.exec(text)[0];
      const view = capture(() => decodeView(text), label);
      assertCode(view, code, SnapshotDomainError, `${label}: decodeView`);
      assertNoSecret(view, [secret], `${label}: decodeView`);
      const stored = capture(() => decodeView({ agentName: AGENT, toolName: TOOL, argsCanonicalJson: text, proposalHash: '0'.repeat(64) }), label);
      assertNoSecret(stored, [secret], `${label}: decodeView of a stored snapshot`);
      const tracedView = capture(() => decodeView(text, { includePath: true }), label);
      assertNoSecret(tracedView, [secret], `${label}: decodeView includePath`, { pathAllowed: true });
      checked += 3;
      if (requestCode === null) {
        // Provider text may hold -0: the request decodes, and the snapshot stage rejects it.
        const prepared = capture(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: text }), label);
        assert.equal(prepared.stage, 'snapshot', `${label}: prepareToolCall stage`);
        assertNoSecret(prepared, [secret], `${label}: prepareToolCall`);
        checked += 1;
        continue;
      }
      const request = capture(() => decodeRequest(text, { toolName: TOOL }), label);
      assertCode(request, requestCode, ToolArgumentsValidationError, `${label}: decodeRequest`);
      assert.equal(request.stage, 'json', `${label}: decodeRequest stage`);
      assertNoSecret(request, [secret], `${label}: decodeRequest`);
      const prepared = capture(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: text }), label);
      assertCode(prepared, requestCode, ToolArgumentsValidationError, `${label}: prepareToolCall`);
      assert.equal(prepared.stage, 'json', `${label}: prepareToolCall stage`);
      assertNoSecret(prepared, [secret], `${label}: prepareToolCall`);
      const tracedPrepared = capture(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: text, includePath: true }), label);
      assertNoSecret(tracedPrepared, [secret], `${label}: prepareToolCall includePath`, { pathAllowed: true });
      checked += 3;
    }
    assert.ok(checked > 70, `only ${checked} errors checked`);
  });
});

describe("stage schema: the schema's own error is reachable with getSchemaError(), never rendered nor cloned", () => {
  const SCHEMAS = [
    ['an enum that quotes the received value', (s) => z.object({ mode: z.enum(['read', 'write']) }), (s) => ({ mode: s })],
    [
      'a refinement whose message embeds the value',
      () =>
        z.object({
          q: z.string().refine(
            (v) => v.length < 3,
            (v) => ({ message: `too long: ${v}` }),
          ),
        }),
      (s) => ({ q: s }),
    ],
    [
      'a custom error map quoting the input',
      () => z.object({ n: z.number({ errorMap: (issue, ctx) => ({ message: `not a number: ${JSON.stringify(ctx.data)}` }) }) }),
      (s) => ({ n: s }),
    ],
    ['a literal mismatch under a secret key', (s) => z.object({ [s]: z.literal('x') }), (s) => ({ [s]: s })],
    ['a strict object rejecting a secret key', () => z.object({}).strict(), (s) => ({ [s]: 1 })],
    [
      'a throwing transform',
      () =>
        z.object({
          a: z.string().transform((v) => {
            throw new Error(`cannot use ${v}`);
          }),
        }),
      (s) => ({ a: s }),
    ],
  ];

  for (const [label, makeSchema, makeArgs] of SCHEMAS) {
    test(label, () => {
      const secret = newSecret();
      const schema = makeSchema(secret);
      const rawArguments = JSON.stringify(makeArgs(secret));
      const error = capture(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments, schema }), label);
      assert.ok(error instanceof ToolArgumentsValidationError, `${label}: ${error.name}`);
      assert.equal(error.stage, 'schema', `${label}: stage`);
      assert.equal(error.code, 'schema_error', `${label}: code`);
      assertNoSecret(error, [secret], label);
      // The schema's own error does quote the payload ...
      const schemaError = error.getSchemaError();
      assert.ok(schemaError instanceof Error, `${label}: getSchemaError() is the schema's error`);
      assert.ok(`${schemaError.message}${JSON.stringify(schemaError.issues || [])}`.includes(secret), `${label}: the schema error holds the schema's detail`);
      // ... so the package's error has no property holding it: no cause at all.
      assert.equal(Object.hasOwn(error, 'cause'), false, `${label}: no own cause`);
      assert.equal('cause' in error, false, `${label}: no cause anywhere`);
      assert.ok(!util.inspect(error, { showHidden: true, depth: 10, customInspect: false }).includes(secret), `${label}: util.inspect customInspect: false`);
      assert.ok(!util.inspect(error, { showHidden: true, depth: 10 }).includes(secret), `${label}: util.inspect showHidden`);
      const clone = structuredClone(error);
      assert.equal(clone.cause, undefined, `${label}: structuredClone carries no cause`);
      assert.ok(!util.inspect(clone, { showHidden: true, depth: 10, customInspect: false }).includes(secret), `${label}: structuredClone carries no payload`);
      // What a log needs, as data: the number of issues and zod's issue codes.
      if (schemaError instanceof z.ZodError) {
        assert.equal(error.issueCount, schemaError.issues.length, `${label}: issueCount`);
        assert.deepEqual(
          error.issueCodes,
          schemaError.issues.map((issue) => issue.code),
          `${label}: issueCodes are zod's codes`,
        );
      } else {
        // A transform's own throw escapes zod's parse as it is: no issues were reported.
        assert.equal(error.issueCount, undefined, `${label}: no issueCount`);
      }
      assert.equal(error.issuePaths, undefined, `${label}: no issue paths without includePath`);
    });
  }

  test('prepareToolCall with includePath and a schema error attaches the issue paths only (no path, no message)', () => {
    const secret = newSecret();
    const error = capture(
      () =>
        prepareToolCall({
          agentName: AGENT,
          toolName: TOOL,
          rawArguments: JSON.stringify({ [secret]: secret }),
          schema: z.object({ [secret]: z.number() }),
          includePath: true,
        }),
      'includePath',
    );
    assert.equal(error.stage, 'schema', 'stage');
    assert.equal(error.path, undefined, 'no path at stage schema');
    assert.deepEqual(error.issuePaths, [`/${secret}`], 'the issue path, as asked for');
    assert.deepEqual(error.issueCodes, ['invalid_type'], 'the zod code');
    assert.ok(!error.message.includes(secret), 'the message holds no key');
  });
});

describe('argument errors and uncaught errors carry no payload', () => {
  test('TypeErrors for malformed names and options quote nothing', () => {
    const secret = newSecret();
    for (const [label, fn] of [
      ['agentName with a lone surrogate', () => createSnapshot({ agentName: `${secret}\ud800`, toolName: TOOL, value: 1 })],
      ['toolName with a lone surrogate', () => createSnapshot({ agentName: AGENT, toolName: `\udc00${secret}`, value: 1 })],
      ['argsCanonicalJson with a lone surrogate', () => proposalHash({ agentName: AGENT, toolName: TOOL, argsCanonicalJson: `"${secret}\ud800"` })],
      ['prepareToolCall toolName with a lone surrogate', () => prepareToolCall({ agentName: AGENT, toolName: `${secret}\ud800`, rawArguments: '{}' })],
      ['options that are a string', () => canonicalize({ [secret]: 1 }, secret)],
      ['decodeView of a number', () => decodeView(42)],
      ['a schema that is a string', () => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: `{"${secret}":1}`, schema: secret })],
    ]) {
      const error = capture(fn, label);
      assert.ok(error instanceof TypeError || error instanceof SnapshotDomainError, `${label}: ${error.name}`);
      assertNoSecret(error, [secret], label);
    }
  });

  function uncaughtReport(body) {
    return spawnSync(
      process.execPath,
      ['-e', `const { prepareToolCall, decodeRequest, createSnapshot, canonicalize, decodeView } = require(${JSON.stringify(ROOT)}); ${body}`],
      {
        encoding: 'utf8',
        timeout: 30000,
        cwd: ROOT,
      },
    );
  }

  // Node reports a fatal exception with util.inspect(error, { customInspect: false }),
  // which prints an own `cause`, enumerable or not. The error has none: the schema's
  // error is reachable only through error.getSchemaError().
  test("Node's report of an uncaught stage-schema error prints no payload (there is no cause to print)", () => {
    const secret = newSecret();
    const child = uncaughtReport(
      `const z = require('zod3'); prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{"mode":"${secret}"}', schema: z.object({ mode: z.enum(['r']) }) });`,
    );
    assert.match(child.stderr, /ToolArgumentsValidationError/, 'Node printed the error');
    assert.ok(!child.stderr.includes('[cause]'), `Node printed a [cause] block:\n${child.stderr.slice(0, 1500)}`);
    assert.ok(!child.stderr.includes(secret), `the report holds the secret:\n${child.stderr.slice(0, 1500)}`);
    const error = capture(
      () => prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: JSON.stringify({ mode: secret }), schema: z.object({ mode: z.enum(['r']) }) }),
      'schema',
    );
    assert.ok(!util.inspect(error).includes(secret), 'util.inspect (default) holds the secret');
    assert.ok(error.getSchemaError() instanceof z.ZodError, "getSchemaError() is the schema's own error");
  });

  test("Node's report of an uncaught error at the other stages prints no payload", () => {
    const secret = newSecret();
    for (const [label, body] of [
      ['stage json', `decodeRequest('{"${secret}":1,"${secret}":2}', { toolName: 't' });`],
      ['stage snapshot', `createSnapshot({ agentName: 'a', toolName: 't', value: { ${secret}: new Map([['${secret}', 1]]) } });`],
      ['canonicalize', `canonicalize({ '${secret}': ['${secret}', -0] });`],
      [
        'an unhandled rejection of a policy',
        `const p = prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{"${secret}":1}' }); Promise.reject(decodeView.length && capture());
        function capture() { try { decodeView('{"${secret}":1,"${secret}":2}'); } catch (e) { return e; } }`,
      ],
    ]) {
      const child = uncaughtReport(body);
      assert.notEqual(child.status, 0, `${label}: the child should fail`);
      assert.match(child.stderr, /Error/, `${label}: Node printed the error`);
      assert.ok(!child.stderr.includes(secret), `${label}: Node's uncaught-error report holds the secret:\n${child.stderr.slice(0, 1500)}`);
    }
  });
});
