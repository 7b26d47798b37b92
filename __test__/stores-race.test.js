'use strict';
// 8 processes race for one grant, per store: SQLite, PostgreSQL (pg), Redis (node-redis
// and ioredis). Each round the test grants one proposal (single-use in 20 rounds, two uses
// in 20 more) and releases all 8 racers at the same wall-clock instant; exactly `uses` of
// them may execute. The racers are separate Node processes with their own connections
// (stores-race-child.js); the grant is made by this process, so it also survives its
// maker's connection.

const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { spawn } = require('node:child_process');

const { hash, record } = require('./stores-conformance');
const { service } = require('./services');
const { createSqliteGrantStore } = require('../lib/grants/stores/sqlite');
const { createPostgresGrantStore } = require('../lib/grants/stores/postgres');
const { createRedisGrantStore } = require('../lib/grants/stores/redis');

const RACERS = 8;
const ROUNDS = 20;
const CHILD = path.join(__dirname, 'stores-race-child.js');
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-store-race-'));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

/** Starts the racers and resolves once every one of them has its store open. */
async function startRacers(args) {
  const racers = [];
  for (let i = 0; i < RACERS; i++) {
    const child = spawn(process.execPath, [CHILD, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let exited = null;
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const lines = readline.createInterface({ input: child.stdout });
    const waiting = [];
    lines.on('line', (line) => waiting.shift()?.resolve(line));
    child.once('exit', (code) => {
      exited = new Error(`racer ${i} exited (${code}): ${stderr}`);
      for (const waiter of waiting.splice(0)) waiter.reject(exited);
    });
    const next = () => new Promise((resolve, reject) => {
      if (exited !== null) reject(exited);
      else waiting.push({ resolve, reject });
    });
    racers.push({ child, next });
  }
  const ready = await Promise.all(racers.map((r) => r.next()));
  assert.deepEqual(ready, Array(RACERS).fill('ready'));
  return racers;
}

async function stopRacers(racers) {
  await Promise.all(racers.map((r) => new Promise((resolve) => {
    if (r.child.exitCode !== null) return resolve();
    r.child.once('exit', resolve);
    r.child.stdin.end('exit\n');
  })));
}

/** Runs the rounds with `store` (this process's) granting; returns the winner counts. */
async function race(t, store, racers) {
  const summary = { 1: [], 2: [] };
  for (let round = 0; round < 2 * ROUNDS; round++) {
    const uses = round < ROUNDS ? 1 : 2;
    const h = hash();
    const q = { agentName: 'racer', toolName: 'transfer', proposalHash: h, scope: null };
    assert.equal(await store.put(record(q, { uses }), Date.now()), true);
    const at = Date.now() + 150;
    const answers = racers.map((r) => r.next());
    for (const r of racers) r.child.stdin.write(`take ${h} ${at}\n`);
    const results = (await Promise.all(answers)).map((line) => {
      const [answeredHash, answer] = line.split(' ');
      assert.equal(answeredHash, h);
      return answer;
    });
    const errors = results.filter((r) => r.startsWith('error'));
    assert.deepEqual(errors, [], `round ${round}: no racer failed`);
    const winners = results.filter((r) => r === 'true').length;
    assert.equal(winners, uses, `round ${round}: ${winners} of ${RACERS} racers took a grant of ${uses} use(s)`);
    assert.equal(await store.has(q, Date.now()), false, `round ${round}: nothing left`);
    summary[uses].push(winners);
  }
  t.diagnostic(`${ROUNDS} rounds single-use: winners ${summary[1].join(',')}; ${ROUNDS} rounds two uses: winners ${summary[2].join(',')}`);
}

test('SQLite: 8 processes race for one grant: exactly one wins (two for two uses), every round', async (t) => {
  const file = path.join(DIR, 'race.db');
  // The racers open the file at the same time as it is created.
  const racers = await startRacers(['sqlite', file, 'race_grants']);
  const store = createSqliteGrantStore({ path: file, table: 'race_grants' });
  try {
    await race(t, store, racers);
  } finally {
    await stopRacers(racers);
    await store.close();
  }
});

test('PostgreSQL (pg): 8 processes race for one grant: exactly one wins (two for two uses), every round', async (t) => {
  const url = service(t, 'pg');
  if (url === null) return;
  const { Pool } = require('pg');
  const table = `tas_race_${process.pid}`;
  // Each racer runs migrate() on the new table at the same time.
  const racers = await startRacers(['pg', url, table]);
  const pool = new Pool({ connectionString: url });
  try {
    const store = createPostgresGrantStore({ pool, table });
    await store.migrate();
    await race(t, store, racers);
  } finally {
    await stopRacers(racers);
    await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_nonces, ${table}_proposals`);
    await pool.end();
  }
});

for (const kind of ['node-redis', 'ioredis']) {
  test(`Redis (${kind}): 8 processes race for one grant: exactly one wins (two for two uses), every round`, async (t) => {
    const url = service(t, 'redis');
    if (url === null) return;
    const prefix = `tas:race:${process.pid}:${kind}:`;
    const racers = await startRacers([kind, url, prefix]);
    const { createClient } = require('redis');
    const client = createClient({ url });
    await client.connect();
    try {
      await race(t, createRedisGrantStore({ client, prefix }), racers);
      assert.deepEqual(await client.sendCommand(['KEYS', `${prefix}*`]), [], 'spent grants leave no key');
    } finally {
      await stopRacers(racers);
      await client.close();
    }
  });
}
