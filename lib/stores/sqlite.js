'use strict';
// createSqliteGrantStore: grants in one SQLite file, shared by every process on the host
// that opens it. SQLite is compiled into the addon (src/store/), so there is nothing to
// install and no runtime's own SQLite is used (Node 20-26, Bun and Deno alike, no
// experimental warning). Each store has a thread of its own that owns its connection:
// calls never block the event loop or take a libuv pool thread, and every call
// (waiting for its turn and for other processes' locks included) ends within timeoutMs.

const { invalidArgument } = require('../errors');
const { binding } = require('../native');
const P = require('../primordials');
const C = require('./common');
const R = require('./receipt-records');

const { ObjectFreeze, StringPrototypeIsWellFormed, StringPrototypeSlice } = P;
// Captured when the package loaded (this module loads at first use).
const { StringPrototypeIndexOf, StringPrototypeToLowerCase } = P;

const {
  sqliteStoreOpen,
  sqliteStorePut,
  sqliteStoreHas,
  sqliteStoreTake,
  sqliteStoreDelete,
  sqliteStorePrune,
  sqliteStorePutProposal,
  sqliteStoreGetProposal,
  sqliteStoreDeleteProposal,
  sqliteStoreListProposals,
  sqliteStoreClose,
  sqliteStoreClaimReceipt,
  sqliteStoreClaimReceiptAndTake,
  sqliteStoreCompleteReceipt,
  sqliteStoreReleaseReceipt,
  sqliteStoreGetReceipt,
  sqliteStoreDeleteReceipt,
  sqliteStorePruneReceipts,
} = binding;

/** SQLite result codes worth a word in the message (the primary code is the low byte). */
const HINTS = {
  __proto__: null,
  8: 'the file is read-only',
  10: 'a disk I/O error',
  11: 'the database file is damaged',
  13: 'the disk is full',
  14: 'the file cannot be opened',
  26: 'the file is not a database',
};

/** The binding rejects with a bare code as its message (src/binding/store.rs). */
function classify(cause) {
  const message = cause !== null && typeof cause === 'object' ? C.own(cause, 'message') : undefined;
  if (message === 'timeout') return { code: 'store_timeout' };
  if (message === 'closed') return { code: 'store_closed' };
  if (typeof message === 'string' && StringPrototypeIndexOf(message, 'sqlite_') === 0) {
    const number = +StringPrototypeSlice(message, 7);
    // 1550 (SQLITE_CANTOPEN_SYMLINK): the store refuses a path that links to nothing.
    const hint = number === 1550 ? 'the path is a symbolic link to nothing' : HINTS[number & 0xff];
    return { code: 'store_failed', detail: message, hint };
  }
  return { code: 'store_failed', detail: typeof message === 'string' && message === 'internal' ? message : undefined };
}

/** A receipt key's text as the store writes it (encodeText; runId null stays null). */
function encodeKey(key) {
  return { agentName: C.encodeText(key.agentName), runId: key.runId === null ? null : C.encodeText(key.runId), toolCallId: C.encodeText(key.toolCallId) };
}

function receiptOrNull(row) {
  if (row === null || row === undefined) return null;
  const record = R.receiptFromRow(row);
  record.claimId = C.decodeText(record.claimId);
  return record;
}

function readPath(value) {
  if (typeof value !== 'string' || value.length === 0 || StringPrototypeIndexOf(value, '\u0000') !== -1 || !StringPrototypeIsWellFormed(value)) {
    throw invalidArgument('options.path must be a non-empty file path string (":memory:" for a private in-memory database)');
  }
  return value;
}

/**
 * An ApprovalGrantStore in the SQLite file at `options.path` (created, with its tables,
 * when missing: the file is made readable by its owner only). `options.table` names the
 * grants table (default tool_argument_snapshot_grants; `<table>_nonces` and
 * `<table>_proposals` beside it); `options.timeoutMs` (default 5000) bounds every call.
 * `close()` closes the file after the calls already made.
 */
function createSqliteGrantStore(options) {
  const opts = C.readOptions(options, 'createSqliteGrantStore');
  const path = readPath(C.own(opts, 'path'));
  const table = C.readTable(C.own(opts, 'table'), false).name;
  // SQLite compares identifiers without ASCII case, quoted or not: "Approvals" and
  // "approvals" would be one table. Only lower-case names are taken, so no two meet.
  if (StringPrototypeToLowerCase(table) !== table) {
    throw invalidArgument('options.table must be lower-case for SQLite (SQLite compares table names without case; docs/stores.md)');
  }
  const timeoutMs = C.readTimeout(C.own(opts, 'timeoutMs'));
  const where = `SQLite grant store (table "${table}")`;
  const handle = sqliteStoreOpen(path, table, timeoutMs);

  function run(operation, start) {
    return C.run(where, operation, timeoutMs, classify, start);
  }

  /** What the grant and the receipt operations below are given of this store. */
  const conn = ObjectFreeze({ __proto__: null, handle, run });
  return ObjectFreeze({
    ...sqliteGrants(conn),
    ...sqliteReceipts(conn),
    close: C.method(() => run('close', () => sqliteStoreClose(handle))),
  });
}

