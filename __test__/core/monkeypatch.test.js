'use strict';
// Monkey-patching after load cannot change a decision or an output, and no lying
// replacement is ever called by the package. Each variant runs in its own child process
// (core/monkeypatch-child.js), so patches cannot leak into other tests: the child loads the
// package, runs ~450 cases on pristine built-ins, patches, runs them again, restores and
// reports. The cases cover canonicalize, createSnapshot, decodeView (snapshot, text,
// stored copy), decodeRequest, prepareToolCall (policy and execution views, schema
// errors), proposalHash and authorizeToolCall (allow, require_approval, mutation), on
// valid payloads (support/payloads.js, big strings, __proto__ keys, MAX_DEPTH nesting)
// and on one value or text per error code, with and without includePath.
//
// Variants (see core/monkeypatch-child.js): lying built-ins (Object.*, Reflect.*, Array.*,
// Array.prototype.*, JSON.*, String.prototype.*, Function.prototype.call/apply/bind,
// Set/WeakSet/WeakMap methods, hasOwnProperty, Array.prototype[Symbol.iterator], a
// getter for Array.prototype.constructor, Array[Symbol.species], structuredClone,
// util.types.*), counting accessors on Object.prototype for payload keys, for the
// package's own field names, frozen intrinsics after load, node --frozen-intrinsics, and
// the error's util.inspect hook.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');

const CHILD = path.join(__dirname, 'monkeypatch-child.js');

function runChild(variant, nodeFlags = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, CHILD, variant], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0 || signal !== null) {
        reject(new Error(`child ${variant} ${nodeFlags.join(' ')} exited with ${code} (${signal}): ${stderr.slice(0, 2000)}`));
        return;
      }
      resolve(JSON.parse(stdout));
    });
  });
}

// All children start at once; each test awaits its own.
const VARIANTS = ['builtins', 'payload-setters', 'known-setters', 'frozen', 'none', 'inspect', 'selftest'];
const runs = {};
for (const variant of VARIANTS) runs[variant] = runChild(variant);
runs['--frozen-intrinsics'] = runChild('none', ['--frozen-intrinsics']);
// Unhandled rejections are reported by the test awaiting them, not by the process.
for (const key of Object.keys(runs)) runs[key].catch(() => {});

function describeHits(report) {
  return Object.entries(report.hits)
    .map(([label, n]) => `${label} x${n} (first call ${String(report.firstHit[label]).split('\n').slice(1, 4).join(' <- ')})`)
    .join('; ');
}

function assertClean(report, label) {
  assert.ok(report.cases > 400, `${label}: only ${report.cases} cases ran`);
  assert.ok(report.errors > 100, `${label}: the cases include error paths (${report.errors} errors)`);
  assert.deepEqual(report.hits, {}, `${label}: patched functions were called: ${describeHits(report)}`);
  const shown = report.mismatches
    .slice(0, 5)
    .map((m) => `${m.name}\n    before: ${m.before}\n    after:  ${m.after}`)
    .join('\n  ');
  assert.equal(report.mismatches.length, 0, `${label}: ${report.mismatches.length} outputs changed:\n  ${shown}`);
  assert.equal(report.valueCodeRuns, 0, `${label}: code planted in values (Proxy traps, getters) ran ${report.valueCodeRuns} time(s)`);
  assert.equal(report.baselineValueCodeRuns, 0, `${label}: code planted in values ran during the baseline`);
  assert.equal(report.authorize[0], report.authorize[1], `${label}: authorizeToolCall outcomes changed`);
}

describe('monkey-patching after load changes no decision and no output', () => {
  test('the harness notices a patched built-in that is called (self-test)', async () => {
    const report = await runs.selftest;
    assert.equal(report.hits['Array.isArray'], 1, 'the self-test case called the lying Array.isArray once');
    assert.deepEqual(
      report.mismatches.map((m) => m.name),
      ['selftest: a direct call of a patched built-in'],
      'only the self-test case changed',
    );
  });

  test('lying, counting replacements of Object, Reflect, Array, JSON, String, Function.prototype, Set, WeakMap, structuredClone and util.types', async (t) => {
    const report = await runs.builtins;
    assertClean(report, 'builtins');
    t.diagnostic(`${report.cases} cases (${report.errors} errors) identical before and after patching; no lying function ran`);
  });

  test('counting accessors on Object.prototype for common payload keys (a, __proto__, query, url, body, id, name, value, ...)', async () => {
    assertClean(await runs['payload-setters'], 'payload setters');
  });

  test('counting accessors on Object.prototype for path, code, get, set and the PreparedToolCall field names', async () => {
    assertClean(await runs['known-setters'], 'known setters');
  });

  test('Object.prototype, Array.prototype, Function.prototype and the namespaces frozen after load', async () => {
    assertClean(await runs.frozen, 'frozen intrinsics');
  });

  test('node --frozen-intrinsics gives the same outputs as a plain run', async () => {
    const [frozen, plain] = await Promise.all([runs['--frozen-intrinsics'], runs.none]);
    assertClean(plain, 'plain run');
    assert.equal(frozen.baseline.length, plain.baseline.length, '--frozen-intrinsics: case count');
    for (let i = 0; i < plain.baseline.length; i++) {
      assert.equal(frozen.baseline[i], plain.baseline[i], '--frozen-intrinsics: a case differs from the plain run');
    }
    assert.equal(frozen.authorize[0], plain.authorize[0], '--frozen-intrinsics: authorizeToolCall outcomes');
  });

  test('util.inspect of a ToolArgumentsValidationError calls no patchable built-in', async () => {
    const report = await runs.inspect;
    assert.deepEqual(report.hits, {}, `the inspect hook called: ${describeHits(report)}`);
    assert.match(report.rendered, /stage: 'json'/, 'the rendering names the stage');
    assert.match(report.rendered, /code: 'duplicate_key'/, 'the rendering names the code');
  });
});
