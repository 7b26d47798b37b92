'use strict';
// Approval requests kept for a reviewer (docs/mcp-server.md, "Approvals"). With grants
// whose store keeps proposals, the proposal of each require_approval answer is kept there
// (sealed when the grants seal), so a reviewer sees it where the grants are:
// `tool-argument-snapshot pending --store URL` lists it, `grant --id ID` grants it. The
// answer names it by `pendingId`, the id `pending` lists it under.
//
// The key of a kept request: a call with an idempotency key is that logical call with its
// proposal (its retries with the same arguments ask again under the same key; a retry with
// other arguments is another request, so an id a reviewer listed always grants the
// proposal they saw); a call without one is its proposal (the same arguments asked again
// are one request). Namespaced by agent and grant scope, as every gate's kept proposals are.

const { isApprovalGrantError, isSnapshotDomainError } = require('tool-argument-snapshot');
const { own } = require('../gate/read');
const { SafeTypeError } = require('../gate/primordials');
const { proposalStore, keptRunId, keptIdOf, keepOptions } = require('../gate/proposals');

/**
 * The keeping of one gate: undefined without grants, or when their store has no proposal
 * methods (the answer then carries the proposal only, as before). `proposalTtlMs`: how
 * long a kept request (and its seal) lives, undefined for as long as it waits.
 */
function createKeeping(grants, agentName, proposalTtlMs) {
  if (grants === undefined) return undefined;
  const store = proposalStore(grants);
  if (!store.present) return undefined;
  const sealing = own(grants, 'sealing') === true;
  // Grants over a store without putProposal, getProposal and deleteProposal answer a
  // TypeError, met at the first request: the gate then answers as it did before it kept any.
  let keeps = true;

  /** Where the request of a call is kept: `keyScope` is the idempotency scope's string, or undefined. */
  function keyOf(scope, idempotencyKey, keyScope, proposalHash) {
    if (idempotencyKey === undefined) return { runId: keptRunId('mcp', agentName, scope, 'hash'), toolCallId: proposalHash };
    const part = `${keyScope === undefined ? 'key -' : `key ${keyScope.length}:${keyScope}`} ${proposalHash}`;
    return { runId: keptRunId('mcp', agentName, scope, part), toolCallId: idempotencyKey };
  }

  /**
   * Keeps the proposal of `decision` under `key` unless the same one waits there already
   * (an approval asked again keeps its one record, and its one seal): `{ kept, pendingId }`,
   * or undefined when the grants' store keeps no proposals. A record there that does not
   * verify is replaced. A store that fails rejects.
   */
  async function keep(key, decision, scope) {
    if (!keeps) return undefined;
    try {
      let before;
      try {
        before = await store.kept(key);
      } catch (error) {
        if (!isApprovalGrantError(error) && !isSnapshotDomainError(error)) throw error;
      }
      const same = before !== undefined && own(before, 'proposalHash') === decision.proposalHash && (!sealing || own(before, 'scope') === scope);
      const kept = same ? before : await store.keep(key, decision.proposal, keepOptions(scope, proposalTtlMs));
      return { kept, pendingId: keptIdOf(key) };
    } catch (error) {
      if (!(error instanceof SafeTypeError)) throw error;
      keeps = false;
      return undefined;
    }
  }

  /** Forgets the request kept under `key` once its call ran on a grant (best effort: a record left grants nothing). */
  async function forget(key) {
    if (!keeps) return;
    try {
      await store.forget(key);
    } catch {
      // It expires (proposalTtlMs) or a reviewer declines it.
    }
  }

  return { keyOf, keep, forget };
}

module.exports = { createKeeping };
