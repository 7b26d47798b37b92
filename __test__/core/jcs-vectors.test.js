'use strict';
// Conformance against published RFC 8785 (JCS) vectors: the reference test data of the
// RFC's author (cyberphone), its Go fork (gowebpki), the older erdtman copies, the
// samples printed in RFC 8785 itself and the ES6 number test file. The vectors live
// outside the project (../shared/jcs-vectors, or $JCS_VECTORS_DIR) and are read in
// place; when they are absent every test here is skipped with the reason printed.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { createHash } = require('node:crypto');

const { canonicalize, createSnapshot, decodeView, proposalHash, SnapshotDomainError } = require('../..');
const { attempt, describeError } = require('../helpers/attempt');

const VECTORS_DIR = process.env.JCS_VECTORS_DIR ? path.resolve(process.env.JCS_VECTORS_DIR) : path.join(__dirname, '..', '..', '..', 'shared', 'jcs-vectors');
const PRESENT = fs.existsSync(VECTORS_DIR) && fs.statSync(VECTORS_DIR).isDirectory();
// The published vectors (RFC 8785's own samples and its author's reference data, with the
// gowebpki and erdtman copies) live outside the repository: ../shared/jcs-vectors beside a
// checkout, or JCS_VECTORS_DIR. Without them these checks skip visibly, except under
// TAS_REQUIRE_SERVICES=1 (.ci/run, which has them), where their absence fails.
const MISSING = `jcs-vectors not found at ${VECTORS_DIR} (set JCS_VECTORS_DIR to run the published vectors)`;
if (!PRESENT && process.env.TAS_REQUIRE_SERVICES === '1') {
  require('node:test').test('the published JCS vectors are present', () => {
    assert.fail(`TAS_REQUIRE_SERVICES=1 and ${MISSING}`);
  });
}
const SKIP = PRESENT ? false : MISSING;

// The ES6 number slice used here and its SHA-256 as published in the upstream README
// (cyberphone/json-canonicalization testdata/README.md), so a truncated or edited slice
// cannot make the test pass vacuously.
const ES6_FILE = path.join('cyberphone-json-canonicalization', 'es6numbers', 'es6testfile-first100000.txt');
const ES6_LINES = 100000;
const ES6_SHA256 = '22776e6d4b49fa294a0d0f349268e5c28808fe7e0cb2bcbe28f63894e494d4c7';

const AGENT = 'jcs-vectors agent';
const MAX_LISTED = 20;

// ---------------------------------------------------------------------------------------
// Helpers

function rel(file) {
  return path.relative(VECTORS_DIR, file);
}

/** The input/output pairs of every vector folder that has input/ and output/. */
function listPairs() {
  const pairs = [];
  for (const folder of fs.readdirSync(VECTORS_DIR).sort()) {
    const inputDir = path.join(VECTORS_DIR, folder, 'input');
    const outputDir = path.join(VECTORS_DIR, folder, 'output');
    if (!fs.existsSync(inputDir) || !fs.existsSync(outputDir)) continue;
    for (const name of fs.readdirSync(inputDir).sort()) {
      if (!name.endsWith('.json')) continue;
      const outhex = path.join(VECTORS_DIR, folder, 'outhex', name.replace(/\.json$/, '.txt'));
      pairs.push({
        folder,
        name,
        input: path.join(inputDir, name),
        output: path.join(outputDir, name),
        outhex: fs.existsSync(outhex) ? outhex : null,
      });
    }
  }
  return pairs;
}

/**
 * The expected canonical bytes of a pair. The erdtman copies are an older variant whose
 * output files may end with a newline that is not part of the canonical form.
 */
function expectedBytes(pair) {
  const bytes = fs.readFileSync(pair.output);
  if (pair.folder.startsWith('erdtman') && bytes.length > 0 && bytes[bytes.length - 1] === 0x0a) {
    return bytes.subarray(0, bytes.length - 1);
  }
  return bytes;
}

