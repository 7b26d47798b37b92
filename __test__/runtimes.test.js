'use strict';
// The runtime-neutral conformance run (__test__/conformance/run.cjs) under Node, Bun and
// Deno. Node is the one running this file; Bun and Deno are the registry packages that
// `npm install` puts in node_modules as optional dependencies (__test__/runtimes), found
// by runtime-binaries.js (their platform package's binary, so a skipped or unapproved
// postinstall does not matter; node_modules/.bin; PATH; or BUN_BINARY / DENO_BINARY). A
// runtime that is not installed is skipped with the reason, never silently.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFile } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const RUN = path.join(__dirname, 'conformance', 'run.cjs');
const { DENO_FLAGS, BUN_FLAGS } = require('./conformance/runtime.cjs');
const { findBun, findDeno } = require('./runtime-binaries');
const SUMMARY = /^conformance: (\d+) passed, (\d+) failed, (\d+) skipped$/m;

const RUNTIMES = [
  { name: 'Bun', find: findBun, args: [...BUN_FLAGS, RUN] },
  { name: 'Deno', find: findDeno, args: ['run', ...DENO_FLAGS, RUN] },
];

function runConformance(file, args) {
  return new Promise((resolve) => {
    // DENO_NO_UPDATE_CHECK: no network from a test run.
    const env = { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' };
    execFile(file, args, { cwd: ROOT, env, maxBuffer: 64 << 20, timeout: 300000 }, (error, stdout, stderr) => {
      resolve({ status: error ? error.code : 0, signal: error ? error.signal : null, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

function report(t, label, result, quiet = false) {
  if (quiet) t = { diagnostic() {} };
  const lines = result.stdout.split('\n');
  const summary = result.stdout.match(SUMMARY);
  const failures = lines.filter((line) => line.startsWith('not ok '));
  const skips = lines.filter((line) => line.startsWith('skip '));
  for (const line of lines.filter((l) => l.startsWith('note '))) t.diagnostic(`${label}: ${line}`);
  t.diagnostic(`${label}: ${lines[0]}`);
  for (const line of skips) t.diagnostic(`${label}: ${line}`);
  assert.ok(summary, `${label}: no closing line (exit ${result.status}, signal ${result.signal}):\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`);
  t.diagnostic(`${label}: ${summary[0]}`);
  const [passed, failed] = [Number(summary[1]), Number(summary[2])];
  assert.equal(failed, 0, `${label}: ${failed} conformance check(s) failed:\n  ${failures.slice(0, 30).join('\n  ')}`);
  assert.equal(result.status, 0, `${label}: exit code ${result.status}\n${result.stderr.slice(-2000)}`);
  assert.ok(passed >= 400, `${label}: only ${passed} checks passed`);
  return { passed, skips };
}

// All runs start at once; each test awaits its own.
const runs = {
  Node: runConformance(process.execPath, [RUN]),
};
const found = {};
for (const runtime of RUNTIMES) {
  found[runtime.name] = runtime.find();
  if (found[runtime.name].file) runs[runtime.name] = runConformance(found[runtime.name].file, runtime.args);
}

test(`conformance run under Node ${process.version}`, async (t) => {
  report(t, 'Node', await runs.Node);
});

for (const runtime of RUNTIMES) {
  test(`conformance run under ${runtime.name}`, async (t) => {
    const where = found[runtime.name];
    if (!where.file) {
      t.skip(`${runtime.name} is not installed (no npm platform package, node_modules/.bin or PATH binary answered --version${where.tried.length ? `; tried ${where.tried.join('; ')}` : ''}); npm install installs it where its binary package exists`);
      return;
    }
    t.diagnostic(`${runtime.name} ${where.version} from ${where.source}: ${where.file}`);
    const ran = report(t, runtime.name, await runs[runtime.name]);
    const node = report(t, 'Node', await runs.Node, true);
    // The same checks run everywhere; a runtime may skip only what its own limits make
    // too costly or what the package does not have, and each such skip says so.
    assert.ok(ran.passed + ran.skips.length >= node.passed, `${runtime.name}: ${ran.passed} passed and ${ran.skips.length} skipped, Node passed ${node.passed}`);
  });
}

test('package.json engines name the three runtimes', () => {
  const { engines } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.deepEqual(Object.keys(engines).sort(), ['bun', 'deno', 'node'], 'engines');
  assert.equal(engines.node, '>= 20.17', 'engines.node');
  assert.equal(engines.bun, '>= 1.2.22', 'engines.bun');
  assert.equal(engines.deno, '>= 2', 'engines.deno');
});

test('Bun and Deno are optional dev dependencies, so npm install works where their binaries do not exist', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
    for (const name of ['bun', 'deno']) assert.equal((pkg[field] || {})[name], undefined, `${name} is a direct ${field} entry (a failing postinstall or EBADPLATFORM would fail npm install)`);
  }
  const holder = pkg.devDependencies['tool-argument-snapshot-test-runtimes'];
  assert.equal(holder, 'file:__test__/runtimes', 'the test-runtimes holder');
  const runtimes = JSON.parse(fs.readFileSync(path.join(__dirname, 'runtimes', 'package.json'), 'utf8'));
  assert.equal(runtimes.private, true, 'the holder is private');
  assert.deepEqual(Object.keys(runtimes.optionalDependencies).sort(), ['bun', 'deno'], 'optional dependencies of the holder');
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
  for (const name of ['bun', 'deno']) {
    const entry = lock.packages[`node_modules/${name}`];
    assert.ok(entry, `${name} is in the lock file`);
    assert.equal(entry.dev, true, `${name} is dev-only in the lock file`);
    assert.equal(entry.optional, true, `${name} is optional in the lock file`);
  }
});

test('the README lists every documented runtime difference of the conformance run', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('**Runtimes.**');
  assert.ok(start !== -1, 'README has a "Runtimes." paragraph under Supported platforms');
  // Markdown joins wrapped lines with a space: so does the comparison.
  const section = readme.slice(start, readme.indexOf('\n## ', start)).replace(/\s+/g, ' ');
  const source = fs.readFileSync(path.join(__dirname, 'conformance', 'runtime.cjs'), 'utf8');
  const ids = [...source.matchAll(/^ {4}'(host objects: [^']+|hostile: [^']+)': \{/gm)].map((m) => m[1]);
  assert.ok(ids.length > 0, 'runtime.cjs documents differences');
  for (const id of ids) {
    // The row's name, without its section and catalogue group ("hostile: codes: ...").
    const name = id.slice(id.lastIndexOf(': ') + 2);
    assert.ok(section.includes(`\`${name}\``), `README's Runtimes paragraph does not name ${name}`);
  }
});
