'use strict';
// createPostgresGrantStore: grants in PostgreSQL through the application's `pg` Pool or
// Client (duck-typed: `query(config)`, where config is `{ text, values, query_timeout }`,
// as pg and pg-compatible drivers take it). Every operation is one statement; a take is
// an UPDATE whose row is picked and locked by a `FOR UPDATE` subquery, so under READ
// COMMITTED concurrent takes of one record queue on its row lock, and each re-checks the
// row as the previous one left it: of N racing for the last use exactly one gets it.

const { invalidArgument } = require('../errors');
const P = require('../primordials');
const C = require('./common');
const R = require('./receipt-records');

const { ArrayIsArray, ObjectFreeze, StringPrototypeCharCodeAt, isProxy } = P;
// Captured when the package loaded (this module loads at first use).
const { MathImul } = P;

/**
 * A stable number for the advisory lock that serializes migrate() per table (concurrent
 * CREATE TABLE IF NOT EXISTS can fail on PostgreSQL's catalog): FNV-1a of the qualified
 * name, as a signed 32-bit integer.
 */
function lockKey(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= StringPrototypeCharCodeAt(text, i);
    hash = MathImul(hash, 0x01000193);
  }
  return hash | 0;
}

/** The migration and every statement, for one table. */
function statements(table) {
  const schema = table.schema === null ? '' : `"${table.schema}".`;
  const name = table.name;
  const g = `${schema}"${name}"`;
  const n = `${schema}"${name}_nonces"`;
  const p = `${schema}"${name}_proposals"`;
  const r = `${schema}"${name}_receipts"`;
  // A claim's columns, each kept unless the stored record is an outcome past its retention
  // ($10): an unfinished claim (in_progress) is kept whatever its retention says.
  const claimed = ['agent_name', 'run_id', 'tool_call_id', 'proposal_hash', 'claim_id', 'status', 'claimed_at', 'lease_expires_at', 'completed_at', 'result_json', 'expires_at'];
  let replace = '';
  for (let i = 0; i < claimed.length; i++) {
    replace += `${i === 0 ? '' : ', '}${claimed[i]} = CASE WHEN kept.status <> 'in_progress' AND kept.expires_at <= $10::bigint THEN EXCLUDED.${claimed[i]} ELSE kept.${claimed[i]} END`;
  }
  const receiptColumns =
    'agent_name AS "agentName", run_id AS "runId", tool_call_id AS "toolCallId", proposal_hash AS "proposalHash", claim_id AS "claimId", status, ' +
    'claimed_at AS "claimedAt", lease_expires_at AS "leaseExpiresAt", completed_at AS "completedAt", result_json AS "resultJson", expires_at AS "expiresAt"';
  const key = 'proposal_hash = $1::text AND agent_name = $2::text AND tool_name = $3::text AND scope IS NOT DISTINCT FROM $4::text';
  const columns = '(proposal_hash, agent_name, tool_name, scope, args_canonical_json, expires_at, uses)';
  const values = '$1::text, $2::text, $3::text, $4::text, $5::text, $6::float8, $7::bigint';
  return ObjectFreeze({
    ddl: `SELECT pg_advisory_xact_lock(${lockKey(`tool-argument-snapshot ${g}`)});
CREATE TABLE IF NOT EXISTS ${g} (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  agent_name text NOT NULL,
  tool_name text NOT NULL,
  proposal_hash text NOT NULL,
  scope text,
  args_canonical_json text NOT NULL,
  expires_at double precision,
  uses bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS "${name}_key" ON ${g} (proposal_hash);
CREATE INDEX IF NOT EXISTS "${name}_expires" ON ${g} (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS ${n} (
  nonce text PRIMARY KEY,
  expires_at double precision
);
CREATE INDEX IF NOT EXISTS "${name}_nonces_expires" ON ${n} (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS ${p} (
  proposal_key text PRIMARY KEY,
  json text NOT NULL,
  expires_at double precision
);
CREATE INDEX IF NOT EXISTS "${name}_proposals_expires" ON ${p} (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS ${r} (
  receipt_id text PRIMARY KEY,
  agent_name text NOT NULL,
  run_id text,
  tool_call_id text NOT NULL,
  proposal_hash text NOT NULL,
  claim_id text NOT NULL,
  status text NOT NULL,
  claimed_at bigint NOT NULL,
  lease_expires_at bigint NOT NULL,
  completed_at bigint,
  result_json text,
  expires_at bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS "${name}_receipts_expires" ON ${r} (expires_at);
`,
    // One statement: the insert, or on a conflict an update that locks the key's row and
    // keeps every column unless the record is past its retention. RETURNING gives the row
    // as it now is (the latest committed version, whatever the statement's snapshot):
    // the caller claimed it when the claim_id is its own.
    claimReceipt:
      `INSERT INTO ${r} AS kept (receipt_id, agent_name, run_id, tool_call_id, proposal_hash, claim_id, status, claimed_at, lease_expires_at, completed_at, result_json, expires_at) ` +
      "VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, 'in_progress', $7::bigint, $8::bigint, NULL, NULL, $9::bigint) " +
      `ON CONFLICT (receipt_id) DO UPDATE SET ${replace} RETURNING ${receiptColumns}`,
    completeReceipt:
      `UPDATE ${r} SET status = $3::text, completed_at = $4::bigint, result_json = $5::text, expires_at = $6::bigint ` +
      "WHERE receipt_id = $1::text AND claim_id = $2::text AND status = 'in_progress' RETURNING 1 AS done",
    releaseReceipt: `DELETE FROM ${r} WHERE receipt_id = $1::text AND claim_id = $2::text AND status = 'in_progress' RETURNING 1 AS done`,
    getReceipt: `SELECT ${receiptColumns} FROM ${r} WHERE receipt_id = $1::text AND (status = 'in_progress' OR expires_at > $2::bigint)`,
    deleteReceipt: `DELETE FROM ${r} WHERE receipt_id = $1::text RETURNING 1 AS done`,
    pruneReceipts:
      `WITH gone AS (DELETE FROM ${r} WHERE receipt_id IN (SELECT receipt_id FROM ${r} WHERE expires_at <= $1::bigint AND status <> 'in_progress' FOR UPDATE SKIP LOCKED) RETURNING 1) ` +
      'SELECT count(*) AS removed FROM gone',
    put: `INSERT INTO ${g} ${columns} VALUES (${values}) RETURNING id`,
    // The nonce is claimed (inserted, or renewed when its record has expired) and the
    // grant inserted only from the claim's row: one statement, so both or neither. A
    // concurrent put of the same nonce waits on the claim and then finds it live.
    putWithNonce:
      `WITH claim AS (INSERT INTO ${n} AS kept (nonce, expires_at) VALUES ($8::text, $9::float8) ` +
      'ON CONFLICT (nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at ' +
      'WHERE kept.expires_at IS NOT NULL AND kept.expires_at <= $10::float8 RETURNING nonce) ' +
      `INSERT INTO ${g} ${columns} SELECT ${values} FROM claim RETURNING id`,
    has: `SELECT EXISTS (SELECT 1 FROM ${g} WHERE ${key} AND uses > 0 AND (expires_at IS NULL OR expires_at > $5::float8)) AS found`,
    // The subquery picks the live record that expires first and locks it; a concurrent
    // take waits for that lock, then re-checks `uses > 0` on the row as committed (and, if
    // the row is gone or spent, the subquery goes on to the next record). The key's dead
    // records go in the same statement, skipping any another call holds.
    take:
      `WITH swept AS (DELETE FROM ${g} WHERE id IN (SELECT id FROM ${g} WHERE ${key} AND (uses <= 0 OR expires_at <= $5::float8) ` +
      'FOR UPDATE SKIP LOCKED)) ' +
      `UPDATE ${g} SET uses = uses - 1 WHERE id = (SELECT id FROM ${g} WHERE ${key} AND uses > 0 ` +
      'AND (expires_at IS NULL OR expires_at > $5::float8) ORDER BY expires_at ASC NULLS LAST, id LIMIT 1 FOR UPDATE) ' +
      'AND uses > 0 RETURNING id, uses',
    // After the last use: the spent row goes (it is already unusable: uses = 0).
    dropSpent: `DELETE FROM ${g} WHERE id = $1::bigint AND uses <= 0`,
    delete: `DELETE FROM ${g} WHERE ${key}`,
    prune:
      `WITH grants AS (DELETE FROM ${g} WHERE id IN (SELECT id FROM ${g} WHERE uses <= 0 OR expires_at <= $1::float8 FOR UPDATE SKIP LOCKED) RETURNING 1), ` +
      `nonces AS (DELETE FROM ${n} WHERE nonce IN (SELECT nonce FROM ${n} WHERE expires_at <= $1::float8 FOR UPDATE SKIP LOCKED) RETURNING 1), ` +
      `proposals AS (DELETE FROM ${p} WHERE proposal_key IN (SELECT proposal_key FROM ${p} WHERE expires_at <= $1::float8 FOR UPDATE SKIP LOCKED) RETURNING 1) ` +
      'SELECT (SELECT count(*) FROM grants) + (SELECT count(*) FROM nonces) + (SELECT count(*) FROM proposals) AS removed',
    putProposal:
      `INSERT INTO ${p} (proposal_key, json, expires_at) VALUES ($1::text, $2::text, $3::float8) ` +
      'ON CONFLICT (proposal_key) DO UPDATE SET json = EXCLUDED.json, expires_at = EXCLUDED.expires_at',
    getProposal: `SELECT json FROM ${p} WHERE proposal_key = $1::text AND (expires_at IS NULL OR expires_at > $2::float8)`,
    deleteProposal: `DELETE FROM ${p} WHERE proposal_key = $1::text`,
    // A page in the order of the primary key's index (the column's collation), one row
    // more than asked.
    listProposalsFirst: `SELECT proposal_key, json FROM ${p} WHERE (expires_at IS NULL OR expires_at > $1::float8) ORDER BY proposal_key LIMIT $2::bigint`,
    listProposalsAfter: `SELECT proposal_key, json FROM ${p} WHERE proposal_key > $3::text AND (expires_at IS NULL OR expires_at > $1::float8) ORDER BY proposal_key LIMIT $2::bigint`,
  });
}

