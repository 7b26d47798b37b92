'use strict';
// gateMcpServer: reads its options, replaces the server's tools/call handler with one that
// prepares, evaluates and executes each call through the package's API, and returns the
// gated transports.

const { invalidArgument, own, readOptions, isWellFormedString, ownDataCopy, setData } = require('../shared');
const { ObjectFreeze, ReflectApply, SafeMap, MapPrototypeGet, MapPrototypeSet, isProxy } = require('../gate/primordials');
const {
  prepareToolCallAsync, evaluateToolCall, executeToolCall, isToolArgumentsValidationError, isToolCallNotAllowedError,
} = require('tool-argument-snapshot');
const { CallToolRequestSchema, McpError, ErrorCode } = require('./sdk').types;
const { isRecord } = require('./messages');
const { GatedRequestInfo } = require('./transport');
const { stdioTransport, createLinkedPair } = require('./stdio');
const { httpHandler } = require('./http');
const { stageResult, denyResult, toolErrorResult, objectArguments, approvalResult } = require('./results');
const { elicitedDecision } = require('./elicitation');

const GATE_USAGE = 'gateMcpServer expects (mcpServer, { agentName, policy?, grants?, elicitation?, policyContext?, http? })';

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
  const executeOptions = grants === undefined ? undefined : { grants };

  async function callTool(request, extra) {
    const params = request.params;
    const toolName = params.name;
    const tool = own(registry, toolName);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Tool ${toolName} not found`);
    if (own(tool, 'enabled') !== true) throw new McpError(ErrorCode.InvalidParams, `Tool ${toolName} disabled`);
    const execution = own(tool, 'execution');
    const taskSupport = execution !== undefined && execution !== null ? own(execution, 'taskSupport') : undefined;
    if (own(params, 'task') !== undefined || taskSupport === 'required' || taskSupport === 'optional') {
      throw new McpError(ErrorCode.InvalidParams, `Tool ${toolName}: task tools are not gated by tool-argument-snapshot/mcp`);
    }
    const toolCallId = `${extra.requestId}`;
    const text = GatedRequestInfo.textOf(extra.requestInfo);
    const argumentsSource = text === undefined ? 'object' : 'message_text';
    const inputSchema = own(tool, 'inputSchema');

    let prepared;
    try {
      const rawArguments = text === undefined ? objectArguments(agentName, toolName, own(params, 'arguments')) : text;
      prepared = await prepareToolCallAsync({ agentName, toolName, rawArguments, schema: inputSchema, toolCallId });
    } catch (error) {
      if (!isToolArgumentsValidationError(error)) throw error;
      return stageResult(toolName, error);
    }

    // The application's fields (own data only), then the gate's, which win.
    const policyContext = contextOf === undefined ? {} : ownDataCopy(contextOf(extra));
    setData(policyContext, 'toolCallId', toolCallId);
    setData(policyContext, 'argumentsSource', argumentsSource);
    const sessionId = extra.sessionId;
    if (typeof sessionId === 'string') setData(policyContext, 'sessionId', sessionId);
    const grantScope = own(policyContext, 'grantScope');
    const scope = typeof grantScope === 'string' ? grantScope : null;
    const policy = policyFor(toolName);
    let decision = await evaluateToolCall({ prepared, policy: policy === null ? undefined : policy, policyContext, toolCallId });

    if (decision.decision === 'require_approval' && elicitation === true) {
      const asked = await elicitedDecision(server, grants, { decision, prepared, policy, policyContext, toolCallId, extra });
      if (asked.declined) return denyResult('approval_declined', 'elicitation');
      decision = asked.decision;
    }
    if (decision.decision === 'require_approval') return approvalResult(grants, decision, toolCallId, scope);
    if (decision.decision !== 'allow') return denyResult(decision.reason, decision.decidedBy);

    const handler = own(tool, 'handler');
    let result;
    try {
      result = await executeToolCall(decision, (args) => (inputSchema === undefined ? handler(extra) : handler(args, extra)), executeOptions);
    } catch (error) {
      if (isToolCallNotAllowedError(error) && error.code === 'grant_unavailable') return denyResult('grant_unavailable', 'runtime');
      // The SDK passes this one through (also an McpError of its ES module build).
      if (error !== null && typeof error === 'object' && error.code === ErrorCode.UrlElicitationRequired) throw error;
      return toolErrorResult(error);
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
  server.setRequestHandler(CallToolRequestSchema, callTool);

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
