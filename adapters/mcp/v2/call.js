'use strict';
// One tools/call on SDK 2.x, for the server made for its request: the message the gate
// decoded found again by its id, the tool found, a retry of an approval read from the
// requestState the gate minted (state.js), the arguments prepared (one schema run on the
// arguments decoded with the message), the policy (grants first), an input_required answer
// for an approval (or SDK 1.x's approval result, kept for a reviewer), or the tool's
// handler run through authorizeToolCall (a fresh view, at most once, receipts; after an
// accepted elicitation, executeToolCall on the second decision).

const { isApprovalGrantError } = require('tool-argument-snapshot');
const { ObjectDefineProperty, ReflectApply, SafeError, SafeMap, MapPrototypeDelete, MapPrototypeHas, MapPrototypeSet } = require('../../gate/primordials');
const { own, isWellFormedString, setData } = require('../../gate/read');
const { decideCall } = require('../../gate/decide');
const { authorizeCall } = require('../../gate/authorize');
const { executeDecision } = require('../../gate/execute');
const { receiptKey, pruneShared } = require('../../gate/receipts');
const { replayCode } = require('../../gate/replays');
const { denyResult, toolErrorResult } = require('../results');
const { INVALID, INVALID_PARAMS, INTERNAL_ERROR, KEY_MESSAGE, SCOPE_MESSAGE, readIdempotencyKey, readScope } = require('../keys');
const { toolOf, prepareCall, policyContextOf, keptApprovalResult, forgetGranted, refusalCode } = require('../steps');
const { STATE_RUN_ID, mintState, readState, forgetState } = require('./state');

const INVALID_REQUEST = -32600;

/** The `_meta` member of an input_required answer that describes the approval it waits for. */
const APPROVAL_META = 'tool-argument-snapshot/approval';
/** The key of the elicitation an input_required answer asks (with `elicitation: true`). */
const APPROVAL_INPUT = 'tool-argument-snapshot/approve';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** A JSON-RPC error the SDK answers with its code (the SDK reads `code` off what a handler throws). */
function protocolError(code, message, data) {
  const error = new SafeError(message);
  ObjectDefineProperty(error, 'code', { __proto__: null, value: code, enumerable: true, writable: true, configurable: true });
  if (data !== undefined) ObjectDefineProperty(error, 'data', { __proto__: null, value: data, enumerable: true, writable: true, configurable: true });
  return error;
}

const invalidParams = (message) => protocolError(INVALID_PARAMS, message);

/** The approval an input_required answer carries for the reviewer (its kept id, the sealed proposal). */
function approvalMeta(decision, toolName, proposalHash, minted) {
  return {
    decision: 'require_approval',
    reason: decision.reason,
    decidedBy: 'policy',
    toolName,
    proposalHash,
    pendingId: minted.keptId,
    proposal: minted.sealed,
  };
}

/** Whether the request's client declared elicitation (the 2026-07-28 envelope's client capabilities). */
function clientElicits(params) {
  const meta = own(params, '_meta');
  const capabilities = meta === undefined ? undefined : own(meta, CLIENT_CAPABILITIES);
  const elicit = capabilities === undefined ? undefined : own(capabilities, 'elicitation');
  return elicit !== undefined && elicit !== null;
}

/** The input_required answer of an approval: the sealed state, the approval for the reviewer, and the elicitation when asked for. */
function inputRequiredResult(gate, decision, toolName, minted, params) {
  const result = {
    resultType: 'input_required',
    requestState: minted.requestState,
    _meta: { [APPROVAL_META]: approvalMeta(decision, toolName, decision.proposalHash, minted) },
  };
  if (gate.elicitation && clientElicits(params)) {
    result.inputRequests = {
      [APPROVAL_INPUT]: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: `Approve ${decision.toolName} with ${decision.argsCanonicalJson}? (${decision.reason}; proposal ${decision.proposalHash})`,
          requestedSchema: { type: 'object', properties: { approve: { type: 'boolean', title: 'Approve this exact call' } }, required: ['approve'] },
        },
      },
    };
  }
  return result;
}

/** The principal of a request: `idempotencyScope(ctx)`, else the authenticated client's id, else undefined. */
function principalOf(ctx, scope) {
  if (scope !== undefined) return scope;
  const http = own(ctx, 'http');
  const authInfo = http === undefined ? undefined : own(http, 'authInfo');
  const clientId = authInfo === undefined ? undefined : own(authInfo, 'clientId');
  return isWellFormedString(clientId) && clientId !== '' ? clientId : undefined;
}

/**
 * The decision on a prepared call after a first decision `first` that asked for approval:
 * for a retry of an approval whose answer accepted the gate's elicitation, the policy's
 * again once the state's seal is granted; `first` otherwise; undefined when declined.
 */
