'use strict';
// Step two of the run loop: evaluateToolCall. The policy gets its own freshly decoded
// view and its own copy of the provider text; whatever it does (throw, reject, mutate its
// view, answer malformed) becomes a runtime deny. The frozen decision it returns is the
// only thing executeToolCall accepts.

const { invalidArgument } = require('../errors');
const { own, requireInput, defineField } = require('../input');
const { decodeView, policyViewOf, policyViewUnchanged, releasePolicyView, spareOf } = require('../snapshot');
const { preparedSnapshotOf, preparedRequestOf, preparedAttemptOf, parseRequest, readToolCallId } = require('./prepare');
const { ours, settleNative, isPromise, thenIsHookFree } = require('../promises');
const { EVALUATE, observed, traceAsync, attemptIdOf, setField } = require('../events');
const { grantsUsed, openEvaluation, runInEvaluation, isAnswerOfAnother, bindDecision } = require('./registry');
const P = require('../primordials');
const { cedarEventFields } = require('../cedar/shared');

const {
  ObjectFreeze,
  ObjectDefineProperty,
  ObjectGetOwnPropertyDescriptor,
  ObjectGetOwnPropertySymbols,
  ObjectHasOwn,
  ObjectKeys,
  ObjectPrototypeLookupGetter,
  ObjectPrototypeLookupSetter,
  StringPrototypeIsWellFormed,
  isProxy,
} = P;
// Captured when the package loaded (the run loop loads at its first use).
const { ReflectOwnKeys } = P;

/** The reasons of a deny the runtime decided (decidedBy: 'runtime'), in a frozen array. */
const { RUNTIME_REASONS } = require('../errors');

/** Returns the object it is given, so that a subclass can stamp private fields onto it. */
class Stamp {
  constructor(object) {
    return object;
  }
}

/**
 * The decisions evaluateToolCall made, each with its execution state, as a private field
 * stamped on the decision object (no WeakMap entry per decision for the collector to
 * trace; a copy of a decision has no such field).
 */
class DecisionState extends Stamp {
  #state;
  constructor(decision, state) {
    super(decision);
    this.#state = state;
  }

  /** The state of a decision, or undefined for anything evaluateToolCall did not return. */
  static of(value) {
    return value !== null && typeof value === 'object' && #state in value ? value.#state : undefined;
  }
}

/**
 * Records the pipeline keeps for itself. Classes rather than null-prototype literals
 * (which V8 makes as dictionary-mode objects, each a slow allocation): every field is an
 * own data property, defined before the constructor body runs, so no read of one reaches
 * a prototype and no write of one reaches a setter.
 */

/** What executeToolCall keeps of a decision (DecisionState). */
class ExecutionState {
  snapshot;
  decision;
  executed;
  evaluation;
  attempt;
  toolCallId;
  /** The execution view made already (a checked policy view's spare parse), taken once; else null. */
  view;
  /**
   * An allow on a deferred grant use (issue 35: authorizeToolCall only): the policy's
   * answer without a live grant and its reason, read when the allow was concluded; else null.
   */
  otherwise;
  otherwiseReason;
  constructor(snapshot, decision, evaluation, attempt, toolCallId) {
    this.snapshot = snapshot;
    this.decision = decision;
    this.executed = false;
    this.evaluation = evaluation;
    this.attempt = attempt;
    this.toolCallId = toolCallId;
    this.view = null;
    this.otherwise = null;
    this.otherwiseReason = null;
  }
}
ObjectFreeze(ExecutionState.prototype);
ObjectFreeze(ExecutionState);

/** The checked fields of an evaluation input (readEvaluation). */
class EvaluationRead {
  prepared;
  snapshot;
  policy;
  policyContext;
  grantScope;
  attempt;
  toolCallId;
  evaluation;
  /** authorizeToolCall's receipts store, when a grant's lookup may be left to its claim (issue 35); else undefined. */
  foldStore;
  constructor(prepared, snapshot, policy, policyContext, grantScope, attempt, toolCallId) {
    this.prepared = prepared;
    this.snapshot = snapshot;
    this.policy = policy;
    this.policyContext = policyContext;
    this.grantScope = grantScope;
    this.attempt = attempt;
    this.toolCallId = toolCallId;
    this.evaluation = undefined;
    this.foldStore = undefined;
  }
}
ObjectFreeze(EvaluationRead.prototype);
ObjectFreeze(EvaluationRead);

