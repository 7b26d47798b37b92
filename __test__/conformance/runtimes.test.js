'use strict';
// The runtime-neutral conformance run (__test__/conformance/run.cjs) under Node (the one
// running this file), the other supported Node lines (22, 24, 26), Bun and Deno. Bun and
// Deno are the registry packages that `npm install` puts in node_modules as optional
// dependencies (support/runtimes); the Node lines are what `npm run fetch-node` puts in
// .tmp/node-lines (or NODE22_BINARY, NODE24_BINARY, NODE26_BINARY): all found by
// support/runtime-binaries.js through helpers/services.js. A runtime that is not there is skipped with
// the reason, never silently, and fails the test under TAS_REQUIRE_SERVICES=1 (.ci/run).
//
// How many checks must pass follows what the run says it skipped: the run is read with
// --verbose (one line per passing check), its checks are counted per group (the id's
// first words: vectors, errors, host objects, hostile, monkeypatch, pipeline), and each
// group must either reach its floor or, when none of its checks ran, say why in a skip
// line of its own. So a fresh clone without ../shared/jcs-vectors passes (the vectors
// group skips visibly) and a run that lost checks without a word still fails.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFile } = require('node:child_process');

const ROOT = path.join(__dirname, '..', '..');
const RUN = path.join(__dirname, 'run.cjs');
const { DENO_FLAGS, BUN_FLAGS } = require('./runtime.cjs');
const { NODE_LINES } = require('../../support/runtime-binaries');
const { lookup, required } = require('../helpers/services');
const SUMMARY = /^conformance: (\d+) passed, (\d+) failed, (\d+) skipped$/m;

/**
 * The least number of passing checks of each group when the group runs (measured at
 * d0c85eb on Node 20.20.2: vectors 32 with ../shared, errors 31, host objects 25, hostile
 * 306, monkeypatch 6, pipeline 27; Bun passes one fewer in errors and hostile, each
 * skipped with its reason). Groups not listed here count only toward the comparison with
 * Node.
 */
