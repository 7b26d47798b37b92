'use strict';
// The steps of one tools/call that both SDK lines' gates take the same way (no SDK loaded
// here): finding the tool, preparing its arguments, the policy context, the approval answer
// of a call kept for a reviewer, forgetting it once it ran on a grant, and the refusals of
// executeToolCall answered as denials.

const { prepareToolCallAsync, isToolArgumentsValidationError } = require('tool-argument-snapshot');
const { own, ownDataCopy, setData } = require('../gate/read');
const { isGrantUnavailable } = require('../gate/execute');
const { receiptRefusalCode } = require('../gate/replays');
const { stageResult, denyResult, objectArguments, approvalResult } = require('./results');

/**
 * The registered tool `toolName` of `registry`, enabled and not a task tool; else the error
 * `invalidParams(message)` makes (the SDK line's invalid-params error) is thrown.
 */
function toolOf(registry, toolName, params, invalidParams) {
  const tool = own(registry, toolName);
  if (tool === undefined) throw invalidParams(`Tool ${toolName} not found`);
  if (own(tool, 'enabled') !== true) throw invalidParams(`Tool ${toolName} disabled`);
  const execution = own(tool, 'execution');
  const taskSupport = execution !== undefined && execution !== null ? own(execution, 'taskSupport') : undefined;
  if (own(params, 'task') !== undefined || taskSupport === 'required' || taskSupport === 'optional') {
    throw invalidParams(`Tool ${toolName}: task tools are not gated by tool-argument-snapshot/mcp`);
  }
  return tool;
}

/**
 * The call prepared from the message's text (`text`; undefined: the arguments the SDK
 * handed over as an object, strictly snapshotted) under `callId` and `runId` (undefined:
 * none): `{ prepared }`, or `{ answer }`, the stage result of arguments refused.
 */
async function prepareCall(agentName, toolName, text, params, inputSchema, callId, runId) {
  try {
    const rawArguments = text === undefined ? objectArguments(agentName, toolName, own(params, 'arguments')) : text;
    const prepared = await prepareToolCallAsync(
      runId === undefined
        ? { agentName, toolName, rawArguments, schema: inputSchema, toolCallId: callId }
        : { agentName, toolName, rawArguments, schema: inputSchema, toolCallId: callId, runId },
    );
    return { prepared };
  } catch (error) {
    if (!isToolArgumentsValidationError(error)) throw error;
    return { answer: stageResult(toolName, error) };
  }
}

/** The policy context of a gate without `policyContext`: one literal per shape. */
function gateContext(toolCallId, argumentsSource, idempotencyKey, sessionId) {
  if (idempotencyKey === undefined) {
    return sessionId === undefined ? { toolCallId, argumentsSource } : { toolCallId, argumentsSource, sessionId };
  }
  return sessionId === undefined ? { toolCallId, argumentsSource, idempotencyKey } : { toolCallId, argumentsSource, idempotencyKey, sessionId };
}

/**
 * The policy context of a call, `{ policyContext, grantScope }`: without `contextOf`, the
 * gate's fields alone (an object literal: its fields are defined, no setter runs); else the
 * application's fields of `contextOf(request)` (own data only), then the gate's, which win,
 * and the grant scope the application's fields name (null if none).
 */
function policyContextOf(contextOf, request, toolCallId, argumentsSource, idempotencyKey, sessionId) {
  if (contextOf === undefined) return { policyContext: gateContext(toolCallId, argumentsSource, idempotencyKey, sessionId), grantScope: null };
  const policyContext = ownDataCopy(contextOf(request));
  setData(policyContext, 'toolCallId', toolCallId);
  setData(policyContext, 'argumentsSource', argumentsSource);
  if (idempotencyKey !== undefined) setData(policyContext, 'idempotencyKey', idempotencyKey);
  if (sessionId !== undefined) setData(policyContext, 'sessionId', sessionId);
  const given = own(policyContext, 'grantScope');
  return { policyContext, grantScope: typeof given === 'string' ? given : null };
}

/**
 * The answer to a call that needs an approval, as SDK 1.x answers it: the approval result,
 * its request kept for a reviewer first when the gate keeps them (a request no reviewer
 * could see or grant is refused instead: it fails closed).
 */
async function keptApprovalResult(gate, decision, toolCallId, grantScope, idempotencyKey, keyScope) {
  const { keeping, grants } = gate;
  if (keeping === undefined) return approvalResult(grants, decision, toolCallId, grantScope);
  let request;
  try {
    request = await keeping.keep(keeping.keyOf(grantScope, idempotencyKey, keyScope, decision.proposalHash), decision, grantScope);
  } catch {
    return denyResult('grant_store_unavailable', 'runtime');
  }
  return approvalResult(grants, decision, toolCallId, grantScope, request);
}

/** A call that ran on a grant: its approval request no longer waits for a reviewer. */
async function forgetGranted(gate, decision, grantScope, idempotencyKey, keyScope) {
  const { keeping } = gate;
  if (keeping !== undefined && decision.reason === 'approval_granted')
    await keeping.forget(keeping.keyOf(grantScope, idempotencyKey, keyScope, decision.proposalHash));
}

/** The code of a refusal of executeToolCall answered as a denial (a receipt's, or grant_unavailable), else undefined (the error is the handler's). */
function refusalCode(error) {
  const code = receiptRefusalCode(error);
  return code !== undefined ? code : isGrantUnavailable(error) ? 'grant_unavailable' : undefined;
}

module.exports = { toolOf, prepareCall, policyContextOf, keptApprovalResult, forgetGranted, refusalCode };