/** Hex bytes as written in outhex files: any case, any whitespace between digits. */
function parseHex(text) {
  const digits = text.replace(/\s+/g, '').toLowerCase();
  assert.match(digits, /^(?:[0-9a-f]{2})*$/, 'outhex file holds an even number of hex digits');
  return Buffer.from(digits, 'hex');
}

const bitsView = new DataView(new ArrayBuffer(8));

/** The double whose IEEE-754 bits are `hex` (1 to 16 hex digits, not zero-padded). */
function doubleFromHex(hex) {
  bitsView.setBigUint64(0, BigInt(`0x${hex}`));
  return bitsView.getFloat64(0);
}

function assertDomainError(fn, code, where) {
  const result = attempt(fn);
  assert.ok(!result.ok, `${where}: expected SnapshotDomainError ${code}, got ${JSON.stringify(result.value)}`);
  assert.ok(result.error instanceof SnapshotDomainError, `${where}: expected SnapshotDomainError ${code}, got ${describeError(result.error)}`);
  assert.equal(result.error.code, code, `${where}: wrong error code`);
}

function sha256Hex(text) {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function envelopeHash(agentName, toolName, json) {
  return sha256Hex(
    `{"agentName":${JSON.stringify(agentName)},"argsCanonicalJson":${JSON.stringify(json)},"kind":"tool","toolName":${JSON.stringify(toolName)}}`,
  );
}

/** Members of a flat object in the order they appear in JSON text (JSON.parse reorders integer keys). */
function membersInTextOrder(json) {
  const tokens = json.match(/"(?:[^"\\]|\\.)*"/g) || [];
  const members = [];
  for (let i = 0; i + 1 < tokens.length; i += 2) members.push([JSON.parse(tokens[i]), JSON.parse(tokens[i + 1])]);
  return members;
}

function listFailures(failures, total) {
  const shown = failures.slice(0, MAX_LISTED).join('\n  ');
  const more = failures.length > MAX_LISTED ? `\n  ... and ${failures.length - MAX_LISTED} more` : '';
  return `${failures.length} of ${total} cases failed:\n  ${shown}${more}`;
}

// ---------------------------------------------------------------------------------------
// Input/output pairs

test('the vector folders hold input/output pairs to test', { skip: SKIP }, (t) => {
  const pairs = listPairs();
  const folders = [...new Set(pairs.map((pair) => pair.folder))];
  t.diagnostic(`vectors: ${VECTORS_DIR}`);
  t.diagnostic(`${pairs.length} pairs in ${folders.join(', ')}`);
  assert.ok(pairs.length > 0, `no input/output pairs under ${VECTORS_DIR}`);
  for (const pair of pairs) {
    assert.ok(fs.existsSync(pair.output), `${rel(pair.input)} has no output file ${rel(pair.output)}`);
  }
});

test('every published input canonicalizes to the exact bytes of its output file', { skip: SKIP }, async (t) => {
  for (const pair of listPairs()) {
    await t.test(`${pair.folder}/${pair.name}`, () => {
      const where = rel(pair.input);
      const expected = expectedBytes(pair);
      const result = attempt(() => canonicalize(JSON.parse(fs.readFileSync(pair.input, 'utf8'))));
      assert.ok(result.ok, `${where}: canonicalize threw ${result.ok ? '' : describeError(result.error)}`);
      assert.equal(result.value, expected.toString('utf8'), `${where}: canonical JSON differs from ${rel(pair.output)}`);
      assert.ok(Buffer.from(result.value, 'utf8').equals(expected), `${where}: UTF-8 bytes differ from ${rel(pair.output)}`);
    });
  }
});

