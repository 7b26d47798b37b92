'use strict';
// gateMcpServer on the MCP TypeScript SDK 2.x (`@modelcontextprotocol/server`, the
// 2026-07-28 specification): the application's server factory, wrapped so that each
// McpServer made for a request gets the gate's tools/call handler, behind createMcpHandler
// and the gate's fetch (v2/http.js). The steps are the gate kernel's, as on SDK 1.x:
// prepareToolCallAsync (one schema run on the arguments decoded with the message), the
// policy (grants first), executeToolCall (a fresh view, at most once, receipts).

const { invalidArgument, own, readOptions, isWellFormedString, ownDataCopy, setData } = require('../../gate/read');
const {
  ArrayPrototypeUnshift, ObjectFreeze, PromisePrototypeThen, ReflectApply, SafeError, SafeMap, SafeWeakSet, MapPrototypeDelete, MapPrototypeGet, MapPrototypeHas, MapPrototypeSet,
  ObjectDefineProperty, WeakSetPrototypeAdd, WeakSetPrototypeHas, isProxy,
} = require('../../gate/primordials');
const { prepareToolCallAsync, isToolArgumentsValidationError, isApprovalGrantError } = require('tool-argument-snapshot');
const { decideCall } = require('../../gate/decide');
const { executeDecision, isGrantUnavailable } = require('../../gate/execute');
const { readReceipts, receiptKey, pruneShared } = require('../../gate/receipts');
const { receiptRefusalCode, replayCode } = require('../../gate/replays');
const { requirePeer } = require('../../gate/peer');
const { readProposalTtl } = require('../../gate/options');
const { createKeeping } = require('../proposals');
const { stageResult, denyResult, toolErrorResult, objectArguments, approvalResult } = require('../results');
const { INVALID, INVALID_PARAMS, INTERNAL_ERROR, KEY_MESSAGE, SCOPE_MESSAGE, readIdempotencyKey, readScope } = require('../keys');
const { STATE_RUN_ID, DEFAULT_STATE_TTL_MS, mintState, readState, forgetState } = require('./state');
const { gatedFetch, recordOf, nodeHandler } = require('./http');
const { serveGatedStdio } = require('./stdio');

const INVALID_REQUEST = -32600;
const USAGE = 'gateMcpServer expects (serverFactory, { agentName, policy?, grants?, receipts?, idempotencyScope?, elicitation?, policyContext?, proposalTtlMs?, http? }) with @modelcontextprotocol/server 2.x';

/** The `_meta` member of an input_required answer that describes the approval it waits for. */
const APPROVAL_META = 'tool-argument-snapshot/approval';
/** The key of the elicitation an input_required answer asks (with `elicitation: true`). */
const APPROVAL_INPUT = 'tool-argument-snapshot/approve';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** createMcpHandler's options the gate passes on (own data properties of `options.http`). */
const HANDLER_OPTIONS = ObjectFreeze(['legacy', 'onerror', 'responseMode', 'bus', 'maxSubscriptions', 'keepAliveMs', 'maxRequestBodySize']);

/** A JSON-RPC error the SDK answers with its code (the SDK reads `code` off what a handler throws). */
function protocolError(code, message, data) {
  const error = new SafeError(message);
  ObjectDefineProperty(error, 'code', { __proto__: null, value: code, enumerable: true, writable: true, configurable: true });
  if (data !== undefined) ObjectDefineProperty(error, 'data', { __proto__: null, value: data, enumerable: true, writable: true, configurable: true });
  return error;
}

/** The code of a refusal of executeToolCall answered as a denial, else undefined (the error is the handler's). */
function refusalCode(error) {
  const code = receiptRefusalCode(error);
  return code !== undefined ? code : isGrantUnavailable(error) ? 'grant_unavailable' : undefined;
}

function gateContext(toolCallId, idempotencyKey) {
  return idempotencyKey === undefined
    ? { toolCallId, argumentsSource: 'message_text' }
    : { toolCallId, argumentsSource: 'message_text', idempotencyKey };
}