/** SQLSTATEs that mean the server gave up waiting (statement_timeout, lock_timeout). */
const TIMEOUT_STATES = { __proto__: null, 57014: true, '55P03': true };
const HINTS = { __proto__: null, '42P01': 'run store.migrate() first', '3F000': 'the schema does not exist' };

/** Mark the rejection of a call made after close(), and an answer without a rows array. */
const CLOSED = ObjectFreeze({ closed: true });
const BAD_RESULT = ObjectFreeze({ badResult: true });

function classify(cause) {
  if (cause === CLOSED) return { code: 'store_closed' };
  if (cause === BAD_RESULT) return { code: 'store_failed', detail: 'bad_result' };
  const detail = C.causeCode(cause);
  if (detail !== undefined && TIMEOUT_STATES[detail] === true) return { code: 'store_timeout', detail };
  // pg's own per-query timer (query_timeout) rejects with this message and no code.
  if (detail === undefined && cause !== null && typeof cause === 'object' && !isProxy(cause) && C.own(cause, 'message') === 'Query read timeout') {
    return { code: 'store_timeout' };
  }
  return { code: 'store_failed', detail, hint: detail === undefined ? undefined : HINTS[detail] };
}

function ignore() {}

const RECEIPT_FIELDS = ObjectFreeze(['agentName', 'runId', 'toolCallId', 'proposalHash', 'claimId', 'status', 'claimedAt', 'leaseExpiresAt', 'completedAt', 'resultJson', 'expiresAt']);

