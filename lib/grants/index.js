'use strict';
// Approval grants bound to the proposal hash (RFC-0016 "Resume approval matches only an
// identical strict snapshot hash"). A grant is looked at by the policy helper and spent
// by executeToolCall's `grants` hook right before the handler runs, so an attempt that
// policy allows but the runtime then denies (a mutated view, a bad result) keeps it.

const { invalidArgument } = require('../errors');
const P = require('../primordials');
const { verifySnapshot } = require('../snapshot');

const { ObjectFreeze, ObjectGetOwnPropertyDescriptor, ObjectHasOwn, StringPrototypeIsWellFormed } = P;

const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);

/**
 * Every allow result a grants object's policy helper returned, with that grants object:
 * executeToolCall and authorizeToolCall spend through it even when the caller passed no
 * `grants` option (or another grants object), so forgetting the option cannot replay a
 * single-use approval.
 */
const ISSUERS = new P.SafeWeakMap();

/** The grants object whose policy helper returned `result`, or undefined. */
function grantIssuer(result) {
  return result !== null && typeof result === 'object' ? P.WeakMapPrototypeGet(ISSUERS, result) : undefined;
}
const SafeMap = Map;
const MapPrototypeGet = uncurryThis(Map.prototype.get);
const MapPrototypeSet = uncurryThis(Map.prototype.set);
const MapPrototypeDelete = uncurryThis(Map.prototype.delete);
const ArrayPrototypePush = uncurryThis(Array.prototype.push);
const ArrayPrototypeSplice = uncurryThis(Array.prototype.splice);
const StringPrototypeCharCodeAt = uncurryThis(String.prototype.charCodeAt);
const NumberIsSafeInteger = Number.isSafeInteger;
const NumberIsFinite = Number.isFinite;
const DateNow = Date.now;
const ReflectApply = Reflect.apply;

/** Whether `text` is a proposal hash: 64 lowercase hex digits. (No RegExp: `test` looks
 * up `exec` on the prototype at every call.) */
