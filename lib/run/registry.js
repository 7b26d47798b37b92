'use strict';
// Which evaluations consulted a live grant, for every copy of the package in the process.
//
// evaluateToolCall and authorizeToolCall open an evaluation for each policy input they
// make, and run the policy inside it (an AsyncLocalStorage shared by every copy). A grants
// policy helper takes the evaluation it runs in, and answers from the grants only when
// that evaluation is the one of the input it is called with (by the input's identity):
// called with another evaluation's input (a policy that kept a reference across awaits),
// or outside any evaluation, it answers as its fallback. (Protocol v2 found the evaluation
// from the input through a WeakMap and then required it to be the one it runs in: the
// same condition, at the price of a WeakMap entry per policy call.) When it finds a live grant, it adds what
// spends one use to the evaluation and marks its allow answer with the evaluation: an
// answer handed to another evaluation (a policy that memoized it) makes that evaluation a
// runtime deny. The decision made from the evaluation keeps it, and executeToolCall
// spends what it holds right before the handler runs. So a grant is spent by the
// evaluation that relied on it, however the policy's answer was copied, spread, decorated
// or wrapped, whatever grants object or package copy the caller passes (or none), and
// whichever copy of the package evaluates or executes.
//
// The registry lives on the global object under a registered symbol whose name carries
// the protocol version, so every copy finds the same one (code in the same process is
// trusted). An evaluation is a frozen object whose methods work on private state: code that
// reaches the registry can close it or make it fail (both only deny), never mark a use
// spent. A copy that finds something else under the symbol keeps a private registry
// (then only grants of its own copy are spent by its own evaluations).
//
// Evaluation (protocol v3), frozen:
//   agentName, toolName, proposalHash   what is evaluated (from the snapshot)
//   scope                               policyContext.grantScope, or null
//   toolCallId                          the call id of this evaluation (events), or undefined
//   isFor(input)                        whether input is the policy input it was opened for
//   attemptId()                         the attempt id of its prepared call (events)
//   isOpen(), close()                   open until the policy has answered
//   fail(), failed()                    a grants store failed while the policy looked
//   addUse(owner, take, joint?)         take() spends one use; at most one per owner. joint(store),
//                                       synchronous and without effect, answers a function
//                                       that claims a receipt and takes the use in one store
//                                       call (or undefined: it cannot, in that store)
//   hasUses()
//   spend()                             spends every use once: the same promise for every caller
//   spendWithClaim(store, request)      (added in 35, optional: an older copy has none) when the
//                                       sole use can be taken with the receipt's claim in
//                                       `store`, spends it that way and answers the store's
//                                       answer (a box); otherwise undefined, nothing done
//   foldFor(policy)                     (added in 35, optional) the store authorizeToolCall will
//                                       claim the receipt in right after this evaluation, when
//                                       `policy` is the very policy it runs and no use, failure
//                                       or close came first; else undefined
//   deferUse(owner, take, joint, check, alternative)
//                                       (added in 35, optional) addUse for a grant not looked up
//                                       (foldFor said where): check() is the lookup, a promise
//                                       of a box; alternative is what the policy answers without
//                                       a live grant
//   deferred()                          the alternative of a deferred use not yet resolved, or
//                                       undefined
//   resolve()                           looks a deferred use's grant up now: 'live' (then it is
//                                       an ordinary use), 'none' or 'failed'

const P = require('../primordials');
const { ours, oursKept, isPromise } = require('../promises');
const { attemptIdOf } = require('../events');

const { ObjectFreeze, ObjectDefineProperty, ObjectGetOwnPropertyDescriptor, ObjectHasOwn, isProxy } = P;
const { WeakMapPrototypeGet, WeakMapPrototypeSet, SafeWeakMap } = P;
// Captured when the package loaded (the run loop loads at its first use).
const { ObjectIsFrozen, ObjectSetPrototypeOf, isWeakMap, ArrayPrototypePush, AsyncLocalStorageRun, AsyncLocalStorageGetStore } = P;
const AsyncLocalStorage = P.SafeAsyncLocalStorage;

