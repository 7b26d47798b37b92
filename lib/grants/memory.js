'use strict';
// The default grant store: process memory. Every method is synchronous, so `take` is
// atomic with respect to every other call in this process (one thread, no await inside).
// It implements the whole store interface (docs/stores.md) with the durable stores'
// semantics: reads change nothing, take drops the dead records it meets, prune the rest.
// Grants made here live as long as the process.

const P = require('../primordials');

const { ObjectFreeze } = P;
const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
const SafeMap = Map;
const MapPrototypeGet = uncurryThis(Map.prototype.get);
const MapPrototypeSet = uncurryThis(Map.prototype.set);
const MapPrototypeDelete = uncurryThis(Map.prototype.delete);
const MapPrototypeForEach = uncurryThis(Map.prototype.forEach);
const ArrayPrototypePush = uncurryThis(Array.prototype.push);
const ArrayPrototypeSplice = uncurryThis(Array.prototype.splice);

/**
 * An unambiguous key for a grant query: length-prefixed names, the fixed-size hash, then
 * the scope (`-` for none, `+` and the scope otherwise).
 */
function keyOf(query) {
  const scope = query.scope === null ? '-' : `+${query.scope}`;
  return `${query.agentName.length}:${query.agentName}${query.toolName.length}:${query.toolName}${query.proposalHash}${scope}`;
}

function live(record, now) {
  return record.uses > 0 && (record.expiresAt === null || now < record.expiresAt);
}

function createMemoryStore() {
  const grants = new SafeMap();
  const nonces = new SafeMap();
  const proposals = new SafeMap();

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
  });
}

module.exports = { createMemoryStore, keyOf };