/**
 * Whether every enumerable own field of a policy context (not a Proxy) is a data
 * property, told without running any of its code: the enumerable string keys and the
 * symbols are listed, and neither a getter nor a setter is found for any enumerable one
 * (__lookupGetter__ and __lookupSetter__ stop at an own property). Then spreading the
 * context reads its data fields and nothing else.
 */
function enumerableDataOnly(object) {
  const keys = ObjectKeys(object);
  for (let i = 0; i < keys.length; i++) {
    if (ObjectPrototypeLookupGetter(object, keys[i]) !== undefined || ObjectPrototypeLookupSetter(object, keys[i]) !== undefined) return false;
  }
  const symbols = ObjectGetOwnPropertySymbols(object);
  for (let i = 0; i < symbols.length; i++) {
    const descriptor = ObjectGetOwnPropertyDescriptor(object, symbols[i]);
    if (descriptor.enumerable && !ObjectHasOwn(descriptor, 'value')) return false;
  }
  return true;
}

/**
 * The policy input: the context's own enumerable data fields, then the argument fields
 * (an object literal: its fields are defined, never assigned, so no setter runs). Its
 * `requestedArguments` is its own decoded copy, made when first read (an accessor that
 * then replaces itself with the data field; assigning to it defines the data field).
 */
function policyInputOf(prepared, snapshot, policyContext, parsedArguments) {
  const request = preparedRequestOf(prepared);
  let context;
  if (policyContext !== undefined) {
    if (enumerableDataOnly(policyContext)) {
      // Every enumerable own field is a data property: spreading the context reads exactly
      // those (in the same order) and runs nothing. Spread into a null-prototype copy first:
      // spread straight into the input, a context of another shape leaves the input in
      // dictionary mode on V8 11 (Node 20).
      context = { __proto__: null, ...policyContext };
    } else {
      context = { __proto__: null };
      const keys = ReflectOwnKeys(policyContext);
      for (let i = 0; i < keys.length; i++) {
        const descriptor = ObjectGetOwnPropertyDescriptor(policyContext, keys[i]);
        if (descriptor !== undefined && descriptor.enumerable && ObjectHasOwn(descriptor, 'value')) {
          defineField(context, keys[i], descriptor.value);
        }
      }
    }
  }
  const input = {
    // Spreading defines each field (CreateDataProperty): no setter runs.
    ...context,
    agentName: snapshot.agentName,
    toolName: snapshot.toolName,
    rawArguments: request.rawArguments,
  };
  // Then the accessor, one pair made at load (so every input keeps one fast shape), and
  // the remaining fields, defined as class fields on the input itself.
  ObjectDefineProperty(input, 'requestedArguments', INPUT_REQUESTED_ARGUMENTS);
  new InputTail(input, parsedArguments, snapshot, request);
  return input;
}

/**
 * The policy input's fields after `requestedArguments`, defined (never assigned) on the
 * input in this order, and its provider text as a private field, which the accessor pair
 * made at load reads (an accessor literal per input would make two closures and a slow
 * object every time).
 */
class InputTail extends Stamp {
  parsedArguments;
  argsCanonicalJson;
  proposalHash;
  #request;
  constructor(input, parsedArguments, snapshot, request) {
    super(input);
    this.parsedArguments = parsedArguments;
    this.argsCanonicalJson = snapshot.argsCanonicalJson;
    this.proposalHash = snapshot.proposalHash;
    this.#request = request;
  }

  static requestOf(value) {
    return value !== null && typeof value === 'object' && #request in value ? value.#request : undefined;
  }
}
ObjectFreeze(InputTail.prototype);
ObjectFreeze(InputTail);

const INPUT_REQUESTED_ARGUMENTS = ObjectFreeze({
  __proto__: null,
  get: function requestedArguments() {
    const request = InputTail.requestOf(this);
    if (request === undefined) return undefined;
    const value = parseRequest(request.rawArguments, request.blank);
    defineField(this, 'requestedArguments', value);
    return value;
  },
  set: function requestedArguments(value) {
    defineField(this, 'requestedArguments', value);
  },
  enumerable: true,
  configurable: true,
});

/**
 * A frozen decision, registered so that executeToolCall accepts it (and nothing else).
 * Object literals define their fields (no setter runs), one literal per shape.
 */