/** The receipt record of the first row (own data columns, text decoded), or null. */
function receiptRow(rows) {
  if (rows.length === 0) return null;
  const row = { __proto__: null };
  for (let i = 0; i < RECEIPT_FIELDS.length; i++) row[RECEIPT_FIELDS[i]] = first(rows, RECEIPT_FIELDS[i]);
  if (typeof row.agentName !== 'string' || typeof row.toolCallId !== 'string' || typeof row.claimId !== 'string') throw BAD_RESULT;
  const record = R.receiptFromRow(row);
  record.claimId = C.decodeText(record.claimId);
  return record;
}

/** The rows of a query result (an own `rows` array), or a failure. */
function rowsOf(result) {
  const rows = result !== null && typeof result === 'object' && !isProxy(result) ? C.own(result, 'rows') : undefined;
  if (!ArrayIsArray(rows)) throw BAD_RESULT;
  return rows;
}

/** Column `name` of the first row, or undefined when there is no row. */
function first(rows, name) {
  if (rows.length === 0) return undefined;
  const row = rows[0];
  return row !== null && typeof row === 'object' && !isProxy(row) ? C.own(row, name) : undefined;
}

/**
 * An ApprovalGrantStore in PostgreSQL, through `options.pool` (a pg Pool or Client; never
 * ended by the store). Run `await store.migrate()` once before first use (idempotent).
 * `options.table` (default tool_argument_snapshot_grants, `schema.table` allowed) names the
 * grants table, with `<table>_nonces` and `<table>_proposals` beside it; `options.timeoutMs`
 * (default 5000) bounds every call and is passed to pg as the query's `query_timeout`.
 */
