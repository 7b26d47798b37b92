'use strict';
// toolGateMiddleware: a wrapToolCall middleware for LangChain v1's createAgent that pairs,
// decides and runs every call of the tools it gates, and interrupts for review.

const { invalidArgument, own, ownArray, setData, readOptions, isWellFormedString } = require('../../gate/read');
const { approvedWithoutGrantNotice } = require('../../gate/warnings');
const {
  ArrayPrototypePush, SafeWeakMap, SafeError, WeakMapPrototypeGet, WeakMapPrototypeSet, isProxy,
} = require('../../gate/primordials');
const { api } = require('../gate/core');
const { isCallId, toolCallsOf } = require('../gate/calls');
const { readGateOptions, toolEntry } = require('../gate/options');
const { callProblemError, prepareAttempt, policyContextOf, scopeOf, evaluate } = require('../gate/execute');
const { threadIdOf, receiptRun, replayCode } = require('../gate/receipts');
const { verifiedKept } = require('../gate/proposals');
const { keptRunOf, createPending } = require('./pending');
const { createMiddleware } = require('./peers');
const { DEFAULT_PREFIX, HOW_TO_APPROVE, readDecisions, lastAIMessage, callsOfTask, deferred } = require('./task');
const { createReview } = require('./review');
const { createDecisions } = require('./decisions');

const { createApprovalGrants } = api;

