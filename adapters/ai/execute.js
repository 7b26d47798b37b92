'use strict';
// The execute a gated tool hands the SDK: the attempt of its input decided (decide.js), the
// tool's own execute run through the kernel on a fresh view, under the gate's receipts.

const { ReflectApply } = require('../gate/primordials');
const { own } = require('../gate/read');
const { executeDecision } = require('../gate/execute');
const { executeOptions: receiptOptions } = require('../gate/replays');
const { attemptFor } = require('./attempts');
const { decide } = require('./decide');

function executorFor(gate, attempts, entry) {
  async function authorized(input, executeOptions) {
    const toolCallId = own(executeOptions, 'toolCallId');
    const attempt = attemptFor(attempts, entry.toolName, toolCallId, input);
    // No attempt, or a refused one: executeToolCall refuses a missing decision itself.
    const decision = attempt === undefined || attempt.refusal !== undefined ? undefined : await decide(gate, attempt, undefined);
    return executeDecision(decision, (view) => ReflectApply(entry.execute, entry.target, [view, executeOptions]), receiptOptions(gate.receipts));
  }
  if (entry.streaming) {
    return async function* execute(input, executeOptions) {
      yield* await authorized(input, executeOptions);
    };
  }
  return async function execute(input, executeOptions) {
    return authorized(input, executeOptions);
  };
}

module.exports = { executorFor };