const KEY = P.SymbolFor('tool-argument-snapshot.evaluations.v3');

function ownValue(object, key) {
  const descriptor = ObjectGetOwnPropertyDescriptor(object, key);
  return descriptor !== undefined && ObjectHasOwn(descriptor, 'value') ? descriptor.value : undefined;
}

function isRegistry(value) {
  if (value === null || typeof value !== 'object' || isProxy(value) || !ObjectIsFrozen(value)) return false;
  for (const name of ['decisions', 'answers']) {
    const map = ownValue(value, name);
    if (!isWeakMap(map) || isProxy(map)) return false;
  }
  const context = ownValue(value, 'context');
  const grants = ownValue(value, 'grants');
  return (
    context instanceof AsyncLocalStorage &&
    !isProxy(context) &&
    grants !== null &&
    typeof grants === 'object' &&
    ObjectIsFrozen(grants) &&
    typeof ownValue(grants, 'used') === 'function'
  );
}

function newRegistry() {
  let used = false;
  return ObjectFreeze({
    __proto__: null,
    decisions: new SafeWeakMap(),
    answers: new SafeWeakMap(),
    context: new AsyncLocalStorage(),
    // Whether any grants object exists in the process: until one does, policies run
    // outside the context (on Node 20 and 22 an AsyncLocalStorage in use costs every
    // promise of the process a hook).
    grants: ObjectFreeze({
      __proto__: null,
      use() {
        used = true;
      },
      used: () => used,
    }),
  });
}

/** The registry every copy shares, made by the first copy that loads. */
function sharedRegistry() {
  const existing = ObjectGetOwnPropertyDescriptor(globalThis, KEY);
  if (existing !== undefined) {
    return ObjectHasOwn(existing, 'value') && isRegistry(existing.value) ? existing.value : null;
  }
  const made = newRegistry();
  try {
    ObjectDefineProperty(globalThis, KEY, { __proto__: null, value: made, writable: false, enumerable: false, configurable: false });
  } catch {
    return null; // a frozen global object: this copy keeps its own
  }
  return made;
}

const REGISTRY = sharedRegistry() ?? newRegistry();
const DECISIONS = REGISTRY.decisions;
const ANSWERS = REGISTRY.answers;
const CONTEXT = REGISTRY.context;
const GRANTS = REGISTRY.grants;

/** Records that a grants object exists: from now on policies run inside their evaluation. */
function grantsInUse() {
  GRANTS.use();
}

/**
 * Whether any grants object exists in the process (of any copy). Until one does, no
 * evaluation is opened: no grants policy could answer for it (evaluationToAnswer wants
 * the policy to run inside its evaluation, and none ran in one).
 */
