'use strict';
// Monkey-patching after load changes no decision and no output, and no lying replacement
// is ever called: __test__/core/monkeypatch-child.js runs ~450 cases on pristine built-ins,
// patches (lying, counting replacements of Object, Reflect, Array, JSON, String,
// Function.prototype, Set, WeakMap, structuredClone, util.types; counting accessors on
// Object.prototype; frozen intrinsics), runs them again and reports. Each variant runs in
// a child process of the same runtime, so that patches cannot leak into this run.

const path = require('node:path');
const { execFile } = require('node:child_process');
const { childCommand } = require('./runtime.cjs');

const CHILD = path.join(__dirname, 'monkeypatch-child.cjs');
const VARIANTS = ['builtins', 'payload-setters', 'known-setters', 'frozen', 'inspect', 'selftest'];

function runChild(variant) {
  const [command, args] = childCommand(CHILD, [variant]);
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 64 << 20, timeout: 120000 }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`child ${variant} failed (${error.code ?? error.signal}): ${String(stderr).slice(0, 1500)}`));
        return;
      }
      try {
        resolve(JSON.parse(stdout));
      } catch {
        reject(new Error(`child ${variant} printed no report: ${String(stdout).slice(0, 300)} ${String(stderr).slice(0, 300)}`));
      }
    });
  });
}

module.exports = function monkeypatch(h) {
  const { assert, check } = h;
  let runs = null;
  const start = () => {
    if (runs === null) {
      runs = {};
      for (const variant of VARIANTS) {
        runs[variant] = runChild(variant);
        runs[variant].catch(() => {});
      }
    }
    return runs;
  };

  function assertClean(report, label) {
    assert.ok(report.cases > 400, `${label}: only ${report.cases} cases ran`);
    assert.ok(report.errors > 100, `${label}: only ${report.errors} error cases ran`);
    const hits = Object.entries(report.hits)
      .map(([name, n]) => `${name} x${n}`)
      .join(', ');
    assert.equal(hits, '', `${label}: patched functions were called`);
    const changed = report.mismatches
      .slice(0, 3)
      .map((m) => `${m.name} (before ${m.before}, after ${m.after})`)
      .join('; ');
    assert.equal(report.mismatches.length, 0, `${label}: outputs changed: ${changed}`);
    assert.equal(report.valueCodeRuns, 0, `${label}: code planted in values ran`);
    assert.equal(report.baselineValueCodeRuns, 0, `${label}: code planted in values ran during the baseline`);
    assert.equal(report.authorize[0], report.authorize[1], `${label}: authorizeToolCall outcomes changed`);
  }

  check('monkeypatch: the harness notices a patched built-in that is called (self-test)', async () => {
    const report = await start().selftest;
    assert.equal(report.hits['Array.isArray'], 1, 'the self-test case called the lying Array.isArray once');
    assert.equal(report.mismatches.map((m) => m.name).join(), 'selftest: a direct call of a patched built-in', 'only the self-test case changed');
  });
  check('monkeypatch: lying, counting replacements of the built-ins', async () => assertClean(await start().builtins, 'builtins'));
  check('monkeypatch: counting accessors on Object.prototype for payload keys', async () => assertClean(await start()['payload-setters'], 'payload setters'));
  check("monkeypatch: counting accessors on Object.prototype for the package's own field names", async () =>
    assertClean(await start()['known-setters'], 'known setters'),
  );
  check('monkeypatch: intrinsics frozen after load', async () => assertClean(await start().frozen, 'frozen'));
  check('monkeypatch: util.inspect of a ToolArgumentsValidationError calls no patchable built-in', async () => {
    const report = await start().inspect;
    assert.equal(Object.keys(report.hits).join(), '', 'the inspect hook called patched built-ins');
    assert.match(report.rendered, /stage: 'json'/, 'the rendering names the stage');
    assert.match(report.rendered, /code: 'duplicate_key'/, 'the rendering names the code');
  });
};
