'use strict';
// The default grant store: process memory. Every method is synchronous, so `take` is
// atomic with respect to every other call in this process (one thread, no await inside).
// It implements the whole store interface (docs/stores.md) with the durable stores'
// semantics: reads change nothing, take drops the dead records it meets, prune the rest.
// Grants made here live as long as the process.

const P = require('../primordials');
const { readListLimit, readNow, readString } = require('./common');
const { readReceiptClaim, readReceiptKey, readReceiptNow, readReceiptOutcome, readReceiptRelease } = require('./receipt-records');

const { ObjectFreeze } = P;
// Captured when the package loaded (this module loads at first use).
const { SafeMap, MapPrototypeGet, MapPrototypeSet, MapPrototypeDelete, MapPrototypeForEach } = P;
const { ArrayPrototypePush, ArrayPrototypeSplice, ArrayPrototypeSort } = P;

/** Code unit order of two distinct strings (the memory store's listing order). */
function byKey(a, b) {
  return a < b ? -1 : 1;
}

/**
 * An unambiguous key for a grant query: length-prefixed names, the fixed-size hash, then
 * the scope (`-` for none, `+` and the scope otherwise).
 */
function keyOf(query) {
  const scope = query.scope === null ? '-' : `+${query.scope}`;
  return `${query.agentName.length}:${query.agentName}${query.toolName.length}:${query.toolName}${query.proposalHash}${scope}`;
}

/**
 * An unambiguous key for a receipt: length-prefixed agent name and call id, then the run
 * id (`-` for null, `+` and the id otherwise: null and '' stay distinct).
 */
function receiptKeyOf(key) {
  const run = key.runId === null ? '-' : `+${key.runId}`;
  return `${key.agentName.length}:${key.agentName}${key.toolCallId.length}:${key.toolCallId}${run}`;
}

/** A fresh plain copy of a stored receipt record (the caller never holds the stored one). */
function receiptCopy(r) {
  return {
    agentName: r.agentName,
    runId: r.runId,
    toolCallId: r.toolCallId,
    proposalHash: r.proposalHash,
    claimId: r.claimId,
    status: r.status,
    claimedAt: r.claimedAt,
    leaseExpiresAt: r.leaseExpiresAt,
    completedAt: r.completedAt,
    resultJson: r.resultJson,
    expiresAt: r.expiresAt,
  };
}

function live(record, now) {
  return record.uses > 0 && (record.expiresAt === null || now < record.expiresAt);
}

/** prune: drops the dead grant records, nonces and kept proposals; how many went. */
function pruneDead(grants, nonces, proposals, now) {
  let removed = 0;
  const emptied = [];
  MapPrototypeForEach(grants, (list, key) => {
    for (let i = list.length - 1; i >= 0; i--) {
      if (!live(list[i], now)) {
        ArrayPrototypeSplice(list, i, 1);
        removed++;
      }
    }
    if (list.length === 0) ArrayPrototypePush(emptied, key);
  });
  for (let i = 0; i < emptied.length; i++) MapPrototypeDelete(grants, emptied[i]);
  const expired = [];
  MapPrototypeForEach(nonces, (expiresAt, nonce) => {
    if (expiresAt !== null && now >= expiresAt) ArrayPrototypePush(expired, nonce);
  });
  for (let i = 0; i < expired.length; i++) MapPrototypeDelete(nonces, expired[i]);
  const stale = [];
  MapPrototypeForEach(proposals, (entry, key) => {
    if (entry.expiresAt !== null && now >= entry.expiresAt) ArrayPrototypePush(stale, key);
  });
  for (let i = 0; i < stale.length; i++) MapPrototypeDelete(proposals, stale[i]);
  return removed + expired.length + stale.length;
}

/** listProposals: the page of live kept proposals after `after`, in code unit order. */
function proposalPage(proposals, after, limit, now) {
  const start = after === null || after === undefined ? null : readString(after, 'after');
  const count = readListLimit(limit);
  const t = readNow(now);
  const keys = [];
  MapPrototypeForEach(proposals, (entry, key) => {
    if ((start === null || key > start) && (entry.expiresAt === null || t < entry.expiresAt)) ArrayPrototypePush(keys, key);
  });
  ArrayPrototypeSort(keys, byKey);
  const page = [];
  for (let i = 0; i < keys.length && i < count; i++) ArrayPrototypePush(page, { key: keys[i], json: MapPrototypeGet(proposals, keys[i]).json });
  return { proposals: page, next: keys.length > count ? keys[count - 1] : null };
}