async function decideAgain(gate, call, prepared, policyContext, first) {
  const { grants } = gate;
  const { state, params, toolName, callId } = call;
  if (state === undefined || !gate.elicitation) return first;
  const answer = own(own(params, 'inputResponses'), APPROVAL_INPUT);
  if (answer === undefined) return first;
  const content = own(answer, 'content');
  if (own(answer, 'action') !== 'accept' || own(content, 'approve') !== true) return undefined;
  try {
    await ReflectApply(own(grants, 'grant'), grants, [state.sealed]);
  } catch (error) {
    // Granted already (the reviewer, or a concurrent retry): that grant is the one to spend.
    if (!isApprovalGrantError(error) || own(error, 'code') !== 'seal_used') throw error;
  }
  const policy = gate.policyFor(toolName);
  return decideCall(prepared, policy === null ? undefined : policy, policyContext, callId);
}

/** The answer to a call that needs an approval: a state's retry answered again, an input_required answer, or 1.x's approval result. */
async function approvalAnswer(gate, call, decision, grantScope) {
  const { agentName, grants, receipts } = gate;
  const { state, params, toolName, callId, keyed, runId, era } = call;
  if (state !== undefined) {
    // The state ran before (its receipt), else it still waits for its grant: answered again.
    const refused = await replayCode(receipts, receiptKey(agentName, STATE_RUN_ID, callId), decision.proposalHash);
    if (refused !== undefined) return denyResult(refused === 'call_already_executed' ? 'request_state_used' : refused, 'runtime');
    return inputRequiredResult(gate, decision, toolName, state, params);
  }
  if (keyed) {
    const refused = await replayCode(receipts, receiptKey(agentName, runId, callId), decision.proposalHash);
    if (refused !== undefined) return denyResult(refused, 'runtime');
  }
  if (era === 'modern' && gate.sealing) {
    const minted = await mintState(grants, agentName, decision.proposal, call.principal, gate.stateTtlMs);
    return inputRequiredResult(gate, decision, toolName, minted, params);
  }
  // Without a key ring (or a 2025-era request): no requestState, the approval result of SDK
  // 1.x, kept for a reviewer as the 1.x gate keeps it (adapters/mcp/proposals.js).
  return keptApprovalResult(gate, decision, call.toolCallId, grantScope, call.idempotencyKey, call.scope);
}

/** The tool's handler for the SDK: with its arguments (a tool with an input schema) and the request's context. */
function handlerOf(call) {
  const { ctx, tool } = call;
  const handler = own(tool, 'handler');
  const inputSchema = own(tool, 'inputSchema');
  return (args) => (inputSchema === undefined ? handler(ctx) : handler(args, ctx));
}

/**
 * The answer of an allowed call, `settled` as authorizeCall records it: the tool's result,
 * projected as the SDK projects it; its error as a tool error; a refusal as a denial.
 * `granted`: the allow relied on a grant, and its state or approval request is forgotten.
 */
async function allowedAnswer(gate, call, settled, grantScope, proposalHash) {
  const { grants, agentName } = gate;
  const { mcpServer, tool, toolName, state } = call;
  /** A call that ran: its state (forgotten in the background), or, on a grant, its approval request no longer waits for a reviewer. */
  const forget = async () => {
    if (state !== undefined) forgetState(grants, agentName, state);
    else if (settled.granted)
      await forgetGranted(gate, { __proto__: null, reason: 'approval_granted', proposalHash }, grantScope, call.idempotencyKey, call.scope);
  };
  if (!settled.ran) {
    const code = settled.code;
    return denyResult(state !== undefined && code === 'call_already_executed' ? 'request_state_used' : code, 'runtime');
  }
  await forget();
  if (settled.threw === true) {
    const error = settled.error;
    if (error !== null && typeof error === 'object' && error.code === -32042) throw error;
    return toolErrorResult(error);
  }
  const result = settled.result;
  try {
    await mcpServer.validateToolOutput(tool, result, toolName);
  } catch (error) {
    return toolErrorResult(error);
  }
  if (result !== null && typeof result === 'object' && own(result, 'resultType') === 'input_required') return result;
  return mcpServer.server.projectCallToolResult(result, tool.outputSchemaJson);
}

/** The answer of an allow decided already (after an elicitation): executeToolCall runs it. */
async function runAllowed(gate, call, decision, grantScope) {
  if (call.keyed) pruneShared(gate.receipts);
  const granted = decision.reason === 'approval_granted';
  let settled;
  try {
    const result = await executeDecision(decision, handlerOf(call), call.keyed ? gate.keyedOptions : gate.plainOptions);
    settled = { __proto__: null, ran: true, result, granted };
  } catch (error) {
    const code = refusalCode(error);
    settled = code !== undefined ? { __proto__: null, ran: false, code, granted } : { __proto__: null, ran: true, error, threw: true, granted };
  }
  return allowedAnswer(gate, call, settled, grantScope, decision.proposalHash);
}

