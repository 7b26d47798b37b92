'use strict';
// Reading a Genkit gate's options: the agent, the grants (which must keep proposals),
// receipts, the grant scope, the Genkit instance the tools are defined in, the tools and
// their policies; and the run id and grant scope of the middleware's config per generate.

const { isProxy } = require('../gate/primordials');
const { invalidArgument, own, isWellFormedString, isId } = require('../gate/read');
const { readGrants, readOnDecision, readProposalTtl, readJsonSchemaOptions, entriesWithPolicies } = require('../gate/options');
const { readReceipts } = require('../gate/receipts');
const { proposalStore, keptRunId } = require('../gate/proposals');
const { ADAPTER } = require('./framework');
const { readTools } = require('./tools');

const USAGE =
  'createToolGate expects { agentName, tools, ai?, policy?, grants?, receipts?, grantScope?, proposalTtlMs?, onDecision?, includePath?, jsonSchemaOptions? }';

/** The gate's record: what its options say (`opts`, an object readOptions let through), read once when the gate is made. */
function readGateOptions(opts) {
  const agentName = own(opts, 'agentName');
  if (!isId(agentName)) throw invalidArgument('options.agentName must be a non-empty well-formed string');
  const { grants, given: grantsGiven } = readGrants(opts);
  // Receipts keyed by { agentName, the run id given to the middleware, the tool request's
  // ref }: by default in the grants' own store. A call of a run without a run id executes
  // without receipts (refs such as "call_1" recur across conversations).
  const receipts = readReceipts(opts, grants, ADAPTER);
  const scopeOption = own(opts, 'grantScope');
  if (scopeOption !== undefined && scopeOption !== null && !isWellFormedString(scopeOption))
    throw invalidArgument('options.grantScope must be a well-formed string (or give the middleware config.grantScope per run)');
  const proposalTtlMs = readProposalTtl(opts);
  const onDecision = readOnDecision(opts);
  const includePath = own(opts, 'includePath') === true;
  const jsonSchemaOptions = readJsonSchemaOptions(opts);
  const ai = own(opts, 'ai');
  if (ai !== undefined && (ai === null || typeof ai !== 'object' || isProxy(ai) || typeof ai.defineTool !== 'function')) {
    throw invalidArgument('options.ai must be the Genkit instance (genkit({ ... })) the tools are defined in');
  }
  const store = proposalStore(grants);
  if (!store.present) throw invalidArgument('options.grants must be an object made by createApprovalGrants (keepProposal, keptProposal, forgetProposal)');

  const entries = readTools(own(opts, 'tools'), jsonSchemaOptions);
  // The grants' policy first (an approved hash allows), then the application's.
  const byName = entriesWithPolicies(entries, own(opts, 'policy'), grants, grantsGiven);
  return { agentName, grants, receipts, scopeOption, proposalTtlMs, onDecision, includePath, ai, store, entries, byName };
}

/** The key a call's proposal is kept under: the agent, the grant scope and the run, then the tool request's ref. */
function keyOf(gate, scope, runId, toolCallId) {
  return { runId: keptRunId('genkit', gate.agentName, scope, runId ?? ''), toolCallId };
}

/** The grant scope of a reviewer's request: its own `grantScope`, else the option's. */
function scopeOfRequest(gate, ref) {
  if (ref.grantScope !== undefined) return ref.grantScope;
  return gate.scopeOption ?? null;
}

/** A run id or grant scope of the middleware's config: a well-formed string, or absent. */
function configString(config, key) {
  const value = own(config, key);
  if (value === undefined || value === null) return undefined;
  if (!isWellFormedString(value) || value === '') throw invalidArgument(`the gate's middleware: config.${key} must be a non-empty well-formed string`);
  return value;
}

module.exports = { USAGE, readGateOptions, keyOf, scopeOfRequest, configString };
