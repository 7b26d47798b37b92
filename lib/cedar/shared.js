'use strict';
// What the rest of the package needs of Cedar policies without loading Cedar
// (./index.js, loaded at the first createCedarPolicy): the results and policies
// createCedarPolicy made (private sets only it adds to) and the evaluate event's Cedar
// fields. The error class and its brand test are lib/errors.js's.

const { CedarPolicyError, isCedarPolicyError } = require('../errors');
const P = require('../primordials');

const { ObjectFreeze, SafeWeakSet, SafeWeakMap } = P;
const { WeakSetPrototypeHas, WeakSetPrototypeAdd, WeakMapPrototypeGet } = P;

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