/** The answer to one call: `call` says what the request is (its tool, params, ids, scope and principal). */
async function gatedCall(gate, call, record) {
  const { agentName, grants, receipts } = gate;
  const { params, toolName, toolCallId, idempotencyKey, scope, principal } = call;
  // A retry of an approval: the state the gate minted (another requestState is the tool's own).
  const state = readState(grants, own(params, 'requestState'), agentName);
  if (state !== undefined) {
    if (state.code !== undefined) return denyResult(state.code, 'runtime');
    if (own(state.sealed, 'toolName') !== toolName) return denyResult('request_state_tool_mismatch', 'runtime');
    if (state.principal !== principal) return denyResult('request_state_principal_mismatch', 'runtime');
  }
  call.state = state;
  // Receipts: a state's retry is keyed by the seal's nonce; else the client's idempotency key.
  call.keyed = receipts !== undefined && (state !== undefined || idempotencyKey !== undefined);
  call.runId = !call.keyed ? undefined : state !== undefined ? STATE_RUN_ID : scope;
  call.callId = !call.keyed ? toolCallId : state !== undefined ? own(state.sealed, 'nonce') : idempotencyKey;

  const { prepared, answer } = await prepareCall(agentName, toolName, record.rawArguments, params, own(call.tool, 'inputSchema'), call.callId, call.runId);
  if (answer !== undefined) return answer;
  // The retried arguments must be the approved ones: the same hash, however spelled.
  if (state !== undefined && prepared.proposalHash !== own(state.sealed, 'proposalHash')) return denyResult('request_state_arguments_changed', 'runtime');

  const { policyContext, grantScope } = policyContextOf(gate.contextOf, call.ctx, toolCallId, 'message_text', idempotencyKey, undefined);
  // A state's grant lives under the state's own scope: only this state can spend it.
  if (state !== undefined) setData(policyContext, 'grantScope', own(state.sealed, 'scope'));
  // Decided and, on allow, run in one step: nothing happens in between, so a call relying
  // on a grant makes one store call before its handler (issue 35, the receipt's claim
  // taking the use). A call that did not run comes back with its decision.
  if (call.keyed) pruneShared(receipts);
  const policy = gate.policyFor(toolName);
  const settled = await authorizeCall(
    prepared,
    policy === null ? undefined : policy,
    policyContext,
    call.callId,
    handlerOf(call),
    call.keyed ? gate.keyedOptions : gate.plainOptions,
  );
  if (settled.decision === undefined) return allowedAnswer(gate, call, settled, grantScope, prepared.proposalHash);
  let decision = settled.decision;
  if (decision.decision === 'require_approval') {
    decision = await decideAgain(gate, call, prepared, policyContext, decision);
    if (decision === undefined) return denyResult('approval_declined', 'elicitation');
    if (decision.decision === 'allow') return runAllowed(gate, call, decision, grantScope);
  }
  if (decision.decision === 'require_approval') return approvalAnswer(gate, call, decision, grantScope);
  if (decision.decision !== 'allow') return denyResult(decision.reason, decision.decidedBy);
  return runAllowed(gate, call, decision, grantScope);
}

/**
 * The tools/call handler maker of a gate: `callTool(mcpServer, recordFor, era, request,
 * ctx)` for the server `mcpServer` made for a request, `recordFor(requestId)` finding the
 * gate's reading of the request, `era` the request's.
 */
function callToolOf(gate) {
  // Request ids in flight per principal: without sessions, ids are the client's, so only
  // requests of one principal can be told apart (each HTTP exchange has its own answer).
  const inFlight = new SafeMap();

  return async function callTool(mcpServer, recordFor, era, request, ctx) {
    const toolName = request.params.name;
    const mcpReq = own(ctx, 'mcpReq');
    const requestId = own(mcpReq, 'id');
    const record = recordFor(requestId);
    const message = record === undefined ? undefined : record.message;
    const params = message === undefined ? undefined : own(message, 'params');
    // The server was made for one request: the one the gate decoded, or nothing runs.
    if (params === undefined || own(message, 'method') !== 'tools/call' || own(params, 'name') !== toolName || own(message, 'id') !== requestId) {
      throw protocolError(INTERNAL_ERROR, 'tool-argument-snapshot/mcp: the message text was lost');
    }
    const tool = toolOf(own(mcpServer, '_registeredTools'), toolName, params, invalidParams);
    const idempotencyKey = readIdempotencyKey(params);
    if (idempotencyKey === INVALID) throw protocolError(INVALID_PARAMS, KEY_MESSAGE(toolName));
    const scope = readScope(gate.idempotencyScope, ctx);
    if (scope === INVALID) throw protocolError(INTERNAL_ERROR, SCOPE_MESSAGE);
    const principal = principalOf(ctx, scope);

    let claimed;
    if (principal !== undefined) {
      claimed = `${principal.length}:${principal} ${typeof requestId}:${requestId}`;
      if (MapPrototypeHas(inFlight, claimed)) throw protocolError(INVALID_REQUEST, 'Invalid Request', { code: 'request_id_in_flight' });
      MapPrototypeSet(inFlight, claimed, true);
    }
    try {
      const call = { mcpServer, era, ctx, tool, toolName, params, toolCallId: `${requestId}`, idempotencyKey, scope, principal };
      return await gatedCall(gate, call, record);
    } finally {
      if (claimed !== undefined) MapPrototypeDelete(inFlight, claimed);
    }
  };
}

module.exports = { APPROVAL_META, APPROVAL_INPUT, callToolOf };
