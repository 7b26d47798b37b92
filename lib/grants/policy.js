'use strict';
// The grants' policy helper (./index.js): `policy(fallback)` answers an approval with a
// live grant, looked up in the store for the evaluation the input belongs to
// (../run/registry.js) and recorded there as a use that evaluation may spend; `spend` is
// the hook that spends an allow's uses. The grants' state (its store, methods bound once,
// clock and the owner that tells its uses apart) is the record createApprovalGrants passes.

const { own } = require('../input');
const { ours, settle, isPromise } = require('../promises');
const { evaluationToAnswer, markAnswer, evaluationOfDecision } = require('../run/registry');
const { readFunction, grantQuery, call } = require('./read');
const { cedarDeciderOf } = require('../cedar/shared');
const { SPEND, observed, traceAsync, setField } = require('../events');
const P = require('../primordials');

const { ObjectFreeze, isProxy } = P;

const DEFAULT_FALLBACK = ObjectFreeze(function requireApproval() {
  return { decision: 'require_approval', reason: 'approval_required' };
});

/**
 * Whether a policy's answer is a well-formed require_approval (own data fields, no Proxy
 * asked): only then may a grant answer instead. Anything else is returned as it is, for
 * the runtime to judge (a malformed answer stays invalid_policy_result).
 */
function asksForApproval(value) {
  if (value === null || typeof value !== 'object' || isProxy(value)) return false;
  if (own(value, 'decision') !== 'require_approval') return false;
  const reason = own(value, 'reason');
  return typeof reason === 'string' && reason !== '';
}

/**
 * The grant lookup of one grants object: lookup (by the input's evaluation) and lookupIn
 * (for an evaluation found before), each recording a live grant's take as a use.
 */
function createGrantLookup(state) {
  const { store, storeHas, storeTake, storeClaimAndTake, clock, owner } = state;

  /** Takes one use of the grant `query` names: true only when the store took one. */
  async function takeNow(query) {
    const taken = await ours(call(storeTake, store, [query, clock()]));
    return taken.ok && taken.value === true;
  }

  /** takeNow, published on the spend channel with the evaluation's attempt (docs/events.md). */
  async function take(query, evaluation) {
    if (!observed(SPEND)) return await ours(takeNow(query));
    const attemptId = evaluation.attemptId();
    const { agentName, toolName, proposalHash, scope } = query;
    const toolCallId = evaluation.toolCallId;
    const context =
      toolCallId === undefined ? { attemptId, agentName, toolName, proposalHash, scope } : { attemptId, agentName, toolName, toolCallId, proposalHash, scope };
    return await ours(
      traceAsync(
        SPEND,
        context,
        () => takeNow(query),
        'spend',
        (taken) => setField(context, 'taken', taken),
      ),
    );
  }

  /**
   * What the evaluation's joint spend asks (../run/registry.js): in this grants' own store,
   * and unobserved (a spend-channel subscriber sees the take on its own, as without it), a
   * function that claims the receipt of `request` and takes one use of `query` in one
   * store call, answering the store's answer as a box. Undefined otherwise.
   */
  function jointFor(query) {
    return (target) => {
      if (target !== store || observed(SPEND)) return undefined;
      return (request) => call(storeClaimAndTake, store, [own(request, 'claim'), own(request, 'now'), query, clock()]);
    };
  }

  /**
   * The grant this evaluation may rely on: the marked allow, a deny when the store failed,
   * or undefined (no live grant, or an input outside its own evaluation).
   */
  async function lookup(input) {
    // The evaluation this input belongs to (by the input's identity, never its fields),
    // and only while the policy runs in that same evaluation: a copied or made-up input,
    // another evaluation's input, or a call outside any evaluation finds no grant.
    return lookupIn(evaluationToAnswer(input));
  }

  /**
   * lookupIn, for the grants policy `self` whose answer without a live grant is
   * `alternative`. When the evaluation says that `self` is the very policy authorizeToolCall
   * runs, and that it claims the receipt in this grants' own store right after (foldFor),
   * the grant is not looked up (issue 35): the use is deferred to the claim, which takes it
   * in the same store call (claimReceiptAndTake) or finds none and claims nothing, and then
   * the decision is the alternative's. Otherwise lookupIn.
   */
  async function lookupFor(evaluation, self, alternative) {
    if (evaluation === undefined || !evaluation.isOpen()) return undefined;
    if (storeClaimAndTake !== undefined && typeof evaluation.foldFor === 'function' && evaluation.foldFor(self) === store && !observed(SPEND)) {
      const query = grantQuery(evaluation.agentName, evaluation.toolName, evaluation.proposalHash, evaluation.scope);
      const answer = alternative === DEFAULT_FALLBACK ? DEFAULT_FALLBACK() : alternative;
      if (
        evaluation.deferUse(
          owner,
          () => take(query, evaluation),
          jointFor(query),
          () => call(storeHas, store, [query, clock()]),
          answer,
        ) === true
      ) {
        const allow = ObjectFreeze({ decision: 'allow', reason: 'approval_granted' });
        markAnswer(allow, evaluation);
        return allow;
      }
    }
    return lookupIn(evaluation);
  }

  /** lookup, for an evaluation found before (undefined: none, so no grant). */
  async function lookupIn(evaluation) {
    if (evaluation === undefined || !evaluation.isOpen()) return undefined;
    const query = grantQuery(evaluation.agentName, evaluation.toolName, evaluation.proposalHash, evaluation.scope);
    const answer = await ours(call(storeHas, store, [query, clock()]));
    if (!answer.ok) {
      // The runtime turns the evaluation into deny / grant_store_unavailable, whatever
      // the policy answers after this.
      evaluation.fail();
      return { decision: 'deny', reason: 'grant_store_unavailable' };
    }
    if (answer.value === true && evaluation.isOpen()) {
      evaluation.addUse(owner, () => take(query, evaluation), storeClaimAndTake === undefined ? undefined : jointFor(query));
      // Marked: handed to another evaluation (a memoized answer), it is a runtime deny.
      const allow = ObjectFreeze({ decision: 'allow', reason: 'approval_granted' });
      markAnswer(allow, evaluation);
      return allow;
    }
    return undefined;
  }

  return { lookup, lookupIn, lookupFor };
}