test('every outhex file spells the UTF-8 bytes of the canonical output', { skip: SKIP }, async (t) => {
  const withHex = listPairs().filter((pair) => pair.outhex !== null);
  assert.ok(withHex.length > 0, 'no outhex files found');
  for (const pair of withHex) {
    await t.test(`${pair.folder}/outhex/${path.basename(pair.outhex)}`, () => {
      const where = rel(pair.outhex);
      const hexBytes = parseHex(fs.readFileSync(pair.outhex, 'utf8'));
      assert.equal(hexBytes.toString('hex'), expectedBytes(pair).toString('hex'), `${where}: vector inconsistent with ${rel(pair.output)}`);
      const actual = Buffer.from(canonicalize(JSON.parse(fs.readFileSync(pair.input, 'utf8'))), 'utf8');
      assert.equal(actual.toString('hex'), hexBytes.toString('hex'), `${where}: canonical bytes of ${rel(pair.input)} differ`);
    });
  }
});

test('a snapshot of every published input holds its output and decodes back to the same value', { skip: SKIP }, async (t) => {
  for (const pair of listPairs()) {
    await t.test(`${pair.folder}/${pair.name}`, () => {
      const where = rel(pair.input);
      const expected = expectedBytes(pair).toString('utf8');
      const value = JSON.parse(fs.readFileSync(pair.input, 'utf8'));
      const toolName = `${pair.folder}/${pair.name}`;
      const snapshot = createSnapshot({ agentName: AGENT, toolName, value });
      assert.ok(Object.isFrozen(snapshot), `${where}: snapshot is not frozen`);
      assert.equal(snapshot.agentName, AGENT, `${where}: agentName`);
      assert.equal(snapshot.toolName, toolName, `${where}: toolName`);
      assert.equal(snapshot.argsCanonicalJson, expected, `${where}: argsCanonicalJson differs from ${rel(pair.output)}`);
      assert.equal(snapshot.proposalHash, envelopeHash(AGENT, toolName, expected), `${where}: proposalHash differs from SHA-256 of the envelope`);
      assert.equal(proposalHash(snapshot), snapshot.proposalHash, `${where}: proposalHash() disagrees with createSnapshot`);

      const fromString = decodeView(snapshot.argsCanonicalJson);
      const fromSnapshot = decodeView(snapshot);
      assert.deepStrictEqual(fromString, value, `${where}: decodeView(argsCanonicalJson) differs from the parsed input`);
      assert.deepStrictEqual(fromSnapshot, value, `${where}: decodeView(snapshot) differs from the parsed input`);
      if (typeof value === 'object' && value !== null) {
        assert.notStrictEqual(fromSnapshot, decodeView(snapshot), `${where}: decodeView(snapshot) returned a shared value`);
      }
      assert.equal(canonicalize(fromString), expected, `${where}: canonicalize(decodeView(argsCanonicalJson))`);
      assert.equal(canonicalize(fromSnapshot), expected, `${where}: canonicalize(decodeView(snapshot))`);
    });
  }
});

test('every published input text passes the strict decoder and canonicalizes to its output', { skip: SKIP }, async (t) => {
  for (const pair of listPairs()) {
    await t.test(`${pair.folder}/${pair.name}`, () => {
      const where = rel(pair.input);
      const text = fs.readFileSync(pair.input, 'utf8');
      const result = attempt(() => decodeView(text));
      assert.ok(result.ok, `${where}: decodeView threw ${result.ok ? '' : describeError(result.error)}`);
      assert.deepStrictEqual(result.value, JSON.parse(text), `${where}: decodeView differs from JSON.parse`);
      assert.equal(canonicalize(result.value), expectedBytes(pair).toString('utf8'), `${where}: canonicalize(decodeView(input))`);
    });
  }
});

// ---------------------------------------------------------------------------------------
// RFC 8785 sample data

function rfcFile(name) {
  return path.join(VECTORS_DIR, 'rfc8785', name);
}

