'use strict';
// gateMcpServer: reads its options, replaces the server's tools/call handler with one that
// prepares, evaluates and executes each call through the package's API, and returns the
// gated transports.

const { invalidArgument, own, readOptions, isWellFormedString, ownDataCopy, setData } = require('../gate/read');
const { ObjectFreeze, ReflectApply, SafeMap, MapPrototypeGet, MapPrototypeSet, isProxy } = require('../gate/primordials');
const { prepareToolCallAsync, evaluateToolCall, isToolArgumentsValidationError } = require('tool-argument-snapshot');
const { executeDecision } = require('../gate/execute');
const { readReceipts, receiptKey, pruneShared } = require('../gate/receipts');
const { types, mcpError } = require('./sdk');
const { isRecord } = require('./messages');
const { GatedRequestInfo } = require('./transport');
const { stdioTransport, createLinkedPair } = require('./stdio');
const { httpHandler } = require('./http');
const { stageResult, denyResult, toolErrorResult, objectArguments, approvalResult } = require('./results');
const { elicitedDecision } = require('./elicitation');
const { idempotencyKeyOf, scopeOf } = require('./receipts');
const { createKeeping } = require('./proposals');
const { readProposalTtl } = require('../gate/options');
const { receiptRefusalCode, replayCode: receiptRefusal } = require('../gate/replays');
const { isGrantUnavailable } = require('../gate/execute');

/** The code of a refusal of executeToolCall answered as a denial (a receipt's, or grant_unavailable), else undefined (the error is the handler's). */
function refusalCode(error) {
  const code = receiptRefusalCode(error);
  return code !== undefined ? code : isGrantUnavailable(error) ? 'grant_unavailable' : undefined;
}

const GATE_USAGE = 'gateMcpServer expects (mcpServer, { agentName, policy?, grants?, receipts?, idempotencyScope?, elicitation?, policyContext?, proposalTtlMs?, http? })';

/** The policy context of a gate without `policyContext`: one literal per shape. */
function gateContext(toolCallId, argumentsSource, idempotencyKey, sessionId) {
  if (idempotencyKey === undefined) {
    return sessionId === undefined ? { toolCallId, argumentsSource } : { toolCallId, argumentsSource, sessionId };
  }
  return sessionId === undefined ? { toolCallId, argumentsSource, idempotencyKey } : { toolCallId, argumentsSource, idempotencyKey, sessionId };
}

/**
 * Gates an McpServer: replaces its tools/call handling and gives transports that keep
 * the message text. Call it before connecting the server.
 */
