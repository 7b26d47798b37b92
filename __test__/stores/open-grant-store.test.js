'use strict';
// openGrantStore(url, options?): the three URL kinds against real servers, drivers from the
// application, close() closing what it opened, and no credential in any message.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { openGrantStore, createApprovalGrants, prepareToolCall } = require('../..');

const PG = process.env.TAS_TEST_PG_URL;
const REDIS = process.env.TAS_TEST_REDIS_URL;
const required = process.env.TAS_REQUIRE_SERVICES === '1';

function needs(t, url, name) {
  if (url) return true;
  if (required) assert.fail(`TAS_REQUIRE_SERVICES=1 and ${name} is not set`);
  t.skip(`${name} is not set (. .tmp/services.env, or .ci/run starts the services)`);
  return false;
}

async function roundTrip(store, tool) {
  const grants = createApprovalGrants({ store });
  const { snapshot } = prepareToolCall({ agentName: 'open-test', toolName: tool, rawArguments: `{"n":${Date.now()}}` });
  await grants.grant(snapshot);
  assert.equal(await grants.has(snapshot), true);
}

test('sqlite:PATH (relative and absolute) and sqlite::memory:', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-open-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const absolute = await openGrantStore(`sqlite:${path.join(dir, 'a.db')}`, { table: 'approvals' });
  await roundTrip(absolute, 'abs');
  await absolute.close();
  assert.ok(fs.existsSync(path.join(dir, 'a.db')));
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const relative = await openGrantStore('sqlite:rel.db');
    await roundTrip(relative, 'rel');
    await relative.close();
  } finally {
    process.chdir(cwd);
  }
  assert.ok(fs.existsSync(path.join(dir, 'rel.db')));
  const memory = await openGrantStore('sqlite::memory:');
  await roundTrip(memory, 'mem');
  await memory.close();
  assert.ok(!fs.existsSync(path.join(cwd, ':memory:')));
});

test('postgres:// and postgresql://: migrate() is run, close() ends the pool', async (t) => {
  if (!needs(t, PG, 'TAS_TEST_PG_URL')) return;
  for (const url of [PG, PG.replace(/^postgres(ql)?:/, 'postgresql:'), PG.replace(/^postgres(ql)?:/, 'postgres:')]) {
    const table = `open_${process.pid}_${Date.now() % 100000}`;
    const store = await openGrantStore(url, { table, timeoutMs: 4000 });
    await roundTrip(store, 'pg'); // fails with 42P01 had migrate() not run
    await store.close();
    await assert.rejects(store.has({ agentName: 'a', toolName: 't', proposalHash: '0'.repeat(64), scope: null }, 0), (e) => e.code === 'store_closed');
    // Clean up through a pool of our own.
    const { Pool } = require('pg');
    const pool = new Pool({ connectionString: PG });
    await pool.query(`DROP TABLE IF EXISTS "${table}", "${table}_nonces", "${table}_proposals"`);
    await pool.end();
  }
});

test('redis:// with node-redis and with ioredis; close() quits the client', async (t) => {
  if (!needs(t, REDIS, 'TAS_TEST_REDIS_URL')) return;
  for (const redisClient of [undefined, 'redis', 'ioredis']) {
    const prefix = `open-test:${process.pid}:${redisClient}:`;
    const store = await openGrantStore(REDIS, { prefix, redisClient });
    await roundTrip(store, 'redis');
    await store.close();
  }
  // The process exits: nothing opened is left holding the event loop (checked below in a child).
  const script = `require(${JSON.stringify(path.join(__dirname, '..', '..'))}).openGrantStore(process.argv[1]).then((s) => s.close()).then(() => console.log('closed'))`;
  for (const url of [REDIS, PG].filter(Boolean)) {
    const run = spawnSync(process.execPath, ['-e', script, url], { encoding: 'utf8', timeout: 15000, cwd: path.join(__dirname, '..', '..') });
    assert.equal(run.status, 0, `${run.stderr} (a handle was left open when status is null)`);
    assert.equal(run.stdout.trim(), 'closed');
  }
});

test('credentials never appear in a message of a failing connection', async () => {
  const secret = 'hunter2-s3cret';
  for (const url of [`postgres://someone:${secret}@127.0.0.1:1/db`, `postgresql://someone:${secret}@127.0.0.1:1/db`, `redis://someone:${secret}@127.0.0.1:1`]) {
    for (const redisClient of url.startsWith('redis') ? ['redis', 'ioredis'] : [undefined]) {
      const error = await openGrantStore(url, { timeoutMs: 1500, redisClient }).then(
        () => null,
        (e) => e,
      );
      assert.ok(error instanceof Error, `${url.split(':')[0]} connection to a closed port fails`);
      const rendered = `${error.message}\n${error.stack}\n${JSON.stringify(error)}\n${require('node:util').inspect(error, { depth: 5 })}`;
      assert.ok(!rendered.includes(secret), rendered);
      assert.ok(!rendered.includes('someone'), rendered);
    }
  }
});

test('a missing driver is MODULE_NOT_FOUND naming it, looked up from the application', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-open-nodeps-'));
  try {
    const script = `require(${JSON.stringify(path.join(__dirname, '..', '..'))}).openGrantStore(process.argv[1], process.argv[2] ? { redisClient: process.argv[2] } : undefined)
      .then(() => console.log('opened'), (e) => console.log(JSON.stringify({ code: e.code, packageName: e.packageName, message: e.message })))`;
    for (const [url, client, name] of [
      ['postgres://u:pw@127.0.0.1:1/d', '', 'pg'],
      ['redis://127.0.0.1:1', 'ioredis', 'ioredis'],
      ['redis://127.0.0.1:1', 'redis', 'redis'],
      ['redis://127.0.0.1:1', '', 'redis'],
    ]) {
      // The application (working directory and main module) is a folder without node_modules:
      // this package's own dev dependencies must not be used.
      const run = spawnSync(process.execPath, ['-e', script, url, client], { encoding: 'utf8', cwd: dir, timeout: 15000 });
      const out = JSON.parse(run.stdout);
      assert.equal(out.code, 'MODULE_NOT_FOUND', run.stdout + run.stderr);
      assert.equal(out.packageName, name);
      assert.match(out.message, new RegExp(`npm install ${name}`));
      assert.ok(!out.message.includes('pw'));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('options are read as own data, a Proxy is refused, unknown URLs are refused without echo', async () => {
  await assert.rejects(openGrantStore('sqlite::memory:', new Proxy({}, {})), (e) => e.code === 'ERR_INVALID_ARG_TYPE');
  const inherited = Object.create({ table: 'Bad Name' });
  const store = await openGrantStore('sqlite::memory:', inherited);
  await store.close();
  await assert.rejects(openGrantStore('mysql://u:topsecret@h/db'), (e) => e.code === 'ERR_INVALID_ARG_TYPE' && !e.message.includes('topsecret'));
  await assert.rejects(openGrantStore(42), (e) => e.code === 'ERR_INVALID_ARG_TYPE');
});
