'use strict';
// Which evaluations consulted a live grant, for every copy of the package in the process.
//
// evaluateToolCall and authorizeToolCall open an evaluation record for each policy input
// they make; a grants policy helper called with that input finds the record (by the
// input's identity) and, when it finds a live grant, adds what spends one use of it. The
// decision made from the evaluation keeps the record, and executeToolCall spends what it
// holds right before the handler runs. So a grant is spent by the evaluation that relied
// on it, however the policy's result was copied, spread, decorated or wrapped, whatever
// grants object or package copy the caller passes (or none), and whichever copy of the
// package evaluates or executes.
//
// The records live in two WeakMaps on the global object under a registered symbol, so
// every copy of the package finds the same ones (code in the same process is trusted).
// A record is a null-prototype object with the fields below; the layout is versioned in
// the symbol's name, and a copy that finds something else there keeps a private registry
// (then only grants of its own copy are spent by its own evaluations).
//
// Record (protocol v1):
//   agentName, toolName, proposalHash   what is evaluated (from the snapshot)
//   scope                               policyContext.grantScope, or null
//   attempt                             { id, toolCallId } of the prepared call, for events
//   toolCallId                          the call id of this evaluation (events), or undefined
//   open                                true until the policy has answered
//   failed                              a grants store failed while the policy looked
//   uses                                [{ owner, take }]: take() spends one use, at most once per owner
//   spent                               undefined, or the promise of spending `uses`

const P = require('../primordials');

const { ours, isPromise } = require('../promises');

const { ObjectFreeze, ObjectDefineProperty, ObjectGetOwnPropertyDescriptor, ObjectHasOwn, isProxy } = P;
const { WeakMapPrototypeGet, WeakMapPrototypeSet, SafeWeakMap } = P;
const ObjectIsFrozen = Object.isFrozen;
const { isWeakMap } = require('node:util').types;
const ArrayPrototypePush = Function.prototype.call.bind(Array.prototype.push);

const KEY = Symbol.for('tool-argument-snapshot.evaluations.v1');

function isRegistry(value) {
  if (value === null || typeof value !== 'object' || isProxy(value) || !ObjectIsFrozen(value)) return false;
  const inputs = ObjectGetOwnPropertyDescriptor(value, 'inputs');
  const decisions = ObjectGetOwnPropertyDescriptor(value, 'decisions');
  return inputs !== undefined && ObjectHasOwn(inputs, 'value') && isWeakMap(inputs.value) && !isProxy(inputs.value) &&
    decisions !== undefined && ObjectHasOwn(decisions, 'value') && isWeakMap(decisions.value) && !isProxy(decisions.value);
}

/** The registry every copy shares, made by the first copy that loads. */
function sharedRegistry() {
  const existing = ObjectGetOwnPropertyDescriptor(globalThis, KEY);
  if (existing !== undefined) {
    return ObjectHasOwn(existing, 'value') && isRegistry(existing.value) ? existing.value : null;
  }
  const made = ObjectFreeze({ __proto__: null, inputs: new SafeWeakMap(), decisions: new SafeWeakMap() });
  try {
    ObjectDefineProperty(globalThis, KEY, { __proto__: null, value: made, writable: false, enumerable: false, configurable: false });
  } catch {
    return null; // a frozen global object: this copy keeps its own
  }
  return made;
}

const REGISTRY = sharedRegistry() ?? ObjectFreeze({ __proto__: null, inputs: new SafeWeakMap(), decisions: new SafeWeakMap() });
const INPUTS = REGISTRY.inputs;
const DECISIONS = REGISTRY.decisions;

/** Opens the evaluation record of a policy input. */
function openEvaluation(input, snapshot, scope, attempt, toolCallId) {
  const record = {
    __proto__: null,
    agentName: snapshot.agentName,
    toolName: snapshot.toolName,
    proposalHash: snapshot.proposalHash,
    scope,
    attempt,
    toolCallId,
    open: true,
    failed: false,
    uses: [],
    spent: undefined,
  };
  WeakMapPrototypeSet(INPUTS, input, record);
  return record;
}

/** The open evaluation record of a policy input, or undefined. */
function openEvaluationOf(input) {
  if (input === null || (typeof input !== 'object' && typeof input !== 'function')) return undefined;
  const record = WeakMapPrototypeGet(INPUTS, input);
  return record !== undefined && record.open === true ? record : undefined;
}

/** Adds a use to spend, once per owner (a grants object looked twice: one use). */
function addUse(record, owner, take) {
  const uses = record.uses;
  for (let i = 0; i < uses.length; i++) if (uses[i].owner === owner) return;
  ArrayPrototypePush(uses, ObjectFreeze({ __proto__: null, owner, take }));
}

/** Ties a decision to the evaluation it was made from, when that evaluation relied on grants. */
function bindDecision(decision, record) {
  if (record.uses.length !== 0) WeakMapPrototypeSet(DECISIONS, decision, record);
}

/** The evaluation record a decision relied on, or undefined. */
function evaluationOfDecision(decision) {
  if (decision === null || typeof decision !== 'object') return undefined;
  return WeakMapPrototypeGet(DECISIONS, decision);
}

/** Takes one use of each grant, in order; false as soon as one is not taken. */
async function spendAll(uses) {
  for (let i = 0; i < uses.length; i++) {
    // take() is a grants object's own async function (of some copy of the package): its
    // promise is the package's, adopted without a lookup on Promise.prototype.
    let taken = false;
    try {
      const result = uses[i].take();
      taken = (isPromise(result) ? await ours(result) : result) === true;
    } catch {
      taken = false;
    }
    if (!taken) return false;
  }
  return true;
}

/**
 * Spends every use an evaluation relied on, once: every caller (the pipeline, a grants
 * object's spend hook, another copy) gets the same promise of whether all were taken.
 */
function spendEvaluation(record) {
  if (record.spent === undefined) record.spent = ours(spendAll(record.uses));
  return record.spent;
}

module.exports = { openEvaluation, openEvaluationOf, addUse, bindDecision, evaluationOfDecision, spendEvaluation };
