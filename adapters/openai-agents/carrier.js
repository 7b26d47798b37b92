'use strict';
// The carrier: pending proposals kept in the run context's own `context` object, which the
// SDK serializes with the RunState and never sends to the model provider.

const { own, setData } = require('../shared');
const {
  ObjectKeys, ObjectIsExtensible, MapPrototypeDelete,
} = require('../gate/primordials');
const { isSchemaObject } = require('./json-nulls');
const { CARRIER_KEY } = require('./schemas');

/** The carrier of one gate's agent; `runRecord` is the gate's per-run record. */
function createCarrier(agentName, runRecord) {
  /** The carried pending entries of this gate's agent in a run context, or undefined. */
  function carried(runContext) {
    const context = own(runContext, 'context');
    const carrier = own(context, CARRIER_KEY);
    const byAgent = own(own(carrier, 'pending'), agentName);
    return isSchemaObject(byAgent) ? byAgent : undefined;
  }

  function carriedEntry(runContext, callId) {
    const byAgent = carried(runContext);
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

  /** Writes (or, with entry undefined, removes) a carried entry. A context it cannot extend carries nothing. */
  function carry(runContext, callId, entry) {
    const context = own(runContext, 'context');
    if (!isSchemaObject(context) || !ObjectIsExtensible(context)) return false;
    let carrier = own(context, CARRIER_KEY);
    if (!isSchemaObject(carrier)) {
      if (entry === undefined) return false;
      carrier = { v: 1, pending: {} };
      setData(context, CARRIER_KEY, carrier);
    }
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

  function forget(runContext, callId) {
    MapPrototypeDelete(runRecord(runContext).pending, callId);
    carry(runContext, callId, undefined);
  }

  return { carriedEntry, carry, carriedProposal, forget };
}

module.exports = { createCarrier };
