'use strict';
// A Mastra gate's approvals: the kept proposal of a call, the calls waiting for a reviewer
// (pending), approve (grants exactly the kept proposal, once, and moves it out of the
// waiting ones) and decline.

const { isApprovalGrantError } = require('tool-argument-snapshot');
const { ArrayPrototypePush, ReflectApply } = require('../gate/primordials');
const { invalidArgument, own, readOptions, isWellFormedString } = require('../gate/read');
const { reviewKept } = require('../gate/pending');
const { grantOptions: grantOptionsOf, grantOnce } = require('../gate/proposals');
const { notPendingError, approvalRef } = require('./requests');
const { pendingRefs } = require('./pending');
const { scopeOfRequest } = require('./options');

function createApproval(gate) {
  const { grants, keepProposal, keptProposal, forgetProposal } = gate;
  const read = (key) => ReflectApply(keptProposal, grants, [key]);
  const keyOfRequest = (ref) => gate.keyOf(scopeOfRequest(gate, ref), ref.runId, ref.toolCallId);

  /** The proposal waiting for approval of this call of this run (sealed with a key ring), or undefined. */
  async function kept(request) {
    return read(keyOfRequest(approvalRef(request, 'keptProposal')));
  }

  /**
   * The calls of `source` whose proposals wait for a reviewer, for a review screen:
   * `{ runId, toolCallId, toolName, proposal }` for each kept proposal that verifies (the
   * key ring's signature, else its hash); `{ runId, toolCallId, error: { name, code } }`,
   * nothing of the record, for one that does not. `source`: what `agent.listSuspendedRuns()`
   * resolves (`{ runs }`), a run of it, approval requests, or an array of these. Calls with
   * nothing waiting (answered, expired, not gated) are not listed. `options.grantScope` is
   * the scope of runs that carry none, for a gate whose scope is a function of the run.
   */
  async function pending(source, options) {
    const popts = readOptions(options, 'pending options');
    const optionScope = popts === null ? undefined : own(popts, 'grantScope');
    if (optionScope !== undefined && optionScope !== null && !isWellFormedString(optionScope))
      throw invalidArgument('pending: options.grantScope must be a well-formed string or null');
    const refs = pendingRefs(source);
    const listed = [];
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i];
      if (ref.grantScope === undefined && optionScope !== undefined) ref.grantScope = optionScope;
      const found = await reviewKept(read, keyOfRequest(ref));
      if (found === undefined) continue;
      if (found.error !== undefined) ArrayPrototypePush(listed, { runId: ref.runId, toolCallId: ref.toolCallId, error: found.error });
      else ArrayPrototypePush(listed, { runId: ref.runId, toolCallId: ref.toolCallId, toolName: own(found.proposal, 'toolName'), proposal: found.proposal });
    }
    return listed;
  }

  /**
   * The reviewer approved this call: grants exactly the proposal the gate kept for it
   * (sealed with a key ring: verified and granted once), and moves it out of the waiting
   * ones, so that approving it again (a double click, a second reviewer, a retried request)
   * rejects with TAS_NO_PENDING_PROPOSAL instead of granting another use. Then resume the
   * run with `agent.approveToolCall({ runId, toolCallId })`, here or in another process.
   */
  async function approve(request, grantOptions) {
    const ref = approvalRef(request, 'approve');
    const scope = scopeOfRequest(gate, ref);
    const gopts = readOptions(grantOptions, 'approve options');
    const passed = grantOptionsOf(gopts, scope);
    const key = gate.keyOf(scope, ref.runId, ref.toolCallId);
    const record = await read(key);
    if (record === undefined) throw notPendingError();
    // Another approval of the same record granted it first (seal_used): not pending.
    await grantOnce(gate.grantsGrant, grants, record, passed, isApprovalGrantError, notPendingError);
    // Granted: no longer waiting. Kept apart for the resumed call's check, then forgotten here.
    await ReflectApply(keepProposal, grants, [gate.approvedKeyOf(scope, ref.runId, ref.toolCallId), record, gate.keepOptionsOf(scope)]);
    await ReflectApply(forgetProposal, grants, [key]);
    return record;
  }

  /**
   * The reviewer declined this call: forgets its kept proposal, so no approval can be given
   * for it any more. Then `agent.declineToolCall({ runId, toolCallId })`.
   */
  async function decline(request) {
    const key = keyOfRequest(approvalRef(request, 'decline'));
    const record = await read(key);
    if (record === undefined) throw notPendingError();
    await ReflectApply(forgetProposal, grants, [key]);
  }

  return { keptProposal: kept, pending, approve, decline };
}

module.exports = { createApproval };
