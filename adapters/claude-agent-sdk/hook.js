'use strict';
// Deciding a Claude Agent SDK gate's calls: the PreToolUse hook that decides every call on
// its snapshot and runs the SDK's built-in tools' allowed calls through authorizeToolCall
// (executeToolCall after an onDecision observer) (the
// gate's own tools run in their handlers: handlers.js), and what the SDK and the model are
// answered.

const {
  prepareToolCallAsync,
  canonicalize,
  decodeView,
  isToolArgumentsValidationError,
  isSnapshotDomainError,
  ToolArgumentsValidationError,
} = require('tool-argument-snapshot');
const { isProxy, MapPrototypeGet, ObjectGetOwnPropertyNames } = require('../gate/primordials');
const { own, setData, isId } = require('../gate/read');
const { decideCall } = require('../gate/decide');
const { authorizeCall } = require('../gate/authorize');
const { executeDecision, isGrantUnavailable } = require('../gate/execute');
const { executeOptions, receiptRefusalCode } = require('../gate/replays');
const { keepOptions } = require('../gate/proposals');
const { ownToolName } = require('./tools');
const { keyOf, scopeOfCall } = require('./options');

/** The message the model gets for a call that did not run (no payload). */
function notExecutedMessage(decision, reason) {
  if (decision === 'require_approval') return `The tool call was not executed: it waits for a reviewer's approval (${reason}).`;
  return `The tool call was not executed (${decision}: ${reason}).`;
}

function preToolUseOutput(permissionDecision, extra) {
  const output = { hookEventName: 'PreToolUse', permissionDecision };
  const names = ObjectGetOwnPropertyNames(extra);
  for (let i = 0; i < names.length; i++) setData(output, names[i], extra[names[i]]);
  return { hookSpecificOutput: output };
}

function denyOutput(message) {
  return preToolUseOutput('deny', { permissionDecisionReason: message });
}

/** The canonical JSON of what the SDK hands over, or undefined when it has none. */
function canonicalOrUndefined(value) {
  try {
    return canonicalize(value);
  } catch {
    return undefined;
  }
}

/**
 * The prepared call of a PreToolUse input: the input the SDK parsed from the model's
 * tool_use, in its RFC 8785 form (a getter, a Proxy or a non-JSON value is refused unread),
 * the tool's schema run once. Rejects with a ToolArgumentsValidationError for bad input.
 */
async function prepareHookCall(gate, input, toolName, entry, toolUseId, sessionId) {
  const { agentName, includePath } = gate;
  let rawArguments;
  try {
    rawArguments = canonicalize(own(input, 'tool_input'), { includePath });
  } catch (error) {
    if (!isSnapshotDomainError(error)) throw error;
    throw new ToolArgumentsValidationError('snapshot', toolName, own(error, 'code'));
  }
  return prepareToolCallAsync({
    agentName,
    toolName,
    rawArguments,
    schema: entry === undefined ? undefined : entry.schema,
    includePath,
    toolCallId: toolUseId,
    runId: sessionId,
  });
}

/**
 * The PreToolUse hook over the gate's record. `allowed` (BoundedLists) receives the allowed
 * calls of the gate's own tools by tool_use id, `handedOver` the canonical input handed
 * over to the SDK by tool_use id (handlers.js reads both).
 */
