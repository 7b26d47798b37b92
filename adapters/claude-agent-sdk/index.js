'use strict';
// tool-argument-snapshot/claude-agent-sdk: RFC-0016 for the Claude Agent SDK
// (@anthropic-ai/claude-agent-sdk 0.3). createToolGate assembles the gate: a PreToolUse
// hook that decides every tool call on its snapshot (before the SDK's permission modes,
// allow rules and canUseTool), the application's own tools on an in-process MCP server
// whose handlers run only on an allow and get the package's execution view, a canUseTool
// for calls an ask rule sends on, and approve / decline / pending for the reviewer. Built
// on the gate kernel (adapters/gate/). How it works: docs/adapters/claude-agent-sdk.md.

const {
  prepareToolCallAsync, canonicalize, decodeView, isToolArgumentsValidationError, isSnapshotDomainError, isApprovalGrantError,
  ToolArgumentsValidationError,
} = require('tool-argument-snapshot');
const { ADAPTER, claudeSdk, zod4 } = require('./framework');
const {
  ArrayIsArray, ArrayPrototypePush, isProxy, MapPrototypeGet, MapPrototypeSet, ObjectFreeze,
  ObjectGetOwnPropertyNames, ReflectApply, SafeMap,
} = require('../gate/primordials');
const { invalidArgument, own, setData, readOptions, isWellFormedString, isId } = require('../gate/read');
const { readGrants, readOnDecision, readProposalTtl, readJsonSchemaOptions } = require('../gate/options');
const { decideCall } = require('../gate/decide');
const { executeDecision, isGrantUnavailable } = require('../gate/execute');
const { readReceipts } = require('../gate/receipts');
const { executeOptions, receiptRefusalCode } = require('../gate/replays');
const { reviewKept } = require('../gate/pending');
const { BoundedLists } = require('../gate/texts');
const { proposalStore, keptRunId, keepOptions, grantOptions: grantOptionsOf, grantOnce, grantsMethod, noPendingProposalError } = require('../gate/proposals');
const { readTools, wireSchemaOf, ownToolName, isToolName } = require('./tools');

const USAGE = 'createToolGate expects { agentName, tools?, serverName?, policy?, grants?, receipts?, grantScope?, proposalTtlMs?, onDecision?, includePath?, jsonSchemaOptions? }';
const DEFAULT_SERVER = 'gate';
/** Where the SDK's CLI puts the model's tool_use id in an in-process tools/call. */
const TOOL_USE_ID_META = 'claudecode/toolUseId';

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

function textResult(text, isError) {
  const result = { content: [{ type: 'text', text }] };
  if (isError) setData(result, 'isError', true);
  return result;
}

/** What an application's execute returned, as an MCP CallToolResult. */
function callToolResult(output) {
  if (typeof output === 'string') return textResult(output, false);
  if (output !== null && typeof output === 'object' && !isProxy(output) && ArrayIsArray(own(output, 'content'))) return output;
  return textResult(canonicalize(output === undefined ? null : output), false);
}

/** The approval references `approve`, `decline`, `keptProposal` take: `{ sessionId, toolUseId, grantScope? }`. */
function approvalRef(request, what) {
  const usage = `${what} expects { sessionId, toolUseId, grantScope? } (the SDK's session id and the tool_use id)`;
  if (request === null || typeof request !== 'object' || isProxy(request)) throw invalidArgument(usage);
  const sessionId = own(request, 'sessionId');
  const toolUseId = own(request, 'toolUseId');
  const grantScope = own(request, 'grantScope');
  if (!isId(sessionId) || !isId(toolUseId)) throw invalidArgument(usage);
  if (grantScope !== undefined && grantScope !== null && !isWellFormedString(grantScope)) throw invalidArgument(`${what}: grantScope must be a well-formed string or null`);
  return { sessionId, toolUseId, grantScope };
}

function notPendingError() {
  return noPendingProposalError('no proposal is waiting for approval for this tool call of this session (approved, declined, expired, or never asked under this agent and grant scope)');
}

/**
 * The references of `source` for `pending`: `{ sessionId, toolUseId }`, an SDK result
 * message (`{ session_id, permission_denials: [{ tool_use_id }] }`), or an array of these.
 */
