'use strict';
// The in-repository conformance vectors (conformance-vectors/, format in its README) run
// through the package: text vectors through prepareToolCall (no schema), through
// canonicalize(decodeRequest(text)) and through decodeView(text) (the strict snapshot
// text path); byte vectors through the command line (canonicalize and hash of a file);
// value vectors through createSnapshot and canonicalize. The Rust decoder runs the text
// and byte vectors in tests/conformance_vectors.rs. Every failure names the vector id.
//
// The expectations were written by hand from the RFCs' rules, not produced by the
// package; before any vector runs, they are checked against independent oracles: the
// proposal hash is recomputed with node:crypto over the RFC-0016 envelope, and every
// expected canonical JSON is compared with a small RFC 8785 serializer over V8's
// JSON.parse, JSON.stringify and String(number) (a wrong hand-written expectation fails
// here, not as a package bug).

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const {
  prepareToolCall,
  decodeRequest,
  decodeView,
  canonicalize,
  createSnapshot,
  proposalHash,
  SnapshotDomainError,
  ToolArgumentsValidationError,
  ERROR_CODES,
} = require('../..');
const { loadVectors, formatProblems, textOf, bytesOf, envelopeHash, oracleCanonical, buildValue } = require('./vectors-support');

const BIN = path.join(__dirname, '..', '..', 'bin', 'tool-argument-snapshot.js');
const loaded = loadVectors();
const { vectors } = loaded;

/**
 * Vectors the package gets wrong today, by id, with the reason: each still runs, as a
 * node:test `todo` (reported, not failing), until the package is fixed. Empty means the
 * package passes every vector.
 */
const KNOWN_PACKAGE_BUGS = {};

/** What an API call gave: { ok, json?, hash?, stage?, code?, error? }. */
function outcome(fn) {
  try {
    return { ok: true, ...fn() };
  } catch (error) {
    if (error instanceof ToolArgumentsValidationError) return { ok: false, stage: error.stage, code: error.code };
    if (error instanceof SnapshotDomainError) return { ok: false, stage: undefined, code: error.code };
    return { ok: false, stage: 'thrown', code: `${error && error.name}: ${error && error.message}` };
  }
}

function show(result) {
  return result.ok ? `accepted as ${JSON.stringify(result.json)}` : `refused (stage ${result.stage}, code ${result.code})`;
}

/**
 * Asserts one outcome against an expectation. `stageless`: the API reports no stage
 * (SnapshotDomainError), so only the code is compared; `hashed`: compare the hash too.
 */
function check(vector, api, result, expect, { stageless = false, hashed = true } = {}) {
  const where = `${vector.id} [${api}]`;
  if (expect.canonicalJson !== undefined) {
    assert.ok(result.ok, `${where}: expected ${JSON.stringify(expect.canonicalJson)}, but it was ${show(result)}`);
    assert.equal(result.json, expect.canonicalJson, `${where}: canonical JSON differs`);
    if (hashed) assert.equal(result.hash, expect.proposalHash, `${where}: proposal hash differs`);
  } else {
    assert.ok(!result.ok, `${where}: expected stage ${expect.stage} code ${expect.code}, but it was ${show(result)}`);
    assert.equal(result.code, expect.code, `${where}: expected code ${expect.code}, got ${show(result)}`);
    if (!stageless) assert.equal(result.stage, expect.stage, `${where}: expected stage ${expect.stage}, got ${show(result)}`);
  }
}

function runVectorTests(kind, run) {
  for (const vector of vectors.filter((v) => kind.includes(v.input))) {
    const bug = KNOWN_PACKAGE_BUGS[vector.id];
    test(vector.id, bug ? { todo: `known package bug: ${bug}` } : {}, () => run(vector));
  }
}

// ---------------------------------------------------------------------------------------