/** The policy helper and the spend hook of one grants object, over its lookup. */
function createGrantPolicy(lookup, lookupIn, lookupFor) {
  function policy(fallback) {
    const next = readFunction(fallback, 'fallback policy') ?? DEFAULT_FALLBACK;
    // A Cedar policy (createCedarPolicy, known by identity) decides first and asks the
    // grants only for the approval its set requires: its forbids win over a live grant.
    const cedar = cedarDeciderOf(next);
    if (cedar !== undefined) {
      return async function grantPolicy(input) {
        return cedar(input, lookup);
      };
    }
    if (next === DEFAULT_FALLBACK) {
      // It always asks for approval: the grants answer, when one is live.
      return async function grantPolicy(input) {
        const granted = await ours(lookupFor(evaluationToAnswer(input), grantPolicy, DEFAULT_FALLBACK));
        return granted === undefined ? next(input) : granted;
      };
    }
    // The application's policy decides first: its allow and its deny are final (no grant
    // is looked up, none is spent, and a live grant never turns a deny into an allow). The
    // grants are asked only when it answers require_approval.
    return async function grantPolicy(input) {
      // Found before the fallback runs: whatever it does to the asynchronous context, the
      // lookup is for the evaluation this call was made in.
      const evaluation = evaluationToAnswer(input);
      const settled = settle(next, input);
      const answer = isPromise(settled) ? await settled : settled;
      // A throw or a rejection is the policy's, as it was.
      if (!answer.ok) throw answer.value;
      const value = answer.value;
      if (!asksForApproval(value)) return value;
      const granted = await ours(lookupFor(evaluation, grantPolicy, value));
      return granted === undefined ? value : granted;
    };
  }

  /**
   * The grants hook of executeToolCall and authorizeToolCall: whether an allow may run.
   * An allow whose evaluation relied on grants spends them (once, whoever asks first);
   * any other allow spends nothing. The pipeline spends without this hook too.
   */
  async function spend(decision) {
    if (decision === null || typeof decision !== 'object' || isProxy(decision)) return false;
    if (own(decision, 'decision') !== 'allow') return false;
    const evaluation = evaluationOfDecision(decision);
    if (evaluation === undefined) return true;
    return (await ours(evaluation.spend())) === true;
  }

  return { policy, spend };
}

module.exports = { createGrantLookup, createGrantPolicy };
