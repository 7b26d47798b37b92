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
const { statements, statementName } = require('./postgres-sql');
const { receiptBatches } = require('./postgres-batch');

const { ArrayIsArray, ObjectFreeze, isProxy } = P;
// Captured when the package loaded (this module loads at first use).
const { ObjectKeys } = P;

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

const RECEIPT_FIELDS = ObjectFreeze([
  'agentName',
  'runId',
  'toolCallId',
  'proposalHash',
  'claimId',
  'status',
  'claimedAt',
  'leaseExpiresAt',
  'completedAt',
  'resultJson',
  'expiresAt',
]);

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

function keyValues(q, now) {
  return now === undefined ? [q.proposalHash, q.agentName, q.toolName, q.scope] : [q.proposalHash, q.agentName, q.toolName, q.scope, now];
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
  // Every statement but the migration is prepared once per connection (pg's named
  // statements): the name is a digest of the text (statementName).
  const names = { __proto__: null };
  const ops = ObjectKeys(sql);
  for (let i = 0; i < ops.length; i++) if (ops[i] !== 'ddl') names[sql[ops[i]]] = statementName(sql[ops[i]]);
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
    const name = names[text];
    const config = name === undefined ? { text, values, query_timeout: timeoutMs } : { name, text, values, query_timeout: timeoutMs };
    if (!single) return C.call(query, pool, [config]);
    const sent = C.then(tail, () => C.call(query, pool, [config]));
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
    cleanups = C.then(
      C.then(cleanups, () => sendRaw(sql.dropSpent, [id], true)),
      ignore,
      ignore,
    );
  }

  /** What the grant and the receipt operations below are given of this store. */
  const conn = ObjectFreeze({
    __proto__: null,
    sql,
    send,
    run,
    dropSpent,
    receiptRow,
    BAD_RESULT,
    cleanups: () => cleanups,
  });
  return ObjectFreeze({
    /** Creates the tables and indexes when missing (the DDL in docs/stores.md). */
    migrate: C.method(() => run('migrate', () => C.then(sendRaw(sql.ddl, undefined), () => undefined))),
    ...postgresGrants(conn),
    ...postgresReceipts(conn),
    /** Later calls reject (store_closed); the pool stays open: it is the application's. */
    close: C.method(() => {
      closed = true;
      return C.then(cleanups, ignore);
    }),
  });
}

/** The grant and kept-proposal operations of one PostgreSQL store over its connection. */
function postgresGrants(conn) {
  const { sql, send, run, dropSpent, cleanups } = conn;
  return {
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
      return run('prune', () => C.then(cleanups(), () => C.then(send(sql.prune, [t]), (rows) => +first(rows, 'removed'))));
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
  };
}

/** The receipt operations of one PostgreSQL store over its connection (claims and completions batched: postgres-batch.js). */
function postgresReceipts(conn) {
  const { sql, send, run } = conn;
  const { claims, completions } = receiptBatches(conn);
  return {
    // Receipts (docs/stores.md): the `<table>_receipts` table, one statement each.
    claimReceipt: C.method((claim, now) => {
      const c = R.readReceiptClaim(claim);
      const t = R.readReceiptNow(now);
      const claimId = C.encodeText(c.claimId);
      const values = [
        R.receiptId(c),
        C.encodeText(c.agentName),
        c.runId === null ? null : C.encodeText(c.runId),
        C.encodeText(c.toolCallId),
        c.proposalHash,
        claimId,
        c.claimedAt,
        c.leaseExpiresAt,
        c.expiresAt,
        t,
      ];
      return run('claimReceipt', () => claims(values[0], values));
    }),
    claimReceiptAndTake: C.method((claim, now, query, grantNow) => {
      const c = R.readReceiptClaim(claim);
      const t = R.readReceiptNow(now);
      const q = C.readQuery(query);
      const gt = C.readNow(grantNow);
      const claimId = C.encodeText(c.claimId);
      const values = [
        R.receiptId(c),
        C.encodeText(c.agentName),
        c.runId === null ? null : C.encodeText(c.runId),
        C.encodeText(c.toolCallId),
        c.proposalHash,
        claimId,
        c.claimedAt,
        c.leaseExpiresAt,
        c.expiresAt,
        t,
        q.proposalHash,
        q.agentName,
        q.toolName,
        q.scope,
        gt,
      ];
      return run('claimReceiptAndTake', () =>
        C.then(send(sql.claimReceiptAndTake, values), (rows) => {
          const record = receiptRow(rows);
          if (record === null) return false;
          if (record.claimId !== c.claimId) return record;
          const tookId = first(rows, 'tookId');
          if (tookId === null || tookId === undefined) {
            // Claimed with no use taken (the locked grant changed under it, which its lock
            // forbids): the claim goes, as after a refused take.
            return C.then(send(sql.releaseReceipt, [values[0], claimId]), () => false);
          }
          return null;
        }),
      );
    }),
    completeReceipt: C.method((outcome, now) => {
      const o = R.readReceiptOutcome(outcome);
      R.readReceiptNow(now);
      const values = [R.receiptId(o), C.encodeText(o.claimId), o.status, o.completedAt, o.resultJson === null ? null : C.encodeText(o.resultJson), o.expiresAt];
      return run('completeReceipt', () => completions(values[0], values));
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
  };
}

module.exports = { createPostgresGrantStore };
