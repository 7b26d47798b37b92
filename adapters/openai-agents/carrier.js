'use strict';
// The carrier: pending proposals kept in the run context's own `context` object, which the
// SDK serializes with the RunState and never sends to the model provider. Beside them, per
// agent: the gate's run id (the execution receipts' runId when the app gives none) and the
// proposal hash each call was approved for through the package (`gate.approve`).

const { own, setData } = require('../gate/read');
const { ObjectKeys, ObjectIsExtensible, MapPrototypeDelete, StringPrototypeIsWellFormed } = require('../gate/primordials');
const { isSchemaObject } = require('./json-nulls');
const { CARRIER_KEY } = require('./schemas');

/** The carried pending entries of this gate's agent in a run context, or undefined. */
function carried(agentName, runContext) {
  const context = own(runContext, 'context');
  const carrier = own(context, CARRIER_KEY);
  const byAgent = own(own(carrier, 'pending'), agentName);
  return isSchemaObject(byAgent) ? byAgent : undefined;
}

function carriedEntry(agentName, runContext, callId) {
  const byAgent = carried(agentName, runContext);
  if (byAgent === undefined) return undefined;
  const entry = own(byAgent, callId);
  if (!isSchemaObject(entry)) return undefined;
  const toolName = own(entry, 'toolName');
  const rawArguments = own(entry, 'rawArguments');
  const proposal = own(entry, 'proposal');
  if (typeof toolName !== 'string' || typeof rawArguments !== 'string' || !isSchemaObject(proposal)) return undefined;
  const scope = own(entry, 'scope');
  return { __proto__: null, toolName, rawArguments, proposal, reason: own(entry, 'reason'), scope: typeof scope === 'string' ? scope : null };
}

/** The carrier of a run context, made when `make` (and the context can be extended), else undefined. */
function carrierOf(runContext, make) {
  const context = own(runContext, 'context');
  if (!isSchemaObject(context) || !ObjectIsExtensible(context)) return undefined;
  let carrier = own(context, CARRIER_KEY);
  if (!isSchemaObject(carrier)) {
    if (!make) return undefined;
    carrier = { v: 1, pending: {} };
    setData(context, CARRIER_KEY, carrier);
  }
  return carrier;
}

/** The record of this agent under `field` of the carrier (made when `make`), else undefined. */
function agentRecord(agentName, runContext, field, make) {
  const carrier = carrierOf(runContext, make);
  if (carrier === undefined) return undefined;
  let byAgent = own(carrier, field);
  if (!isSchemaObject(byAgent)) {
    if (!make) return undefined;
    byAgent = {};
    setData(carrier, field, byAgent);
  }
  let record = own(byAgent, agentName);
  if (!isSchemaObject(record)) {
    if (!make) return undefined;
    record = {};
    setData(byAgent, agentName, record);
  }
  return record;
}

/** The run id this agent's gate left in the run context (carried with a RunState), or undefined. */
function carriedRunId(agentName, runContext) {
  const runId = own(own(own(own(runContext, 'context'), CARRIER_KEY), 'runs'), agentName);
  return typeof runId === 'string' && runId !== '' && StringPrototypeIsWellFormed(runId) ? runId : undefined;
}

/** Writes the gate's run id into the carrier (only where the carrier already is, or `make`). */
function carryRunId(agentName, runContext, runId, make) {
  const carrier = carrierOf(runContext, make);
  if (carrier === undefined) return;
  let runs = own(carrier, 'runs');
  if (!isSchemaObject(runs)) {
    runs = {};
    setData(carrier, 'runs', runs);
  }
  setData(runs, agentName, runId);
}

/** Records that `callId` was approved through the package for `proposalHash` (and its tool). */
function carryApproved(agentName, runContext, callId, toolName, proposalHash) {
  const record = agentRecord(agentName, runContext, 'approved', true);
  if (record !== undefined) setData(record, callId, { toolName, proposalHash });
}

/** The package approval carried for `callId` ({ toolName, proposalHash }), or undefined. */
function carriedApproved(agentName, runContext, callId) {
  const entry = own(agentRecord(agentName, runContext, 'approved', false), callId);
  const toolName = own(entry, 'toolName');
  const proposalHash = own(entry, 'proposalHash');
  return typeof toolName === 'string' && typeof proposalHash === 'string' ? { __proto__: null, toolName, proposalHash } : undefined;
}

function forgetApproved(agentName, runContext, callId) {
  const record = agentRecord(agentName, runContext, 'approved', false);
  if (record !== undefined) delete record[callId];
}

/** Writes (or, with entry undefined, removes) a carried entry. A context it cannot extend carries nothing. */
function carry(agentName, runRecord, runContext, callId, entry) {
  const carrier = carrierOf(runContext, entry !== undefined);
  if (carrier === undefined) return false;
  let pending = own(carrier, 'pending');
  if (!isSchemaObject(pending)) {
    pending = {};
    setData(carrier, 'pending', pending);
  }
  let byAgent = own(pending, agentName);
  if (!isSchemaObject(byAgent)) {
    if (entry === undefined) return false;
    byAgent = {};
    setData(pending, agentName, byAgent);
  }
  if (entry === undefined) {
    delete byAgent[callId];
    return true;
  }
  // Entries of calls the SDK rejected since (state.reject) never reach execute: drop them here.
  const carriedIds = ObjectKeys(byAgent);
  for (let i = 0; i < carriedIds.length; i++) {
    const toolName = own(own(byAgent, carriedIds[i]), 'toolName');
    if (typeof toolName === 'string' && runContext.isToolApproved({ toolName, callId: carriedIds[i] }) === false) delete byAgent[carriedIds[i]];
  }
  setData(byAgent, callId, entry);
  const runId = runRecord(runContext).runId;
  if (runId !== undefined) carryRunId(agentName, runContext, runId, false);
  return true;
}

/** What the reviewer sees and grants: the seal with keys, else the four snapshot fields. */
function carriedProposal(proposal, sealed) {
  if (sealed !== undefined) return sealed;
  return {
    agentName: proposal.agentName,
    toolName: proposal.toolName,
    argsCanonicalJson: proposal.argsCanonicalJson,
    proposalHash: proposal.proposalHash,
  };
}

/** The carrier of one gate's agent; `runRecord` is the gate's per-run record. */
function createCarrier(agentName, runRecord) {
  const carryFor = (runContext, callId, entry) => carry(agentName, runRecord, runContext, callId, entry);
  return {
    carriedEntry: (runContext, callId) => carriedEntry(agentName, runContext, callId),
    carry: carryFor,
    carriedProposal,
    forget(runContext, callId) {
      MapPrototypeDelete(runRecord(runContext).pending, callId);
      carryFor(runContext, callId, undefined);
    },
    carriedRunId: (runContext) => carriedRunId(agentName, runContext),
    carryRunId: (runContext, runId, make) => carryRunId(agentName, runContext, runId, make),
    carryApproved: (runContext, callId, toolName, proposalHash) => carryApproved(agentName, runContext, callId, toolName, proposalHash),
    carriedApproved: (runContext, callId) => carriedApproved(agentName, runContext, callId),
    forgetApproved: (runContext, callId) => forgetApproved(agentName, runContext, callId),
  };
}

module.exports = { createCarrier };
