'use strict';
// Reading a Claude Agent SDK gate's options: the agent, the in-process server's name, the
// grants (which must keep proposals), receipts, the grant scope (a string, or a function of
// the call), the policy per tool name (the gate's own tools by their name; the SDK's
// built-in tools and other servers' tools by the SDK's name), and the application's tools.

const { isProxy, MapPrototypeGet, MapPrototypeSet, ObjectGetOwnPropertyNames, SafeMap } = require('../gate/primordials');
const { invalidArgument, own, setData, isWellFormedString, isId } = require('../gate/read');
const { readGrants, readOnDecision, readProposalTtl, readJsonSchemaOptions } = require('../gate/options');
const { readReceipts } = require('../gate/receipts');
const { proposalStore, keptRunId } = require('../gate/proposals');
const { ADAPTER } = require('./framework');
const { readTools, isToolName } = require('./tools');

const USAGE =
  'createToolGate expects { agentName, tools?, serverName?, policy?, grants?, receipts?, grantScope?, proposalTtlMs?, onDecision?, includePath?, jsonSchemaOptions? }';
const DEFAULT_SERVER = 'gate';

/**
 * The policy of a tool name: one function for every call, or one per tool name, behind the
 * grants' policy (an approved hash allows); none when neither is given.
 */
function readPolicies(policyOption, grants, grantsGiven) {
  const grantsPolicy = own(grants, 'policy');
  const appPolicies = new SafeMap();
  let onePolicy;
  if (typeof policyOption === 'function' && !isProxy(policyOption)) {
    onePolicy = policyOption;
  } else if (policyOption !== undefined) {
    if (policyOption === null || typeof policyOption !== 'object' || isProxy(policyOption))
      throw invalidArgument('options.policy must be a function or an object of functions by tool name');
    const names = ObjectGetOwnPropertyNames(policyOption);
    for (let i = 0; i < names.length; i++) {
      const policy = own(policyOption, names[i]);
      if (policy === undefined) continue;
      if (typeof policy !== 'function' || isProxy(policy)) throw invalidArgument(`options.policy["${names[i]}"] must be a function (an own data property)`);
      MapPrototypeSet(appPolicies, names[i], policy);
    }
  }
  const effective = new SafeMap();
  return function policyOf(toolName) {
    const known = MapPrototypeGet(effective, toolName);
    if (known !== undefined) return known.policy;
    const appPolicy = onePolicy ?? MapPrototypeGet(appPolicies, toolName);
    const policy = appPolicy === undefined && !grantsGiven ? undefined : grantsPolicy(appPolicy);
    MapPrototypeSet(effective, toolName, { policy });
    return policy;
  };
}

/** The gate's record: what its options say (`opts`, an object readOptions let through), read once when the gate is made. */
function readGateOptions(opts) {
  const agentName = own(opts, 'agentName');
  if (!isId(agentName)) throw invalidArgument('options.agentName must be a non-empty well-formed string');
  const serverName = own(opts, 'serverName') ?? DEFAULT_SERVER;
  if (!isToolName(serverName)) throw invalidArgument("options.serverName must be 1 to 64 letters, digits, _ or - (the in-process MCP server's name)");
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

  const entries = readTools(own(opts, 'tools'), jsonSchemaOptions);
  const byName = new SafeMap();
  for (let i = 0; i < entries.length; i++) MapPrototypeSet(byName, entries[i].toolName, entries[i]);
  const policyOf = readPolicies(own(opts, 'policy'), grants, grantsGiven);
  return { agentName, serverName, grants, receipts, scopeOption, proposalTtlMs, onDecision, includePath, store, entries, byName, policyOf };
}

/** The key a call's proposal is kept under: the agent, the grant scope and the session, then the tool_use id. */
function keyOf(gate, scope, sessionId, toolUseId) {
  return { runId: keptRunId('claude-agent-sdk', gate.agentName, scope, sessionId), toolCallId: toolUseId };
}

/** The grant scope of a call: the option's string, or what its function answers for the call. */
async function scopeOfCall(gate, call) {
  const { scopeOption } = gate;
  if (typeof scopeOption !== 'function') return scopeOption ?? null;
  const info = { sessionId: call.sessionId };
  if (call.agentId !== undefined) setData(info, 'agentId', call.agentId);
  const scope = await scopeOption(info);
  if (scope === undefined || scope === null) return null;
  if (!isWellFormedString(scope)) throw invalidArgument('options.grantScope returned something other than a well-formed string, null or undefined');
  return scope;
}

/** The grant scope of a reviewer's request: its own `grantScope`, else the option's string. */
function scopeOfRequest(gate, ref) {
  if (ref.grantScope !== undefined) return ref.grantScope;
  if (typeof gate.scopeOption === 'function') {
    throw invalidArgument("this gate's grantScope is a function of the call: pass the call's scope as `grantScope` with { sessionId, toolUseId }");
  }
  return gate.scopeOption ?? null;
}

module.exports = { USAGE, readGateOptions, keyOf, scopeOfCall, scopeOfRequest };