function createMemoryStore() {
  const grants = new SafeMap();
  const nonces = new SafeMap();
  const proposals = new SafeMap();
  const receipts = new SafeMap();

  /** Whether a key has a live record: a read, it changes nothing. */
  function hasLive(key, now) {
    const list = MapPrototypeGet(grants, key);
    if (list === undefined) return false;
    for (let i = 0; i < list.length; i++) if (live(list[i], now)) return true;
    return false;
  }

  /** The live records of a key, for take: expired and used-up ones are dropped on the way. */
  function liveRecords(key, now) {
    const list = MapPrototypeGet(grants, key);
    if (list === undefined) return undefined;
    for (let i = list.length - 1; i >= 0; i--) {
      if (!live(list[i], now)) ArrayPrototypeSplice(list, i, 1);
    }
    if (list.length === 0) {
      MapPrototypeDelete(grants, key);
      return undefined;
    }
    return list;
  }

  function nonceLive(nonce, now) {
    const expiresAt = MapPrototypeGet(nonces, nonce);
    return expiresAt !== undefined && (expiresAt === null || now < expiresAt);
  }

  return ObjectFreeze({
    put(record, now) {
      if (record.nonce !== null) {
        if (nonceLive(record.nonce, now)) return false;
        MapPrototypeSet(nonces, record.nonce, record.nonceExpiresAt);
      }
      const key = keyOf(record);
      const stored = { expiresAt: record.expiresAt, uses: record.uses };
      const list = MapPrototypeGet(grants, key);
      if (list === undefined) MapPrototypeSet(grants, key, [stored]);
      else ArrayPrototypePush(list, stored);
      return true;
    },
    has(query, now) {
      return hasLive(keyOf(query), now);
    },
    take(query, now) {
      const key = keyOf(query);
      const list = liveRecords(key, now);
      if (list === undefined) return false;
      // The grant that expires first is used first.
      let chosen = 0;
      for (let i = 1; i < list.length; i++) {
        const a = list[i].expiresAt;
        const b = list[chosen].expiresAt;
        if (a !== null && (b === null || a < b)) chosen = i;
      }
      list[chosen].uses -= 1;
      if (list[chosen].uses === 0) ArrayPrototypeSplice(list, chosen, 1);
      if (list.length === 0) MapPrototypeDelete(grants, key);
      return true;
    },
    delete(query) {
      MapPrototypeDelete(grants, keyOf(query));
    },
    prune(now) {
      return pruneDead(grants, nonces, proposals, now);
    },
    putProposal(key, json, expiresAt) {
      MapPrototypeSet(proposals, key, { json, expiresAt });
    },
    getProposal(key, now) {
      const entry = MapPrototypeGet(proposals, key);
      if (entry === undefined || (entry.expiresAt !== null && now >= entry.expiresAt)) return null;
      return entry.json;
    },
    deleteProposal(key) {
      MapPrototypeDelete(proposals, key);
    },
    listProposals(after, limit, now) {
      return proposalPage(proposals, after, limit, now);
    },
    ...memoryReceipts(receipts),
  });
}

/** The receipt operations of one memory store over its receipts map. */
function memoryReceipts(receipts) {
  /**
   * The record of a receipt key that is kept, or undefined: an outcome within its retention,
   * or an unfinished claim (in_progress), whatever its retention says (until forget).
   */
  function liveReceipt(key, now) {
    const r = MapPrototypeGet(receipts, key);
    return r !== undefined && (r.status === 'in_progress' || now < r.expiresAt) ? r : undefined;
  }

  return {
    // Receipts (docs/stores.md): synchronous, so each is atomic in this process.
    claimReceipt(claim, now) {
      const c = readReceiptClaim(claim);
      const t = readReceiptNow(now);
      const key = receiptKeyOf(c);
      const existing = liveReceipt(key, t);
      if (existing !== undefined) return receiptCopy(existing);
      c.status = 'in_progress';
      c.completedAt = null;
      c.resultJson = null;
      MapPrototypeSet(receipts, key, receiptCopy(c));
      return null;
    },
    completeReceipt(outcome, now) {
      const o = readReceiptOutcome(outcome);
      readReceiptNow(now);
      const r = MapPrototypeGet(receipts, receiptKeyOf(o));
      if (r === undefined || r.status !== 'in_progress' || r.claimId !== o.claimId) return false;
      r.status = o.status;
      r.completedAt = o.completedAt;
      r.resultJson = o.resultJson;
      r.expiresAt = o.expiresAt;
      return true;
    },
    releaseReceipt(release, now) {
      const k = readReceiptRelease(release);
      readReceiptNow(now);
      const key = receiptKeyOf(k);
      const r = MapPrototypeGet(receipts, key);
      if (r === undefined || r.status !== 'in_progress' || r.claimId !== k.claimId) return false;
      MapPrototypeDelete(receipts, key);
      return true;
    },
    getReceipt(key, now) {
      const k = readReceiptKey(key);
      const r = liveReceipt(receiptKeyOf(k), readReceiptNow(now));
      return r === undefined ? null : receiptCopy(r);
    },
    deleteReceipt(key) {
      return MapPrototypeDelete(receipts, receiptKeyOf(readReceiptKey(key)));
    },
    pruneReceipts(now) {
      const t = readReceiptNow(now);
      const stale = [];
      MapPrototypeForEach(receipts, (r, key) => {
        if (r.status !== 'in_progress' && t >= r.expiresAt) ArrayPrototypePush(stale, key);
      });
      for (let i = 0; i < stale.length; i++) MapPrototypeDelete(receipts, stale[i]);
      return stale.length;
    },
  };
}

module.exports = { createMemoryStore, keyOf, receiptKeyOf };
