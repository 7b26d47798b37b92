'use strict';
// createOpenAIAgentsGate: reads the options, keeps what it knows per run, decides one attempt,
// and assembles the model wrapper, the tool makers and the approval functions.

const { own, setData, readOptions, isWellFormedString, approvedWithoutGrantNotice } = require('../shared');
const {
  ObjectKeys, ObjectFreeze, SafeMap, SafeWeakMap, MapPrototypeGet, MapPrototypeSet, WeakMapPrototypeGet, WeakMapPrototypeSet, isProxy,
} = require('../gate/primordials');
const { api, ADAPTER, invalidArgument } = require('./common');
const { isSchemaObject } = require('./json-nulls');
const { defaultNotExecutedOutput, defaultInvalidInputOutput, GATE_USAGE } = require('./schemas');
const { createCarrier } = require('./carrier');
const { createCapture } = require('./capture');
const { createTools } = require('./tools');
const { createApproval } = require('./approval');

const { decideCall } = require('../gate/decide');

const { prepareToolCallAsync: prepare, isToolArgumentsValidationError: isValidationError } = api;

/**
 * A gate for one agent's function tools: `gate.model(model)` captures the provider's raw
 * argument strings, `gate.tool(options)` replaces the SDK's `tool(options)`, `gate.tools(tools)`
 * gates SDK function tools with JSON schemas (MCP tools), and
 * `gate.approve(state, interruption, proposal)` replaces `state.approve(interruption)`.
 */
function createOpenAIAgentsGate(options) {
  const opts = readOptions(options, GATE_USAGE);
  if (opts === null) throw invalidArgument(GATE_USAGE);
  const agentName = own(opts, 'agentName');
  if (!isWellFormedString(agentName) || agentName === '') throw invalidArgument(GATE_USAGE);
  const appPolicy = own(opts, 'policy');
  /** toolName -> policy, when the policy is a map. */
  let policyMap;
  if (appPolicy !== undefined && typeof appPolicy !== 'function') {
    if (!isSchemaObject(appPolicy)) throw invalidArgument('policy must be a function or an object { [toolName]: policy }');
    policyMap = new SafeMap();
    const names = ObjectKeys(appPolicy);
    for (let i = 0; i < names.length; i++) {
      const entry = own(appPolicy, names[i]);
      if (typeof entry !== 'function') throw invalidArgument('each policy of the map must be a function');
      MapPrototypeSet(policyMap, names[i], entry);
    }
  }
  const grants = own(opts, 'grants');
  if (grants !== undefined && (grants === null || typeof grants !== 'object' || isProxy(grants) || typeof own(grants, 'policy') !== 'function')) {
    throw invalidArgument('grants must be an object made by createApprovalGrants');
  }
  const sealing = grants !== undefined && own(grants, 'sealing') === true;
  const grantScope = own(opts, 'grantScope');
  if (grantScope !== undefined && typeof grantScope !== 'function') throw invalidArgument('grantScope must be a function of the run context');
  const onDecision = own(opts, 'onDecision');
  if (onDecision !== undefined && typeof onDecision !== 'function') throw invalidArgument('onDecision must be a function');
  const includePath = own(opts, 'includePath') === true;
  const notExecutedOutput = own(opts, 'notExecutedOutput') ?? defaultNotExecutedOutput;
  const invalidInputOutput = own(opts, 'invalidInputOutput') ?? defaultInvalidInputOutput;
  if (typeof notExecutedOutput !== 'function' || typeof invalidInputOutput !== 'function') {
    throw invalidArgument('notExecutedOutput and invalidInputOutput must be functions');
  }
  const notice = approvedWithoutGrantNotice(ADAPTER, 'gate.approve(state, interruption, proposal), or grants.grant(sealedProposal) before state.approve(interruption)');

  /**
   * The policy of one tool. With grants, a matching unspent grant allows; anything else
   * goes to the app's policy (with no policy: require approval). Without grants, the app's
   * policy alone (with no policy: the package's runtime deny `policy_not_configured`).
   */
  function policyFor(toolName) {
    const app = policyMap !== undefined ? MapPrototypeGet(policyMap, toolName) : appPolicy;
    return grants !== undefined ? own(grants, 'policy')(app) : app;
  }
  const executeOptions = grants !== undefined ? { grants } : undefined;
  /** RunContext -> { attempts, pending }: what the gate knows of one run in this process. */
  const runs = new SafeWeakMap();
  /** Tool names this gate made. */
  const toolNames = new SafeMap();

  function runRecord(runContext) {
    let record = WeakMapPrototypeGet(runs, runContext);
    if (record === undefined) {
      // attempts: callId -> { rawArguments, decision } or { rawArguments, error } from needsApproval.
      // pending: callId -> { toolName, rawArguments, proposal, sealed, reason } of a call that interrupted the run.
      record = { __proto__: null, attempts: new SafeMap(), pending: new SafeMap() };
      WeakMapPrototypeSet(runs, runContext, record);
    }
    return record;
  }

  function scopeOf(runContext) {
    if (grantScope === undefined) return null;
    const scope = grantScope(runContext);
    if (scope === undefined || scope === null) return null;
    if (!isWellFormedString(scope)) throw invalidArgument('grantScope must return a well-formed string, null or undefined');
    return scope;
  }

  /** One attempt: prepare (strict decode, the schema once, the snapshot), then decide. */
  async function attempt(toolName, schemaStep, rawArguments, runContext, callId) {
    let prepared;
    try {
      prepared = await prepare({ agentName, toolName, rawArguments, schema: schemaStep, includePath, toolCallId: callId });
    } catch (error) {
      if (isValidationError(error)) return { __proto__: null, rawArguments, error };
      throw error;
    }
    const policyContext = { runContext, callId, toolCallId: callId };
    const scope = scopeOf(runContext);
    // Defined, not assigned: a setter planted on Object.prototype cannot swallow it.
    if (scope !== null) setData(policyContext, 'grantScope', scope);
    const decision = await decideCall(prepared, policyFor(toolName), policyContext, callId, onDecision, { callId, toolCallId: callId, runContext });
    return { __proto__: null, rawArguments, decision, scope };
  }

  const { carriedEntry, carry, carriedProposal, forget } = createCarrier(agentName, runRecord);
  const { model, takeCaptured } = createCapture();
  const g = {
    __proto__: null, agentName, grants, sealing, executeOptions, notExecutedOutput, invalidInputOutput, notice, toolNames,
    runRecord, attempt, takeCaptured, carriedEntry, carry, carriedProposal, forget,
  };
  const { tool, tools } = createTools(g);
  const { proposal, pending, approve } = createApproval(g);
  return ObjectFreeze({ agentName, model, tool, tools, proposal, pending, approve });
}

module.exports = { createOpenAIAgentsGate };