describe('the vector files', () => {
  test('are well formed: format, one input and one expectation each, unique ids, package error codes', (t) => {
    assert.ok(vectors.length > 0, 'no vectors found');
    assert.deepEqual(formatProblems(loaded, ERROR_CODES), []);
    const counts = {};
    for (const v of vectors) counts[v.input] = (counts[v.input] || 0) + 1;
    const negative = vectors.filter((v) => v.expect.code !== undefined).length;
    t.diagnostic(`${vectors.length} vectors in ${loaded.files.join(', ')}: ${JSON.stringify(counts)}, ${negative} negative`);
  });

  test('every string in them is well-formed Unicode (raw lone surrogates are spelled with textUtf16Hex or $utf16)', () => {
    const walk = (value, where) => {
      if (typeof value === 'string') assert.ok(value.isWellFormed(), `${where}: a string with a lone surrogate`);
      else if (value && typeof value === 'object')
        for (const [k, v] of Object.entries(value)) {
          walk(k, where);
          walk(v, where);
        }
    };
    for (const v of vectors) walk(v, v.id);
  });

  test('every proposalHash is the SHA-256 of the RFC-0016 envelope, recomputed here with node:crypto', () => {
    for (const v of vectors) {
      for (const expect of [v.expect, v.providerExpect]) {
        if (!expect || expect.canonicalJson === undefined) continue;
        assert.equal(expect.proposalHash, envelopeHash(v.agentName, v.toolName, expect.canonicalJson), `${v.id}: proposalHash`);
      }
    }
  });

  test('every expected canonical JSON agrees with an independent RFC 8785 serializer (V8 JSON.parse, JSON.stringify, String)', () => {
    const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    for (const v of vectors.filter((x) => x.expect.canonicalJson !== undefined)) {
      let value;
      if (v.input === 'value') {
        value = buildValue(v.value).value;
      } else {
        const text = v.input === 'bytesHex' ? decoder.decode(bytesOf(v)) : textOf(v);
        value = JSON.parse(text);
      }
      assert.equal(oracleCanonical(value), v.expect.canonicalJson, `${v.id}: the hand-written canonical JSON disagrees with the oracle`);
      // The canonical form is a fixed point.
      assert.equal(oracleCanonical(JSON.parse(v.expect.canonicalJson)), v.expect.canonicalJson, `${v.id}: not a fixed point`);
    }
  });

  test('the __proto__ vector does not share its hash with the object that lacks the member', () => {
    const byId = new Map(vectors.map((v) => [v.id, v]));
    const withProto = byId.get('objects/proto-is-data').expect;
    const without = byId.get('objects/proto-dropped-differs').expect;
    assert.notEqual(withProto.proposalHash, without.proposalHash);
  });

  test('the negative cases the evidence issue names are all present', () => {
    const ids = new Set(vectors.map((v) => v.id));
    for (const id of [
      'strings/lone-high-escaped',
      'strings/reversed-pair-escaped',
      'strings/high-then-escaped-letter',
      'strings/lone-high-raw',
      'strings/lone-in-key-escaped',
      'objects/duplicate-raw',
      'objects/duplicate-escape-equal',
      'objects/proto-is-data',
      'objects/constructor-prototype',
      'numbers/negative-zero',
      'values/negative-zero',
      'numbers/exponent-from-1e21',
      'numbers/2-pow-53-plus-1',
      'numbers/leading-zero',
      'numbers/overflow',
      'grammar/trailing-word',
      'grammar/bom-in-text',
      'bytes/bom-utf8',
      'bytes/overlong-solidus',
      'limits/arrays-1025',
      'values/getter',
      'values/date',
    ])
      assert.ok(ids.has(id), `missing vector ${id}`);
  });
});

describe('text vectors: prepareToolCall without a schema (provider arguments)', () => {
  runVectorTests(['text', 'textUtf16Hex'], (vector) => {
    const expect = vector.providerExpect ?? vector.expect;
    const result = outcome(() => {
      const prepared = prepareToolCall({ agentName: vector.agentName, toolName: vector.toolName, rawArguments: textOf(vector) });
      return { json: prepared.argsCanonicalJson, hash: prepared.proposalHash };
    });
    check(vector, 'prepareToolCall', result, expect);
  });
});

describe('text vectors: canonicalize(decodeRequest(text))', () => {
  runVectorTests(['text', 'textUtf16Hex'], (vector) => {
    const expect = vector.providerExpect ?? vector.expect;
    let decoded;
    const decoding = outcome(() => {
      decoded = decodeRequest(textOf(vector));
      return {};
    });
    if (!decoding.ok) {
      // decodeRequest reports stage json; a value rule (negative zero) is canonicalize's.
      check(vector, 'decodeRequest', decoding, expect);
      return;
    }
    const result = outcome(() => ({ json: canonicalize(decoded) }));
    if (!result.ok) result.stage = 'snapshot';
    check(vector, 'canonicalize(decodeRequest)', result, expect, { hashed: false });
    if (result.ok) {
      assert.equal(
        proposalHash({ agentName: vector.agentName, toolName: vector.toolName, argsCanonicalJson: result.json }),
        expect.proposalHash,
        `${vector.id} [proposalHash]: hash differs`,
      );
    }
  });
});