function toolGateMiddleware(options) {
  const opts = readOptions(options, 'toolGateMiddleware options');
  if (opts === null) throw invalidArgument('toolGateMiddleware expects { agentName, tools, policy?, grants? }');
  // Approvals need grants; without a store of your own they live in this process only.
  const gate = readGateOptions(opts, 'toolGateMiddleware', () => createApprovalGrants());
  const { tools, grants } = gate;
  const allowedDecisions = readDecisions(own(opts, 'allowedDecisions'), 'options.allowedDecisions');
  const descriptionPrefix = own(opts, 'descriptionPrefix') ?? DEFAULT_PREFIX;
  if (!isWellFormedString(descriptionPrefix)) throw invalidArgument('options.descriptionPrefix must be a well-formed string');
  const contextOf = own(opts, 'policyContext');
  if (contextOf !== undefined && typeof contextOf !== 'function') throw invalidArgument('options.policyContext must be a function ({ toolCall, state, runtime }) => object');
  const name = own(opts, 'name') ?? 'ToolArgumentSnapshotMiddleware';
  if (!isWellFormedString(name) || name === '') throw invalidArgument('options.name must be a non-empty string');
  const notice = approvedWithoutGrantNotice('langchain', HOW_TO_APPROVE);

  /** The passes of v1 tasks, by the task's configurable object (one per task execution). */
  const passes = new SafeWeakMap();

  /**
   * One execution of a tools task: every call it runs registers; once all have decided,
   * the calls that need approval are reviewed in one interrupt (message order), and only
   * then does anything run. A v2 task has one call.
   */
  function passOf(configurable, members) {
    let pass = WeakMapPrototypeGet(passes, configurable);
    if (pass === undefined) {
      pass = { members, decided: 0, outcomes: new SafeWeakMap(), ready: deferred(), review: deferred() };
      WeakMapPrototypeSet(passes, configurable, pass);
    }
    return pass;
  }

  function finishDeciding(pass) {
    pass.decided++;
    if (pass.decided === pass.members.length) pass.ready.resolve();
  }

  /** Run id of a kept proposal: the thread and the message (agent/pending.js). */
  function runIdOf(runtime, ai) {
    const threadId = threadIdOf(runtime);
    if (threadId === undefined) throw invalidArgument('toolGateMiddleware needs a thread_id (createAgent with a checkpointer, invoked with { configurable: { thread_id } })');
    return keptRunOf(threadId, ai);
  }

  /** Evaluates one call: the outcome the pass acts on once every call has decided. */
  async function decide(request, ai, position, toolCall) {
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
    // A kept record that does not verify (edited in the store) is replaced, never shown;
    // an approval resumed against it is refused with its code.
    const { kept: before, code: unverified } = await verifiedKept(grants, key);
    let kept = before;
    let keptNow = false;
    if (before === undefined || own(before, 'proposalHash') !== decision.proposalHash || (grants.sealing && own(before, 'scope') !== scope)) {
      kept = await grants.keep(key, decision.proposal, { scope });
      keptNow = true;
    }
    return { kind: 'review', entry, decision, prepared, policyContext, scope, key, kept, keptNow, replaced: before !== undefined && keptNow, unverified, call, run };
  }

  const { reviewValue, review } = createReview(allowedDecisions, descriptionPrefix);
  const { answerInvalid, denied, execute, applyDecision } = createDecisions(gate, notice);

  async function wrapToolCall(request, handler) {
    if (request === null || typeof request !== 'object' || isProxy(request)) throw invalidArgument('wrapToolCall expects LangChain\'s tool call request');
    const runtime = own(request, 'runtime');
    const configurable = own(runtime, 'configurable');
    const scratchpad = own(configurable, '__pregel_scratchpad');
    if (configurable === undefined || configurable === null || typeof configurable !== 'object' || scratchpad === undefined) {
      throw new SafeError('toolGateMiddleware runs inside a createAgent graph (LangGraph) only');
    }
    const taskInput = own(scratchpad, 'currentTaskInput');
    const messages = ownArray(own(request, 'state'), 'messages');
    const ai = lastAIMessage(messages);
    const toolCall = own(request, 'toolCall');
    if (ai === undefined) throw new SafeError('toolGateMiddleware: the state has no AIMessage for this tool call');
    const toolCalls = ownArray(ai, 'tool_calls');

    // One call per task (v2), or every unanswered call of the message (v1, a jump to tools).
    const single = own(taskInput, 'lg_tool_call') !== undefined;
    const members = single ? [toolCall] : callsOfTask(messages, ai);
    let index = -1;
    for (let i = 0; i < members.length; i++) if (members[i] === toolCall) index = i;
    if (index === -1) {
      throw new SafeError('toolGateMiddleware must be the first middleware of createAgent (another middleware changed the tool call before it)');
    }
    // The call's position in the message, for pairing with its provider text.
    let position = -1;
    if (single) {
      const id = own(toolCall, 'id');
      for (let i = 0; i < toolCalls.length; i++) {
        if (toolCalls[i] === toolCall || (isWellFormedString(id) && own(toolCalls[i], 'id') === id && own(toolCalls[i], 'name') === own(toolCall, 'name'))) {
          if (position === -1 || toolCalls[i] === toolCall) position = i;
        }
      }
    } else {
      for (let i = 0; i < toolCalls.length; i++) if (toolCalls[i] === toolCall) position = i;
    }

    const pass = passOf(configurable, members);
    let outcome;
    try {
      outcome = await decide(request, ai, position, toolCall);
    } catch (error) {
      pass.ready.reject(error);
      pass.review.reject(error);
      throw error;
    }
    WeakMapPrototypeSet(pass.outcomes, toolCall, outcome);
    finishDeciding(pass);
    await pass.ready.promise;

    // The calls under review, in message order; the first of them asks for the review.
    const reviewing = [];
    for (let i = 0; i < members.length; i++) {
      const member = WeakMapPrototypeGet(pass.outcomes, members[i]);
      if (member.kind === 'review') ArrayPrototypePush(reviewing, member);
    }
    let decisions;
    if (reviewing.length > 0) {
      if (reviewing[0] === outcome) {
        try {
          decisions = review(reviewValue(reviewing), reviewing.length);
        } catch (error) {
          pass.review.reject(error);
          throw error;
        }
        pass.review.resolve(decisions);
      } else {
        // Every call of the pass waits: nothing runs in a pass the review interrupts.
        decisions = await pass.review.promise;
      }
    }

    switch (outcome.kind) {
      case 'answer':
        return outcome.message;
      case 'handler':
        return handler(request);
      case 'execute':
        return execute(outcome.entry, outcome.decision, outcome.id, runtime, outcome.run);
      default: {
        let at = 0;
        for (let i = 0; i < reviewing.length; i++) if (reviewing[i] === outcome) at = i;
        return applyDecision(outcome, decisions[at], runtime);
      }
    }
  }

  const middleware = createMiddleware({ name, wrapToolCall });
  // What a reviewer is shown, from the grants' store and verified (agent/pending.js).
  setData(middleware, 'pending', createPending(gate));
  return middleware;
}

module.exports = { toolGateMiddleware };