function makeDecision(read, decision, reason, decidedBy, policyResult, hasPolicyResult, error, proposal, evaluation) {
  const snapshot = read.snapshot;
  const { agentName, toolName, argsCanonicalJson, proposalHash } = snapshot;
  let made;
  if (proposal !== undefined) {
    made = { decision, reason, decidedBy, agentName, toolName, argsCanonicalJson, proposalHash, policyResult, proposal };
  } else if (hasPolicyResult) {
    made = { decision, reason, decidedBy, agentName, toolName, argsCanonicalJson, proposalHash, policyResult };
  } else if (error !== NONE) {
    made = { decision, reason, decidedBy, agentName, toolName, argsCanonicalJson, proposalHash, error };
  } else {
    made = { decision, reason, decidedBy, agentName, toolName, argsCanonicalJson, proposalHash };
  }
  new DecisionState(made, new ExecutionState(snapshot, decision, evaluation, read.attempt, read.toolCallId));
  // An allow that relied on grants is found by the grants objects of every package copy.
  if (evaluation !== undefined && decision === 'allow') bindDecision(made, evaluation);
  ObjectFreeze(made);
  return made;
}

/** Marks an absent `error` (a policy may throw undefined). */
const NONE = P.SafeSymbol('none');

function runtimeDeny(read, reason, policyResult, hasPolicyResult, error) {
  return makeDecision(read, 'deny', reason, 'runtime', policyResult, hasPolicyResult, error, undefined, undefined);
}

const EVALUATE_USAGE = 'evaluateToolCall expects { prepared, policy?, policyContext?, toolCallId? }';

/** `policyContext.grantScope`: the scope grants are looked up in (own data; a well-formed string), or null. */
function grantScopeOf(policyContext) {
  if (policyContext === undefined) return null;
  const scope = own(policyContext, 'grantScope');
  if (scope === undefined || scope === null) return null;
  if (typeof scope !== 'string' || !StringPrototypeIsWellFormed(scope)) throw invalidArgument('policyContext.grantScope must be a well-formed string');
  return scope;
}

/** Reads and checks the fields evaluateToolCall and authorizeToolCall share. */
function readEvaluation(input, usage) {
  requireInput(input, usage);
  const prepared = own(input, 'prepared');
  const snapshot = preparedSnapshotOf(prepared);
  if (snapshot === undefined) throw invalidArgument('prepared must be a PreparedToolCall returned by prepareToolCall');
  let policy = own(input, 'policy');
  if (policy === null) policy = undefined;
  if (policy !== undefined && typeof policy !== 'function') throw invalidArgument('policy must be a function');
  let policyContext = own(input, 'policyContext');
  if (policyContext === null) policyContext = undefined;
  if (policyContext !== undefined && (typeof policyContext !== 'object' || isProxy(policyContext))) {
    throw invalidArgument('policyContext must be an object');
  }
  const grantScope = grantScopeOf(policyContext);
  const attempt = preparedAttemptOf(prepared);
  const toolCallId = readToolCallId(own(input, 'toolCallId')) ?? attempt.toolCallId;
  return new EvaluationRead(prepared, snapshot, policy, policyContext, grantScope, attempt, toolCallId);
}

/**
 * The decision once the policy has answered: `ok` and `value` are what it returned (or
 * what it threw or rejected with, `ok` false). `policyView` is the policy's view as
 * policyViewOf made it. `read.evaluation` is undefined when no grants object existed when
 * the policy was called (then no grants policy could answer for it).
 */
function conclude(read, ok, value, policyView) {
  try {
    return concludeChecked(read, ok, value, policyView);
  } finally {
    // The view's check is done (or will never run): its records no longer hold its template.
    releasePolicyView(policyView);
  }
}

