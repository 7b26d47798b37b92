'use strict';
// Receipt latency per store (docs/stores.md): claimReceipt of a new key and completeReceipt
// of that claim, p50 / p99, in one process doing them one after the other, and in 8
// processes doing the same at once (each with its own keys, released at one wall-clock
// instant). Stores: SQLite (a fresh file), PostgreSQL through a pg Pool, Redis through
// node-redis and through ioredis; a server-backed store is left out when its URL
// (TAS_TEST_PG_URL, TAS_TEST_REDIS_URL) is not set.
//
//   node benches/store-latency.js [count per process, default 400]
//   (internal) node benches/store-latency.js child KIND TARGET NAMESPACE COUNT AT

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { createSqliteGrantStore } = require('../lib/stores/sqlite');
const { createPostgresGrantStore } = require('../lib/stores/postgres');
const { createRedisGrantStore } = require('../lib/stores/redis');

const PROCESSES = 8;

async function open(kind, target, namespace) {
  if (kind === 'sqlite') return { store: createSqliteGrantStore({ path: target, table: namespace }), end() {} };
  if (kind === 'pg') {
    const { Pool } = require('pg');
    const pool = new Pool({ connectionString: target, max: 2 });
    const store = createPostgresGrantStore({ pool, table: namespace });
    await store.migrate();
    return { store, end: () => pool.end() };
  }
  if (kind === 'node-redis') {
    const { createClient } = require('redis');
    const client = createClient({ url: target });
    await client.connect();
    return { store: createRedisGrantStore({ client, prefix: namespace }), end: () => client.close() };
  }
  const Redis = require('ioredis');
  const client = new Redis(target);
  return { store: createRedisGrantStore({ client, prefix: namespace }), end: () => client.quit() };
}

/** Claims and completes `count` new keys one after the other; returns the times in ms. */
async function measure(store, count) {
  const claim = [];
  const complete = [];
  const run = randomBytes(8).toString('hex');
  const proposalHash = randomBytes(32).toString('hex');
  for (let i = 0; i < count; i++) {
    const now = Date.now();
    const key = { agentName: 'bench', runId: run, toolCallId: `call-${i}` };
    const claimId = randomBytes(16).toString('hex');
    let t = process.hrtime.bigint();
    const held = await store.claimReceipt({ ...key, proposalHash, claimId, claimedAt: now, leaseExpiresAt: now + 60_000, expiresAt: now + 3_600_000 }, now);
    claim.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (held !== null) throw new Error('a new key was not claimed');
    t = process.hrtime.bigint();
    const done = await store.completeReceipt(
      { ...key, claimId, status: 'completed', completedAt: now, resultJson: '{"ok":true}', expiresAt: now + 3_600_000 },
      now,
    );
    complete.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (done !== true) throw new Error('a claim was not completed');
  }
  return { claim, complete };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function summary(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const f = (ms) => (ms < 1 ? ms.toFixed(2) : ms < 10 ? ms.toFixed(1) : ms.toFixed(0));
  return `${f(percentile(sorted, 50))} ms / ${f(percentile(sorted, 99))} ms`;
}

async function child([kind, target, namespace, count, at]) {
  const { store, end } = await open(kind, target, namespace);
  await measure(store, 20); // warm-up: connection, statements, scripts
  process.stdout.write('ready\n');
  const wait = Number(at) - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const times = await measure(store, Number(count));
  process.stdout.write(`${JSON.stringify(times)}\n`);
  if (store.close) await store.close();
  await end();
}

function runChild(args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [__filename, 'child', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk) => (out += chunk));
    proc.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`a bench process exited with ${code}`));
      const lines = out.trim().split('\n');
      resolve(JSON.parse(lines[lines.length - 1]));
    });
  });
}

async function main() {
  const count = Number(process.argv[2] ?? 400);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-receipt-latency-'));
  const stores = [['SQLite', 'sqlite', path.join(dir, 'r.db'), 'bench_grants']];
  const pg = process.env.TAS_TEST_PG_URL;
  const redis = process.env.TAS_TEST_REDIS_URL;
  const table = `tas_bench_${process.pid}`;
  if (pg) stores.push(['PostgreSQL through a pg Pool', 'pg', pg, table]);
  if (redis) stores.push(['Redis through node-redis', 'node-redis', redis, `tas:bench:${process.pid}:n:`]);
  if (redis) stores.push(['Redis through ioredis', 'ioredis', redis, `tas:bench:${process.pid}:i:`]);
  console.log(`| store | claim, one process | complete, one process | claim, ${PROCESSES} processes at once | complete, ${PROCESSES} processes at once |`);
  console.log('|---|---|---|---|---|');
  try {
    for (const [name, kind, target, namespace] of stores) {
      const one = await runChild([kind, target, namespace, String(count), '0']);
      const at = Date.now() + 5000;
      const many = await Promise.all(Array.from({ length: PROCESSES }, () => runChild([kind, target, namespace, String(Math.ceil(count / 2)), String(at)])));
      const claims = many.flatMap((m) => m.claim);
      const completes = many.flatMap((m) => m.complete);
      console.log(`| ${name} | ${summary(one.claim)} | ${summary(one.complete)} | ${summary(claims)} | ${summary(completes)} |`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    if (pg) {
      const { Pool } = require('pg');
      const pool = new Pool({ connectionString: pg });
      await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_nonces, ${table}_proposals, ${table}_receipts`);
      await pool.end();
    }
    if (redis) {
      const Redis = require('ioredis');
      const client = new Redis(redis);
      for (const prefix of [`tas:bench:${process.pid}:n:`, `tas:bench:${process.pid}:i:`]) {
        const keys = await client.keys(`${prefix}*`);
        if (keys.length > 0) await client.del(...keys);
      }
      await client.quit();
    }
  }
}

if (process.argv[2] === 'child') {
  child(process.argv.slice(3)).catch((error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  });
} else {
  main().catch((error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exitCode = 1;
  });
}