/** Whether a 2.x McpServer: its Server, its tool registry and the method createMcpHandler checks tools with. */
function isV2Server(product) {
  if (product === null || typeof product !== 'object' || isProxy(product)) return false;
  const server = own(product, 'server');
  return server !== null && typeof server === 'object' && typeof server.setRequestHandler === 'function'
    && typeof product.toolInputSchemaJson === 'function' && own(product, '_registeredTools') !== undefined;
}

/** The CommonJS build of the SDK 2.x: its createMcpHandler, and its McpServer class (which that handler checks servers against). */
function loadCommonJsBuild() {
  return requirePeer('mcp', '@modelcontextprotocol/server', 'the MCP TypeScript SDK 2.x', () => require('@modelcontextprotocol/server'));
}

/** The approval an input_required answer carries for the reviewer (its kept id, the sealed proposal). */
function approvalMeta(decision, toolName, proposalHash, minted) {
  return {
    decision: 'require_approval', reason: decision.reason, decidedBy: 'policy', toolName, proposalHash,
    pendingId: minted.keptId, proposal: minted.sealed,
  };
}

function gateMcpServerV2(factory, options) {
  if (typeof factory !== 'function' || isProxy(factory)) throw invalidArgument(USAGE);
  const opts = readOptions(options, 'gateMcpServer options');
  if (opts === null) throw invalidArgument(USAGE);
  const agentName = own(opts, 'agentName');
  if (!isWellFormedString(agentName) || agentName === '') throw invalidArgument('options.agentName must be a non-empty, well-formed string');
  const appPolicy = own(opts, 'policy');
  const policyMap = appPolicy !== null && typeof appPolicy === 'object' && !isProxy(appPolicy) ? appPolicy : undefined;
  if (appPolicy !== undefined && policyMap === undefined && (typeof appPolicy !== 'function' || isProxy(appPolicy))) {
    throw invalidArgument('options.policy must be a function or an object of functions by tool name');
  }
  const grants = own(opts, 'grants');
  if (grants !== undefined && (grants === null || typeof grants !== 'object' || isProxy(grants)
    || typeof own(grants, 'policy') !== 'function' || typeof own(grants, 'grant') !== 'function')) {
    throw invalidArgument('options.grants must be an object made by createApprovalGrants');
  }
  const sealing = grants !== undefined && own(grants, 'sealing') === true;
  const elicitation = own(opts, 'elicitation');
  if (elicitation !== undefined && typeof elicitation !== 'boolean') throw invalidArgument('options.elicitation must be a boolean');
  if (elicitation === true && !sealing) {
    throw invalidArgument('options.elicitation needs options.grants with a key ring on @modelcontextprotocol/server 2.x (an accepted elicitation grants the sealed requestState)');
  }
  const contextOf = own(opts, 'policyContext');
  if (contextOf !== undefined && typeof contextOf !== 'function') throw invalidArgument('options.policyContext must be a function of the request context');
  const idempotencyScope = own(opts, 'idempotencyScope');
  if (idempotencyScope !== undefined && (typeof idempotencyScope !== 'function' || isProxy(idempotencyScope))) {
    throw invalidArgument('options.idempotencyScope must be a function of the request context');
  }
  // How long an approval's requestState (and the proposal kept with it) lives: a state always expires.
  const proposalTtlMs = readProposalTtl(opts);
  const stateTtlMs = proposalTtlMs ?? DEFAULT_STATE_TTL_MS;
  // An approval request without a state (no key ring, a 2025-era request) kept for a reviewer, as on 1.x.
  const keeping = createKeeping(grants, agentName, proposalTtlMs);
  const httpOptions = readOptions(own(opts, 'http'), 'options.http');
  // Receipts: the grants' own store's by default (the shared memory ones for memory grants), none with false.
  const receipts = readReceipts(opts, grants, 'mcp');

  const policies = new SafeMap();
  function policyFor(toolName) {
    let policy = MapPrototypeGet(policies, toolName);
    if (policy !== undefined) return policy;
    let base = appPolicy;
    if (policyMap !== undefined) {
      base = own(policyMap, toolName);
      if (base !== undefined && (typeof base !== 'function' || isProxy(base))) throw invalidArgument(`options.policy.${toolName} must be a function`);
    }
    policy = grants === undefined ? base : ReflectApply(own(grants, 'policy'), grants, base === undefined ? [] : [base]);
    if (policy === undefined) policy = null;
    MapPrototypeSet(policies, toolName, policy);
    return policy;
  }
  const plainOptions = grants === undefined ? undefined : ObjectFreeze({ __proto__: null, grants });
  let keyedOptions;
  if (receipts !== undefined) keyedOptions = ObjectFreeze(grants === undefined ? { __proto__: null, receipts } : { __proto__: null, grants, receipts });

  // Request ids in flight per principal: without sessions, ids are the client's, so only
  // requests of one principal can be told apart (each HTTP exchange has its own answer).
  const inFlight = new SafeMap();

  /** The principal of a request: `idempotencyScope(ctx)`, else the authenticated client's id, else undefined. */
  function principalOf(ctx, scope) {
    if (scope !== undefined) return scope;
    const http = own(ctx, 'http');
    const authInfo = http === undefined ? undefined : own(http, 'authInfo');
    const clientId = authInfo === undefined ? undefined : own(authInfo, 'clientId');
    return isWellFormedString(clientId) && clientId !== '' ? clientId : undefined;
  }

  async function callTool(mcpServer, recordFor, era, request, ctx) {
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
    const registry = own(mcpServer, '_registeredTools');
    const tool = own(registry, toolName);
    if (tool === undefined) throw protocolError(INVALID_PARAMS, `Tool ${toolName} not found`);
    if (own(tool, 'enabled') !== true) throw protocolError(INVALID_PARAMS, `Tool ${toolName} disabled`);
    const execution = own(tool, 'execution');
    const taskSupport = execution !== undefined && execution !== null ? own(execution, 'taskSupport') : undefined;
    if (own(params, 'task') !== undefined || taskSupport === 'required' || taskSupport === 'optional') {
      throw protocolError(INVALID_PARAMS, `Tool ${toolName}: task tools are not gated by tool-argument-snapshot/mcp`);
    }
    const idempotencyKey = readIdempotencyKey(params);
    if (idempotencyKey === INVALID) throw protocolError(INVALID_PARAMS, KEY_MESSAGE(toolName));
    const scope = readScope(idempotencyScope, ctx);
    if (scope === INVALID) throw protocolError(INTERNAL_ERROR, SCOPE_MESSAGE);
    const principal = principalOf(ctx, scope);

    let claimed;
    if (principal !== undefined) {
      claimed = `${principal.length}:${principal} ${typeof requestId}:${requestId}`;
      if (MapPrototypeHas(inFlight, claimed)) throw protocolError(INVALID_REQUEST, 'Invalid Request', { code: 'request_id_in_flight' });
      MapPrototypeSet(inFlight, claimed, true);
    }
    try {
      return await gatedCall(mcpServer, record, era, ctx, tool, toolName, params, `${requestId}`, idempotencyKey, scope, principal);
    } finally {
      if (claimed !== undefined) MapPrototypeDelete(inFlight, claimed);
    }
  }

  async function gatedCall(mcpServer, record, era, ctx, tool, toolName, params, toolCallId, idempotencyKey, scope, principal) {
    // A retry of an approval: the state the gate minted (another requestState is the tool's own).
    const state = readState(grants, own(params, 'requestState'), agentName);
    if (state !== undefined) {
      if (state.code !== undefined) return denyResult(state.code, 'runtime');
      if (own(state.sealed, 'toolName') !== toolName) return denyResult('request_state_tool_mismatch', 'runtime');
      if (state.principal !== principal) return denyResult('request_state_principal_mismatch', 'runtime');
    }
    // Receipts: a state's retry is keyed by the seal's nonce; else the client's idempotency key.
    const keyed = receipts !== undefined && (state !== undefined || idempotencyKey !== undefined);
    const runId = !keyed ? undefined : state !== undefined ? STATE_RUN_ID : scope;
    const callId = !keyed ? toolCallId : state !== undefined ? own(state.sealed, 'nonce') : idempotencyKey;
    const inputSchema = own(tool, 'inputSchema');

    let prepared;
    try {
      const rawArguments = record.rawArguments === undefined ? objectArguments(agentName, toolName, own(params, 'arguments')) : record.rawArguments;
      prepared = await prepareToolCallAsync(runId === undefined
        ? { agentName, toolName, rawArguments, schema: inputSchema, toolCallId: callId }
        : { agentName, toolName, rawArguments, schema: inputSchema, toolCallId: callId, runId });
    } catch (error) {
      if (!isToolArgumentsValidationError(error)) throw error;
      return stageResult(toolName, error);
    }
    // The retried arguments must be the approved ones: the same hash, however spelled.
    if (state !== undefined && prepared.proposalHash !== own(state.sealed, 'proposalHash')) return denyResult('request_state_arguments_changed', 'runtime');

    let policyContext;
    let grantScope = null;
    if (contextOf === undefined) {
      policyContext = gateContext(toolCallId, idempotencyKey);
    } else {
      policyContext = ownDataCopy(contextOf(ctx));
      setData(policyContext, 'toolCallId', toolCallId);
      setData(policyContext, 'argumentsSource', 'message_text');
      if (idempotencyKey !== undefined) setData(policyContext, 'idempotencyKey', idempotencyKey);
      const given = own(policyContext, 'grantScope');
      if (typeof given === 'string') grantScope = given;
    }
    // A state's grant lives under the state's own scope: only this state can spend it.
    if (state !== undefined) setData(policyContext, 'grantScope', own(state.sealed, 'scope'));
    const policy = policyFor(toolName);
    const policyArg = policy === null ? undefined : policy;
    let decision = await decideCall(prepared, policyArg, policyContext, callId);

    if (decision.decision === 'require_approval' && state !== undefined && elicitation === true) {
      const answer = own(own(params, 'inputResponses'), APPROVAL_INPUT);
      if (answer !== undefined) {
        const content = own(answer, 'content');
        if (own(answer, 'action') !== 'accept' || own(content, 'approve') !== true) return denyResult('approval_declined', 'elicitation');
        try {
          await ReflectApply(own(grants, 'grant'), grants, [state.sealed]);
        } catch (error) {
          // Granted already (the reviewer, or a concurrent retry): that grant is the one to spend.
          if (!isApprovalGrantError(error) || own(error, 'code') !== 'seal_used') throw error;
        }
        decision = await decideCall(prepared, policyArg, policyContext, callId);
      }
    }

    if (decision.decision === 'require_approval') {
      if (state !== undefined) {
        // The state ran before (its receipt), else it still waits for its grant: answered again.
        const refused = await replayCode(receipts, receiptKey(agentName, STATE_RUN_ID, callId), decision.proposalHash);
        if (refused !== undefined) return denyResult(refused === 'call_already_executed' ? 'request_state_used' : refused, 'runtime');
        return inputRequiredResult(decision, toolName, state, params);
      }
      if (keyed) {
        const refused = await replayCode(receipts, receiptKey(agentName, runId, callId), decision.proposalHash);
        if (refused !== undefined) return denyResult(refused, 'runtime');
      }
      if (era === 'modern' && sealing) {
        const minted = await mintState(grants, agentName, decision.proposal, principal, stateTtlMs);
        return inputRequiredResult(decision, toolName, minted, params);
      }
      // Without a key ring (or a 2025-era request): no requestState, the approval result of SDK
      // 1.x, kept for a reviewer as the 1.x gate keeps it (adapters/mcp/proposals.js).
      if (keeping === undefined) return approvalResult(grants, decision, toolCallId, grantScope);
      let request;
      try {
        request = await keeping.keep(keeping.keyOf(grantScope, idempotencyKey, scope, decision.proposalHash), decision, grantScope);
      } catch {
        // A request no reviewer could see or grant is refused instead (fails closed).
        return denyResult('grant_store_unavailable', 'runtime');
      }
      return approvalResult(grants, decision, toolCallId, grantScope, request);
    }
    if (decision.decision !== 'allow') return denyResult(decision.reason, decision.decidedBy);

    const handler = own(tool, 'handler');
    if (keyed) pruneShared(receipts);
    let result;
    try {
      result = await executeDecision(decision, (args) => (inputSchema === undefined ? handler(ctx) : handler(args, ctx)), keyed ? keyedOptions : plainOptions);
    } catch (error) {
      const code = refusalCode(error);
      if (code !== undefined) return denyResult(state !== undefined && code === 'call_already_executed' ? 'request_state_used' : code, 'runtime');
      if (state !== undefined) forgetState(grants, agentName, state);
      else if (keeping !== undefined && decision.reason === 'approval_granted') await keeping.forget(keeping.keyOf(grantScope, idempotencyKey, scope, decision.proposalHash));
      if (error !== null && typeof error === 'object' && error.code === -32042) throw error;
      return toolErrorResult(error);
    }
    // A call that ran on a grant: its approval request no longer waits for a reviewer.
    if (state !== undefined) forgetState(grants, agentName, state);
    else if (keeping !== undefined && decision.reason === 'approval_granted') await keeping.forget(keeping.keyOf(grantScope, idempotencyKey, scope, decision.proposalHash));
    try {
      await mcpServer.validateToolOutput(tool, result, toolName);
    } catch (error) {
      return toolErrorResult(error);
    }
    if (result !== null && typeof result === 'object' && own(result, 'resultType') === 'input_required') return result;
    return mcpServer.server.projectCallToolResult(result, tool.outputSchemaJson);
  }

  /** The input_required answer of an approval: the sealed state, the approval for the reviewer, and the elicitation when asked for. */
  function inputRequiredResult(decision, toolName, minted, params) {
    const result = {
      resultType: 'input_required',
      requestState: minted.requestState,
      _meta: { [APPROVAL_META]: approvalMeta(decision, toolName, decision.proposalHash, minted) },
    };
    if (elicitation === true && clientElicits(params)) {
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

  const gated = new SafeWeakSet();
  /**
   * The application's factory, its servers gated: `recordsOf(context)` gives the function
   * that finds the gate's reading of a request by its id (one Request over HTTP, the
   * connection's requests in flight over stdio); `checkBuild(product, context)` throws for a
   * server the SDK's entry point cannot serve (another build's).
   */
  const makeGatedFactory = (recordsOf, checkBuild) => async function gatedFactory(context) {
    const product = await factory(context);
    if (!isV2Server(product)) throw invalidArgument('gateMcpServer: the server factory must return a new McpServer of @modelcontextprotocol/server 2.x');
    if (WeakSetPrototypeHas(gated, product) || product.server.transport !== undefined) {
      throw invalidArgument('gateMcpServer: the server factory must return a new McpServer for each request');
    }
    checkBuild(product, context);
    WeakSetPrototypeAdd(gated, product);
    const recordFor = recordsOf(context);
    const era = own(context, 'era');
    // The SDK sets up tools/list, tools/call and the tools capability on the first tool; then tools/call is the gate's.
    if (product._toolHandlersInitialized !== true && typeof product.setToolRequestHandlers === 'function') product.setToolRequestHandlers();
    product.server.setRequestHandler('tools/call', (request, ctx) => callTool(product, recordFor, era, request, ctx));
    return product;
  };
  // Over HTTP: one request, one message, found by its Request object when the server is made.
  const gatedFactory = makeGatedFactory((context) => {
    const record = recordOf(own(context, 'requestInfo'));
    return () => record;
  }, (product, context) => {
    if (commonJsServer === undefined || product instanceof commonJsServer) return;
    // createMcpHandler of one build serves the McpServers of that build only: this request
    // is served again by the other build's handler (the gate's fetch sees the mark).
    const requestInfo = own(context, 'requestInfo');
    if (requestInfo !== null && typeof requestInfo === 'object') WeakSetPrototypeAdd(otherBuild, requestInfo);
    const mismatch = invalidArgument('gateMcpServer: the server factory returned an McpServer of the ES module build of @modelcontextprotocol/server; pass that build\'s createMcpHandler: gateMcpServer(factory, { http: { createMcpHandler } })');
    WeakSetPrototypeAdd(marks, mismatch);
    throw mismatch;
  });

  const handlerOptions = {};
  let createHandler;
  if (httpOptions !== null) {
    for (let i = 0; i < HANDLER_OPTIONS.length; i++) {
      const value = own(httpOptions, HANDLER_OPTIONS[i]);
      if (value !== undefined) setData(handlerOptions, HANDLER_OPTIONS[i], value);
    }
    createHandler = own(httpOptions, 'createMcpHandler');
    if (createHandler !== undefined && typeof createHandler !== 'function') throw invalidArgument('options.http.createMcpHandler must be the createMcpHandler of @modelcontextprotocol/server');
  }
  // The requests whose server was of the other build, and the errors that said so (not the application's to see).
  const otherBuild = new SafeWeakSet();
  const marks = new SafeWeakSet();
  const appOnerror = own(handlerOptions, 'onerror');
  if (appOnerror !== undefined && typeof appOnerror !== 'function') throw invalidArgument('options.http.onerror must be a function');
  setData(handlerOptions, 'onerror', (error) => {
    if (error !== null && typeof error === 'object' && WeakSetPrototypeHas(marks, error)) return;
    if (appOnerror !== undefined) appOnerror(error);
  });
  let commonJsServer;
  if (createHandler === undefined) {
    const build = loadCommonJsBuild();
    createHandler = build.createMcpHandler;
    commonJsServer = build.McpServer;
  }
  const handlers = [createHandler(gatedFactory, handlerOptions)];
  let switching;
  /**
   * The factory makes servers of the ES module build (an ES module application that gave no
   * createMcpHandler): from now on the requests go to that build's handler.
   */
  function switchBuild() {
    if (switching === undefined) {
      switching = PromisePrototypeThen(import('@modelcontextprotocol/server'), (esm) => {
        commonJsServer = undefined;
        ArrayPrototypeUnshift(handlers, esm.createMcpHandler(gatedFactory, handlerOptions));
      });
    }
    return switching;
  }
  const maxBody = own(handlerOptions, 'maxRequestBodySize');

  const fetch = gatedFetch(() => handlers[0], maxBody, (request) => WeakSetPrototypeHas(otherBuild, request), switchBuild);
  return ObjectFreeze({
    agentName,
    /** The web face: a Request to a Response, each POST read and checked by the gate first. */
    fetch,
    /** A Node.js `(req, res)` handler: the request made a web Request for `fetch`, the Response written back. */
    handleHttp: nodeHandler(fetch),
    /** Closes the handlers' exchanges in flight (the SDK handler's close). */
    close: async () => {
      for (let i = 0; i < handlers.length; i++) await handlers[i].close();
    },
    /** The SDK's handler (its `notify` and `bus`); serve through `fetch`, never its own. */
    get handler() {
      return handlers[0];
    },
    /**
     * Serves stdio with the SDK's serveStdio (one connection; a server from the factory for
     * it), each line read and decoded strictly by the gate: `{ stdin?, stdout?, legacy?,
     * onerror?, serveStdio? }` (serveStdio of the build the factory's servers are of).
     */
    serveStdio: (stdioOptions) => serveGatedStdio(makeGatedFactory, stdioOptions),
  });
}

/** Whether the request's client declared elicitation (the 2026-07-28 envelope's client capabilities). */
function clientElicits(params) {
  const meta = own(params, '_meta');
  const capabilities = meta === undefined ? undefined : own(meta, CLIENT_CAPABILITIES);
  const elicit = capabilities === undefined ? undefined : own(capabilities, 'elicitation');
  return elicit !== undefined && elicit !== null;
}

module.exports = { gateMcpServerV2, APPROVAL_META, APPROVAL_INPUT };
