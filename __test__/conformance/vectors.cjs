'use strict';
// Published RFC 8785 vectors, read in place from ../shared/jcs-vectors (or
// $JCS_VECTORS_DIR): every input/output pair (and its outhex bytes), the RFC's own
// samples and Appendix B, and the first 100,000 lines of the ES6 number file, whose
// SHA-256 is the one published upstream. Absent vectors are a visible skip.

const fs = require('node:fs');
const path = require('node:path');
const { createHash } = require('node:crypto');

const ES6_FILE = path.join('cyberphone-json-canonicalization', 'es6numbers', 'es6testfile-first100000.txt');
const ES6_SHA256 = '22776e6d4b49fa294a0d0f349268e5c28808fe7e0cb2bcbe28f63894e494d4c7';
const AGENT = 'conformance agent';

function sha256(text) {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The proposal hash as README's API section defines it, computed with node:crypto. */
function envelopeHash(agentName, toolName, json) {
  return sha256(`{"agentName":${JSON.stringify(agentName)},"argsCanonicalJson":${JSON.stringify(json)},"kind":"tool","toolName":${JSON.stringify(toolName)}}`);
}

const bits = new DataView(new ArrayBuffer(8));
function doubleFromHex(hex) {
  bits.setBigUint64(0, BigInt(`0x${hex}`));
  return bits.getFloat64(0);
}

module.exports = function vectors(h, pkg, root) {
  const { assert, attempt, check, skip } = h;
  const { canonicalize, createSnapshot, decodeView, proposalHash, SnapshotDomainError } = pkg;
  const dir = process.env.JCS_VECTORS_DIR ? path.resolve(process.env.JCS_VECTORS_DIR) : path.join(root, '..', 'shared', 'jcs-vectors');
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    skip('vectors', `published RFC 8785 vectors not found at ${dir} (set JCS_VECTORS_DIR)`);
    return;
  }
  const rel = (file) => path.relative(dir, file);

  const pairs = [];
  for (const folder of fs.readdirSync(dir).sort()) {
    const input = path.join(dir, folder, 'input');
    const output = path.join(dir, folder, 'output');
    if (!fs.existsSync(input) || !fs.existsSync(output)) continue;
    for (const name of fs.readdirSync(input).sort()) {
      if (!name.endsWith('.json')) continue;
      const outhex = path.join(dir, folder, 'outhex', name.replace(/\.json$/, '.txt'));
      pairs.push({ folder, name, input: path.join(input, name), output: path.join(output, name), outhex: fs.existsSync(outhex) ? outhex : null });
    }
  }
  check('vectors: the folders hold input/output pairs', () => assert.ok(pairs.length >= 20, `only ${pairs.length} pairs under ${dir}`));

  for (const pair of pairs) {
    check(`vectors: ${pair.folder}/${pair.name}`, () => {
      const where = rel(pair.input);
      let expected = fs.readFileSync(pair.output);
      // The erdtman copies are an older variant whose output may end with a newline.
      if (pair.folder.startsWith('erdtman') && expected[expected.length - 1] === 0x0a) expected = expected.subarray(0, expected.length - 1);
      const text = fs.readFileSync(pair.input, 'utf8');
      const value = JSON.parse(text);
      const json = canonicalize(value);
      assert.equal(json, expected.toString('utf8'), `${where}: canonical JSON`);
      assert.equal(Buffer.from(json, 'utf8').toString('hex'), expected.toString('hex'), `${where}: UTF-8 bytes`);
      if (pair.outhex !== null) {
        const hex = fs.readFileSync(pair.outhex, 'utf8').replace(/\s+/g, '').toLowerCase();
        assert.equal(Buffer.from(json, 'utf8').toString('hex'), hex, `${rel(pair.outhex)}: bytes`);
      }
      const toolName = `${pair.folder}/${pair.name}`;
      const snapshot = createSnapshot({ agentName: AGENT, toolName, value });
      assert.equal(snapshot.argsCanonicalJson, json, `${where}: snapshot JSON`);
      assert.equal(snapshot.proposalHash, envelopeHash(AGENT, toolName, json), `${where}: proposal hash against SHA-256 of the envelope`);
      assert.equal(proposalHash(snapshot), snapshot.proposalHash, `${where}: proposalHash()`);
      assert.deepEqual(decodeView(snapshot), value, `${where}: decodeView(snapshot)`);
      assert.deepEqual(decodeView(text), value, `${where}: decodeView(input text) equals JSON.parse`);
      assert.equal(canonicalize(decodeView(json)), json, `${where}: canonical JSON is a fixed point`);
    });
  }

  const rfc = (name) => path.join(dir, 'rfc8785', name);
  check('vectors: RFC 8785 section 3.2.2 sample gives the 3.2.3 text and 3.2.4 bytes', () => {
    const json = canonicalize(JSON.parse(fs.readFileSync(rfc('sec3.2.2-sample.input.json'), 'utf8')));
    assert.equal(json, fs.readFileSync(rfc('sec3.2.3-sample.canonical.json'), 'utf8'), 'canonical text');
    const hex = fs.readFileSync(rfc('sec3.2.4-sample.utf8.hex'), 'utf8').replace(/\s+/g, '').toLowerCase();
    assert.equal(Buffer.from(json, 'utf8').toString('hex'), hex, 'UTF-8 bytes');
  });
  check('vectors: RFC 8785 section 3.2.3 sorting sample (non-ASCII keys by UTF-16 code units)', () => {
    const json = canonicalize(JSON.parse(fs.readFileSync(rfc('sec3.2.3-sorting.input.json'), 'utf8')));
    assert.equal(json, fs.readFileSync(rfc('sec3.2.3-sorting.canonical.json'), 'utf8'), 'canonical text');
    const order = fs
      .readFileSync(rfc('sec3.2.3-sorting.expected-value-order.txt'), 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    const values = (json.match(/"(?:[^"\\]|\\.)*"/g) || []).filter((_, i) => i % 2 === 1).map((token) => JSON.parse(token));
    assert.deepEqual(values, order, 'value order');
  });
  check('vectors: RFC 8785 Appendix B numbers (26 rows)', () => {
    const lines = fs.readFileSync(rfc('appendixB-numbers.csv'), 'utf8').split('\n');
    assert.equal(lines[0], 'ieee754_hex,expected_jcs,comment', 'header');
    let rows = 0;
    for (let i = 1; i < lines.length; i++) {
      if (lines[i] === '') continue;
      rows++;
      const [hex, expected] = lines[i].split(',');
      const value = doubleFromHex(hex);
      const where = `appendixB-numbers.csv:${i + 1} ${hex}`;
      if (expected === '<ERROR>' || Object.is(value, -0)) {
        const result = attempt(() => canonicalize([value]));
        assert.ok(!result.ok && result.error instanceof SnapshotDomainError, `${where}: expected a SnapshotDomainError`);
        assert.equal(result.error.code, Object.is(value, -0) ? 'negative_zero' : 'non_finite_number', `${where}: code`);
        continue;
      }
      assert.equal(canonicalize(value), expected, where);
      assert.ok(Object.is(decodeView(expected), value), `${where}: decodeView gives the same double`);
    }
    assert.equal(rows, 26, 'rows');
  });
  check('vectors: the first 100,000 lines of the ES6 number file', () => {
    const content = fs.readFileSync(path.join(dir, ES6_FILE), 'utf8');
    assert.equal(sha256(content), ES6_SHA256, 'SHA-256 of the file as published upstream');
    const lines = content.split('\n');
    lines.pop();
    assert.equal(lines.length, 100000, 'line count');
    const values = [];
    const expected = [];
    let negativeZeros = 0;
    for (let i = 0; i < lines.length; i++) {
      const comma = lines[i].indexOf(',');
      const value = doubleFromHex(lines[i].slice(0, comma));
      if (Object.is(value, -0)) {
        negativeZeros++;
        continue;
      }
      values.push(value);
      expected.push(lines[i].slice(comma + 1));
    }
    assert.equal(negativeZeros, 1, 'negative zero appears once (line 2)');
    const json = canonicalize(values);
    if (json !== `[${expected.join(',')}]`) {
      const got = json.slice(1, -1).split(',');
      const at = got.findIndex((text, i) => text !== expected[i]);
      assert.equal(got[at], expected[at], `first differing number (index ${at}, ${values[at]})`);
    }
    // One by one for a sample, through the scalar path.
    for (let i = 0; i < values.length; i += 97) assert.equal(canonicalize(values[i]), expected[i], `number ${values[i]}`);
  });
};
