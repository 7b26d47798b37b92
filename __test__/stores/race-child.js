'use strict';
// One racer of stores/race.test.js: opens its own store (own connection, own process) on
// the shared file, table or prefix, says `ready`, then for each line `take HASH AT` waits
// until the wall clock reaches AT (every racer gets the same AT: a start-time barrier),
// takes one use and answers `HASH true|false|error:CODE`. `exit` closes and ends.
// Receipts: `claim CALLID AT LEASEMS` claims the receipt key { agentName 'racer', runId
// 'race', toolCallId CALLID } at AT; the winner runs its "handler" (completes the receipt
// with its claimId) and answers `CALLID won`, a loser `CALLID held:STATUS:CLAIMID`.
// `claimhang CALLID AT LEASEMS` claims the same way, answers `CALLID won:CLAIMID` (or
// held), and then hangs inside its handler forever (the test kills it there).
//
//   node stores/race-child.js sqlite PATH TABLE | pg URL TABLE | node-redis URL PREFIX | ioredis URL PREFIX

const readline = require('node:readline');
const { randomBytes } = require('node:crypto');
const { createSqliteGrantStore } = require('../../lib/stores/sqlite');
const { createPostgresGrantStore } = require('../../lib/stores/postgres');
const { createRedisGrantStore } = require('../../lib/stores/redis');

const [kind, target, namespace] = process.argv.slice(2);

async function open() {
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
  if (kind === 'ioredis') {
    const Redis = require('ioredis');
    const client = new Redis(target);
    return { store: createRedisGrantStore({ client, prefix: namespace }), end: () => client.quit() };
  }
  throw new Error(`unknown store kind ${kind}`);
}

/** Resolves at wall-clock time `at`: a timer to just before it, then a short spin. */
function until(at) {
  return new Promise((resolve) => {
    const spin = () => {
      while (Date.now() < at);
      resolve();
    };
    const wait = at - Date.now() - 3;
    if (wait > 0) setTimeout(spin, wait);
    else spin();
  });
}

(async () => {
  const { store, end } = await open();
  process.stdout.write('ready\n');
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    const [verb, hash, at] = line.split(' ');
    if (verb === 'exit') break;
    await until(Number(at));
    if (verb === 'claim' || verb === 'claimhang') {
      const leaseMs = Number(line.split(' ')[3]);
      const now = Date.now();
      const claimId = randomBytes(16).toString('hex');
      const key = { agentName: 'racer', runId: 'race', toolCallId: hash };
      const claim = { ...key, proposalHash: 'b'.repeat(64), claimId, claimedAt: now, leaseExpiresAt: now + leaseMs, expiresAt: now + 3_600_000 };
      let answer;
      try {
        const held = await store.claimReceipt(claim, now);
        if (held === null) {
          if (verb === 'claimhang') {
            process.stdout.write(`${hash} won:${claimId}\n`);
            await new Promise(() => {}); // inside the handler, until killed
          }
          const done = await store.completeReceipt(
            { ...key, claimId, status: 'completed', completedAt: Date.now(), resultJson: null, expiresAt: now + 3_600_000 },
            Date.now(),
          );
          answer = done === true ? 'won' : 'error:not_completed';
        } else {
          answer = `held:${held.status}:${held.claimId}`;
        }
      } catch (error) {
        answer = `error:${error.code}`;
      }
      process.stdout.write(`${hash} ${answer}\n`);
      continue;
    }
    const q = { agentName: 'racer', toolName: 'transfer', proposalHash: hash, scope: null };
    const answer = await store.take(q, Date.now()).then(String, (error) => `error:${error.code}`);
    process.stdout.write(`${hash} ${answer}\n`);
  }
  await store.close();
  await end();
})().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