const GROUP_FLOORS = Object.freeze({ vectors: 25, errors: 29, 'host objects': 24, hostile: 290, monkeypatch: 6, pipeline: 20 });
/** Groups that may be skipped as a whole, and what would make them run. */
const MAY_SKIP = Object.freeze({ vectors: 'the published RFC 8785 vectors (../shared/jcs-vectors beside the clone, or JCS_VECTORS_DIR)' });
const GROUP = /^(?:ok|skip) ([a-z][a-z ]*?)(?::| \()/;

const RUNTIMES = [
  ...NODE_LINES.map((major) => ({ name: `Node ${major}`, kind: 'node', arg: major, args: [RUN, '--verbose'] })),
  { name: 'Bun', kind: 'bun', args: [...BUN_FLAGS, RUN, '--verbose'] },
  { name: 'Deno', kind: 'deno', args: ['run', ...DENO_FLAGS, RUN, '--verbose'] },
];

function runConformance(file, args) {
  return new Promise((resolve) => {
    // DENO_NO_UPDATE_CHECK: no network from a test run.
    const env = { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' };
    const started = Date.now();
    execFile(file, args, { cwd: ROOT, env, maxBuffer: 64 << 20, timeout: 300000 }, (error, stdout, stderr) => {
      resolve({
        status: error ? error.code : 0,
        signal: error ? error.signal : null,
        stdout: String(stdout),
        stderr: String(stderr),
        ms: Date.now() - started,
      });
    });
  });
}

/** Passing and skipped checks of a --verbose run, per group. */
function groups(lines) {
  const counts = {};
  for (const line of lines) {
    const match = GROUP.exec(line);
    if (match === null) continue;
    const entry = counts[match[1]] || (counts[match[1]] = { passed: 0, skipped: 0, skips: [] });
    if (line.startsWith('ok ')) entry.passed++;
    else {
      entry.skipped++;
      entry.skips.push(line);
    }
  }
  return counts;
}

/** Checks one run's output; returns { passed, skipped, groups }. */
function report(t, label, result, quiet = false) {
  if (quiet) t = { diagnostic() {} };
  const lines = result.stdout.split('\n');
  const summary = result.stdout.match(SUMMARY);
  const failures = lines.filter((line) => line.startsWith('not ok '));
  const skips = lines.filter((line) => line.startsWith('skip '));
  for (const line of lines.filter((l) => l.startsWith('note '))) t.diagnostic(`${label}: ${line}`);
  t.diagnostic(`${label}: ${lines[0]}`);
  for (const line of skips) t.diagnostic(`${label}: ${line}`);
  assert.ok(
    summary,
    `${label}: no closing line (exit ${result.status}, signal ${result.signal}):\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`,
  );
  t.diagnostic(`${label}: ${summary[0]} (${(result.ms / 1000).toFixed(1)} s)`);
  const [passed, failed, skipped] = [Number(summary[1]), Number(summary[2]), Number(summary[3])];
  assert.equal(failed, 0, `${label}: ${failed} conformance check(s) failed:\n  ${failures.slice(0, 30).join('\n  ')}`);
  assert.equal(result.status, 0, `${label}: exit code ${result.status}\n${result.stderr.slice(-2000)}`);
  const byGroup = groups(lines);
  const counted = Object.values(byGroup).reduce((sum, g) => sum + g.passed, 0);
  assert.equal(counted, passed, `${label}: ${passed} passed, but ${counted} passing checks are listed (the run was not --verbose, or a check id has no group)`);
  assert.equal(skips.length, skipped, `${label}: ${skipped} skipped, but ${skips.length} skip lines`);
  for (const [name, floor] of Object.entries(GROUP_FLOORS)) {
    const group = byGroup[name] || { passed: 0, skipped: 0, skips: [] };
    if (group.passed === 0 && Object.hasOwn(MAY_SKIP, name)) {
      assert.ok(group.skipped > 0, `${label}: no ${name} check ran, and no skip line says why`);
      assert.ok(
        !required(),
        `${label}: TAS_REQUIRE_SERVICES=1 and the ${name} checks were skipped; they need ${MAY_SKIP[name]}:\n  ${group.skips.join('\n  ')}`,
      );
      t.diagnostic(`${label}: the ${name} group is skipped; it needs ${MAY_SKIP[name]}`);
      continue;
    }
    assert.ok(
      group.passed >= floor,
      `${label}: ${group.passed} ${name} checks passed, at least ${floor} expected${group.skipped ? ` (skipped: ${group.skips.join('; ')})` : ''}`,
    );
  }
  return { passed, skipped, groups: byGroup };
}

// Every run starts at once (each test awaits its own); a Node line that is the Node
// running this file reuses its run.
const runs = { Node: runConformance(process.execPath, [RUN, '--verbose']) };
const found = {};
for (const runtime of RUNTIMES) {
  found[runtime.name] = lookup(runtime.kind, runtime.arg);
  const binary = found[runtime.name].value;
  if (binary === null) continue;
  runs[runtime.name] = binary.file === process.execPath ? runs.Node : runConformance(binary.file, runtime.args);
}

test(`conformance run under Node ${process.version} (this process)`, async (t) => {
  report(t, 'Node', await runs.Node);
});

for (const runtime of RUNTIMES) {
  test(`conformance run under ${runtime.name}`, async (t) => {
    const { value: binary, reason } = found[runtime.name];
    if (binary === null) {
      assert.ok(!required(), `TAS_REQUIRE_SERVICES=1 and ${reason}`);
      t.skip(reason);
      return;
    }
    t.diagnostic(`${runtime.name}: ${binary.version} from ${binary.source}: ${binary.file}`);
    const ran = report(t, runtime.name, await runs[runtime.name]);
    const node = report(t, 'Node', await runs.Node, true);
    // The same checks run everywhere; a runtime may skip only what its own limits make
    // too costly or what the package does not have, and each such skip says so.
    assert.ok(ran.passed + ran.skipped >= node.passed, `${runtime.name}: ${ran.passed} passed and ${ran.skipped} skipped, Node passed ${node.passed}`);
    for (const [name, group] of Object.entries(node.groups)) {
      const other = ran.groups[name] || { passed: 0, skipped: 0 };
      assert.ok(
        other.passed + other.skipped >= group.passed,
        `${runtime.name}: ${name}: ${other.passed} passed and ${other.skipped} skipped, Node passed ${group.passed}`,
      );
    }
  });
}

test('package.json engines: Node 26 first, 24 and 22 supported, 20 from 20.17; Bun and Deno', () => {
  const { engines } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.deepEqual(Object.keys(engines).sort(), ['bun', 'deno', 'node'], 'engines');
  // The even (LTS) lines only: 21, 23 and 25 are neither tested nor supported upstream.
  assert.equal(engines.node, '^20.17.0 || ^22.0.0 || ^24.0.0 || >=26.0.0', 'engines.node');
  assert.equal(engines.bun, '>= 1.2.22', 'engines.bun');
  assert.equal(engines.deno, '>= 2', 'engines.deno');
  // Every line the range names is one this suite runs the conformance run under.
  const lines = [...engines.node.matchAll(/(?:\^|>=)(\d+)\./g)].map((m) => Number(m[1]));
  assert.deepEqual(lines, [20, ...NODE_LINES], 'the lines of engines.node are this Node and NODE_LINES');
});

test('Bun and Deno are optional dev dependencies, so npm install works where their binaries do not exist', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
    for (const name of ['bun', 'deno'])
      assert.equal((pkg[field] || {})[name], undefined, `${name} is a direct ${field} entry (a failing postinstall or EBADPLATFORM would fail npm install)`);
  }
  const holder = pkg.devDependencies['tool-argument-snapshot-test-runtimes'];
  assert.equal(holder, 'file:support/runtimes', 'the test-runtimes holder');
  const runtimes = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'support', 'runtimes', 'package.json'), 'utf8'));
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

