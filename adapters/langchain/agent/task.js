'use strict';
// What one tools task of createAgent runs: its message, its unanswered calls, the decision
// types a reviewer may give, and a deferred for the calls of one pass to wait on.

const { invalidArgument, own, ownArray } = require('../../gate/read');
const {
  ObjectFreeze,
  ArrayIsArray,
  ArrayPrototypePush,
  ArrayPrototypeIncludes,
  SafePromise,
  PromisePrototypeThen,
  isProxy,
} = require('../../gate/primordials');
const { AIMessage } = require('./peers');

const DECISION_TYPES = ObjectFreeze(['approve', 'edit', 'reject']);
const DEFAULT_PREFIX = 'Tool execution requires approval';
const HOW_TO_APPROVE =
  "resume the interrupt this middleware raised with { decisions } (Command({ resume })) while the proposal it kept is in the grants' store: " +
  'share one durable store between processes and keep proposals at least as long as reviews take.';

/** Why an approval executed nothing, besides the policy's and the runtime's reasons. */
const PROPOSAL_CHANGED = 'proposal_changed';

function readDecisions(value, what) {
  if (value === undefined) return DECISION_TYPES;
  if (!ArrayIsArray(value) || isProxy(value) || value.length === 0) throw invalidArgument(`${what} must be a non-empty array of 'approve', 'edit', 'reject'`);
  const list = [];
  for (let i = 0; i < value.length; i++) {
    if (!ArrayPrototypeIncludes(DECISION_TYPES, value[i])) throw invalidArgument(`${what} must be a non-empty array of 'approve', 'edit', 'reject'`);
    ArrayPrototypePush(list, value[i]);
  }
  return ObjectFreeze(list);
}

/** The last AIMessage of the state (the one the tools node runs), as LangChain finds it. */
function lastAIMessage(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (AIMessage.isInstance(messages[i])) return messages[i];
  }
  return undefined;
}

/**
 * The calls the tools node runs in one task: the tool_calls of the last AIMessage that no
 * ToolMessage answers yet (v1 and a jump to the tools), as LangChain's ToolNode computes them.
 */
function callsOfTask(messages, ai) {
  const answered = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message !== null && typeof message === 'object' && typeof message.getType === 'function' && message.getType() === 'tool') {
      ArrayPrototypePush(answered, own(message, 'tool_call_id'));
    }
  }
  const toolCalls = ownArray(ai, 'tool_calls');
  const calls = [];
  for (let i = 0; i < toolCalls.length; i++) {
    const id = own(toolCalls[i], 'id');
    if (id === undefined || id === null || !ArrayPrototypeIncludes(answered, id)) ArrayPrototypePush(calls, toolCalls[i]);
  }
  return calls;
}

function deferred() {
  let resolve;
  let reject;
  const promise = new SafePromise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Members that never wait on a failed pass leave no unhandled rejection behind.
  PromisePrototypeThen(promise, undefined, () => {});
  return { promise, resolve, reject };
}

module.exports = { DECISION_TYPES, DEFAULT_PREFIX, HOW_TO_APPROVE, PROPOSAL_CHANGED, readDecisions, lastAIMessage, callsOfTask, deferred };