function concludeChecked(read, ok, value, policyView) {
  const { snapshot, evaluation } = read;
  if (evaluation !== undefined) {
    // From here on, no grants policy can add to what this evaluation relies on.
    evaluation.close();
    // A grants store that failed while the policy looked decides, whatever the policy said.
    if (evaluation.failed()) return runtimeDeny(read, 'grant_store_unavailable', undefined, false, NONE);
  }
  if (!ok) return runtimeDeny(read, 'policy_error', undefined, false, value);
  const policyResult = value;
  // Whether the policy's view still canonicalizes to the authorized JSON.
  if (!policyViewUnchanged(policyView, snapshot.argsCanonicalJson)) {
    return runtimeDeny(read, 'policy_mutated_arguments', policyResult, true, NONE);
  }
  // The decision and reason of the result (own data fields), checked.
  if (policyResult === null || typeof policyResult !== 'object' || isProxy(policyResult)) {
    return runtimeDeny(read, 'invalid_policy_result', policyResult, true, NONE);
  }
  const decision = own(policyResult, 'decision');
  if (decision !== 'allow' && decision !== 'deny' && decision !== 'require_approval') {
    return runtimeDeny(read, 'invalid_policy_result', policyResult, true, NONE);
  }
  const reason = own(policyResult, 'reason');
  if (typeof reason !== 'string' || reason === '') return runtimeDeny(read, 'invalid_policy_result', policyResult, true, NONE);
  // A grants answer another evaluation was given (a policy that memoized it): this one
  // relied on a grant it never consulted, and would spend nothing. (Without an
  // evaluation, every marked answer is another evaluation's.)
  if (isAnswerOfAnother(policyResult, evaluation)) return runtimeDeny(read, 'invalid_policy_result', policyResult, true, NONE);
  if (decision === 'allow') {
    const made = makeDecision(read, decision, reason, 'policy', policyResult, true, NONE, undefined, evaluation);
    const state = DecisionState.of(made);
    // The parse the policy's view was copied from, checked and shown to no one: the
    // handler's view, if this allow runs.
    state.view = spareOf(policyView);
    // A grant use left to the claim (authorizeToolCall, issue 35): what this conclusion
    // would have been without a live grant, read now, made only if it comes to that.
    const otherwise = evaluation === undefined || typeof evaluation.deferred !== 'function' ? undefined : evaluation.deferred();
    if (otherwise !== undefined) {
      state.otherwise = otherwise;
      // Read as the conclusion would have read it: a well-formed require_approval has its
      // reason; anything else (an answer changed since the grants checked it) is left
      // null, and would be invalid_policy_result (never an allow: it fails closed).
      const reason = own(otherwise, 'reason');
      state.otherwiseReason = own(otherwise, 'decision') === 'require_approval' && typeof reason === 'string' && reason !== '' ? reason : null;
    }
    return made;
  }
  if (decision !== 'require_approval') return makeDecision(read, decision, reason, 'policy', policyResult, true, NONE, undefined, evaluation);
  return approvalDecision(read, policyResult, reason);
}

/** The require_approval decision of a policy result and its reason: the proposal to review. */
function approvalDecision(read, policyResult, reason) {
  const { prepared, snapshot } = read;
  // require_approval: the fingerprint policy evaluated, reused, with its own view.
  const proposal = {
    kind: 'tool',
    agentName: snapshot.agentName,
    toolName: snapshot.toolName,
    rawArguments: prepared.rawArguments,
    parsedArguments: decodeView(snapshot),
    argsCanonicalJson: snapshot.argsCanonicalJson,
    proposalHash: snapshot.proposalHash,
    reason,
  };
  // The call id rides along for the run loop (unsigned, never hashed or sealed).
  if (read.toolCallId !== undefined) defineField(proposal, 'toolCallId', read.toolCallId);
  ObjectFreeze(proposal);
  return makeDecision(read, 'require_approval', reason, 'policy', policyResult, true, NONE, proposal, undefined);
}

/** What a policy threw, as callPolicy returns it (a class of its own: told by its private field). */
class Thrown {
  #error;
  constructor(error) {
    this.#error = error;
  }

  /** The error of a Thrown, or NOT_THROWN for any other value (a Proxy included: no trap runs). */
  static errorOf(value) {
    return value !== null && typeof value === 'object' && #error in value ? value.#error : NOT_THROWN;
  }
}
ObjectFreeze(Thrown.prototype);
ObjectFreeze(Thrown);
const NOT_THROWN = P.SafeSymbol('not thrown');

/** The policy runInEvaluation is about to call (taken by callPendingPolicy before it runs). */
let pendingPolicy;

/** Calls the policy: what it returned, or a Thrown of what it threw. */
function callPendingPolicy(policyInput) {
  const policy = pendingPolicy;
  pendingPolicy = undefined;
  try {
    return policy(policyInput);
  } catch (error) {
    return new Thrown(error);
  }
}

