'use strict';
// toolGateMiddleware's decision of one call (`m`: the middleware's gate and answers): paired
// with its provider text, prepared, evaluated, and what the pass then does with it (answer,
// run the handler, execute, or review with the proposal kept for the thread).

const { invalidArgument, own } = require('../../gate/read');
const { isCallId, toolCallsOf } = require('../gate/calls');
const { toolEntry } = require('../gate/options');
const { callProblemError, prepareAttempt, policyContextOf, scopeOf, evaluate } = require('../gate/execute');
const { threadIdOf, receiptRun, replayCode } = require('../gate/receipts');
const { verifiedKept } = require('../gate/proposals');
const { keptRunOf } = require('./pending');

/** Run id of a kept proposal: the thread and the message (agent/pending.js). */
function runIdOf(runtime, ai) {
  const threadId = threadIdOf(runtime);
  if (threadId === undefined)
    throw invalidArgument('toolGateMiddleware needs a thread_id (createAgent with a checkpointer, invoked with { configurable: { thread_id } })');
  return keptRunOf(threadId, ai);
}

/**
 * The proposal the reviewer is shown, kept for its thread, message and call: the one kept
 * already when it is this proposal, else this one. A kept record that does not verify
 * (edited in the store) is replaced, never shown; an approval resumed against it is
 * refused with its code (`unverified`).
 */
async function keepForReview(grants, key, decision, scope) {
  const { kept: before, code: unverified } = await verifiedKept(grants, key);
  if (before !== undefined && own(before, 'proposalHash') === decision.proposalHash && (!grants.sealing || own(before, 'scope') === scope)) {
    return { kept: before, keptNow: false, replaced: false, unverified };
  }
  const kept = await grants.keep(key, decision.proposal, { scope });
  return { kept, keptNow: true, replaced: before !== undefined, unverified };
}

/** Evaluates one call: the outcome the pass acts on once every call has decided. */
async function decide(m, request, ai, position, toolCall) {
  const { gate, tools, grants, contextOf, answerInvalid, denied } = m;
  const calls = toolCallsOf(ai);
  let call;
  for (let i = 0; i < calls.length; i++) {
    if (calls[i].position === position) call = calls[i];
  }
  const id = own(toolCall, 'id');
  const toolName = own(toolCall, 'name');
  const entry = toolEntry(tools, call === undefined ? toolName : call.name);
  if (entry === undefined) return { kind: 'handler' };
  if (call === undefined) {
    const problem = isCallId(id) ? 'unpaired_call' : 'missing_call_id';
    return { kind: 'answer', message: answerInvalid(isCallId(id) ? id : undefined, toolName, callProblemError(problem)) };
  }
  if (call.problem !== undefined) return { kind: 'answer', message: answerInvalid(call.id, call.name, callProblemError(call.problem)) };

  // The call's execution receipt is keyed by the LangGraph thread (the runtime's
  // configurable.thread_id, what every checkpoint of the thread, forks included, shares)
  // and the provider's call id.
  const run = receiptRun(gate, call.id, threadIdOf(own(request, 'runtime')));
  const { prepared, invalid } = await prepareAttempt(gate, entry, call.id, call.text, call.args, run);
  if (invalid !== undefined) return { kind: 'answer', message: answerInvalid(call.id, call.name, invalid) };
  const context = contextOf === undefined ? undefined : await contextOf({ toolCall, state: own(request, 'state'), runtime: own(request, 'runtime') });
  const policyContext = policyContextOf(context, call.id, call.argumentsSource);
  const decision = await evaluate(entry, prepared, policyContext, call.id);
  if (decision.decision === 'allow') return { kind: 'execute', entry, decision, id: call.id, run };
  if (decision.decision !== 'require_approval') return { kind: 'answer', message: denied(call.id, call.name, decision.reason) };
  // A replay of a call that ran (time travel, a resume given again) is answered with its
  // receipt's code: no reviewer is asked again, and it is never an approval without a grant.
  const replayed = await replayCode(gate, run, call.id, decision.proposalHash);
  if (replayed !== undefined) return { kind: 'answer', message: denied(call.id, call.name, replayed) };

  // The proposal the reviewer is shown is the one kept for this thread, message and call;
  // one kept in this very pass (none was, or another was) was never shown to anyone.
  const key = { runId: runIdOf(own(request, 'runtime'), ai), toolCallId: call.id };
  const scope = scopeOf(policyContext);
  const { kept, keptNow, replaced, unverified } = await keepForReview(grants, key, decision, scope);
  return { kind: 'review', entry, decision, prepared, policyContext, scope, key, kept, keptNow, replaced, unverified, call, run };
}

module.exports = { decide };