function pendingRefs(source) {
  const refs = [];
  const add = (item) => {
    if (item === null || typeof item !== 'object' || isProxy(item)) throw invalidArgument('pending expects { sessionId, toolUseId }, an SDK result message, or an array of these');
    const denials = own(item, 'permission_denials');
    if (ArrayIsArray(denials) && !isProxy(denials)) {
      const sessionId = own(item, 'session_id');
      if (!isId(sessionId)) return;
      for (let i = 0; i < denials.length; i++) {
        const toolUseId = own(denials[i], 'tool_use_id');
        if (isId(toolUseId)) ArrayPrototypePush(refs, { sessionId, toolUseId, grantScope: undefined });
      }
      return;
    }
    ArrayPrototypePush(refs, approvalRef(item, 'pending'));
  };
  if (ArrayIsArray(source) && !isProxy(source)) for (let i = 0; i < source.length; i++) add(source[i]);
  else add(source);
  return refs;
}

function createToolGate(options) {
  const opts = readOptions(options, USAGE);
  if (opts === null) throw invalidArgument(USAGE);
  // The framework first: a gate made without the SDK names the package to install.
  const sdk = claudeSdk();
  const agentName = own(opts, 'agentName');
  if (!isId(agentName)) throw invalidArgument('options.agentName must be a non-empty well-formed string');
  const serverName = own(opts, 'serverName') ?? DEFAULT_SERVER;
  if (!isToolName(serverName)) throw invalidArgument('options.serverName must be 1 to 64 letters, digits, _ or - (the in-process MCP server\'s name)');
  const { grants, given: grantsGiven } = readGrants(opts);
  // Execution receipts keyed by { agentName, the SDK's session id, the model's tool_use id }:
  // by default the receipts kept in the grants' own store (docs/receipts.md).
  const receipts = readReceipts(opts, grants, ADAPTER);
  const scopeOption = own(opts, 'grantScope');
  if (scopeOption !== undefined && scopeOption !== null && typeof scopeOption !== 'function' && !isWellFormedString(scopeOption)) {
    throw invalidArgument('options.grantScope must be a well-formed string or a function of the call ({ sessionId, agentId })');
  }
  if (typeof scopeOption === 'function' && isProxy(scopeOption)) throw invalidArgument('options.grantScope must not be a Proxy');
  const proposalTtlMs = readProposalTtl(opts);
  const onDecision = readOnDecision(opts);
  const includePath = own(opts, 'includePath') === true;
  const jsonSchemaOptions = readJsonSchemaOptions(opts);

  const store = proposalStore(grants);
  if (!store.present) throw invalidArgument('options.grants must be an object made by createApprovalGrants (keepProposal, keptProposal, forgetProposal)');
  const grantsGrant = grantsMethod(grants, 'grant');
  const grantsPolicy = own(grants, 'policy');

  const entries = readTools(own(opts, 'tools'), jsonSchemaOptions);
  const byName = new SafeMap();
  for (let i = 0; i < entries.length; i++) MapPrototypeSet(byName, entries[i].toolName, entries[i]);

  // The policy: one function for every call, or one per tool name (the gate's own tools by
  // their name; the SDK's built-in tools and other servers' tools by the SDK's name).
  const policyOption = own(opts, 'policy');
  const appPolicies = new SafeMap();
  let onePolicy;
  if (typeof policyOption === 'function' && !isProxy(policyOption)) {
    onePolicy = policyOption;
  } else if (policyOption !== undefined) {
    if (policyOption === null || typeof policyOption !== 'object' || isProxy(policyOption)) throw invalidArgument('options.policy must be a function or an object of functions by tool name');
    const names = ObjectGetOwnPropertyNames(policyOption);
    for (let i = 0; i < names.length; i++) {
      const policy = own(policyOption, names[i]);
      if (policy === undefined) continue;
      if (typeof policy !== 'function' || isProxy(policy)) throw invalidArgument(`options.policy["${names[i]}"] must be a function (an own data property)`);
      MapPrototypeSet(appPolicies, names[i], policy);
    }
  }
  const effective = new SafeMap();
  /** The grants' policy first (an approved hash allows), then the application's. */
  function policyOf(toolName) {
    const known = MapPrototypeGet(effective, toolName);
    if (known !== undefined) return known.policy;
    const appPolicy = onePolicy ?? MapPrototypeGet(appPolicies, toolName);
    const policy = appPolicy === undefined && !grantsGiven ? undefined : grantsPolicy(appPolicy);
    MapPrototypeSet(effective, toolName, { policy });
    return policy;
  }

  /** Allowed calls of the gate's own tools, by tool_use id, until their handler takes them. */
  const allowed = new BoundedLists();
  /** The canonical input the gate handed over, by tool_use id (for canUseTool). */
  const handedOver = new BoundedLists();

  function keyOf(scope, sessionId, toolUseId) {
    return { runId: keptRunId('claude-agent-sdk', agentName, scope, sessionId), toolCallId: toolUseId };
  }

  async function scopeOfCall(call) {
    if (typeof scopeOption !== 'function') return scopeOption ?? null;
    const info = { sessionId: call.sessionId };
    if (call.agentId !== undefined) setData(info, 'agentId', call.agentId);
    const scope = await scopeOption(info);
    if (scope === undefined || scope === null) return null;
    if (!isWellFormedString(scope)) throw invalidArgument('options.grantScope returned something other than a well-formed string, null or undefined');
    return scope;
  }

  function scopeOfRequest(ref) {
    if (ref.grantScope !== undefined) return ref.grantScope;
    if (typeof scopeOption === 'function') {
      throw invalidArgument('this gate\'s grantScope is a function of the call: pass the call\'s scope as `grantScope` with { sessionId, toolUseId }');
    }
    return scopeOption ?? null;
  }

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
      call.scope = await scopeOfCall(call);
    } catch {
      return denyOutput(notExecutedMessage('deny', 'invalid_grant_scope'));
    }
    let prepared;
    try {
      // The SDK hands the hook the object its CLI parsed from the model's JSON: its RFC 8785
      // form is what is prepared (a getter, a Proxy or a non-JSON value is refused unread).
      let rawArguments;
      try {
        rawArguments = canonicalize(own(input, 'tool_input'), { includePath });
      } catch (error) {
        if (!isSnapshotDomainError(error)) throw error;
        throw new ToolArgumentsValidationError('snapshot', toolName, own(error, 'code'));
      }
      prepared = await prepareToolCallAsync({ agentName, toolName, rawArguments, schema: entry === undefined ? undefined : entry.schema, includePath, toolCallId: toolUseId, runId: sessionId });
    } catch (error) {
      if (isToolArgumentsValidationError(error)) return denyOutput(`${own(error, 'message')} Please call the tool again with valid arguments.`);
      throw error;
    }
    const policyContext = { toolCallId: toolUseId, sessionId, sdkToolName, argumentsSource: 'sdk_input' };
    if (call.agentId !== undefined) setData(policyContext, 'agentId', call.agentId);
    if (call.scope !== null) setData(policyContext, 'grantScope', call.scope);
    const info = { toolCallId: toolUseId, sessionId, sdkToolName, argumentsSource: 'sdk_input' };
    const decision = await decideCall(prepared, policyOf(toolName), policyContext, toolUseId, onDecision, info);
    if (decision.decision === 'deny') return denyOutput(notExecutedMessage('deny', decision.reason));
    if (decision.decision === 'require_approval') {
      try {
        await store.keep(keyOf(call.scope, sessionId, toolUseId), decision.proposal, keepOptions(call.scope, proposalTtlMs));
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

  /**
   * canUseTool, for calls an ask rule sends on after the hook allowed them: allowed exactly
   * when the input is the one the gate handed over for this tool_use; anything else is denied.
   */
  async function canUseTool(sdkToolName, input, options) {
    const toolUseId = own(options, 'toolUseID');
    const given = isId(toolUseId) ? handedOver.list(toolUseId) : undefined;
    let json;
    try {
      json = canonicalize(input);
    } catch {
      json = undefined;
    }
    if (given !== undefined && json !== undefined) {
      for (let i = 0; i < given.length; i++) {
        if (given[i].sdkToolName === sdkToolName && given[i].json === json) {
          return { behavior: 'allow', updatedInput: decodeView(json), toolUseID: toolUseId };
        }
      }
    }
    const result = { behavior: 'deny', message: notExecutedMessage('deny', given === undefined ? 'not_decided_by_gate' : 'arguments_changed') };
    if (isId(toolUseId)) setData(result, 'toolUseID', toolUseId);
    return result;
  }

  /** The handler of one of the gate's own tools, as the SDK's in-process server calls it. */
  function handlerFor(entry) {
    return async function handler(args, extra) {
      const meta = own(extra, '_meta');
      const toolUseId = own(meta, TOOL_USE_ID_META);
      if (!isId(toolUseId)) return textResult(new ToolArgumentsValidationError('json', entry.toolName, 'missing_call_id').message, true);
      const found = allowed.take(toolUseId, (item) => item.entry === entry);
      // Not decided by the gate's hook (hooks not installed, or a call already taken).
      if (found === undefined) return textResult(notExecutedMessage('deny', 'not_decided_by_gate'), true);
      let json;
      try {
        json = canonicalize(args);
      } catch {
        json = undefined;
      }
      // The SDK delivered other arguments than the ones decided (another hook or canUseTool
      // changed them): nothing runs.
      if (json !== found.json) return textResult(notExecutedMessage('deny', 'arguments_changed'), true);
      try {
        const output = await executeDecision(found.decision, (view) => ReflectApply(entry.execute, undefined, [view, extra]), executeOptions(receipts));
        return callToolResult(output);
      } catch (error) {
        if (isGrantUnavailable(error)) return textResult(notExecutedMessage('deny', 'grant_unavailable'), true);
        const code = receiptRefusalCode(error);
        if (code !== undefined) return textResult(notExecutedMessage('deny', code), true);
        throw error;
      }
    };
  }

  let server;
  if (entries.length > 0) {
    const z = zod4();
    const sdkTools = [];
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      const extras = entry.annotations === undefined ? undefined : { annotations: entry.annotations };
      ArrayPrototypePush(sdkTools, sdk.tool(entry.toolName, entry.description, wireSchemaOf(z, entry.jsonSchema), handlerFor(entry), extras));
    }
    // Listed in the prompt with their JSON Schema (not deferred behind the SDK's tool search).
    server = sdk.createSdkMcpServer({ name: serverName, tools: sdkTools, alwaysLoad: true });
  }

  const toolNames = [];
  for (let i = 0; i < entries.length; i++) ArrayPrototypePush(toolNames, `mcp__${serverName}__${entries[i].toolName}`);

  const hookMatcher = ObjectFreeze({ hooks: ObjectFreeze([preToolUse]) });
  const hooks = ObjectFreeze({ PreToolUse: ObjectFreeze([hookMatcher]) });
  const mcpServers = {};
  if (server !== undefined) setData(mcpServers, serverName, server);
  ObjectFreeze(mcpServers);

  /**
   * The query options with the gate in them: the gate's PreToolUse hook (the only one: an
   * application PreToolUse hook that changed the input would run after the decision), its
   * in-process server beside the application's servers, and its canUseTool.
   */
  function queryOptions(given) {
    const base = readOptions(given, 'queryOptions options');
    const result = {};
    if (base !== null) {
      const names = ObjectGetOwnPropertyNames(base);
      for (let i = 0; i < names.length; i++) setData(result, names[i], own(base, names[i]));
    }
    if (own(result, 'canUseTool') !== undefined) throw invalidArgument('queryOptions: options.canUseTool is the gate\'s (every call is decided by its policy)');
    const appHooks = own(result, 'hooks');
    const mergedHooks = {};
    if (appHooks !== undefined) {
      if (appHooks === null || typeof appHooks !== 'object' || isProxy(appHooks)) throw invalidArgument('queryOptions: options.hooks must be an object');
      const events = ObjectGetOwnPropertyNames(appHooks);
      for (let i = 0; i < events.length; i++) {
        if (events[i] === 'PreToolUse') throw invalidArgument('queryOptions: options.hooks.PreToolUse is the gate\'s (a PreToolUse hook could change the input after the decision)');
        setData(mergedHooks, events[i], own(appHooks, events[i]));
      }
    }
    setData(mergedHooks, 'PreToolUse', hooks.PreToolUse);
    setData(result, 'hooks', mergedHooks);
    const appServers = own(result, 'mcpServers');
    const mergedServers = {};
    if (appServers !== undefined) {
      if (appServers === null || typeof appServers !== 'object' || isProxy(appServers)) throw invalidArgument('queryOptions: options.mcpServers must be an object');
      const names = ObjectGetOwnPropertyNames(appServers);
      for (let i = 0; i < names.length; i++) {
        if (server !== undefined && names[i] === serverName) throw invalidArgument('queryOptions: options.mcpServers has a server of the gate\'s serverName');
        setData(mergedServers, names[i], own(appServers, names[i]));
      }
    }
    if (server !== undefined) setData(mergedServers, serverName, server);
    setData(result, 'mcpServers', mergedServers);
    setData(result, 'canUseTool', canUseTool);
    return result;
  }

  /** The proposal waiting for approval of this call of this session (sealed with a key ring), or undefined. */
  async function kept(request) {
    const ref = approvalRef(request, 'keptProposal');
    return store.kept(keyOf(scopeOfRequest(ref), ref.sessionId, ref.toolUseId));
  }

  /**
   * The calls of `source` whose proposals wait for a reviewer: `{ sessionId, toolUseId,
   * toolName, proposal }` for each kept proposal that verifies, `{ sessionId, toolUseId,
   * error: { name, code } }` (nothing of the record) for one that does not.
   */
  async function pending(source, options) {
    const popts = readOptions(options, 'pending options');
    const optionScope = popts === null ? undefined : own(popts, 'grantScope');
    if (optionScope !== undefined && optionScope !== null && !isWellFormedString(optionScope)) throw invalidArgument('pending: options.grantScope must be a well-formed string or null');
    const refs = pendingRefs(source);
    const listed = [];
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i];
      if (ref.grantScope === undefined && optionScope !== undefined) ref.grantScope = optionScope;
      const found = await reviewKept(store.kept, keyOf(scopeOfRequest(ref), ref.sessionId, ref.toolUseId));
      if (found === undefined) continue;
      if (found.error !== undefined) ArrayPrototypePush(listed, { sessionId: ref.sessionId, toolUseId: ref.toolUseId, error: found.error });
      else ArrayPrototypePush(listed, { sessionId: ref.sessionId, toolUseId: ref.toolUseId, toolName: own(found.proposal, 'toolName'), proposal: found.proposal });
    }
    return listed;
  }

  /**
   * The reviewer approved this call: grants exactly the proposal the gate kept for it
   * (sealed: verified and granted once) and forgets it, so a second approval rejects with
   * TAS_NO_PENDING_PROPOSAL. The session then resumes (`query({ options: { resume } })`,
   * here or in another process sharing the grants' store): the model's next call with the
   * same arguments (the same hash) runs, once; any other arguments ask again.
   */
  async function approve(request, grantOptions) {
    const ref = approvalRef(request, 'approve');
    const scope = scopeOfRequest(ref);
    const passed = grantOptionsOf(readOptions(grantOptions, 'approve options'), scope);
    const key = keyOf(scope, ref.sessionId, ref.toolUseId);
    const record = await store.kept(key);
    if (record === undefined) throw notPendingError();
    await grantOnce(grantsGrant, grants, record, passed, isApprovalGrantError, notPendingError);
    await store.forget(key);
    return record;
  }

  /** The reviewer declined this call: its kept proposal is forgotten (no approval can follow). */
  async function decline(request) {
    const ref = approvalRef(request, 'decline');
    const key = keyOf(scopeOfRequest(ref), ref.sessionId, ref.toolUseId);
    const record = await store.kept(key);
    if (record === undefined) throw notPendingError();
    await store.forget(key);
  }

  return ObjectFreeze({
    hooks,
    preToolUse,
    canUseTool,
    mcpServers,
    serverName,
    toolNames: ObjectFreeze(toolNames),
    queryOptions,
    keptProposal: kept,
    pending,
    approve,
    decline,
    grants,
    receipts,
  });
}

module.exports = { createToolGate };
