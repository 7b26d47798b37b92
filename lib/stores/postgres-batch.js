'use strict';
// The receipt writes of one PostgreSQL store (lib/stores/postgres.js), batched (issue 35):
// at most one statement that claims and one that completes in flight per store (a
// statement that does both counts as each); the claims and completions sent meanwhile wait
// and go together as one statement (the unnest statements of postgres-sql.js: one write,
// one round trip, one statement for PostgreSQL to plan and run), each answered for its own
// key. A key is in at most one statement in flight: a second claim of a key, or a claim of
// a key being completed, waits for the next one, and two statements of this store never
// wait on each other's row locks. A write is sent at the event loop's next check phase
// (setImmediate), not at once: the claims of the requests one poll of the loop read, and the
// completions of the handlers a statement's answer let run, go as one statement (the load
// test: 0.34 statements per request instead of 0.84-0.91; docs/performance.md).

const P = require('../primordials');
const C = require('./common');

const { isProxy } = P;
// Captured when the package loaded (this module loads at first use).
const { ArrayPrototypePush, SafePromise, PromiseReject, SafeSetImmediate } = P;

const MAX_BATCH = 256;

/**
 * Takes the items of `queue` whose keys are neither in `seen` yet nor in `busyKeys` (in a
 * statement in flight), at most MAX_BATCH; the others stay queued.
 */
function takeUnique(queue, seen, busyKeys) {
  const taken = [];
  const left = [];
  for (let i = 0; i < queue.length; i++) {
    const item = queue[i];
    if (seen[item.key] === true || busyKeys[item.key] === true || taken.length >= MAX_BATCH) ArrayPrototypePush(left, item);
    else {
      seen[item.key] = true;
      ArrayPrototypePush(taken, item);
    }
  }
  return { taken, left };
}

/** The values of a batch as one array per column. */
function columnsOf(batch, width) {
  const columns = [];
  for (let j = 0; j < width; j++) ArrayPrototypePush(columns, []);
  for (let i = 0; i < batch.length; i++) for (let j = 0; j < width; j++) ArrayPrototypePush(columns[j], batch[i].values[j]);
  return columns;
}

/** A claim's answer from its row: null when the row is this claim's own, else the record. */
function claimAnswer(conn, record, claimId) {
  if (record === null) throw conn.BAD_RESULT;
  return record.claimId === claimId ? null : record;
}

/** The answers of a statement's rows: each claim's (by its key), each completion's (whether its row was updated). */
function answersOf(conn, rows, claimBatch, completeBatch) {
  const claimed = { __proto__: null };
  const done = { __proto__: null };
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (row === null || typeof row !== 'object' || isProxy(row)) throw conn.BAD_RESULT;
    if (C.own(row, 'kind') === 'done') done[`${C.own(row, 'id')} ${C.own(row, 'claimId')}`] = true;
    else claimed[C.own(row, 'id')] = row;
  }
  const claims = [];
  for (let i = 0; i < claimBatch.length; i++) {
    const row = claimed[claimBatch[i].values[0]];
    if (row === undefined) throw conn.BAD_RESULT;
    ArrayPrototypePush(claims, claimAnswer(conn, conn.receiptRow([row]), C.decodeText(claimBatch[i].values[5])));
  }
  const completions = [];
  for (let i = 0; i < completeBatch.length; i++) ArrayPrototypePush(completions, done[`${completeBatch[i].values[0]} ${completeBatch[i].values[1]}`] === true);
  return { claims, completions };
}

