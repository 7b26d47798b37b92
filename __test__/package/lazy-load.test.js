'use strict';
// What a process never uses is not loaded (issue 35): requiring the package loads the
// snapshot core only (the run loop, grants, seals, receipts, stores, Cedar, diff and
// json-schema load at their first call), no subpath loads its framework, node:crypto
// is not loaded; and a module loaded at its first use takes its built-ins from the
// package's load: built-ins replaced after the package's require and before that first
// use are never called by it, then or later (package/lazy-load-child.js).
//
// Load time itself is measured by `npm run bench -- --groups load-time`, never here.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const CHILD = path.join(__dirname, 'lazy-load-child.js');

function child(...args) {
  const run = spawnSync(process.execPath, [CHILD, ...args], { encoding: 'utf8', cwd: __dirname, timeout: 120000 });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

/** The package's files that the snapshot core is: what requiring the package may load. */
const CORE = [
  'index.js',
  'lib/errors.js',
  'lib/input.js',
  'lib/lazy.js',
  'lib/native.js',
  'lib/primordials.js',
  'lib/selftest.js',
  'lib/snapshot/canonical.js',
  'lib/snapshot/classify.js',
  'lib/snapshot/index.js',
  'lib/snapshot/tape-writer.js',
  'lib/snapshot/view.js',
  'lib/snapshot/walk.js',
];

describe('requiring loads only what it needs', () => {
  test('the package: the snapshot core, no run loop, grants, receipts, store, Cedar, diff, json-schema or random module, no ajv, no node:crypto', () => {
    const loaded = child('loaded');
    const files = loaded.files.filter((file) => !file.endsWith('.node'));
    assert.deepEqual(files, CORE);
    assert.deepEqual(loaded.packages, []);
    assert.equal(loaded.crypto, false, 'node:crypto was loaded');
    assert.equal(loaded.webStreams, false, "Node's web streams were loaded");
  });

  for (const subpath of ['ai', 'langchain', 'openai-agents', 'mastra', 'mcp']) {
    test(`tool-argument-snapshot/${subpath}: no framework, no module the package loads at first use`, () => {
      const loaded = child('loaded', subpath);
      assert.deepEqual(loaded.packages, [], `${subpath} loaded ${loaded.packages.join(', ')}`);
      const lazy = loaded.files.filter((file) => file.startsWith('lib/') && !CORE.includes(file));
      assert.deepEqual(lazy, []);
      assert.ok(
        loaded.files.some((file) => file.startsWith(`adapters/${subpath}/`)),
        'the adapter itself loaded',
      );
      // Only the gates that pipe a model's stream capture the web streams (adapters/gate/streams.js).
      // The MCP gate's 2.x face captures its web classes when the first 2.x gate is made
      // (adapters/mcp/v2/web.js), not at require (issue 35).
      assert.equal(loaded.webStreams, subpath === 'ai' || subpath === 'mastra', `${subpath}: web streams loaded`);
    });
  }
});

describe('a module loaded at first use captures nothing patched after the package loaded', () => {
  const patched = child('patched');
  const control = child('control');

  test('every first call loaded its module while the built-ins were replaced', () => {
    assert.deepEqual(patched.first, control.first);
    assert.ok(
      patched.first.every((line) => line.endsWith(': ok')),
      patched.first.join('; '),
    );
    assert.deepEqual(patched.loaded, control.loaded);
    for (const file of [
      'lib/run/index.js',
      'lib/grants/index.js',
      'lib/grants/seal.js',
      'lib/stores/memory.js',
      'lib/receipts/index.js',
      'lib/stores/sqlite.js',
      'lib/stores/postgres.js',
      'lib/stores/postgres-sql.js',
      'lib/stores/postgres-batch.js',
      'lib/stores/redis.js',
      'lib/stores/open.js',
      'lib/diff.js',
      'lib/json-schema/index.js',
      'lib/cedar/index.js',
      'lib/random.js',
    ]) {
      assert.ok(patched.loaded.includes(file), `${file} was not loaded by its first call`);
    }
  });

  test('no replacement was called by the package, during the window or after it', () => {
    const shown = Object.keys(patched.hits).map((label) => `${label} x${patched.hits[label]} (first from ${patched.firstHit[label].trim()})`);
    assert.deepEqual(shown, []);
  });

  test('grants, seals, receipts, the SQLite store, diff, json-schema and Cedar then answer as in a process never patched', () => {
    assert.equal(control.outcomes.length, 14, control.outcomes.join('\n'));
    assert.ok(!control.outcomes.some((line) => line.startsWith('scenario threw')), control.outcomes.join('\n'));
    assert.deepEqual(patched.outcomes, control.outcomes);
    // What the scenario must show, written out here (not produced by the run above).
    assert.ok(control.outcomes.includes('after grant allow ran'));
    assert.ok(control.outcomes.includes('again require_approval'));
    assert.ok(control.outcomes.includes('forged: bad_signature'));
    assert.ok(control.outcomes.includes('receipt run 1: call_already_executed'));
    assert.ok(control.outcomes.includes('handler ran 1'));
    assert.ok(control.outcomes.includes('sqlite allow require_approval'));
    assert.ok(control.outcomes.includes('diff [{"path":"/x/1","kind":"changed"},{"path":"/z","kind":"added"}]'));
    assert.ok(control.outcomes.includes('schema {"value":{"amount":5}} 1'));
    assert.ok(control.outcomes.includes('cedar {"amount":5} allow permitted'));
    assert.ok(control.outcomes.includes('cedar {"amount":50} deny no_permit'));
  });
});

describe('the snapshot core is loaded without the module resolver (index.js)', () => {
  /** Runs CODE in a fresh `node -e` in the package's folder and parses what it prints. */
  function run(code) {
    const result = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8', cwd: path.join(__dirname, '..', '..'), timeout: 120000 });
    assert.equal(result.status, 0, result.stderr);
    return JSON.parse(result.stdout);
  }

  test("Node's path functions run for index.js alone, not for each core file", () => {
    // Counted through the path module's exports, which Node's CommonJS loader calls too. The
    // resolver calls path.resolve about three times per module it resolves (measured: 52 for
    // the 14 files of the core before index.js loaded them itself); index.js, resolved
    // before the count starts, is then loaded with its own few.
    const counts = run(`
      const path = require('node:path');
      const file = require.resolve('tool-argument-snapshot');
      const counts = { resolve: 0, normalize: 0 };
      for (const name of Object.keys(counts)) {
        const original = path[name];
        path[name] = function (...args) { counts[name]++; return Reflect.apply(original, this, args); };
      }
      require(file);
      process.stdout.write(JSON.stringify(counts));`);
    assert.ok(counts.resolve <= 4, `path.resolve ran ${counts.resolve} times`);
    assert.ok(counts.normalize <= 2, `path.normalize ran ${counts.normalize} times`);
  });

  test('each core file is one module in require.cache, the one a later require() of it returns', () => {
    const out = run(`
      const Module = require('node:module');
      const path = require('node:path');
      const pkg = require('tool-argument-snapshot');
      // A module loaded at first use requires lib/errors.js and lib/snapshot through the resolver.
      pkg.createApprovalGrants({});
      const root = path.dirname(require.resolve('tool-argument-snapshot'));
      const files = ${JSON.stringify(CORE)};
      const wrong = [];
      for (const file of files) {
        const full = path.join(root, file);
        const cached = require.cache[full];
        if (!(cached instanceof Module) || cached.loaded !== true || cached.filename !== full || cached.id !== full) wrong.push(file + ': not a loaded Module');
        else if (require(full) !== cached.exports) wrong.push(file + ': a second copy');
      }
      const errors = Object.keys(require.cache).filter((key) => key.endsWith(path.sep + 'errors.js') && key.startsWith(root + path.sep + 'lib'));
      const addon = Object.keys(require.cache).filter((key) => key.endsWith('.node'));
      process.stdout.write(JSON.stringify({
        wrong, errors: errors.length, addon: addon.length,
        sameClass: require(path.join(root, 'lib/errors.js')).ApprovalGrantError === pkg.ApprovalGrantError,
        grantsLoaded: Object.keys(require.cache).includes(path.join(root, 'lib/grants/index.js')),
      }));`);
    assert.deepEqual(out.wrong, []);
    assert.equal(out.errors, 1);
    assert.equal(out.addon, 1);
    assert.equal(out.sameClass, true);
    assert.equal(out.grantsLoaded, true);
  });

  test("under a module system of its own (not in Node's require.cache), every core file comes by require()", () => {
    // index.js run as a foreign registry would run it: its own module object and a require
    // whose cache is not Node's. The core then comes through that require, file by file.
    const out = run(`
      const { compileFunction } = require('node:vm');
      const { createRequire } = require('node:module');
      const fs = require('node:fs');
      const file = require.resolve('tool-argument-snapshot');
      const real = createRequire(file);
      const asked = [];
      const foreign = (request) => { asked.push(request); return real(request); };
      foreign.cache = Object.create(null);
      const mod = { exports: {} };
      compileFunction(fs.readFileSync(file, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname'], { filename: file })
        .call(mod.exports, mod.exports, foreign, mod, file, require('node:path').dirname(file));
      process.stdout.write(JSON.stringify({ asked: asked.filter((r) => r.startsWith('./')), keys: Object.keys(mod.exports), json: mod.exports.canonicalize({ b: 1, a: [2] }) }));`);
    assert.deepEqual(out.asked, ['./lib/snapshot', './lib/errors', './lib/selftest', './lib/lazy']);
    assert.equal(out.json, '{"a":[2],"b":1}');
    assert.deepEqual(out.keys, Object.keys(require('../..')));
  });
});