test('docs/runtimes.md names every documented runtime difference of the conformance run, with its verdict', () => {
  const page = fs.readFileSync(path.join(ROOT, 'docs', 'runtimes.md'), 'utf8');
  const heading = '\n## Where the runtimes differ';
  const start = page.indexOf(heading);
  assert.ok(start !== -1, 'docs/runtimes.md has a "Where the runtimes differ" section');
  // Markdown joins wrapped lines with a space: so does the comparison.
  const end = page.indexOf('\n## ', start + heading.length);
  const section = page.slice(start, end === -1 ? undefined : end).replace(/\s+/g, ' ');
  const source = fs.readFileSync(path.join(__dirname, 'runtime.cjs'), 'utf8');
  const rows = [...source.matchAll(/^ {4}'(host objects: [^']+|hostile: [^']+)': \{\s*verdict: \{ code: '([a-z_]+)' \}/gm)].map((m) => [m[1], m[2]]);
  const ids = [...source.matchAll(/^ {4}'(host objects: [^']+|hostile: [^']+)': \{/gm)].map((m) => m[1]);
  assert.ok(ids.length > 0, 'runtime.cjs documents differences');
  assert.equal(rows.length, ids.length, 'every documented difference has a verdict code');
  for (const [id, code] of rows) {
    // The row's name, without its section and catalogue group ("hostile: codes: ...").
    const name = id.slice(id.lastIndexOf(': ') + 2);
    assert.ok(section.includes(`\`${name}\``), `docs/runtimes.md does not name ${name}`);
    assert.ok(section.includes(`\`${name}\` is rejected as \`${code}\``), `docs/runtimes.md does not say that ${name} is rejected as ${code}`);
  }
});
