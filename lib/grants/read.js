'use strict';
// How the grants read what they are given (own data fields, checked numbers, scopes,
// nonces, store methods bound once) and call a store without running code of its
// promise's prototype chain.

const { invalidArgument } = require('../errors');
const { own } = require('../input');
const { settle, ours, isPromise } = require('../promises');
const { isLowerHex } = require('./seal');
const P = require('../primordials');

const { ObjectFreeze, StringPrototypeIsWellFormed, isProxy } = P;
// Captured when the package loaded (this module loads at first use).
const { NumberIsSafeInteger, NumberIsFinite, ReflectApply } = P;

/** Whether `text` is a proposal hash: 64 lowercase hex digits (no RegExp: `test` looks up `exec`). */
function isHash(text) {
  return isLowerHex(text, 64);
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

/** A non-negative finite number of milliseconds, or undefined. */
function readRetention(value, what) {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value >= 0) || !NumberIsFinite(value))
    throw invalidArgument(`${what} must be a non-negative finite number of milliseconds`);
  return value;
}

/** An optional nonce of a record: 32 lowercase hex digits, or null when absent. */
function readNonce(value) {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !isLowerHex(value, 32)) throw invalidArgument("a proposal's nonce must be 32 lowercase hexadecimal digits");
  return value;
}

function readFunction(value, what) {
  if (value === undefined) return undefined;
  if (typeof value !== 'function' || isProxy(value)) throw invalidArgument(`${what} must be a function`);
  return value;
}

/** A scope: undefined or null (none), or a well-formed string. */
function readScope(value, what) {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !StringPrototypeIsWellFormed(value)) throw invalidArgument(`${what} must be a well-formed string`);
  return value;
}

/** The strings a grant is bound to, as a frozen query for the store. */
function grantQuery(agentName, toolName, proposalHash, scope) {
  return ObjectFreeze({ agentName, toolName, proposalHash, scope });
}

/** The query of `{ agentName, toolName, proposalHash, scope? }` (own data fields), or null. */
function queryOf(source) {
  const agentName = own(source, 'agentName');
  const toolName = own(source, 'toolName');
  const proposalHash = own(source, 'proposalHash');
  const scope = own(source, 'scope');
  if (typeof agentName !== 'string' || typeof toolName !== 'string' || typeof proposalHash !== 'string') return null;
  if (!StringPrototypeIsWellFormed(agentName) || !StringPrototypeIsWellFormed(toolName) || !isHash(proposalHash)) return null;
  if (!(scope === undefined || scope === null || (typeof scope === 'string' && StringPrototypeIsWellFormed(scope)))) return null;
  return grantQuery(agentName, toolName, proposalHash, scope ?? null);
}

/** A store method: an own data function property, bound once (inherited methods never count). */
function storeMethod(store, name, optional) {
  const method = own(store, name);
  if (method === undefined && optional) return undefined;
  if (typeof method !== 'function') throw invalidArgument(`store.${name} must be an own function property`);
  return method;
}

/**
 * Calls a store method: a box { ok, value } of what it returned, or of what it threw or
 * rejected with, settled without running code of the promise's prototype chain.
 */
async function call(method, store, args) {
  const settled = settle((a) => ReflectApply(method, store, a), args);
  return isPromise(settled) ? await ours(settled) : settled;
}

module.exports = { readUses, readTtl, readRetention, readNonce, readFunction, readScope, grantQuery, queryOf, storeMethod, call };