/**
 * Calls the policy on its own view, inside its evaluation once a grants object exists:
 * what it returned, or a Thrown. Grants policy helpers find the evaluation by the input's
 * identity; before any grants object exists, none can answer, and no evaluation is opened.
 */
function askPolicy(read, policyView) {
  const input = policyInputOf(read.prepared, read.snapshot, read.policyContext, policyView.view);
  pendingPolicy = read.policy;
  if (!grantsUsed()) return callPendingPolicy(input);
  read.evaluation = openEvaluation(
    input,
    read.snapshot,
    read.grantScope,
    read.attempt,
    read.toolCallId,
    read.foldStore,
    read.foldStore === undefined ? undefined : read.policy,
  );
  // The policy runs inside its evaluation: a grants policy answers only for the evaluation
  // it runs in, whatever input it is handed.
  return runInEvaluation(read.evaluation, callPendingPolicy, input);
}

/**
 * Runs policy on a fresh view of the prepared call and returns the frozen decision. It
 * never rejects for anything the policy does (a throw, a rejection, a mutated view, a
 * malformed result): those are runtime denies. No policy is a runtime deny too.
 *
 * What the policy answers is awaited here in every case, so at least one microtask turn
 * passes between its answer and the mutation check (a mutation it queued is then seen):
 * a native promise whose `then` runs none of its code (thenIsHookFree) directly, any other
 * native promise through settleNative, anything else (a throw included) by awaiting
 * undefined, which looks nothing up.
 */
async function evaluateToolCall(input) {
  const read = readEvaluation(input, EVALUATE_USAGE);
  if (!observed(EVALUATE)) {
    // decide(read), in this async function: no second promise to adopt.
    if (read.policy === undefined) return runtimeDeny(read, 'policy_not_configured', undefined, false, NONE);
    const policyView = policyViewOf(read.snapshot);
    const result = askPolicy(read, policyView);
    let ok = true;
    let value = Thrown.errorOf(result);
    if (value !== NOT_THROWN) {
      ok = false;
      await undefined;
    } else if (!isPromise(result)) {
      value = result;
      await undefined;
    } else if (thenIsHookFree(result)) {
      try {
        value = await result;
      } catch (error) {
        ok = false;
        value = error;
      }
    } else {
      const settled = await settleNative(result);
      ok = settled.ok;
      value = settled.value;
    }
    return conclude(read, ok, value, policyView);
  }
  const context = evaluationContext(read);
  return await ours(
    traceAsync(
      EVALUATE,
      context,
      () => decide(read),
      'evaluate',
      (decision) => decisionFields(context, decision),
    ),
  );
}

/** The decision of a read evaluation input (evaluateToolCall's steps). */
async function decide(read) {
  if (read.policy === undefined) return runtimeDeny(read, 'policy_not_configured', undefined, false, NONE);
  const policyView = policyViewOf(read.snapshot);
  const result = askPolicy(read, policyView);
  let ok = true;
  let value = Thrown.errorOf(result);
  if (value !== NOT_THROWN) {
    ok = false;
    await undefined;
  } else if (!isPromise(result)) {
    value = result;
    await undefined;
  } else if (thenIsHookFree(result)) {
    try {
      value = await result;
    } catch (error) {
      ok = false;
      value = error;
    }
  } else {
    const settled = await settleNative(result);
    ok = settled.ok;
    value = settled.value;
  }
  return conclude(read, ok, value, policyView);
}

/** The context of an evaluate or execute event (docs/events.md): no payload. */
function evaluationContext(read) {
  const attemptId = attemptIdOf(read.attempt);
  const { agentName, toolName, proposalHash } = read.snapshot;
  const toolCallId = read.toolCallId;
  return toolCallId === undefined ? { attemptId, agentName, toolName, proposalHash } : { attemptId, agentName, toolName, toolCallId, proposalHash };
}

/** The outcome fields of a decision in an event context: the policy's own reason included. */
function decisionFields(context, decision) {
  setField(context, 'decision', decision.decision);
  setField(context, 'reason', decision.reason);
  setField(context, 'decidedBy', decision.decidedBy);
  cedarEventFields(context, decision.policyResult, setField);
}

module.exports = {
  evaluateToolCall,
  readEvaluation,
  decide,
  evaluationContext,
  decisionFields,
  conclude,
  approvalDecision,
  askPolicy,
  runtimeDeny,
  DecisionState,
  NONE,
  RUNTIME_REASONS,
};
