'use strict';
// What the rest of the package needs of Cedar policies without loading Cedar
// (./index.js, loaded at the first createCedarPolicy): the error class, its brand test,
// the results and policies createCedarPolicy made (private sets only it adds to), and
// the evaluate event's Cedar fields.

const { own } = require('../input');
const P = require('../primordials');

const { ObjectFreeze, ObjectDefineProperty, isProxy, SafeError, SafeWeakSet, SafeWeakMap } = P;
const { WeakSetPrototypeHas, WeakSetPrototypeAdd, WeakMapPrototypeGet } = P;

/** The error of a policy set refused at creation or update: codes and policy ids, never argument values. */
class CedarPolicyError extends SafeError {
  constructor(issues) {
    const first = issues[0];
    const where = first.policyId === null || first.policyId === undefined ? '' : ` (policy "${first.policyId}")`;
    super(`Cedar policy set refused${where}: ${first.message} [${first.code}]`);
    define(this, 'name', 'CedarPolicyError', false);
    define(this, BRAND, 'CedarPolicyError', false);
    define(this, 'code', first.code, true);
    define(this, 'policyId', first.policyId ?? undefined, true);
    define(this, 'issues', issues, true);
  }
}

const BRAND = P.SymbolFor('tool-argument-snapshot.error');

function define(target, key, value, enumerable) {
  ObjectDefineProperty(target, key, { __proto__: null, value, enumerable, writable: false, configurable: true });
}

function isCedarPolicyError(value) {
  return value !== null && typeof value === 'object' && !isProxy(value) && own(value, BRAND) === 'CedarPolicyError';
}

/** The results createCedarPolicy made: only these carry their fields into the evaluate event. */
const RESULTS = new SafeWeakSet();

/**
 * The policies createCedarPolicy made, each to its decision function `decide(input,
 * lookup)`: a grants object's policy wrapper finds a Cedar policy here (by identity: a
 * private map no caller can add to) and hands it its grant lookup, so that the Cedar
 * policy's forbids, errors and default deny decide before any grant is looked at.
 */
const DECIDERS = new SafeWeakMap();

/** The decision function of a policy createCedarPolicy made, or undefined for any other value. */
function cedarDeciderOf(policy) {
  if (typeof policy !== 'function') return undefined;
  return WeakMapPrototypeGet(DECIDERS, policy);
}

function result(decision, reason, policies, policySetHash) {
  const made = ObjectFreeze({ decision, reason, policies: ObjectFreeze(policies), policySetHash });
  WeakSetPrototypeAdd(RESULTS, made);
  return made;
}

/** The evaluate event's Cedar fields (payload-free: policy ids and the set's hash), when the result is ours. */
function cedarEventFields(context, policyResult, setField) {
  if (policyResult === null || typeof policyResult !== 'object' || !WeakSetPrototypeHas(RESULTS, policyResult)) return;
  setField(context, 'policies', policyResult.policies);
  setField(context, 'policySetHash', policyResult.policySetHash);
}

module.exports = { CedarPolicyError, isCedarPolicyError, cedarDeciderOf, cedarEventFields, result, DECIDERS };
