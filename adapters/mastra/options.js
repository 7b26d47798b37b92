'use strict';
// Reading a Mastra gate's options (the kernel's steps: adapters/gate/options.js and
// receipts.js): the gate record every phase works with, its grants' methods read once, the
// keys its proposals are kept under and the grant scope of a run.

const { isProxy } = require('../gate/primordials');
const { invalidArgument, own, readOptions, isWellFormedString, isId } = require('../gate/read');
const { readGrants, readOnDecision, readProposalTtl, readJsonSchemaOptions, entriesWithPolicies } = require('../gate/options');
const { readReceipts } = require('../gate/receipts');
const { keptRunId, keepOptions } = require('../gate/proposals');
const { approvedWithoutGrantNotice } = require('../gate/warnings');
const { ADAPTER } = require('./framework');
const { readTools } = require('./tools');
const { RecordedTexts } = require('./texts');
const { defaultNotExecutedOutput, defaultInvalidInputOutput } = require('./requests');

const HOW_TO_APPROVE =
  "grant the reviewer's approval with `await gate.approve({ runId, toolCallId })` before `agent.approveToolCall({ runId, toolCallId })`, in this process or in any other that shares the grants' store.";

const GATE_USAGE =
  'createToolGate expects { agentName, tools, policy?, grants?, receipts?, grantScope?, proposalTtlMs?, onDecision?, notExecutedOutput?, invalidInputOutput?, includePath?, jsonSchemaOptions? }';

/** `options.grantScope`: a well-formed string, a function of the run (not a Proxy), or none. */
function readScopeOption(opts) {
  const scopeOption = own(opts, 'grantScope');
  if (scopeOption !== undefined && scopeOption !== null && typeof scopeOption !== 'function' && !isWellFormedString(scopeOption)) {
    throw invalidArgument('options.grantScope must be a well-formed string or a function of the run ({ requestContext, runId, threadId, resourceId })');
  }
  if (typeof scopeOption === 'function' && isProxy(scopeOption)) throw invalidArgument('options.grantScope must not be a Proxy');
  return scopeOption;
}

/** The grants' proposal methods, read once (Mastra's approvals need all three). */
function readProposalMethods(grants) {
  const keepProposal = own(grants, 'keepProposal');
  const keptProposal = own(grants, 'keptProposal');
  const forgetProposal = own(grants, 'forgetProposal');
  if (typeof keepProposal !== 'function' || typeof keptProposal !== 'function' || typeof forgetProposal !== 'function') {
    throw invalidArgument('options.grants must be an object made by createApprovalGrants (keepProposal, keptProposal, forgetProposal)');
  }
  return { keepProposal, keptProposal, forgetProposal };
}

/** The gate record of createToolGate's options. */
function readGate(options) {
  const opts = readOptions(options, GATE_USAGE);
  if (opts === null) throw invalidArgument(GATE_USAGE);
  const agentName = own(opts, 'agentName');
  if (!isId(agentName)) throw invalidArgument('options.agentName must be a non-empty well-formed string');
  const { grants, given: grantsGiven } = readGrants(opts);
  // Execution receipts, keyed by { agentName, Mastra's runId, the provider's call id }: by
  // default those in the grants' store (durable grants), else the shared memory receipts;
  // none with `receipts: false`.
  const receipts = readReceipts(opts, grants, ADAPTER);
  const scopeOption = readScopeOption(opts);
  const proposalTtlMs = readProposalTtl(opts);
  const onDecision = readOnDecision(opts);
  const notExecutedOutput = own(opts, 'notExecutedOutput') ?? defaultNotExecutedOutput;
  const invalidInputOutput = own(opts, 'invalidInputOutput') ?? defaultInvalidInputOutput;
  if (typeof notExecutedOutput !== 'function' || typeof invalidInputOutput !== 'function') {
    throw invalidArgument('options.notExecutedOutput and options.invalidInputOutput must be functions');
  }
  const includePath = own(opts, 'includePath') === true;
  const jsonSchemaOptions = readJsonSchemaOptions(opts);
  // The grants' methods, read once.
  const grantsGrant = own(grants, 'grant');
  const { keepProposal, keptProposal, forgetProposal } = readProposalMethods(grants);
  const entries = readTools(own(opts, 'tools'), jsonSchemaOptions);
  // The application's policy behind the grants' wrapper: it decides first, an approved hash
  // answers its require_approval.
  const byName = entriesWithPolicies(entries, own(opts, 'policy'), grants, grantsGiven);
  return {
    agentName,
    grants,
    receipts,
    scopeOption,
    proposalTtlMs,
    onDecision,
    notExecutedOutput,
    invalidInputOutput,
    includePath,
    grantsGrant,
    keepProposal,
    keptProposal,
    forgetProposal,
    entries,
    byName,
    notice: approvedWithoutGrantNotice(ADAPTER, HOW_TO_APPROVE),
    texts: new RecordedTexts(),
    /** The kept proposal's key: Mastra's run and the call, namespaced by agent and grant scope. */
    keyOf: (scope, runId, toolCallId) => ({ runId: keptRunId('mastra', agentName, scope, runId), toolCallId }),
    /**
     * Where a proposal goes once `approve` granted it: no longer waiting (approve and decline
     * never look here), still what Mastra's resumed call is checked against.
     */
    approvedKeyOf: (scope, runId, toolCallId) => ({ runId: keptRunId('mastra-approved', agentName, scope, runId), toolCallId }),
    keepOptionsOf: (scope) => keepOptions(scope, proposalTtlMs),
  };
}

/** The grant scope of a run: the option's string, or what its function answers (null: none). */
async function scopeOfRun(gate, call) {
  const { scopeOption } = gate;
  if (typeof scopeOption !== 'function') return scopeOption ?? null;
  const scope = await scopeOption({ requestContext: call.requestContext, runId: call.runId, threadId: call.threadId, resourceId: call.resourceId });
  if (scope === undefined || scope === null) return null;
  if (!isWellFormedString(scope)) throw invalidArgument('options.grantScope returned something other than a well-formed string, null or undefined');
  return scope;
}

/** The scope of a request: its own `grantScope`, else the gate's string scope (a function needs the request's). */
function scopeOfRequest(gate, ref) {
  if (ref.grantScope !== undefined) return ref.grantScope;
  if (typeof gate.scopeOption === 'function') {
    throw invalidArgument("this gate's grantScope is a function of the run: pass the run's scope as `grantScope` with { runId, toolCallId }");
  }
  return gate.scopeOption ?? null;
}

module.exports = { readGate, scopeOfRun, scopeOfRequest };