function createPostgresGrantStore(options) {
  const opts = C.readOptions(options, 'createPostgresGrantStore');
  const pool = C.own(opts, 'pool');
  if (pool === null || typeof pool !== 'object' || isProxy(pool)) {
    throw invalidArgument('options.pool must be a pg Pool or Client (an object with a query method)');
  }
  const query = pool.query;
  if (typeof query !== 'function') throw invalidArgument('options.pool must be a pg Pool or Client (an object with a query method)');
  const table = C.readTable(C.own(opts, 'table'), true);
  const timeoutMs = C.readTimeout(C.own(opts, 'timeoutMs'));
  const sql = statements(table);
  const where = `PostgreSQL grant store (table "${table.schema === null ? '' : `${table.schema}.`}${table.name}")`;
  let closed = false;

  // A pool runs concurrent statements on several connections. One connection (a pg
  // Client: it has no totalCount) gets one statement at a time from this store: pg 8 only
  // queues concurrent queries with a deprecation warning, and pg 9 drops the queue.
  const single = typeof pool.totalCount !== 'number';
  let tail = C.then(undefined, undefined);

  /** Sends `text`; resolves with pg's answer (for several statements, a list of results). */
  function sendRaw(text, values, internal) {
    if (closed && !internal) throw CLOSED;
    if (!single) return C.call(query, pool, [{ text, values, query_timeout: timeoutMs }]);
    const sent = C.then(tail, () => C.call(query, pool, [{ text, values, query_timeout: timeoutMs }]));
    tail = C.then(sent, ignore, ignore);
    return sent;
  }

  /** One statement; resolves with its rows. */
  function send(text, values) {
    return C.then(sendRaw(text, values), rowsOf);
  }

  function run(operation, start) {
    return C.run(where, operation, timeoutMs, classify, start);
  }

  // A row whose last use was taken (uses = 0, dead to every reader) is deleted by a second
  // statement that the take does not wait for: the spend stays one round trip. prune() and
  // close() wait for the ones this store started; if one fails, the next take of the key or
  // prune() removes the row.
  let cleanups = C.then(undefined, undefined);
  function dropSpent(id) {
    cleanups = C.then(C.then(cleanups, () => sendRaw(sql.dropSpent, [id], true)), ignore, ignore);
  }

  function keyValues(q, now) {
    return now === undefined ? [q.proposalHash, q.agentName, q.toolName, q.scope] : [q.proposalHash, q.agentName, q.toolName, q.scope, now];
  }

  return ObjectFreeze({
    /** Creates the tables and indexes when missing (the DDL in docs/stores.md). */
    migrate: C.method(() => run('migrate', () => C.then(sendRaw(sql.ddl, undefined), () => undefined))),
    put: C.method((record, now) => {
      const r = C.readRecord(record);
      const t = C.readNow(now);
      const text = r.nonce === null ? sql.put : sql.putWithNonce;
      const values =
        r.nonce === null
          ? [r.proposalHash, r.agentName, r.toolName, r.scope, r.argsCanonicalJson, r.expiresAt, r.uses]
          : [r.proposalHash, r.agentName, r.toolName, r.scope, r.argsCanonicalJson, r.expiresAt, r.uses, r.nonce, r.nonceExpiresAt, t];
      return run('put', () => C.then(send(text, values), (rows) => rows.length === 1));
    }),
    has: C.method((query, now) => {
      const q = C.readQuery(query);
      const t = C.readNow(now);
      return run('has', () => C.then(send(sql.has, keyValues(q, t)), (rows) => first(rows, 'found') === true));
    }),
    take: C.method((query, now) => {
      const q = C.readQuery(query);
      const t = C.readNow(now);
      return run('take', () =>
        C.then(send(sql.take, keyValues(q, t)), (rows) => {
          if (rows.length === 0) return false;
          if (+first(rows, 'uses') <= 0) dropSpent(first(rows, 'id'));
          return true;
        }),
      );
    }),
    delete: C.method((query) => {
      const q = C.readQuery(query);
      return run('delete', () => C.then(send(sql.delete, keyValues(q)), () => undefined));
    }),
    prune: C.method((now) => {
      const t = C.readNow(now);
      return run('prune', () => C.then(cleanups, () => C.then(send(sql.prune, [t]), (rows) => +first(rows, 'removed'))));
    }),
    putProposal: C.method((key, json, expiresAt) => {
      const values = [C.readProposalKey(key), C.encodeText(C.readString(json, 'json')), C.readTime(expiresAt, 'expiresAt')];
      return run('putProposal', () => C.then(send(sql.putProposal, values), () => undefined));
    }),
    getProposal: C.method((key, now) => {
      const values = [C.readProposalKey(key), C.readNow(now)];
      return run('getProposal', () =>
        C.then(send(sql.getProposal, values), (rows) => {
          const json = first(rows, 'json');
          return typeof json === 'string' ? C.decodeText(json) : null;
        }),
      );
    }),
    deleteProposal: C.method((key) => {
      const values = [C.readProposalKey(key)];
      return run('deleteProposal', () => C.then(send(sql.deleteProposal, values), () => undefined));
    }),
    listProposals: C.method((after, limit, now) => {
      const a = C.readListAfter(after);
      const n = C.readListLimit(limit);
      const t = C.readNow(now);
      const text = a === null ? sql.listProposalsFirst : sql.listProposalsAfter;
      const values = a === null ? [t, n + 1] : [t, n + 1, a];
      return run('listProposals', () =>
        C.then(send(text, values), (rows) => {
          const keys = [];
          const jsons = [];
          const count = rows.length > n ? n : rows.length;
          for (let i = 0; i < count; i++) {
            const row = rows[i];
            if (row === null || typeof row !== 'object' || isProxy(row)) throw BAD_RESULT;
            const key = C.own(row, 'proposal_key');
            const json = C.own(row, 'json');
            if (typeof key !== 'string' || typeof json !== 'string') throw BAD_RESULT;
            keys[i] = key;
            jsons[i] = json;
          }
          return C.proposalPage(keys, jsons, rows.length > n ? keys[n - 1] : null);
        }),
      );
    }),
    // Receipts (docs/stores.md): the `<table>_receipts` table, one statement each.
    claimReceipt: C.method((claim, now) => {
      const c = R.readReceiptClaim(claim);
      const t = R.readReceiptNow(now);
      const claimId = C.encodeText(c.claimId);
      const values = [R.receiptId(c), C.encodeText(c.agentName), c.runId === null ? null : C.encodeText(c.runId), C.encodeText(c.toolCallId), c.proposalHash, claimId, c.claimedAt, c.leaseExpiresAt, c.expiresAt, t];
      return run('claimReceipt', () =>
        C.then(send(sql.claimReceipt, values), (rows) => {
          const record = receiptRow(rows);
          if (record === null) throw BAD_RESULT;
          return record.claimId === c.claimId ? null : record;
        }),
      );
    }),
    completeReceipt: C.method((outcome, now) => {
      const o = R.readReceiptOutcome(outcome);
      R.readReceiptNow(now);
      const values = [R.receiptId(o), C.encodeText(o.claimId), o.status, o.completedAt, o.resultJson === null ? null : C.encodeText(o.resultJson), o.expiresAt];
      return run('completeReceipt', () => C.then(send(sql.completeReceipt, values), (rows) => rows.length === 1));
    }),
    releaseReceipt: C.method((release, now) => {
      const k = R.readReceiptRelease(release);
      R.readReceiptNow(now);
      const values = [R.receiptId(k), C.encodeText(k.claimId)];
      return run('releaseReceipt', () => C.then(send(sql.releaseReceipt, values), (rows) => rows.length === 1));
    }),
    getReceipt: C.method((key, now) => {
      const values = [R.receiptId(R.readReceiptKey(key)), R.readReceiptNow(now)];
      return run('getReceipt', () => C.then(send(sql.getReceipt, values), receiptRow));
    }),
    deleteReceipt: C.method((key) => {
      const values = [R.receiptId(R.readReceiptKey(key))];
      return run('deleteReceipt', () => C.then(send(sql.deleteReceipt, values), (rows) => rows.length === 1));
    }),
    pruneReceipts: C.method((now) => {
      const values = [R.readReceiptNow(now)];
      return run('pruneReceipts', () => C.then(send(sql.pruneReceipts, values), (rows) => +first(rows, 'removed')));
    }),
    /** Later calls reject (store_closed); the pool stays open: it is the application's. */
    close: C.method(() => {
      closed = true;
      return C.then(cleanups, ignore);
    }),
  });
}

module.exports = { createPostgresGrantStore };
