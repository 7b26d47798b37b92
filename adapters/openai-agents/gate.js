'use strict';
// createOpenAIAgentsGate: reads the options, keeps what it knows per run, decides one attempt,
// and assembles the model wrapper, the tool makers and the approval functions.

const { own, setData, readOptions, isWellFormedString } = require('../gate/read');
const { approvedWithoutGrantNotice } = require('../gate/warnings');
const { ownOption } = require('../gate/read');
const {
  ObjectGetOwnPropertyNames,
  ObjectFreeze,
  SafeMap,
  SafeWeakMap,
  MapPrototypeSet,
  WeakMapPrototypeGet,
  WeakMapPrototypeSet,
  isProxy,
  randomUUID,
} = require('../gate/primordials');
const { api, ADAPTER, invalidArgument } = require('./common');
const { defaultNotExecutedOutput, defaultInvalidInputOutput, GATE_USAGE } = require('./schemas');
const { createCarrier } = require('./carrier');
const { createCapture } = require('./capture');
const { createTools } = require('./tools');
const { createApproval } = require('./approval');

const { decideCall } = require('../gate/decide');
const { readOnDecision, readPolicy } = require('../gate/options');
const { readReceipts } = require('../gate/receipts');

const { prepareToolCallAsync: prepare, isToolArgumentsValidationError: isValidationError } = api;

/** The own names of a policy map, each standing for a tool (a function policy: none). */
function policyNames(policy) {
  const names = new SafeMap();
  if (policy === null || typeof policy !== 'object' || isProxy(policy)) return names;
  const keys = ObjectGetOwnPropertyNames(policy);
  for (let i = 0; i < keys.length; i++) MapPrototypeSet(names, keys[i], true);
  return names;
}

/** The options of createOpenAIAgentsGate, read (the kernel's steps where they are the same). */
function readGateOptions(options) {
  const opts = readOptions(options, GATE_USAGE);
  if (opts === null) throw invalidArgument(GATE_USAGE);
  const agentName = own(opts, 'agentName');
  if (!isWellFormedString(agentName) || agentName === '') throw invalidArgument(GATE_USAGE);
  // The kernel's readPolicy; the gate's tools are made after it (gate.tool), so a map's
  // names are not checked against them here.
  const appPolicy = own(opts, 'policy');
  const policyOf = readPolicy(appPolicy, policyNames(appPolicy));
  const grants = own(opts, 'grants');
  if (grants !== undefined && (grants === null || typeof grants !== 'object' || isProxy(grants) || typeof own(grants, 'policy') !== 'function')) {
    throw invalidArgument('grants must be an object made by createApprovalGrants');
  }
  const sealing = grants !== undefined && own(grants, 'sealing') === true;
  const grantScope = own(opts, 'grantScope');
  if (grantScope !== undefined && typeof grantScope !== 'function') throw invalidArgument('grantScope must be a function of the run context');
  const runIdOption = ownOption(opts, 'runId', 'runId must be a function of the run context (an own data property)');
  if (runIdOption !== undefined && (typeof runIdOption !== 'function' || isProxy(runIdOption)))
    throw invalidArgument('runId must be a function of the run context');
  // The receipts every allowed call executes with (undefined: none), and whether the app gave them.
  const receipts = readReceipts(opts, grants, ADAPTER);
  const receiptsGiven = receipts !== undefined && own(opts, 'receipts') !== undefined;
  const onDecision = readOnDecision(opts);
  const includePath = own(opts, 'includePath') === true;
  const notExecutedOutput = own(opts, 'notExecutedOutput') ?? defaultNotExecutedOutput;
  const invalidInputOutput = own(opts, 'invalidInputOutput') ?? defaultInvalidInputOutput;
  if (typeof notExecutedOutput !== 'function' || typeof invalidInputOutput !== 'function') {
    throw invalidArgument('notExecutedOutput and invalidInputOutput must be functions');
  }
  return {
    agentName,
    policyOf,
    grants,
    sealing,
    grantScope,
    runIdOption,
    receipts,
    receiptsGiven,
    onDecision,
    includePath,
    notExecutedOutput,
    invalidInputOutput,
  };
}

/**
 * A gate for one agent's function tools: `gate.model(model)` captures the provider's raw
 * argument strings, `gate.tool(options)` replaces the SDK's `tool(options)`, `gate.tools(tools)`
 * gates SDK function tools with JSON schemas (MCP tools), and
 * `gate.approve(state, interruption, proposal)` replaces `state.approve(interruption)`.
 */