function grantsUsed() {
  return GRANTS.used();
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

/** What a joint claim-and-take answered, as a box; a throw or a rejection is a failed box. */
async function jointAnswer(run, request) {
  try {
    const result = run(request);
    const value = isPromise(result) ? await ours(result) : result;
    if (value === null || typeof value !== 'object' || isProxy(value)) return { __proto__: null, ok: false, value: undefined };
    return value;
  } catch (error) {
    return { __proto__: null, ok: false, value: error };
  }
}

/** Whether a joint answer took the use: only a claimed-and-taken answer (null) did. */
async function jointTaken(answer) {
  const box = await ours(answer);
  return box.ok === true && box.value === null;
}

/** What a deferred use's lookup says (Evaluation.resolve). */
async function resolved(check) {
  if (check === undefined) return 'live';
  let box;
  try {
    const result = check();
    box = isPromise(result) ? await ours(result) : result;
  } catch {
    box = undefined;
  }
  if (box === null || typeof box !== 'object' || isProxy(box) || box.ok !== true) return 'failed';
  return box.value === true ? 'live' : 'none';
}

/**
 * An evaluation (the protocol above): its fields are defined (class fields, so no setter
 * runs) and frozen; its methods live on a frozen prototype without Object.prototype behind
 * it, over private state. One object per evaluation, instead of a literal of closures.
 */
class Evaluation {
  agentName;
  toolName;
  proposalHash;
  scope;
  toolCallId;
  #input;
  #attempt;
  #open = true;
  #failed = false;
  #uses = null; // made by the first addUse: most evaluations rely on no grant
  #spent = undefined;
  #foldStore = undefined; // authorizeToolCall's receipts store, and the policy it runs
  #foldPolicy = undefined;
  #deferred = null; // { check, alternative } while a use is deferred

  constructor(input, snapshot, scope, attempt, toolCallId, foldStore, foldPolicy) {
    this.agentName = snapshot.agentName;
    this.toolName = snapshot.toolName;
    this.proposalHash = snapshot.proposalHash;
    this.scope = scope;
    this.toolCallId = toolCallId;
    this.#input = input;
    this.#attempt = attempt;
    this.#foldStore = foldStore;
    this.#foldPolicy = foldPolicy;
    ObjectFreeze(this);
  }

  isFor(input) {
    return this.#input === input;
  }

  attemptId() {
    return attemptIdOf(this.#attempt);
  }

  isOpen() {
    return this.#open;
  }

  close() {
    this.#open = false;
  }

  fail() {
    this.#failed = true;
  }

  failed() {
    return this.#failed;
  }

  addUse(owner, take, joint) {
    if (!this.#open || typeof take !== 'function') return;
    let uses = this.#uses;
    if (uses === null) uses = this.#uses = [];
    for (let i = 0; i < uses.length; i++) if (uses[i].owner === owner) return;
    ArrayPrototypePush(uses, ObjectFreeze({ __proto__: null, owner, take, joint: typeof joint === 'function' ? joint : undefined }));
  }

  hasUses() {
    return this.#uses !== null;
  }

  /**
   * Where a grants policy may leave its lookup to the receipt's claim (issue 35): the store
   * authorizeToolCall claims in right after this evaluation, only for the policy it runs
   * itself (nothing stands between that policy's answer and the decision) and only while
   * nothing relied on a grant yet. Undefined otherwise: the grants look up as before.
   */
  foldFor(policy) {
    if (this.#foldStore === undefined || policy !== this.#foldPolicy || !this.#open || this.#failed || this.#uses !== null) return undefined;
    return this.#foldStore;
  }

  /**
   * addUse, for a grant the policy did not look up (foldFor allowed it): `check()` looks it
   * up (a promise of the store's box), `alternative` is what the policy answers when no
   * grant is live. The caller takes the use with the claim, or resolves first.
   */
  deferUse(owner, take, joint, check, alternative) {
    if (this.foldFor(this.#foldPolicy) === undefined || typeof take !== 'function' || typeof check !== 'function') return false;
    this.#uses = [ObjectFreeze({ __proto__: null, owner, take, joint: typeof joint === 'function' ? joint : undefined })];
    this.#deferred = ObjectFreeze({ __proto__: null, check, alternative });
    return true;
  }

  /** The alternative answer of a deferred use still unresolved, or undefined. */
  deferred() {
    const deferred = this.#deferred;
    return deferred === null ? undefined : deferred.alternative;
  }

  /**
   * Looks the deferred use's grant up now (the lookup the policy left out): 'live', and the
   * use is an ordinary one from then on; 'none', or 'failed' (the store failed): the
   * caller answers without running (the decision it made is never executed).
   */
  resolve() {
    const deferred = this.#deferred;
    this.#deferred = null;
    return oursKept(resolved(deferred === null ? undefined : deferred.check));
  }

  /**
   * Spends the evaluation's one use together with a receipt's claim, when the grants object
   * that added it can do both in one call to `store`: the promise of that call's box
   * `{ ok, value }` (value: null claimed and taken, false no live grant, else the receipt
   * that refused the claim). Undefined, with nothing done, when the evaluation is spent, has
   * another number of uses, or its grants object cannot (another store, an older copy).
   * spend() then answers whether the use was taken.
   */
  spendWithClaim(store, request) {
    const uses = this.#uses;
    if (this.#spent !== undefined || uses === null || uses.length !== 1) return undefined;
    const joint = uses[0].joint;
    if (joint === undefined) return undefined;
    let run;
    try {
      run = joint(store);
    } catch {
      return undefined;
    }
    if (typeof run !== 'function') return undefined;
    this.#open = false;
    const answer = oursKept(jointAnswer(run, request));
    this.#spent = oursKept(jointTaken(answer));
    return answer;
  }

  spend() {
    if (this.#spent === undefined) {
      this.#open = false;
      this.#spent = oursKept(spendAll(this.#uses ?? []));
    }
    return this.#spent;
  }
}
ObjectSetPrototypeOf(Evaluation.prototype, null);
ObjectFreeze(Evaluation.prototype);
ObjectFreeze(Evaluation);

/**
 * Opens the evaluation of a policy input. `attempt` is the prepared call's attempt, whose
 * id (attemptIdOf, made when first asked) its events carry.
 */
function openEvaluation(input, snapshot, scope, attempt, toolCallId, foldStore, foldPolicy) {
  return new Evaluation(input, snapshot, scope, attempt, toolCallId, foldStore, foldPolicy);
}

/**
 * The evaluation a grants policy may answer for: the evaluation the call runs inside, only
 * when it is the one opened for `input` and still open; otherwise undefined.
 */
function evaluationToAnswer(input) {
  if (input === null || (typeof input !== 'object' && typeof input !== 'function')) return undefined;
  const evaluation = AsyncLocalStorageGetStore(CONTEXT);
  // What the context holds was put there by a copy's runInEvaluation (code in the process
  // is trusted, as for the registry itself); a Proxy is not asked anything.
  if (evaluation === null || typeof evaluation !== 'object' || isProxy(evaluation)) return undefined;
  return evaluation.isFor(input) && evaluation.isOpen() ? evaluation : undefined;
}

/**
 * Calls `fn(input)` inside an evaluation (its asynchronous continuations stay in it), once
 * any grants object exists; before that, no grants policy could answer anyway.
 */
function runInEvaluation(evaluation, fn, input) {
  if (!GRANTS.used()) return fn(input);
  return AsyncLocalStorageRun(CONTEXT, evaluation, fn, input);
}

/** Marks a grants policy's allow answer as made for one evaluation. */
function markAnswer(answer, evaluation) {
  WeakMapPrototypeSet(ANSWERS, answer, evaluation);
}

/**
 * Whether a policy result is a grants answer made for another evaluation (a memoized
 * answer): such an allow relied on a grant its own evaluation never consulted.
 */
function isAnswerOfAnother(result, evaluation) {
  if (result === null || typeof result !== 'object') return false;
  const owner = WeakMapPrototypeGet(ANSWERS, result);
  return owner !== undefined && owner !== evaluation;
}

/** Ties a decision to the evaluation it was made from, when that evaluation relied on grants. */
function bindDecision(decision, evaluation) {
  if (evaluation.hasUses()) WeakMapPrototypeSet(DECISIONS, decision, evaluation);
}

/** The evaluation a decision relied on, or undefined. */
function evaluationOfDecision(decision) {
  if (decision === null || typeof decision !== 'object') return undefined;
  return WeakMapPrototypeGet(DECISIONS, decision);
}

module.exports = {
  grantsInUse,
  grantsUsed,
  openEvaluation,
  evaluationToAnswer,
  runInEvaluation,
  markAnswer,
  isAnswerOfAnother,
  bindDecision,
  evaluationOfDecision,
};