test('the RFC 8785 section 3.2.2 sample canonicalizes to the section 3.2.3 result and 3.2.4 bytes', { skip: SKIP }, () => {
  const inputFile = rfcFile('sec3.2.2-sample.input.json');
  const text = fs.readFileSync(inputFile, 'utf8');
  const expected = fs.readFileSync(rfcFile('sec3.2.3-sample.canonical.json'), 'utf8');
  const hex = parseHex(fs.readFileSync(rfcFile('sec3.2.4-sample.utf8.hex'), 'utf8'));
  assert.equal(hex.toString('utf8'), expected, 'rfc8785/sec3.2.4-sample.utf8.hex: vector inconsistent with sec3.2.3-sample.canonical.json');

  const json = canonicalize(JSON.parse(text));
  assert.equal(json, expected, `${rel(inputFile)}: canonical JSON differs from rfc8785/sec3.2.3-sample.canonical.json`);
  assert.equal(Buffer.from(json, 'utf8').toString('hex'), hex.toString('hex'), `${rel(inputFile)}: bytes differ from rfc8785/sec3.2.4-sample.utf8.hex`);
  assert.equal(canonicalize(decodeView(text)), expected, `${rel(inputFile)}: canonicalize(decodeView(input))`);
  const snapshot = createSnapshot({ agentName: AGENT, toolName: 'rfc8785-sample', value: JSON.parse(text) });
  assert.equal(snapshot.argsCanonicalJson, expected, `${rel(inputFile)}: createSnapshot argsCanonicalJson`);
  assert.deepStrictEqual(decodeView(snapshot.argsCanonicalJson), JSON.parse(text), `${rel(inputFile)}: decodeView round trip`);
});

test('the RFC 8785 section 3.2.3 sorting sample orders its keys by UTF-16 code units', { skip: SKIP }, () => {
  const inputFile = rfcFile('sec3.2.3-sorting.input.json');
  const text = fs.readFileSync(inputFile, 'utf8');
  const expected = fs.readFileSync(rfcFile('sec3.2.3-sorting.canonical.json'), 'utf8');
  const valueOrder = fs
    .readFileSync(rfcFile('sec3.2.3-sorting.expected-value-order.txt'), 'utf8')
    .split('\n')
    .filter((line) => line !== '');

  const json = canonicalize(JSON.parse(text));
  assert.deepEqual(
    membersInTextOrder(json).map(([, value]) => value),
    valueOrder,
    `${rel(inputFile)}: values not in the order of rfc8785/sec3.2.3-sorting.expected-value-order.txt`,
  );
  assert.equal(json, expected, `${rel(inputFile)}: canonical JSON differs from rfc8785/sec3.2.3-sorting.canonical.json`);
  assert.equal(canonicalize(decodeView(text)), expected, `${rel(inputFile)}: canonicalize(decodeView(input))`);
});

test('the RFC 8785 Appendix B numbers serialize as the table says, in the strict domain', { skip: SKIP }, async (t) => {
  const file = rfcFile('appendixB-numbers.csv');
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  assert.equal(lines[0], 'ieee754_hex,expected_jcs,comment', `${rel(file)}: unexpected header`);
  let rows = 0;
  for (let i = 1; i < lines.length; i++) {
    if (lines[i] === '') continue;
    const [hex, expected, ...comment] = lines[i].split(',');
    const where = `${rel(file)}:${i + 1} (${hex}${comment.join(',') ? `, ${comment.join(',')}` : ''})`;
    const value = doubleFromHex(hex);
    rows++;
    await t.test(`row ${i + 1}: ${hex} -> ${expected}`, () => {
      if (expected === '<ERROR>') {
        assert.ok(!Number.isFinite(value), `${where}: an <ERROR> row must be NaN or infinite`);
        assertDomainError(() => canonicalize(value), 'non_finite_number', where);
        assertDomainError(() => canonicalize([value]), 'non_finite_number', `${where} inside an array`);
        return;
      }
      if (Object.is(value, -0)) {
        // Plain RFC 8785 prints "0"; RFC-0016's snapshot domain rejects negative zero.
        assert.equal(expected, '0', `${where}: the RFC prints negative zero as 0`);
        assertDomainError(() => canonicalize(value), 'negative_zero', where);
        assertDomainError(() => canonicalize({ n: value }), 'negative_zero', `${where} inside an object`);
        return;
      }
      assert.equal(canonicalize(value), expected, where);
      assert.equal(canonicalize([value, { n: value }]), `[${expected},{"n":${expected}}]`, `${where} nested`);
      assert.ok(Object.is(decodeView(expected), value), `${where}: decodeView(${expected}) is not the same double`);
    });
  }
  assert.equal(rows, 26, `${rel(file)}: expected the 26 rows of Appendix B`);
});