function createPreToolUse(gate, allowed, handedOver) {
  const { serverName, byName, policyOf, onDecision, receipts, store, proposalTtlMs } = gate;

  /** Hands `view` over as the input the SDK runs, remembered for canUseTool. */
  function allowOutput(call, json) {
    handedOver.add(call.toolUseId, { sdkToolName: call.sdkToolName, json });
    return preToolUseOutput('allow', { permissionDecisionReason: 'allowed by tool-argument-snapshot', updatedInput: decodeView(json) });
  }

  /**
   * The PreToolUse hook: every tool call of the session, before the SDK's rules and modes.
   * The input the SDK parsed from the model's tool_use is snapshotted (its RFC 8785 form,
   * refusing getters and non-JSON values unread), the tool's schema runs once, the policy
   * decides on its own view; an allow hands the SDK exactly the canonical input to run.
   */
  async function preToolUse(input, toolUseID) {
    if (input === null || typeof input !== 'object' || isProxy(input)) return denyOutput(notExecutedMessage('deny', 'invalid_hook_input'));
    if (own(input, 'hook_event_name') !== 'PreToolUse') return {};
    const sdkToolName = own(input, 'tool_name');
    const toolUseId = own(input, 'tool_use_id') ?? toolUseID;
    const sessionId = own(input, 'session_id');
    const agentId = own(input, 'agent_id');
    if (!isId(sdkToolName) || !isId(sessionId)) return denyOutput(notExecutedMessage('deny', 'invalid_hook_input'));
    const ownName = ownToolName(sdkToolName, serverName, own(input, 'mcp_server'));
    const entry = ownName === undefined ? undefined : MapPrototypeGet(byName, ownName);
    const toolName = entry === undefined ? sdkToolName : entry.toolName;
    if (!isId(toolUseId)) return denyOutput(new ToolArgumentsValidationError('json', toolName, 'missing_call_id').message);
    const call = { sdkToolName, toolUseId, sessionId, agentId: isId(agentId) ? agentId : undefined, scope: null };
    try {
      call.scope = await scopeOfCall(gate, call);
    } catch {
      return denyOutput(notExecutedMessage('deny', 'invalid_grant_scope'));
    }
    let prepared;
    try {
      prepared = await prepareHookCall(gate, input, toolName, entry, toolUseId, sessionId);
    } catch (error) {
      if (isToolArgumentsValidationError(error)) return denyOutput(`${own(error, 'message')} Please call the tool again with valid arguments.`);
      throw error;
    }
    const policyContext = { toolCallId: toolUseId, sessionId, sdkToolName, argumentsSource: 'sdk_input' };
    if (call.agentId !== undefined) setData(policyContext, 'agentId', call.agentId);
    if (call.scope !== null) setData(policyContext, 'grantScope', call.scope);
    const info = { toolCallId: toolUseId, sessionId, sdkToolName, argumentsSource: 'sdk_input' };
    let decision;
    if (entry === undefined && onDecision === undefined) {
      // A built-in tool (or another server's), with no observer of the decision: decided and
      // handed its execution view in one step (authorizeToolCall), so a call relying on a
      // grant makes one store call before it runs (issue 35: the receipt's claim takes the use).
      const settled = await authorizeCall(prepared, policyOf(toolName), policyContext, toolUseId, (executionView) => executionView, executeOptions(receipts));
      if (settled.decision === undefined) {
        if (!settled.ran) return denyOutput(notExecutedMessage('deny', settled.code));
        if (settled.threw === true) throw settled.error;
        return allowOutput(call, canonicalize(settled.result));
      }
      decision = settled.decision;
    } else {
      decision = await decideCall(prepared, policyOf(toolName), policyContext, toolUseId, onDecision, info);
    }
    if (decision.decision === 'deny') return denyOutput(notExecutedMessage('deny', decision.reason));
    if (decision.decision === 'require_approval') {
      try {
        await store.keep(keyOf(gate, call.scope, sessionId, toolUseId), decision.proposal, keepOptions(call.scope, proposalTtlMs));
      } catch {
        // Asking a reviewer who could never grant it is refused instead (fails closed).
        return denyOutput(notExecutedMessage('deny', 'grant_store_unavailable'));
      }
      return denyOutput(notExecutedMessage('require_approval', decision.reason));
    }
    if (entry !== undefined) {
      // The gate's own tool: its handler runs this decision when the SDK calls it.
      allowed.add(toolUseId, { decision, entry, json: decision.argsCanonicalJson });
      return allowOutput(call, decision.argsCanonicalJson);
    }
    // A built-in tool (or another server's): the SDK runs what the gate hands it, once per
    // tool_use (the receipt of the session and tool_use id), the grant spent right before.
    let view;
    try {
      view = await executeDecision(decision, (executionView) => executionView, executeOptions(receipts));
    } catch (error) {
      if (isGrantUnavailable(error)) return denyOutput(notExecutedMessage('deny', 'grant_unavailable'));
      const code = receiptRefusalCode(error);
      if (code !== undefined) return denyOutput(notExecutedMessage('deny', code));
      throw error;
    }
    return allowOutput(call, canonicalize(view));
  }

  return preToolUse;
}

module.exports = { notExecutedMessage, canonicalOrUndefined, createPreToolUse };