/** The grant and kept-proposal operations of one SQLite store over its connection. */
function sqliteGrants(conn) {
  const { handle, run } = conn;
  return {
    put: C.method((record, now) => {
      const r = C.readRecord(record);
      const t = C.readNow(now);
      return run('put', () =>
        sqliteStorePut(handle, r.agentName, r.toolName, r.proposalHash, r.scope, r.argsCanonicalJson, r.expiresAt, r.uses, r.nonce, r.nonceExpiresAt, t),
      );
    }),
    has: C.method((query, now) => {
      const q = C.readQuery(query);
      const t = C.readNow(now);
      return run('has', () => sqliteStoreHas(handle, q.agentName, q.toolName, q.proposalHash, q.scope, t));
    }),
    take: C.method((query, now) => {
      const q = C.readQuery(query);
      const t = C.readNow(now);
      return run('take', () => sqliteStoreTake(handle, q.agentName, q.toolName, q.proposalHash, q.scope, t));
    }),
    delete: C.method((query) => {
      const q = C.readQuery(query);
      return run('delete', () => sqliteStoreDelete(handle, q.agentName, q.toolName, q.proposalHash, q.scope));
    }),
    prune: C.method((now) => {
      const t = C.readNow(now);
      return run('prune', () => sqliteStorePrune(handle, t));
    }),
    putProposal: C.method((key, json, expiresAt) => {
      const k = C.readProposalKey(key);
      const j = C.encodeText(C.readString(json, 'json'));
      const e = C.readTime(expiresAt, 'expiresAt');
      return run('putProposal', () => sqliteStorePutProposal(handle, k, j, e));
    }),
    getProposal: C.method((key, now) => {
      const k = C.readProposalKey(key);
      const t = C.readNow(now);
      return C.then(
        run('getProposal', () => sqliteStoreGetProposal(handle, k, t)),
        (json) => (json === null ? null : C.decodeText(json)),
      );
    }),
    deleteProposal: C.method((key) => {
      const k = C.readProposalKey(key);
      return run('deleteProposal', () => sqliteStoreDeleteProposal(handle, k));
    }),
    listProposals: C.method((after, limit, now) => {
      const a = C.readListAfter(after);
      const n = C.readListLimit(limit);
      const t = C.readNow(now);
      // One row more than asked: whether another page follows.
      return C.then(
        run('listProposals', () => sqliteStoreListProposals(handle, a, n + 1, t)),
        (flat) => {
          const keys = [];
          const jsons = [];
          const rows = flat.length / 2 > n ? n : flat.length / 2;
          for (let i = 0; i < rows; i++) {
            keys[i] = flat[2 * i];
            jsons[i] = flat[2 * i + 1];
          }
          return C.proposalPage(keys, jsons, flat.length / 2 > n ? keys[n - 1] : null);
        },
      );
    }),
  };
}

/** The receipt operations of one SQLite store over its connection. */
function sqliteReceipts(conn) {
  const { handle, run } = conn;
  return {
    // Receipts (docs/stores.md): the `<table>_receipts` table, one transaction each.
    claimReceipt: C.method((claim, now) => {
      const c = R.readReceiptClaim(claim);
      const t = R.readReceiptNow(now);
      const k = encodeKey(c);
      return C.then(
        run('claimReceipt', () =>
          sqliteStoreClaimReceipt(
            handle,
            k.agentName,
            k.runId,
            k.toolCallId,
            c.proposalHash,
            C.encodeText(c.claimId),
            c.claimedAt,
            c.leaseExpiresAt,
            c.expiresAt,
            t,
          ),
        ),
        receiptOrNull,
      );
    }),
    claimReceiptAndTake: C.method((claim, now, query, grantNow) => {
      const c = R.readReceiptClaim(claim);
      const t = R.readReceiptNow(now);
      const q = C.readQuery(query);
      const gt = C.readNow(grantNow);
      const k = encodeKey(c);
      return C.then(
        run('claimReceiptAndTake', () =>
          sqliteStoreClaimReceiptAndTake(
            handle,
            k.agentName,
            k.runId,
            k.toolCallId,
            c.proposalHash,
            C.encodeText(c.claimId),
            c.claimedAt,
            c.leaseExpiresAt,
            c.expiresAt,
            t,
            q.agentName,
            q.toolName,
            q.proposalHash,
            q.scope,
            gt,
          ),
        ),
        (answer) => (answer === true ? null : answer === false ? false : receiptOrNull(answer)),
      );
    }),
    completeReceipt: C.method((outcome, now) => {
      const o = R.readReceiptOutcome(outcome);
      R.readReceiptNow(now);
      const k = encodeKey(o);
      const result = o.resultJson === null ? null : C.encodeText(o.resultJson);
      return run('completeReceipt', () =>
        sqliteStoreCompleteReceipt(handle, k.agentName, k.runId, k.toolCallId, C.encodeText(o.claimId), o.status, o.completedAt, result, o.expiresAt),
      );
    }),
    releaseReceipt: C.method((release, now) => {
      const r = R.readReceiptRelease(release);
      R.readReceiptNow(now);
      const k = encodeKey(r);
      return run('releaseReceipt', () => sqliteStoreReleaseReceipt(handle, k.agentName, k.runId, k.toolCallId, C.encodeText(r.claimId)));
    }),
    getReceipt: C.method((key, now) => {
      const k = encodeKey(R.readReceiptKey(key));
      const t = R.readReceiptNow(now);
      return C.then(
        run('getReceipt', () => sqliteStoreGetReceipt(handle, k.agentName, k.runId, k.toolCallId, t)),
        receiptOrNull,
      );
    }),
    deleteReceipt: C.method((key) => {
      const k = encodeKey(R.readReceiptKey(key));
      return run('deleteReceipt', () => sqliteStoreDeleteReceipt(handle, k.agentName, k.runId, k.toolCallId));
    }),
    pruneReceipts: C.method((now) => {
      const t = R.readReceiptNow(now);
      return run('pruneReceipts', () => sqliteStorePruneReceipts(handle, t));
    }),
  };
}

module.exports = { createSqliteGrantStore };