/** One statement for what the queues hold (the single-row statements when one item waits). */
function sendWrites(conn, claimBatch, completeBatch) {
  const { send, sql, receiptRow } = conn;
  if (completeBatch.length === 0 && claimBatch.length === 1) {
    const values = claimBatch[0].values;
    return C.then(send(sql.claimReceipt, values), (rows) => ({ claims: [claimAnswer(conn, receiptRow(rows), C.decodeText(values[5]))], completions: [] }));
  }
  if (claimBatch.length === 0 && completeBatch.length === 1) {
    return C.then(send(sql.completeReceipt, completeBatch[0].values), (rows) => ({ claims: [], completions: [rows.length === 1] }));
  }
  let text;
  let values;
  if (completeBatch.length === 0) {
    text = sql.claimReceipts;
    values = columnsOf(claimBatch, 10);
  } else if (claimBatch.length === 0) {
    text = sql.completeReceipts;
    values = columnsOf(completeBatch, 6);
  } else {
    text = sql.receiptWrites;
    values = columnsOf(claimBatch, 10);
    const more = columnsOf(completeBatch, 6);
    for (let j = 0; j < more.length; j++) ArrayPrototypePush(values, more[j]);
  }
  return C.then(send(text, values), (rows) => answersOf(conn, rows, claimBatch, completeBatch));
}

/**
 * The batched claims and completions of one store over `conn` (frozen: `send(text,
 * values)` resolving with the rows, `sql`, `receiptRow(rows)`, `BAD_RESULT`): `claims(key,
 * values)` resolves with null (claimed) or the stored record that refuses the claim,
 * `completions(key, values)` with whether the claim's row was completed.
 */
function receiptBatches(conn) {
  let claiming = false;
  let completing = false;
  let claimQueue = [];
  let completeQueue = [];
  let busyKeys = { __proto__: null };
  let scheduled = false;

  /** The flush at the next check phase: what this turn of the loop queues goes with it. */
  function flushScheduled() {
    scheduled = false;
    flushWrites();
  }

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    SafeSetImmediate(flushScheduled);
  }

  function flushWrites() {
    const seen = { __proto__: null };
    // Completions first: a claim of a key being completed waits (it then reads the outcome).
    const completes = completing || completeQueue.length === 0 ? undefined : takeUnique(completeQueue, seen, busyKeys);
    const claims = claiming || claimQueue.length === 0 ? undefined : takeUnique(claimQueue, seen, busyKeys);
    const completeBatch = completes === undefined ? [] : completes.taken;
    const claimBatch = claims === undefined ? [] : claims.taken;
    // Every waiting key is in a statement in flight: the next flush sends them.
    if (claimBatch.length === 0 && completeBatch.length === 0) return;
    if (completes !== undefined) completeQueue = completes.left;
    if (claims !== undefined) claimQueue = claims.left;
    const claimed = claimBatch.length > 0;
    const completed = completeBatch.length > 0;
    if (claimed) claiming = true;
    if (completed) completing = true;
    for (let i = 0; i < claimBatch.length; i++) busyKeys[claimBatch[i].key] = true;
    for (let i = 0; i < completeBatch.length; i++) busyKeys[completeBatch[i].key] = true;
    let sent;
    try {
      sent = sendWrites(conn, claimBatch, completeBatch);
    } catch (cause) {
      sent = PromiseReject(cause);
    }
    const settled = () => {
      if (claimed) claiming = false;
      if (completed) completing = false;
      for (let i = 0; i < claimBatch.length; i++) delete busyKeys[claimBatch[i].key];
      for (let i = 0; i < completeBatch.length; i++) delete busyKeys[completeBatch[i].key];
      if (!claiming && !completing) busyKeys = { __proto__: null };
    };
    C.then(
      sent,
      (answers) => {
        settled();
        for (let i = 0; i < claimBatch.length; i++) claimBatch[i].resolve(answers.claims[i]);
        for (let i = 0; i < completeBatch.length; i++) completeBatch[i].resolve(answers.completions[i]);
        schedule();
      },
      (cause) => {
        settled();
        for (let i = 0; i < claimBatch.length; i++) claimBatch[i].reject(cause);
        for (let i = 0; i < completeBatch.length; i++) completeBatch[i].reject(cause);
        schedule();
      },
    );
  }

  function queued(queue, key, values) {
    return new SafePromise((resolve, reject) => {
      ArrayPrototypePush(queue === 'claim' ? claimQueue : completeQueue, { key, values, resolve, reject });
      schedule();
    });
  }

  return {
    claims: (key, values) => queued('claim', key, values),
    completions: (key, values) => queued('complete', key, values),
  };
}

module.exports = { receiptBatches };
