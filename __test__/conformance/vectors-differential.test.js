'use strict';
// The conformance vectors (conformance-vectors/) through two other RFC 8785
// implementations: the npm package `canonicalize` (a devDependency) and the Rust crate
// `serde_json_canonicalizer` (a dev-dependency, run by tests/conformance_vectors.rs).
// This test REPORTS, as diagnostics, where they accept what a vector refuses, refuse
// what it accepts, or write other bytes; it never fails on a finding. Only a crash of
// the harness fails (the npm package cannot be loaded, cargo is present but its run
// breaks, the report is malformed). Without cargo, the Rust half is skipped visibly.
//
// How each implementation is fed, as an application typically would:
// - npm canonicalize takes a JavaScript value: text vectors go through JSON.parse (which
//   keeps the last of duplicate names, turns 1e400 into Infinity and accepts lone
//   surrogates), byte vectors through Buffer#toString('utf8') (invalid bytes become
//   U+FFFD) and JSON.parse, value vectors are built from their description.
// - serde_json_canonicalizer: text through its `pipe` (serde_json::from_str), bytes
//   through serde_json::from_slice and `to_string`. A text that is not well-formed
//   UTF-16 has no Rust string and is reported as not run.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { loadVectors, textOf, bytesOf, buildValue } = require('./vectors-support');

const ROOT = path.join(__dirname, '..', '..');
const { vectors } = loadVectors();

function expected(vector) {
  return vector.expect.canonicalJson !== undefined ? short(vector.expect.canonicalJson) : `refused (${vector.expect.stage} ${vector.expect.code})`;
}

/** A verdict like the Rust reporter's: agrees, accepts what the vector refuses, ... */
function verdictOf(vector, result) {
  const json = vector.expect.canonicalJson;
  if (result.ok) {
    if (json === undefined) return 'accepts what the vector refuses';
    return result.output === json ? 'agrees' : 'different bytes';
  }
  return json === undefined ? 'agrees' : 'refuses what the vector accepts';
}

function short(text, max = 80) {
  const shown = JSON.stringify(text);
  return shown.length > max ? `${shown.slice(0, max)}...` : shown;
}

function report(t, name, findings, total) {
  const byVerdict = {};
  for (const finding of findings) byVerdict[finding.verdict] = (byVerdict[finding.verdict] || 0) + 1;
  const agree = total - findings.length;
  t.diagnostic(`${name}: ${agree} of ${total} vectors agree; ${JSON.stringify(byVerdict)}`);
  for (const finding of findings) {
    t.diagnostic(`${name}: ${finding.id}: ${finding.verdict}: expected ${expected(finding.vector)}, got ${finding.got}`);
  }
}

test('npm canonicalize on every vector (reported, never failed)', async (t) => {
  const { default: canonicalize } = await import('canonicalize');
  assert.equal(typeof canonicalize, 'function', 'the npm package canonicalize loads');
  const findings = [];
  for (const vector of vectors) {
    let result;
    let ran = [];
    try {
      let value;
      if (vector.input === 'value') {
        const built = buildValue(vector.value);
        value = built.value;
        ran = built.hits;
      } else if (vector.input === 'bytesHex') {
        value = JSON.parse(bytesOf(vector).toString('utf8'));
      } else {
        value = JSON.parse(textOf(vector));
      }
      const output = canonicalize(value);
      result = typeof output === 'string' ? { ok: true, output } : { ok: false, error: `returned ${String(output)}` };
    } catch (error) {
      result = { ok: false, error: `${error && error.name}: ${error && error.message}` };
    }
    const verdict = verdictOf(vector, result);
    const got = result.ok ? short(result.output) : `error (${short(result.error, 60)})`;
    if (verdict !== 'agrees') findings.push({ id: vector.id, vector, verdict, got });
    if (ran.length > 0) findings.push({ id: vector.id, vector, verdict: 'ran code of the value', got: ran.join(', ') });
  }
  report(t, 'npm canonicalize', findings, vectors.length);
});

function findCargo() {
  const probe = spawnSync('cargo', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? probe.stdout.trim() : null;
}

test('serde_json_canonicalizer (Rust) on every text and byte vector (reported, never failed)', (t) => {
  const cargo = findCargo();
  if (cargo === null) {
    t.skip('cargo is not on PATH: the Rust half of the differential run needs the Rust toolchain (it runs tests/conformance_vectors.rs)');
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-differential-'));
  const out = path.join(dir, 'report.jsonl');
  try {
    // The test binary is usually built already by `cargo test` (npm test runs it first).
    const run = spawnSync(
      'cargo',
      ['test', '--quiet', '--test', 'conformance_vectors', '--', '--exact', 'serde_json_canonicalizer_on_the_vectors_is_reported_never_failed'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, TAS_VECTORS_DIFFERENTIAL_OUT: out },
        timeout: 900_000,
        maxBuffer: 64 << 20,
      },
    );
    assert.equal(run.status, 0, `${cargo}: the differential run failed (status ${run.status}, signal ${run.signal}):\n${run.stdout}\n${run.stderr}`);
    const byId = new Map(vectors.map((v) => [v.id, v]));
    const lines = fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const textAndBytes = vectors.filter((v) => v.input !== 'value');
    assert.equal(lines.length, textAndBytes.length, 'one report line per text and byte vector');
    const findings = [];
    for (const line of lines) {
      const vector = byId.get(line.id);
      assert.ok(vector, `the report names an unknown vector ${line.id}`);
      if (line.verdict === 'agrees') continue;
      const got = line.output !== null ? short(line.output) : `error (${short(line.error, 60)})`;
      findings.push({ id: line.id, vector, verdict: line.verdict, got });
    }
    report(t, 'serde_json_canonicalizer', findings, lines.length);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
