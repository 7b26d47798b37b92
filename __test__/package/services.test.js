'use strict';
// __test__/helpers/services.js, the helper every test that needs a server or another runtime goes
// through: a missing one is a visible skip naming its variable, a failure under
// TAS_REQUIRE_SERVICES=1, and a present one is handed over as given. Checked in child
// node:test runs of a fixture (what node:test itself reports) and directly.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const services = require('../helpers/services');
const { findNode, nodeMajor } = require('../../support/runtime-binaries');

const OWN_MAJOR = nodeMajor(process.version);
const VARIABLES = ['TAS_REQUIRE_SERVICES', 'TAS_TEST_PG_URL', 'TAS_TEST_REDIS_URL', 'NODE99_BINARY', `NODE${OWN_MAJOR}_BINARY`];

/** Runs fn with the given variables (undefined deletes), then restores them. */
function withEnv(values, fn) {
  const saved = {};
  for (const key of VARIABLES) saved[key] = process.env[key];
  try {
    for (const key of VARIABLES) delete process.env[key];
    for (const [key, value] of Object.entries(values)) if (value !== undefined) process.env[key] = value;
    return fn();
  } finally {
    for (const key of VARIABLES) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
}

/** A stand-in for node:test's context that records skips. */
function fakeContext() {
  const skips = [];
  return { skips, skip: (reason) => skips.push(reason) };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-services-test-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const FIXTURE = path.join(dir, 'fixture.test.js');
fs.writeFileSync(
  FIXTURE,
  `'use strict';
const { test } = require('node:test');
const { service, nodeLine } = require(${JSON.stringify(path.join(__dirname, '..', 'helpers', 'services.js'))});
test('needs pg', (t) => {
  const url = service(t, 'pg');
  if (url === null) return;
  t.diagnostic('pg url ' + url);
});
test('needs redis', (t) => {
  const url = service(t, 'redis');
  if (url === null) return;
  t.diagnostic('redis url ' + url);
});
test('needs node 99', (t) => {
  const node = nodeLine(t, 99);
  if (node === null) return;
  t.diagnostic('node 99 ' + node.file);
});
`,
);

/** node --test of the fixture with exactly these service variables. */
function runFixture(values) {
  const env = { ...process.env };
  for (const key of VARIABLES) delete env[key];
  // A node --test child of node --test reports to its parent in another format unless told it is on its own.
  delete env.NODE_TEST_CONTEXT;
  Object.assign(env, values);
  const result = spawnSync(process.execPath, ['--test', '--test-reporter=tap', FIXTURE], { env, encoding: 'utf8', timeout: 60000 });
  const count = (name) => Number((result.stdout.match(new RegExp(`^# ${name} (\\d+)$`, 'm')) || [])[1]);
  return { status: result.status, stdout: result.stdout, pass: count('pass'), fail: count('fail'), skipped: count('skipped') };
}

test('without the variables, each test is skipped visibly with the variable and how to get it', () => {
  const run = runFixture({});
  assert.equal(run.status, 0, run.stdout);
  assert.deepEqual([run.pass, run.fail, run.skipped], [0, 0, 3], run.stdout);
  assert.match(run.stdout, /^ok 1 - needs pg # SKIP PostgreSQL not configured: set TAS_TEST_PG_URL .*test-services\.sh start/m);
  assert.match(run.stdout, /^ok 2 - needs redis # SKIP Redis not configured: set TAS_TEST_REDIS_URL /m);
  assert.match(run.stdout, /^ok 3 - needs node 99 # SKIP Node 99 not found: run `npm run fetch-node` .* or set NODE99_BINARY/m);
});

test('with TAS_REQUIRE_SERVICES=1 the same tests fail, naming what is missing', () => {
  const run = runFixture({ TAS_REQUIRE_SERVICES: '1' });
  assert.equal(run.status, 1, run.stdout);
  assert.deepEqual([run.pass, run.fail, run.skipped], [0, 3, 0], run.stdout);
  assert.match(run.stdout, /^not ok 1 - needs pg$/m);
  assert.match(run.stdout, /TAS_REQUIRE_SERVICES=1 and PostgreSQL not configured: set TAS_TEST_PG_URL/);
  assert.match(run.stdout, /TAS_REQUIRE_SERVICES=1 and Redis not configured: set TAS_TEST_REDIS_URL/);
  assert.match(run.stdout, /TAS_REQUIRE_SERVICES=1 and Node 99 not found/);
});

test('a set URL is handed over as given, required or not', () => {
  for (const required of [undefined, '1']) {
    const values = { TAS_TEST_PG_URL: 'postgres://u@127.0.0.1:1/x', TAS_TEST_REDIS_URL: 'redis://127.0.0.1:2', NODE99_BINARY: '/nonexistent/node99' };
    if (required) values.TAS_REQUIRE_SERVICES = required;
    const run = runFixture(values);
    assert.match(run.stdout, /^# pg url postgres:\/\/u@127\.0\.0\.1:1\/x$/m);
    assert.match(run.stdout, /^# redis url redis:\/\/127\.0\.0\.1:2$/m);
    assert.equal(run.pass, 2, run.stdout);
    // Node 99 stays missing (the variable names no binary): skipped, or failed when required.
    assert.equal(required ? run.fail : run.skipped, 1, run.stdout);
  }
});

test('only TAS_REQUIRE_SERVICES=1 requires; an empty URL counts as missing', () => {
  for (const value of [undefined, '', '0', 'true', 'yes']) {
    withEnv({ TAS_REQUIRE_SERVICES: value, TAS_TEST_PG_URL: '' }, () => {
      assert.equal(services.required(), false, `TAS_REQUIRE_SERVICES=${value}`);
      const t = fakeContext();
      assert.equal(services.service(t, 'pg'), null);
      assert.equal(t.skips.length, 1);
      assert.match(t.skips[0], /TAS_TEST_PG_URL/);
      assert.deepEqual(services.requires('pg'), { skip: t.skips[0] });
    });
  }
  withEnv({ TAS_REQUIRE_SERVICES: '1' }, () => {
    const t = fakeContext();
    assert.throws(() => services.service(t, 'redis'), {
      name: 'AssertionError',
      message: /TAS_REQUIRE_SERVICES=1 and Redis not configured: set TAS_TEST_REDIS_URL/,
    });
    assert.deepEqual(t.skips, [], 'no skip when required');
    assert.deepEqual(services.requires('redis'), {}, 'requires() lets the test run, so service() fails it');
  });
  withEnv({ TAS_TEST_REDIS_URL: 'redis://127.0.0.1:9' }, () => {
    const t = fakeContext();
    assert.equal(services.service(t, 'redis'), 'redis://127.0.0.1:9');
    assert.deepEqual(t.skips, []);
    assert.deepEqual(services.requires('redis'), {});
  });
});

test('a Node line is accepted only when its binary answers --version with that major', () => {
  withEnv({ NODE99_BINARY: process.execPath }, () => {
    const found = findNode(99);
    assert.equal(found.file, null, 'this Node is not Node 99');
    assert.ok(
      found.tried.some((line) => line.includes(`answered ${process.version}`)),
      found.tried.join('; '),
    );
    const t = fakeContext();
    assert.equal(services.nodeLine(t, 99), null);
    assert.match(t.skips[0], /Node 99 not found: .*NODE99_BINARY.*answered v/);
  });
  withEnv({ [`NODE${OWN_MAJOR}_BINARY`]: process.execPath }, () => {
    const found = services.nodeLine(fakeContext(), OWN_MAJOR);
    assert.equal(found.file, process.execPath);
    assert.equal(found.source, `NODE${OWN_MAJOR}_BINARY`);
    assert.equal(found.version, process.version);
  });
  const newest = services.lookup('newest-node', OWN_MAJOR).value;
  assert.ok(newest && newest.major >= OWN_MAJOR, 'this process counts as its own line');
  assert.throws(() => findNode('26'), TypeError);
});

test('unknown kinds are programming errors, not skips', () => {
  assert.throws(() => services.service(fakeContext(), 'postgres'), TypeError);
  assert.throws(() => services.lookup('mysql'), TypeError);
});
