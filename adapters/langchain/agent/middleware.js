'use strict';
// toolGateMiddleware: a wrapToolCall middleware for LangChain v1's createAgent that pairs,
// decides (decide.js) and runs every call of the tools it gates, and interrupts for review
// (one pass of a task: passes.js).

const { invalidArgument, own, ownArray, setData, readOptions, isWellFormedString } = require('../../gate/read');
const { approvedWithoutGrantNotice } = require('../../gate/warnings');
const { SafeWeakMap, SafeError, WeakMapPrototypeSet, isProxy } = require('../../gate/primordials');
const { readGateOptions } = require('../gate/options');
const { createPending } = require('./pending');
const { createMiddleware } = require('./peers');
const { DEFAULT_PREFIX, HOW_TO_APPROVE, readDecisions, lastAIMessage, callsOfTask } = require('./task');
const { createReview } = require('./review');
const { createDecisions } = require('./decisions');
const { decide } = require('./decide');
const { passOf, finishDeciding, positionOf, reviewOf } = require('./passes');

/** The middleware's wrapToolCall (`m`: its gate, answers and passes). */
async function wrapToolCall(m, request, handler) {
  if (request === null || typeof request !== 'object' || isProxy(request)) throw invalidArgument("wrapToolCall expects LangChain's tool call request");
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
  const position = positionOf(toolCalls, toolCall, single);

  const pass = passOf(m.passes, configurable, members);
  let outcome;
  try {
    outcome = await decide(m, request, ai, position, toolCall);
  } catch (error) {
    pass.ready.reject(error);
    pass.review.reject(error);
    throw error;
  }
  WeakMapPrototypeSet(pass.outcomes, toolCall, outcome);
  finishDeciding(pass);
  await pass.ready.promise;

  // The calls under review, in message order; the first of them asks for the review.
  const { reviewing, decisions } = await reviewOf(pass, members, outcome, m.reviewValue, m.review);

  switch (outcome.kind) {
    case 'answer':
      return outcome.message;
    case 'handler':
      return handler(request);
    case 'execute':
      return m.execute(outcome.entry, outcome.decision, outcome.id, runtime, outcome.run);
    default: {
      let at = 0;
      for (let i = 0; i < reviewing.length; i++) if (reviewing[i] === outcome) at = i;
      return m.applyDecision(outcome, decisions[at], runtime);
    }
  }
}

function toolGateMiddleware(options) {
  const opts = readOptions(options, 'toolGateMiddleware options');
  if (opts === null) throw invalidArgument('toolGateMiddleware expects { agentName, tools, policy?, grants? }');
  // Approvals need grants; without a store of your own they live in this process only.
  const gate = readGateOptions(opts, 'toolGateMiddleware', true);
  const { tools, grants } = gate;
  const allowedDecisions = readDecisions(own(opts, 'allowedDecisions'), 'options.allowedDecisions');
  const descriptionPrefix = own(opts, 'descriptionPrefix') ?? DEFAULT_PREFIX;
  if (!isWellFormedString(descriptionPrefix)) throw invalidArgument('options.descriptionPrefix must be a well-formed string');
  const contextOf = own(opts, 'policyContext');
  if (contextOf !== undefined && typeof contextOf !== 'function')
    throw invalidArgument('options.policyContext must be a function ({ toolCall, state, runtime }) => object');
  const name = own(opts, 'name') ?? 'ToolArgumentSnapshotMiddleware';
  if (!isWellFormedString(name) || name === '') throw invalidArgument('options.name must be a non-empty string');
  const notice = approvedWithoutGrantNotice('langchain', HOW_TO_APPROVE);

  const { reviewValue, review } = createReview(allowedDecisions, descriptionPrefix);
  const { answerInvalid, denied, execute, applyDecision } = createDecisions(gate, notice);
  const m = {
    gate,
    tools,
    grants,
    contextOf,
    reviewValue,
    review,
    answerInvalid,
    denied,
    execute,
    applyDecision,
    /** The passes of v1 tasks, by the task's configurable object (one per task execution). */
    passes: new SafeWeakMap(),
  };
  const middleware = createMiddleware({ name, wrapToolCall: (request, handler) => wrapToolCall(m, request, handler) });
  // What a reviewer is shown, from the grants' store and verified (agent/pending.js).
  setData(middleware, 'pending', createPending(gate));
  return middleware;
}

module.exports = { toolGateMiddleware };