describe('text vectors: decodeView(text), the strict snapshot-text path', () => {
  runVectorTests(['text', 'textUtf16Hex'], (vector) => {
    const result = outcome(() => ({ json: canonicalize(decodeView(textOf(vector))) }));
    check(vector, 'decodeView', result, vector.expect, { stageless: true, hashed: false });
  });
});

describe("value vectors: createSnapshot and canonicalize, running none of the value's code", () => {
  runVectorTests(['value'], (vector) => {
    const forSnapshot = buildValue(vector.value);
    const snapshot = outcome(() => {
      const s = createSnapshot({ agentName: vector.agentName, toolName: vector.toolName, value: forSnapshot.value });
      return { json: s.argsCanonicalJson, hash: s.proposalHash };
    });
    check(vector, 'createSnapshot', snapshot, vector.expect);
    assert.deepEqual(forSnapshot.hits, [], `${vector.id} [createSnapshot]: code of the value ran`);
    const forCanonicalize = buildValue(vector.value);
    const canonical = outcome(() => ({ json: canonicalize(forCanonicalize.value) }));
    check(vector, 'canonicalize', canonical, vector.expect, { stageless: true, hashed: false });
    assert.deepEqual(forCanonicalize.hits, [], `${vector.id} [canonicalize]: code of the value ran`);
  });
});

describe('byte vectors: the command line reads the bytes of a file', () => {
  const byteVectors = vectors.filter((v) => v.input === 'bytesHex');
  let tmp;
  /** The runs of each vector, started together (a few processes at a time) before the tests await them. */
  const runs = new Map();
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-vectors-'));
    const queue = [];
    for (const vector of byteVectors) {
      const file = path.join(tmp, `${vector.id.replace(/[^a-z0-9]+/gi, '_')}.json`);
      fs.writeFileSync(file, bytesOf(vector));
      const canonical = queued(queue, ['canonicalize', '--no-newline', file]);
      const hashed = queued(queue, ['hash', '--json', '--agent', vector.agentName, '--tool', vector.toolName, file]);
      runs.set(vector.id, Promise.all([canonical, hashed]));
    }
    for (let i = 0; i < 4; i++) drain(queue);
  });
  after(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  function queued(queue, args) {
    return new Promise((resolve) => queue.push({ args, resolve }));
  }

  function drain(queue) {
    const job = queue.shift();
    if (job === undefined) return;
    execFile(process.execPath, [BIN, ...job.args], { encoding: 'buffer', maxBuffer: 16 << 20, timeout: 60_000 }, (error, stdout, stderr) => {
      job.resolve({ status: error ? error.code : 0, stdout, stderr: stderr.toString('utf8') });
      drain(queue);
    });
  }

  function checkCli(vector, api, run, expect, parse) {
    const where = `${vector.id} [${api}]`;
    const detail = `status ${run.status}, stderr ${JSON.stringify(run.stderr)}`;
    if (expect.canonicalJson !== undefined) {
      assert.equal(run.status, 0, `${where}: expected ${JSON.stringify(expect.canonicalJson)}; ${detail}`);
      parse(run.stdout, where);
    } else {
      assert.equal(run.status, 3, `${where}: expected exit 3 (stage ${expect.stage}, code ${expect.code}); ${detail}; stdout ${run.stdout}`);
      assert.ok(
        run.stderr.endsWith(`(stage ${expect.stage}, code ${expect.code})\n`),
        `${where}: expected stage ${expect.stage} code ${expect.code}; ${detail}`,
      );
    }
  }

  for (const vector of byteVectors) {
    const bug = KNOWN_PACKAGE_BUGS[vector.id];
    test(vector.id, bug ? { todo: `known package bug: ${bug}` } : {}, async () => {
      const [canonical, hashed] = await runs.get(vector.id);
      checkCli(vector, 'cli canonicalize', canonical, vector.expect, (stdout, where) => {
        assert.ok(stdout.equals(Buffer.from(vector.expect.canonicalJson, 'utf8')), `${where}: got ${JSON.stringify(stdout.toString('utf8'))}`);
      });
      const expect = vector.providerExpect ?? vector.expect;
      checkCli(vector, 'cli hash', hashed, expect, (stdout, where) => {
        const out = JSON.parse(stdout.toString('utf8'));
        assert.equal(out.argsCanonicalJson, expect.canonicalJson, `${where}: canonical JSON differs`);
        assert.equal(out.proposalHash, expect.proposalHash, `${where}: proposal hash differs`);
      });
    });
  }
});