function isHash(text) {
  if (text.length !== 64) return false;
  for (let i = 0; i < 64; i++) {
    const c = StringPrototypeCharCodeAt(text, i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/** An own data property of `object`, or undefined (getters and inherited values never count). */
function own(object, key) {
  const descriptor = ObjectGetOwnPropertyDescriptor(object, key);
  return descriptor !== undefined && ObjectHasOwn(descriptor, 'value') ? descriptor.value : undefined;
}

function readObject(value, what) {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object') throw invalidArgument(`${what} must be an object`);
  return value;
}

function readUses(value, what) {
  if (value === undefined) return undefined;
  if (!NumberIsSafeInteger(value) || value < 1) throw invalidArgument(`${what} must be a positive safe integer`);
  return value;
}

function readTtl(value, what) {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value > 0) || !NumberIsFinite(value)) throw invalidArgument(`${what} must be a positive finite number of milliseconds`);
  return value;
}

function readFunction(value, what) {
  if (value === undefined) return undefined;
  if (typeof value !== 'function') throw invalidArgument(`${what} must be a function`);
  return value;
}

/** The three strings a grant is bound to, as a frozen query for the store. */
function grantQuery(agentName, toolName, proposalHash) {
  return ObjectFreeze({ agentName, toolName, proposalHash });
}

function queryOf(source) {
  const agentName = own(source, 'agentName');
  const toolName = own(source, 'toolName');
  const proposalHash = own(source, 'proposalHash');
  if (typeof agentName !== 'string' || typeof toolName !== 'string' || typeof proposalHash !== 'string') return null;
  if (!StringPrototypeIsWellFormed(agentName) || !StringPrototypeIsWellFormed(toolName) || !isHash(proposalHash)) return null;
  return grantQuery(agentName, toolName, proposalHash);
}

/** An unambiguous map key for a query (length-prefixed names, then the fixed-size hash). */
function keyOf(query) {
  return `${query.agentName.length}:${query.agentName}${query.toolName.length}:${query.toolName}${query.proposalHash}`;
}

function live(record, now) {
  return record.uses > 0 && (record.expiresAt === null || now < record.expiresAt);
}

/**
 * The default store: process memory. Every method is synchronous, so `take` is atomic
 * with respect to every other call in this process (one thread, no await inside).
 */
function createMemoryStore() {
  const records = new SafeMap();

  /** The live records of a key; expired and used-up ones are dropped on the way. */
  function liveRecords(query, now) {
    const key = keyOf(query);
    const list = MapPrototypeGet(records, key);
    if (list === undefined) return undefined;
    for (let i = list.length - 1; i >= 0; i--) {
      if (!live(list[i], now)) ArrayPrototypeSplice(list, i, 1);
    }
    if (list.length === 0) {
      MapPrototypeDelete(records, key);
      return undefined;
    }
    return list;
  }

  return ObjectFreeze({
    put(record) {
      const key = keyOf(record);
      const stored = { expiresAt: record.expiresAt, uses: record.uses };
      const list = MapPrototypeGet(records, key);
      if (list === undefined) MapPrototypeSet(records, key, [stored]);
      else ArrayPrototypePush(list, stored);
    },
    has(query, now) {
      return liveRecords(query, now) !== undefined;
    },
    take(query, now) {
      const list = liveRecords(query, now);
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
      if (list.length === 0) MapPrototypeDelete(records, keyOf(query));
      return true;
    },
    delete(query) {
      MapPrototypeDelete(records, keyOf(query));
    },
  });
}

/** A store method: an own data property (inherited methods never count, as for every option). */
function storeMethod(store, name, optional) {
  const method = own(store, name);
  if (method === undefined && optional) return undefined;
  if (typeof method !== 'function') throw invalidArgument(`store.${name} must be an own function property`);
  return method;
}

const DEFAULT_FALLBACK = ObjectFreeze(function requireApproval() {
  return { decision: 'require_approval', reason: 'approval_required' };
});

function createApprovalGrants(options) {
  const opts = readObject(options, 'options');
  const storeOption = opts === null ? undefined : own(opts, 'store');
  const now = (opts === null ? undefined : readFunction(own(opts, 'now'), 'options.now')) ?? DateNow;
  const defaultUses = (opts === null ? undefined : readUses(own(opts, 'uses'), 'options.uses')) ?? 1;
  const defaultTtl = opts === null ? undefined : readTtl(own(opts, 'ttlMs'), 'options.ttlMs');

  let store;
  if (storeOption === undefined) store = createMemoryStore();
  else if (storeOption !== null && typeof storeOption === 'object') store = storeOption;
  else throw invalidArgument('options.store must be an object');
  // Bound once: a store whose methods are replaced later keeps the ones it had.
  const storePut = storeMethod(store, 'put');
  const storeHas = storeMethod(store, 'has');
  const storeTake = storeMethod(store, 'take');
  const storeDelete = storeMethod(store, 'delete', true);

  function clock() {
    const t = now();
    if (typeof t !== 'number' || t !== t) throw invalidArgument('options.now must return a number');
    return t;
  }

  /**
   * Allow results made by this object's policy helper, each with the query it matched.
   * `spend` consumes a grant only for a decision whose policyResult is one of these.
   */
  const ISSUED = new P.SafeWeakMap();

  async function grant(approved, grantOptions) {
    if (approved === null || typeof approved !== 'object') {
      throw invalidArgument('grant expects { agentName, toolName, argsCanonicalJson, proposalHash }');
    }
    const gopts = readObject(grantOptions, 'grant options');
    const uses = (gopts === null ? undefined : readUses(own(gopts, 'uses'), 'uses')) ?? defaultUses;
    const ttl = gopts === null ? undefined : readTtl(own(gopts, 'ttlMs'), 'ttlMs');
    let expiresAt = gopts === null ? undefined : own(gopts, 'expiresAt');
    if (expiresAt !== undefined && (typeof expiresAt !== 'number' || !NumberIsFinite(expiresAt))) {
      throw invalidArgument('expiresAt must be a finite number (milliseconds since the epoch)');
    }
    if (expiresAt !== undefined && ttl !== undefined) throw invalidArgument('give expiresAt or ttlMs, not both');
    // What the approver saw is argsCanonicalJson: the hash is granted only if it is the
    // hash of that text (a tampered record throws SnapshotDomainError hash_mismatch).
    const snapshot = verifySnapshot({
      agentName: own(approved, 'agentName'),
      toolName: own(approved, 'toolName'),
      argsCanonicalJson: own(approved, 'argsCanonicalJson'),
      proposalHash: own(approved, 'proposalHash'),
    });
    if (expiresAt === undefined) {
      const lifetime = ttl ?? defaultTtl;
      expiresAt = lifetime === undefined ? null : clock() + lifetime;
    }
    const record = ObjectFreeze({
      agentName: snapshot.agentName,
      toolName: snapshot.toolName,
      proposalHash: snapshot.proposalHash,
      argsCanonicalJson: snapshot.argsCanonicalJson,
      expiresAt,
      uses,
    });
    await ReflectApply(storePut, store, [record]);
    return record;
  }

  async function has(source) {
    const query = source !== null && typeof source === 'object' ? queryOf(source) : null;
    if (query === null) return false;
    return (await ReflectApply(storeHas, store, [query, clock()])) === true;
  }

  async function revoke(source) {
    const query = source !== null && typeof source === 'object' ? queryOf(source) : null;
    if (query === null) throw invalidArgument('revoke expects { agentName, toolName, proposalHash }');
    if (storeDelete === undefined) throw invalidArgument('store.delete must be an own function property');
    await ReflectApply(storeDelete, store, [query]);
  }

  function policy(fallback) {
    const next = readFunction(fallback, 'fallback policy') ?? DEFAULT_FALLBACK;
    return async function grantPolicy(input) {
      const query = input !== null && typeof input === 'object' ? queryOf(input) : null;
      if (query !== null && (await ReflectApply(storeHas, store, [query, clock()])) === true) {
        const result = ObjectFreeze({ decision: 'allow', reason: 'approval_granted' });
        P.WeakMapPrototypeSet(ISSUED, result, query);
        P.WeakMapPrototypeSet(ISSUERS, result, grants);
        return result;
      }
      return next(input);
    };
  }

  async function spend(decision) {
    if (decision === null || typeof decision !== 'object') return false;
    if (own(decision, 'decision') !== 'allow' || own(decision, 'decidedBy') !== 'policy') return false;
    const policyResult = own(decision, 'policyResult');
    const issued = policyResult !== null && typeof policyResult === 'object' ? P.WeakMapPrototypeGet(ISSUED, policyResult) : undefined;
    // An allow that no grant produced spends nothing.
    if (issued === undefined) return true;
    const query = queryOf(decision);
    // A grant result handed on to another call (another hash, agent or tool) is refused.
    if (query === null || query.proposalHash !== issued.proposalHash || query.agentName !== issued.agentName || query.toolName !== issued.toolName) {
      return false;
    }
    return (await ReflectApply(storeTake, store, [query, clock()])) === true;
  }

  const grants = ObjectFreeze({ grant, has, revoke, policy, spend });
  return grants;
}

module.exports = { createApprovalGrants, grantIssuer };