// ---------------------------------------------------------------------------------------
// ES6 number test file

test('the first 100000 lines of the ES6 number test file serialize exactly as published', { skip: SKIP }, (t) => {
  const file = path.join(VECTORS_DIR, ES6_FILE);
  const started = process.hrtime.bigint();
  const content = fs.readFileSync(file, 'utf8');
  assert.equal(sha256Hex(content), ES6_SHA256, `${rel(file)}: SHA-256 differs from the published value`);
  const lines = content.split('\n');
  assert.equal(lines.pop(), '', `${rel(file)}: the file must end with a newline`);
  assert.equal(lines.length, ES6_LINES, `${rel(file)}: line count`);

  const failures = [];
  const batchValues = [];
  const batchExpected = [];
  let negativeZeros = 0;
  let nonFinite = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const comma = line.indexOf(',');
    const hex = line.slice(0, comma);
    const expected = line.slice(comma + 1);
    const where = `${rel(file)}:${i + 1} ${hex} expected ${expected}`;
    if (comma <= 0 || !/^[0-9a-f]{1,16}$/.test(hex)) {
      failures.push(`${rel(file)}:${i + 1}: malformed line ${JSON.stringify(line)}`);
      continue;
    }
    const value = doubleFromHex(hex);
    let code = null;
    if (Object.is(value, -0)) code = 'negative_zero';
    else if (!Number.isFinite(value)) code = 'non_finite_number';
    const result = attempt(() => canonicalize(value));
    if (code !== null) {
      if (code === 'negative_zero') negativeZeros++;
      else nonFinite++;
      if (result.ok) failures.push(`${where}: got ${result.value}, expected SnapshotDomainError ${code}`);
      else if (!(result.error instanceof SnapshotDomainError) || result.error.code !== code) {
        failures.push(`${where}: got ${describeError(result.error)}, expected SnapshotDomainError ${code}`);
      }
      continue;
    }
    if (!result.ok) {
      failures.push(`${where}: threw ${describeError(result.error)}`);
      continue;
    }
    if (result.value !== expected) {
      failures.push(`${where}: got ${result.value}`);
      continue;
    }
    const decoded = attempt(() => decodeView(expected));
    if (!decoded.ok) failures.push(`${where}: decodeView threw ${describeError(decoded.error)}`);
    else if (!Object.is(decoded.value, value)) failures.push(`${where}: decodeView gave ${decoded.value}`);
    batchValues.push(value);
    batchExpected.push(expected);
  }
  assert.ok(failures.length === 0, listFailures(failures, lines.length));
  // The same numbers as members of one array: the container path formats them alike.
  assert.equal(canonicalize(batchValues), `[${batchExpected.join(',')}]`, `${rel(file)}: all finite lines as one array`);

  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  t.diagnostic(`${lines.length} lines: ${batchValues.length} formatted, ${negativeZeros} negative zero, ${nonFinite} non-finite; ${ms.toFixed(0)} ms`);
  // The published file contains negative zero once (line 2) and, by construction, no NaN or infinity.
  assert.equal(negativeZeros, 1, `${rel(file)}: expected negative zero exactly once (line 2)`);
});
