'use strict';
// 8 processes race for one grant, per store: SQLite, PostgreSQL (pg), Redis (node-redis
// and ioredis). Each round the test grants one proposal (single-use in 20 rounds, two uses
// in 20 more) and releases all 8 racers at the same wall-clock instant; exactly `uses` of
// them may execute. The racers are separate Node processes with their own connections
// (stores/race-child.js); the grant is made by this process, so it also survives its
// maker's connection. Receipts race the same way (raceReceipts): one claim winner of 8 per
// key, and a process killed inside its handler never lets a second claim win.

const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { spawn } = require('node:child_process');

const { hash, record } = require('./conformance');
const { service } = require('../helpers/services');
const { createSqliteGrantStore } = require('../../lib/stores/sqlite');
const { createPostgresGrantStore } = require('../../lib/stores/postgres');
const { createRedisGrantStore } = require('../../lib/stores/redis');

const RACERS = 8;
const ROUNDS = 20;
const CHILD = path.join(__dirname, 'race-child.js');
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-store-race-'));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

/** Starts the racers and resolves once every one of them has its store open. */
async function startRacers(args, count = RACERS) {
  const racers = [];
  for (let i = 0; i < count; i++) {
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
    const next = () =>
      new Promise((resolve, reject) => {
        if (exited !== null) reject(exited);
        else waiting.push({ resolve, reject });
      });
    racers.push({ child, next });
  }
  const ready = await Promise.all(racers.map((r) => r.next()));
  assert.deepEqual(ready, Array(count).fill('ready'));
  return racers;
}

async function stopRacers(racers) {
  await Promise.all(
    racers.map(
      (r) =>
        new Promise((resolve) => {
          if (r.child.exitCode !== null) return resolve();
          r.child.once('exit', resolve);
          r.child.stdin.end('exit\n');
        }),
    ),
  );
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

const LEASE_MS = 300;

/**
 * Receipts: each round the 8 racers claim one new key at one instant; exactly one wins and
 * runs (completes), the 7 others are answered the record. Then a ninth process claims a key
 * and is killed (SIGKILL) inside its handler: once its lease has expired, 8 racers claim the
 * key again and none wins; the record stays in_progress with the dead claim (the core
 * reports outcome_unknown) until an operator deletes it.
 */
async function raceReceipts(t, store, racers, args) {
  const wins = [];
  for (let round = 0; round < ROUNDS; round++) {
    const callId = `call-${round}-${hash().slice(0, 8)}`;
    const at = Date.now() + 150;
    const answers = racers.map((r) => r.next());
    for (const r of racers) r.child.stdin.write(`claim ${callId} ${at} ${LEASE_MS}\n`);
    const results = (await Promise.all(answers)).map((line) => {
      const [answered, answer] = line.split(' ');
      assert.equal(answered, callId);
      return answer;
    });
    assert.deepEqual(
      results.filter((r) => r.startsWith('error')),
      [],
      `round ${round}: no racer failed`,
    );
    const won = results.filter((r) => r === 'won').length;
    assert.equal(won, 1, `round ${round}: ${won} of ${RACERS} racers claimed the key (${results.join(' ')})`);
    for (const r of results) if (r !== 'won') assert.match(r, /^held:(in_progress|completed):[0-9a-f]{32}$/);
    const claimIds = new Set(results.filter((r) => r !== 'won').map((r) => r.split(':')[2]));
    assert.equal(claimIds.size, 1, `round ${round}: every loser saw the one winner's claim`);
    const stored = await store.getReceipt({ agentName: 'racer', runId: 'race', toolCallId: callId }, Date.now());
    assert.equal(stored.status, 'completed', `round ${round}: the winner's run was recorded`);
    assert.equal(stored.claimId, [...claimIds][0]);
    wins.push(won);
  }
  // A process killed inside its handler.
  const [dying] = await startRacers(args, 1);
  const callId = `killed-${hash().slice(0, 8)}`;
  const claimedLine = dying.next();
  dying.child.stdin.write(`claimhang ${callId} ${Date.now()} ${LEASE_MS}\n`);
  const [, claimed] = (await claimedLine).split(' ');
  assert.match(claimed, /^won:[0-9a-f]{32}$/, 'the doomed process claimed the key');
  const deadClaim = claimed.slice(4);
  const exited = new Promise((resolve) => dying.child.once('exit', (code, signal) => resolve(signal)));
  dying.child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');
  await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 50));
  const key = { agentName: 'racer', runId: 'race', toolCallId: callId };
  const before = await store.getReceipt(key, Date.now());
  assert.equal(before.status, 'in_progress');
  assert.equal(before.claimId, deadClaim);
  assert.ok(Date.now() >= before.leaseExpiresAt, 'its lease has expired (outcome_unknown)');
  for (let round = 0; round < 3; round++) {
    const at = Date.now() + 150;
    const answers = racers.map((r) => r.next());
    for (const r of racers) r.child.stdin.write(`claim ${callId} ${at} ${LEASE_MS}\n`);
    const results = (await Promise.all(answers)).map((line) => line.split(' ')[1]);
    assert.deepEqual(results, Array(RACERS).fill(`held:in_progress:${deadClaim}`), `after the kill, round ${round}: no second winner`);
  }
  assert.equal((await store.getReceipt(key, Date.now())).claimId, deadClaim, 'the record stays until retention or forget');
  assert.equal(await store.deleteReceipt(key), true, 'an operator forgets it');
  t.diagnostic(
    `${ROUNDS} receipt rounds: winners ${wins.join(',')}; a process killed in its handler left in_progress, 3 rounds of 8 claims after its lease: no winner`,
  );
}

test('SQLite: 8 processes race for one grant: exactly one wins (two for two uses), every round', async (t) => {
  const file = path.join(DIR, 'race.db');
  // The racers open the file at the same time as it is created.
  const racers = await startRacers(['sqlite', file, 'race_grants']);
  const store = createSqliteGrantStore({ path: file, table: 'race_grants' });
  try {
    await race(t, store, racers);
    await raceReceipts(t, store, racers, ['sqlite', file, 'race_grants']);
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
    await raceReceipts(t, store, racers, ['pg', url, table]);
  } finally {
    await stopRacers(racers);
    await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_nonces, ${table}_proposals, ${table}_receipts`);
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
      const store = createRedisGrantStore({ client, prefix });
      await race(t, store, racers);
      assert.deepEqual(await client.sendCommand(['KEYS', `${prefix}*`]), [], 'spent grants leave no key');
      await raceReceipts(t, store, racers, [kind, url, prefix]);
      assert.equal(await store.pruneReceipts(Date.now() + 3_600_001), ROUNDS, 'the completed receipts go at retention');
      assert.deepEqual(await client.sendCommand(['KEYS', `${prefix}*`]), [], 'pruned receipts leave no key');
    } finally {
      await stopRacers(racers);
      await client.close();
    }
  });
}
