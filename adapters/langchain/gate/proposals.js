'use strict';
// Pending proposals of createToolGate: their frozen form, and where a run's are kept.

const { invalidArgument, own, setData, isWellFormedString } = require('../../gate/read');
const { ObjectDefineProperty, ObjectFreeze } = require('../../gate/primordials');
const { api } = require('./core');

const { isApprovalGrantError, isSnapshotDomainError } = api;

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

/**
 * The record kept for a run and call, verified by the grants (the key ring's signature and
 * expiry when sealed, else the hash recomputed): `{ kept }` (undefined when none is kept),
 * or `{ code }` when it does not verify (the ApprovalGrantError or SnapshotDomainError code:
 * bad_signature, unknown_key, seal_expired, hash_mismatch, not_a_snapshot...). Nothing of
 * the record is returned with a code. Any other failure (the store's) is thrown.
 */
async function verifiedKept(grants, key) {
  try {
    return { kept: await grants.kept(key), code: undefined };
  } catch (error) {
    if (!isApprovalGrantError(error) && !isSnapshotDomainError(error)) throw error;
    const code = own(error, 'code');
    return { kept: undefined, code: typeof code === 'string' ? code : 'not_a_snapshot' };
  }
}

/**
 * A review listing: the verified proposals, frozen, with the records that did not verify
 * as `refused` (each frozen, a code and the call's identity, never a field of the record):
 * not an index and not enumerable, so code that iterates or copies the list sees verified
 * proposals only.
 */
function withRefused(found, refused) {
  ObjectDefineProperty(found, 'refused', { __proto__: null, value: ObjectFreeze(refused), enumerable: false, writable: false, configurable: false });
  return ObjectFreeze(found);
}

/**
 * Keeps a pending proposal for a run and call in the grants' store (sealed with a key
 * ring) unless the same one is kept already, and returns the kept record. A kept record
 * that does not verify is replaced by this one (it is never shown).
 */
async function keepPending(grants, key, proposal, scope) {
  const { kept } = await verifiedKept(grants, key);
  if (kept !== undefined && own(kept, 'proposalHash') === proposal.proposalHash && (!grants.sealing || own(kept, 'scope') === scope)) return kept;
  return grants.keep(key, proposal, { scope });
}

function readRunId(value, grants) {
  if (value === undefined) return undefined;
  if (!isWellFormedString(value) || value === '') throw invalidArgument('options.runId must be a non-empty well-formed string');
  if (grants === undefined) throw invalidArgument("options.runId needs the gate's grants (proposals are kept in their store)");
  return value;
}

module.exports = { pendingProposal, keptKeyOf, keepPending, readRunId, verifiedKept, withRefused };
