'use strict';
// Pending proposals of createToolGate: their frozen form, and where a run's are kept.

const { invalidArgument, own, setData, isWellFormedString } = require('../../shared');
const {
  ObjectFreeze,
} = require('../../gate/primordials');

/**
 * The frozen proposal of a pending call: the package's proposal plus the call's id and
 * source, and `grantScope`, the scope the call was evaluated under (null: none), which
 * `approve` grants it in.
 */
function pendingProposal(proposal, id, argumentsSource, sealed, scope) {
  const fields = {
    kind: proposal.kind,
    agentName: proposal.agentName,
    toolName: proposal.toolName,
    rawArguments: proposal.rawArguments,
    parsedArguments: proposal.parsedArguments,
    argsCanonicalJson: proposal.argsCanonicalJson,
    proposalHash: proposal.proposalHash,
    reason: proposal.reason,
    toolCallId: id,
    argumentsSource,
    grantScope: scope,
  };
  if (sealed !== undefined) setData(fields, 'sealed', sealed);
  return ObjectFreeze(fields);
}

/**
 * Where a pending proposal of a run is kept. A sealed record says its scope (the seal's);
 * an unsealed one cannot, so its key does: a reviewer then finds it only under the scope
 * the call was evaluated in (`pending(message, { runId, grantScope })`), and never grants
 * it in another.
 */
function keptKeyOf(grants, runId, id, scope) {
  if (grants.sealing || scope === null) return { runId, toolCallId: id };
  return { runId: `scope ${scope.length}:${scope} ${runId}`, toolCallId: id };
}

const GRANT_OPTION_FIELDS = ObjectFreeze(['uses', 'ttlMs', 'expiresAt']);

/**
 * Keeps a pending proposal for a run and call in the grants' store (sealed with a key
 * ring) unless the same one is kept already, and returns the kept record.
 */
async function keepPending(grants, key, proposal, scope) {
  const kept = await grants.kept(key);
  if (kept !== undefined && own(kept, 'proposalHash') === proposal.proposalHash && (!grants.sealing || own(kept, 'scope') === scope)) return kept;
  return grants.keep(key, proposal, { scope });
}

function readRunId(value, grants) {
  if (value === undefined) return undefined;
  if (!isWellFormedString(value) || value === '') throw invalidArgument('options.runId must be a non-empty well-formed string');
  if (grants === undefined) throw invalidArgument('options.runId needs the gate\'s grants (proposals are kept in their store)');
  return value;
}

module.exports = { pendingProposal, keptKeyOf, GRANT_OPTION_FIELDS, keepPending, readRunId };