function gateMcpServer(mcpServer, options) {
  if (mcpServer === null || typeof mcpServer !== 'object' || isProxy(mcpServer)) throw invalidArgument(GATE_USAGE);
  const server = own(mcpServer, 'server');
  const registry = own(mcpServer, '_registeredTools');
  if (server === undefined || server === null || typeof server !== 'object' || typeof server.setRequestHandler !== 'function' || !isRecord(registry)) {
    throw invalidArgument('gateMcpServer expects an McpServer of @modelcontextprotocol/sdk 1.x');
  }
  if (server.transport !== undefined) throw invalidArgument('gateMcpServer: gate the server before connecting it to a transport');
  const opts = readOptions(options, 'gateMcpServer options');
  if (opts === null) throw invalidArgument(GATE_USAGE);
  const agentName = own(opts, 'agentName');
  if (!isWellFormedString(agentName) || agentName === '') throw invalidArgument('options.agentName must be a non-empty, well-formed string');

  const appPolicy = own(opts, 'policy');
  const policyMap = appPolicy !== null && typeof appPolicy === 'object' && !isProxy(appPolicy) ? appPolicy : undefined;
  if (appPolicy !== undefined && policyMap === undefined && typeof appPolicy !== 'function') {
    throw invalidArgument('options.policy must be a function or an object of functions by tool name');
  }
  const grants = own(opts, 'grants');
  if (grants !== undefined && (grants === null || typeof grants !== 'object' || isProxy(grants)
    || typeof own(grants, 'policy') !== 'function' || typeof own(grants, 'grant') !== 'function')) {
    throw invalidArgument('options.grants must be an object made by createApprovalGrants');
  }
  const elicitation = own(opts, 'elicitation');
  if (elicitation !== undefined && typeof elicitation !== 'boolean') throw invalidArgument('options.elicitation must be a boolean');
  if (elicitation === true && grants === undefined) throw invalidArgument('options.elicitation needs options.grants (an accepted elicitation becomes a grant)');
  const contextOf = own(opts, 'policyContext');
  if (contextOf !== undefined && typeof contextOf !== 'function') throw invalidArgument('options.policyContext must be a function of the request extra');
  const httpOptions = readOptions(own(opts, 'http'), 'options.http');
  // Receipts (unless given: those in the grants' store when the grants are durable, else the
  // shared process memory ones; none with false): used only for calls whose request names
  // an idempotency key.
  const receipts = readReceipts(opts, grants, 'mcp');
  const idempotencyScope = own(opts, 'idempotencyScope');
  if (idempotencyScope !== undefined && (typeof idempotencyScope !== 'function' || isProxy(idempotencyScope))) {
    throw invalidArgument('options.idempotencyScope must be a function of the request extra');
  }
  // Each approval request kept in the grants' store for a reviewer (adapters/mcp/proposals.js).
  const keeping = createKeeping(grants, agentName, readProposalTtl(opts));

  // The policy of each tool: the map's entry or the function, behind the grants.
  const policies = new SafeMap();
  function policyFor(toolName) {
    let policy = MapPrototypeGet(policies, toolName);
    if (policy !== undefined) return policy;
    let base = appPolicy;
    if (policyMap !== undefined) {
      base = own(policyMap, toolName);
      if (base !== undefined && typeof base !== 'function') throw invalidArgument(`options.policy.${toolName} must be a function`);
    }
    policy = grants === undefined ? base : ReflectApply(own(grants, 'policy'), grants, base === undefined ? [] : [base]);
    if (policy === undefined) policy = null;
    MapPrototypeSet(policies, toolName, policy);
    return policy;
  }
  // executeToolCall's options: without and with receipts (made once, never per call).
  const plainOptions = grants === undefined ? undefined : ObjectFreeze({ __proto__: null, grants });
  let keyedOptions;
  if (receipts !== undefined) keyedOptions = ObjectFreeze(grants === undefined ? { __proto__: null, receipts } : { __proto__: null, grants, receipts });

  async function callTool(request, extra) {
    const params = request.params;
    const toolName = params.name;
    const tool = own(registry, toolName);
    if (tool === undefined) throw mcpError('InvalidParams', `Tool ${toolName} not found`);
    if (own(tool, 'enabled') !== true) throw mcpError('InvalidParams', `Tool ${toolName} disabled`);
    const execution = own(tool, 'execution');
    const taskSupport = execution !== undefined && execution !== null ? own(execution, 'taskSupport') : undefined;
    if (own(params, 'task') !== undefined || taskSupport === 'required' || taskSupport === 'optional') {
      throw mcpError('InvalidParams', `Tool ${toolName}: task tools are not gated by tool-argument-snapshot/mcp`);
    }
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
    const inputSchema = own(tool, 'inputSchema');

    let prepared;
    try {
      const rawArguments = text === undefined ? objectArguments(agentName, toolName, own(params, 'arguments')) : text;
      prepared = await prepareToolCallAsync(runId === undefined
        ? { agentName, toolName, rawArguments, schema: inputSchema, toolCallId: callId }
        : { agentName, toolName, rawArguments, schema: inputSchema, toolCallId: callId, runId });
    } catch (error) {
      if (!isToolArgumentsValidationError(error)) throw error;
      return stageResult(toolName, error);
    }

    const sessionId = typeof extra.sessionId === 'string' ? extra.sessionId : undefined;
    let policyContext;
    let scope = null;
    if (contextOf === undefined) {
      // The gate's fields alone: an object literal (its fields are defined, no setter runs).
      policyContext = gateContext(toolCallId, argumentsSource, idempotencyKey, sessionId);
    } else {
      // The application's fields (own data only), then the gate's, which win.
      policyContext = ownDataCopy(contextOf(extra));
      setData(policyContext, 'toolCallId', toolCallId);
      setData(policyContext, 'argumentsSource', argumentsSource);
      if (idempotencyKey !== undefined) setData(policyContext, 'idempotencyKey', idempotencyKey);
      if (sessionId !== undefined) setData(policyContext, 'sessionId', sessionId);
      const grantScope = own(policyContext, 'grantScope');
      if (typeof grantScope === 'string') scope = grantScope;
    }
    const policy = policyFor(toolName);
    let decision = await evaluateToolCall({ prepared, policy: policy === null ? undefined : policy, policyContext, toolCallId: callId });

    if (decision.decision === 'require_approval' && elicitation === true) {
      const asked = await elicitedDecision(server, grants, { decision, prepared, policy, policyContext, toolCallId: callId, extra });
      if (asked.declined) return denyResult('approval_declined', 'elicitation');
      decision = asked.decision;
    }
    if (decision.decision === 'require_approval') {
      // A retry of a keyed call whose first attempt ran on a grant (spent by that run)
      // is told so, not asked to be approved again.
      if (keyed) {
        const refused = await receiptRefusal(receipts, receiptKey(agentName, runId, callId), decision.proposalHash);
        if (refused !== undefined) return denyResult(refused, 'runtime');
      }
      if (keeping === undefined) return approvalResult(grants, decision, toolCallId, scope);
      let request;
      try {
        request = await keeping.keep(keeping.keyOf(scope, idempotencyKey, keyScope, decision.proposalHash), decision, scope);
      } catch {
        // A request no reviewer could see or grant is refused instead (fails closed).
        return denyResult('grant_store_unavailable', 'runtime');
      }
      return approvalResult(grants, decision, toolCallId, scope, request);
    }
    if (decision.decision !== 'allow') return denyResult(decision.reason, decision.decidedBy);

    const handler = own(tool, 'handler');
    if (keyed) pruneShared(receipts);
    let result;
    try {
      result = await executeDecision(decision, (args) => (inputSchema === undefined ? handler(extra) : handler(args, extra)), keyed ? keyedOptions : plainOptions);
    } catch (error) {
      // The grant could not be spent, or the receipt refused (a retry of a call that ran,
      // the key with other arguments, still running, an unknown outcome, a store down).
      const code = refusalCode(error);
      if (code !== undefined) return denyResult(code, 'runtime');
      // The SDK passes this one through (also an McpError of its ES module build).
      if (error !== null && typeof error === 'object' && error.code === types().ErrorCode.UrlElicitationRequired) throw error;
      return toolErrorResult(error);
    } finally {
      // A call that ran on a grant: its approval request no longer waits for a reviewer.
      if (keeping !== undefined && decision.reason === 'approval_granted') await keeping.forget(keeping.keyOf(scope, idempotencyKey, keyScope, decision.proposalHash));
    }
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

  // The SDK sets up tools/list, tools/call and the tools capability on the first tool;
  // let it (so registering later never collides with the gate's handler), then replace
  // tools/call. Tools registered afterwards are looked up at call time: gated too.
  if (mcpServer._toolHandlersInitialized !== true && typeof mcpServer.setToolRequestHandlers === 'function') mcpServer.setToolRequestHandlers();
  server.setRequestHandler(types().CallToolRequestSchema, callTool);

  const handleHttp = httpHandler(mcpServer, httpOptions);

  return ObjectFreeze({
    agentName,
    /** A stdio transport (process.stdin and process.stdout unless given) that keeps each message's text. */
    stdioTransport,
    /** A linked [client, server] pair in memory: the client's messages reach the server as text. */
    createLinkedPair,
    handleHttp,
  });
}

module.exports = { gateMcpServer };
