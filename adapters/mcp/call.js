'use strict';
// One tools/call at an McpServer of SDK 1.x: the tool found, its arguments prepared from
// the message's text (transport.js keeps it), the policy (grants first), an elicitation when
// the gate asks for one, an approval answered and kept for a reviewer, or the tool's handler
// run through authorizeToolCall (a fresh view, at most once per idempotency key), or, after an
// elicitation, executeToolCall.

const { own } = require('../gate/read');
const { authorizeCall } = require('../gate/authorize');
const { executeDecision } = require('../gate/execute');
const { receiptKey, pruneShared } = require('../gate/receipts');
const { replayCode } = require('../gate/replays');
const { types, mcpError } = require('./sdk');
const { GatedRequestInfo } = require('./transport');
const { denyResult, toolErrorResult } = require('./results');
const { elicitedDecision } = require('./elicitation');
const { idempotencyKeyOf, scopeOf } = require('./receipts');
const { toolOf, prepareCall, policyContextOf, keptApprovalResult, forgetGranted, refusalCode } = require('./steps');

const invalidParams = (message) => mcpError('InvalidParams', message);

/** The tools/call handler of the gate of `mcpServer` (its Server `server`, its tool registry `registry`). */
function callToolOf(gate, mcpServer, server, registry) {
  const { agentName, grants, policyFor, elicitation, contextOf, idempotencyScope, receipts, keeping, plainOptions, keyedOptions } = gate;

  /** The tool's handler for the SDK: with its arguments (a tool with an input schema) and `extra`. */
  const handlerOf = (tool, extra) => {
    const handler = own(tool, 'handler');
    const inputSchema = own(tool, 'inputSchema');
    return (args) => (inputSchema === undefined ? handler(extra) : handler(args, extra));
  };

  /**
   * What a call that was allowed answers: the handler's result (checked against the tool's
   * output schema), its error as a tool error, or the denial of a refusal (the grant could
   * not be spent, or the receipt refused). `settled` is authorizeCall's record; `granted`:
   * the allow relied on a grant, and the approval request kept for it is forgotten.
   */
  async function allowedAnswer(settled, tool, toolName, grantScope, idempotencyKey, keyScope) {
    try {
      // A retry of a call that ran, the key with other arguments, still running, an unknown
      // outcome, a store down; or the grant could not be spent.
      if (!settled.ran) return denyResult(settled.code, 'runtime');
      if (settled.threw === true) {
        const error = settled.error;
        // The SDK passes this one through (also an McpError of its ES module build).
        if (error !== null && typeof error === 'object' && error.code === types().ErrorCode.UrlElicitationRequired) throw error;
        return toolErrorResult(error);
      }
    } finally {
      if (settled.granted)
        await forgetGranted(gate, { __proto__: null, reason: 'approval_granted', proposalHash: settled.proposalHash }, grantScope, idempotencyKey, keyScope);
    }
    const result = settled.result;
    // The SDK's own check of structured output against the tool's output schema.
    if (typeof mcpServer.validateToolOutput === 'function') {
      try {
        await mcpServer.validateToolOutput(tool, result, toolName);
      } catch (error) {
        return toolErrorResult(error);
      }
    }
    return result;
  }

  /** The answer of a decision made already (an elicitation's): executeToolCall runs it. */
  async function run(decision, tool, toolName, extra, keyed, grantScope, idempotencyKey, keyScope) {
    if (keyed) pruneShared(receipts);
    const granted = decision.reason === 'approval_granted';
    const proposalHash = decision.proposalHash;
    let settled;
    try {
      const result = await executeDecision(decision, handlerOf(tool, extra), keyed ? keyedOptions : plainOptions);
      settled = { __proto__: null, ran: true, result, granted, proposalHash };
    } catch (error) {
      const code = refusalCode(error);
      settled =
        code !== undefined
          ? { __proto__: null, ran: false, code, granted, proposalHash }
          : { __proto__: null, ran: true, error, threw: true, granted, proposalHash };
    }
    return allowedAnswer(settled, tool, toolName, grantScope, idempotencyKey, keyScope);
  }

  return async function callTool(request, extra) {
    const params = request.params;
    const toolName = params.name;
    const tool = toolOf(registry, toolName, params, invalidParams);
    const toolCallId = `${extra.requestId}`;
    // A retry comes with a new request id: only the client's idempotency key names the call.
    const idempotencyKey = idempotencyKeyOf(toolName, params);
    const keyed = idempotencyKey !== undefined && receipts !== undefined;
    // The key's scope: the receipt key's run, and part of where an approval request is kept.
    const keyScope = idempotencyKey !== undefined && (keyed || keeping !== undefined) ? scopeOf(idempotencyScope, extra) : undefined;
    const runId = keyed ? keyScope : undefined;
    // The call's id in the package (its events, its receipt): the idempotency key when
    // there are receipts to key, else the request id.
    const callId = keyed ? idempotencyKey : toolCallId;
    const text = GatedRequestInfo.textOf(extra.requestInfo);
    const argumentsSource = text === undefined ? 'object' : 'message_text';

    const { prepared, answer } = await prepareCall(agentName, toolName, text, params, own(tool, 'inputSchema'), callId, runId);
    if (answer !== undefined) return answer;

    const sessionId = typeof extra.sessionId === 'string' ? extra.sessionId : undefined;
    const { policyContext, grantScope } = policyContextOf(contextOf, extra, toolCallId, argumentsSource, idempotencyKey, sessionId);
    const policy = policyFor(toolName);
    // Decided and, on allow, run in one step: nothing happens in between, so a call relying
    // on a grant makes one store call before its handler (issue 35, the receipt's claim
    // taking the use). A call that did not run comes back with its decision.
    if (keyed) pruneShared(receipts);
    const settled = await authorizeCall(
      prepared,
      policy === null ? undefined : policy,
      policyContext,
      callId,
      handlerOf(tool, extra),
      keyed ? keyedOptions : plainOptions,
    );
    if (settled.decision === undefined) {
      settled.proposalHash = prepared.proposalHash;
      return allowedAnswer(settled, tool, toolName, grantScope, idempotencyKey, keyScope);
    }
    let decision = settled.decision;

    if (decision.decision === 'require_approval' && elicitation) {
      const asked = await elicitedDecision(server, grants, { decision, prepared, policy, policyContext, toolCallId: callId, extra });
      if (asked.declined) return denyResult('approval_declined', 'elicitation');
      decision = asked.decision;
    }
    if (decision.decision === 'require_approval') {
      // A retry of a keyed call whose first attempt ran on a grant (spent by that run)
      // is told so, not asked to be approved again.
      if (keyed) {
        const refused = await replayCode(receipts, receiptKey(agentName, runId, callId), decision.proposalHash);
        if (refused !== undefined) return denyResult(refused, 'runtime');
      }
      return keptApprovalResult(gate, decision, toolCallId, grantScope, idempotencyKey, keyScope);
    }
    if (decision.decision !== 'allow') return denyResult(decision.reason, decision.decidedBy);
    return run(decision, tool, toolName, extra, keyed, grantScope, idempotencyKey, keyScope);
  };
}

module.exports = { callToolOf };
