'use strict';
// One racer of stores-race.test.js: opens its own store (own connection, own process) on
// the shared file, table or prefix, says `ready`, then for each line `take HASH AT` waits
// until the wall clock reaches AT (every racer gets the same AT: a start-time barrier),
// takes one use and answers `HASH true|false|error:CODE`. `exit` closes and ends.
//
//   node stores-race-child.js sqlite PATH TABLE | pg URL TABLE | node-redis URL PREFIX | ioredis URL PREFIX

const readline = require('node:readline');
const { createSqliteGrantStore } = require('../lib/grants/stores/sqlite');
const { createPostgresGrantStore } = require('../lib/grants/stores/postgres');
const { createRedisGrantStore } = require('../lib/grants/stores/redis');

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