function createOpenAIAgentsGate(options) {
  const {
    agentName,
    policyOf,
    grants,
    sealing,
    grantScope,
    runIdOption,
    receipts,
    receiptsGiven,
    onDecision,
    includePath,
    notExecutedOutput,
    invalidInputOutput,
  } = readGateOptions(options);
  const notice = approvedWithoutGrantNotice(
    ADAPTER,
    'gate.approve(state, interruption, proposal), or grants.grant(sealedProposal) before state.approve(interruption)',
  );

  /**
   * The policy of one tool. With grants, the app's policy first (with no policy: require
   * approval), and a matching unspent grant answers its require_approval. Without grants, the app's
   * policy alone (with no policy: the package's runtime deny `policy_not_configured`).
   */
  function policyFor(toolName) {
    const app = policyOf(toolName);
    return grants !== undefined ? own(grants, 'policy')(app) : app;
  }
  /** executeToolCall's options: the grants, and the receipts when the call has an id (it always has here). */
  const executeOptions = grants !== undefined ? { grants } : {};
  if (receipts !== undefined) executeOptions.receipts = receipts;
  /** RunContext -> { attempts, pending, approved, runId }: what the gate knows of one run in this process. */
  const runs = new SafeWeakMap();
  /** The app's context object -> the RunContext whose run id it carries (a context reused by a new run gets a new id). */
  const contextOwners = new SafeWeakMap();
  /** Tool names this gate made. */
  const toolNames = new SafeMap();

  function runRecord(runContext) {
    let record = WeakMapPrototypeGet(runs, runContext);
    if (record === undefined) {
      // attempts: callId -> { rawArguments, decision } or { rawArguments, error } from needsApproval.
      // pending: callId -> { toolName, rawArguments, proposal, sealed, reason } of a call that interrupted the run.
      // approved: callId -> { toolName, proposalHash } approved through gate.approve.
      // runId: the gate's own run id (when the app gives no runId function).
      record = { __proto__: null, attempts: new SafeMap(), pending: new SafeMap(), approved: new SafeMap(), runId: undefined };
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

  /**
   * The run id of the execution receipts' key: the app's `runId(runContext)` when it gives
   * one; else the gate's own, made once per run and carried in the run context's `context`
   * (so a RunState restored from its string, in any process, keeps it). A context object
   * that a new run reuses gets a new id; a context the carrier cannot extend keeps its id in
   * this process only.
   */
  function runIdOf(runContext) {
    if (runIdOption !== undefined) {
      const given = runIdOption(runContext);
      if (given !== undefined && given !== null) {
        if (!isWellFormedString(given) || given === '') throw invalidArgument('runId must return a non-empty well-formed string, null or undefined');
        return given;
      }
    }
    const record = runRecord(runContext);
    if (record.runId !== undefined) return record.runId;
    const context = own(runContext, 'context');
    const owned = context !== null && typeof context === 'object';
    const owner = owned ? WeakMapPrototypeGet(contextOwners, context) : undefined;
    let runId = carriedRunId(runContext);
    // The id another run of this process left in a context object a new run reuses is not
    // this run's; an id merged in from a stored state (fromStringWithContext) is.
    if (runId !== undefined && owner !== undefined && owner !== runContext && WeakMapPrototypeGet(runs, owner)?.runId === runId) runId = undefined;
    if (runId === undefined) {
      runId = randomUUID();
      // Into the carrier once it exists (the first carried proposal writes it too): a run
      // that never waits for approval leaves the app's context as it was.
      carryRunId(runContext, runId, false);
    }
    if (owned) WeakMapPrototypeSet(contextOwners, context, runContext);
    record.runId = runId;
    return runId;
  }

  /** One attempt: prepare (strict decode, the schema once, the snapshot), then decide. */
  async function attempt(toolName, schemaStep, rawArguments, runContext, callId) {
    let prepared;
    const runId = runIdOf(runContext);
    try {
      prepared = await prepare({ agentName, toolName, rawArguments, schema: schemaStep, includePath, toolCallId: callId, runId });
    } catch (error) {
      if (isValidationError(error)) return { __proto__: null, rawArguments, error };
      throw error;
    }
    const policyContext = { runContext, callId, toolCallId: callId };
    const scope = scopeOf(runContext);
    // Defined, not assigned: a setter planted on Object.prototype cannot swallow it.
    if (scope !== null) setData(policyContext, 'grantScope', scope);
    const decision = await decideCall(prepared, policyFor(toolName), policyContext, callId, onDecision, { callId, toolCallId: callId, runContext });
    return { __proto__: null, rawArguments, decision, scope, runId };
  }

  const { carriedEntry, carry, carriedProposal, forget, carriedRunId, carryRunId, carryApproved, carriedApproved, forgetApproved } = createCarrier(
    agentName,
    runRecord,
  );
  const { model, takeCaptured } = createCapture();
  const g = {
    __proto__: null,
    agentName,
    grants,
    sealing,
    executeOptions,
    receipts,
    receiptsGiven,
    notExecutedOutput,
    invalidInputOutput,
    notice,
    toolNames,
    runRecord,
    attempt,
    takeCaptured,
    carriedEntry,
    carry,
    carriedProposal,
    forget,
    carryApproved,
    carriedApproved,
    forgetApproved,
  };
  const { tool, tools } = createTools(g);
  const { proposal, pending, approve } = createApproval(g);
  return ObjectFreeze({ agentName, model, tool, tools, proposal, pending, approve });
}

module.exports = { createOpenAIAgentsGate };
