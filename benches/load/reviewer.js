'use strict';
// The load test's reviewer process (started by benches/load.js with an IPC channel): it
// receives the sealed proposals that the clients were answered with (an approval request
// leaves the server sealed, as a review UI would receive it), checks each seal with
// grants.verify and grants it with grants.grant on the server's PostgreSQL store, through
// the package's public API only. A grant that fails on a store error (PostgreSQL
// restarting) is tried again until it is stored; `seal_used` on a retry means an earlier
// attempt was stored (its answer lost), which grants.has confirms.
//
// argv[2]: JSON { store: 'postgres' | 'redis', pgUrl (the store's URL), table (or the Redis prefix), secret }

const { createApprovalGrants, createPostgresGrantStore, createRedisGrantStore, isApprovalGrantError } = require('tool-argument-snapshot');

const config = JSON.parse(process.argv[2]);
let pool = null;
let redis = null;
let store;
if (config.store === 'redis') {
  const { createClient } = require('redis');
  redis = createClient({ url: config.pgUrl });
  redis.on('error', () => {});
  store = createRedisGrantStore({ client: redis, prefix: `${config.table}:`, timeoutMs: 5000 });
} else {
  const { Pool } = require('pg');
  pool = new Pool({ connectionString: config.pgUrl, max: 4, connectionTimeoutMillis: 2000 });
  pool.on('error', () => {});
  store = createPostgresGrantStore({ pool, table: config.table, timeoutMs: 5000 });
}
const grants = createApprovalGrants({ store, keys: [{ id: 'load', secret: config.secret }] });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let granted = 0;
let storeRetries = 0;

async function review(ref, sealed) {
  // The reviewer sees what it approves: the seal must verify, and the arguments must be
  // the call's (the reviewer approves only the payment it was asked about).
  const checked = grants.verify(sealed);
  if (JSON.parse(checked.argsCanonicalJson).ref !== ref) return { ok: false, code: 'not_this_call' };
  const query = { agentName: checked.agentName, toolName: checked.toolName, proposalHash: checked.proposalHash };
  for (let tries = 0; tries < 600; tries++) {
    try {
      await grants.grant(checked);
      granted += 1;
      return { ok: true, tries };
    } catch (error) {
      if (isApprovalGrantError(error) && error.code === 'seal_used') {
        // Stored by an earlier try whose answer was lost: confirmed by reading it.
        for (;;) {
          try {
            const live = await grants.has(query);
            if (live) granted += 1;
            return live ? { ok: true, tries, confirmedBy: 'has' } : { ok: false, code: 'seal_used' };
          } catch {
            storeRetries += 1;
            await sleep(200);
          }
        }
      }
      if (isApprovalGrantError(error)) return { ok: false, code: error.code };
      storeRetries += 1;
      await sleep(200);
    }
  }
  return { ok: false, code: 'store_unavailable' };
}

// The test's process went away (killed, or its output closed): so does this one.
process.on('disconnect', () => process.exit(1));
process.on('message', (message) => {
  if (message.type === 'approve') {
    review(message.ref, message.proposal).then(
      (answer) => process.send({ type: 'reviewed', ref: message.ref, ...answer }),
      (error) => process.send({ type: 'reviewed', ref: message.ref, ok: false, code: String(error && (error.code || error.name)) }),
    );
  } else if (message.type === 'stop') {
    (pool !== null ? pool.end() : redis.close()).catch(() => {}).finally(() => process.send({ type: 'stopped', granted, storeRetries }, () => process.exit(0)));
  }
});
(redis !== null ? redis.connect() : Promise.resolve()).then(() => process.send({ type: 'ready' }));
