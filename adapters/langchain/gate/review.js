'use strict';
// The reviews of createToolGate: the proposals kept for a stored message (pending),
// approve (grants exactly a pending proposal, once) and decline (`s`: the gate's record,
// the keys of the proposals it handed out and those it approved).

const { invalidArgument, own, ownOption, setData, readOptions, isWellFormedString } = require('../../gate/read');
const { noPendingProposalError, grantOptions: grantOptionsOf, grantOnce } = require('../../gate/proposals');
const {
  ObjectFreeze,
  ArrayPrototypePush,
  WeakMapPrototypeGet,
  WeakMapPrototypeSet,
  WeakSetPrototypeHas,
  WeakSetPrototypeAdd,
  WeakSetPrototypeDelete,
  isProxy,
} = require('../../gate/primordials');
const { api } = require('./core');
const { isCallId, toolCallsOf } = require('./calls');
const { errorMessage } = require('./execute');
const { keptKeyOf, readRunId, verifiedKept, withRefused } = require('./proposals');

const { decodeView, isApprovalGrantError } = api;

/** approve's answer to a proposal granted already (code TAS_NO_PENDING_PROPOSAL). */
function approvedAlready() {
  return noPendingProposalError('this proposal was approved already');
}

/**
 * The proposals kept for the calls of a stored message (`run` with the same runId kept
 * them), verified again: what a reviewer in any process sees and approves. Only records
 * that verify are listed; one that does not (edited in the store, a seal of an unknown
 * key, expired) is in the list's `refused`: its call id, tool name and code, never a
 * field of the record.
 */
async function pending(s, message, pendingOptions) {
  const { agentName, grants } = s.gate;
  const opts = readOptions(pendingOptions, 'pending options');
  const runId = readRunId(
    opts === null ? undefined : ownOption(opts, 'runId', 'options.runId must be a non-empty well-formed string (an own data property)'),
    grants,
  );
  if (runId === undefined) throw invalidArgument('pending needs { runId }: the run whose proposals were kept');
  const scopeOption = opts === null ? undefined : own(opts, 'grantScope');
  if (scopeOption !== undefined && scopeOption !== null && !isWellFormedString(scopeOption))
    throw invalidArgument('options.grantScope must be a well-formed string or null');
  const calls = toolCallsOf(message);
  const found = [];
  const refused = [];
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i];
    if (call.problem !== undefined) continue;
    const key = keptKeyOf(grants, runId, call.id, scopeOption ?? null);
    const { kept, code } = await verifiedKept(grants, key);
    if (code !== undefined) {
      ArrayPrototypePush(refused, ObjectFreeze({ toolCallId: call.id, toolName: call.name, code }));
      continue;
    }
    if (kept === undefined || own(kept, 'agentName') !== agentName || own(kept, 'toolName') !== call.name) continue;
    // The scope it waits in: the seal's, else the one it was kept under.
    const scope = grants.sealing ? (own(kept, 'scope') ?? null) : (scopeOption ?? null);
    if (grants.sealing && scopeOption !== undefined && scope !== scopeOption) continue;
    const fields = {
      agentName,
      toolName: call.name,
      argsCanonicalJson: kept.argsCanonicalJson,
      proposalHash: kept.proposalHash,
      parsedArguments: decodeView(kept.argsCanonicalJson),
      toolCallId: call.id,
      grantScope: scope,
    };
    if (grants.sealing) setData(fields, 'sealed', kept);
    const proposal = ObjectFreeze(fields);
    WeakMapPrototypeSet(s.keptKeys, proposal, key);
    ArrayPrototypePush(found, proposal);
  }
  return withRefused(found, refused);
}

/**
 * Grants exactly a pending proposal (its seal when the grants seal) in the scope the call
 * was evaluated under (the proposal's `grantScope`; with a key ring, the seal's), never in
 * another: a `scope` in the options that differs is a TypeError. Once: approving the same
 * proposal again, or one kept for a run (`runId`, `pending`) that no longer waits (approved
 * in any process, declined, executed, expired), rejects with TAS_NO_PENDING_PROPOSAL; the
 * kept one is forgotten once granted.
 */
async function approve(s, proposal, grantOptions) {
  const { grants } = s.gate;
  if (grants === undefined) throw invalidArgument("approve needs the gate's grants");
  if (proposal === null || typeof proposal !== 'object' || isProxy(proposal)) throw invalidArgument('approve expects a proposal of this gate');
  const gopts = readOptions(grantOptions, 'approve options');
  const asked = gopts === null ? undefined : own(gopts, 'scope');
  const carried = own(proposal, 'grantScope');
  let scope = asked;
  if (carried !== undefined) {
    if (carried !== null && !isWellFormedString(carried)) throw invalidArgument('approve expects a proposal of this gate (its grantScope is a string or null)');
    if (asked !== undefined && asked !== carried)
      throw invalidArgument("approve options: scope differs from the scope the call was evaluated under (the proposal's grantScope)");
    scope = carried;
  }
  // `uses`, `ttlMs`, `expiresAt` of the options, and the scope (undefined: none).
  const passed = grantOptionsOf(gopts, scope);
  const sealed = own(proposal, 'sealed');
  if (WeakSetPrototypeHas(s.approvedProposals, proposal)) throw approvedAlready();
  const key = WeakMapPrototypeGet(s.keptKeys, proposal);
  if (key !== undefined) {
    const kept = await grants.kept(key);
    if (kept === undefined || own(kept, 'proposalHash') !== own(proposal, 'proposalHash')) {
      throw noPendingProposalError(
        'no proposal is waiting for approval for this tool call in this run (approved or answered before, expired, or kept under another scope)',
      );
    }
  }
  // Marked first: a second approve of this object while the grant is on its way is refused.
  WeakSetPrototypeAdd(s.approvedProposals, proposal);
  let record;
  try {
    // Another approval of the same seal granted it first (seal_used): approved already.
    await grantOnce(
      async (approved, passedOptions) => {
        record = await grants.grant(approved, passedOptions);
      },
      undefined,
      sealed === undefined ? proposal : sealed,
      passed,
      isApprovalGrantError,
      approvedAlready,
    );
  } catch (error) {
    WeakSetPrototypeDelete(s.approvedProposals, proposal);
    throw error;
  }
  if (key !== undefined) await grants.forget(key);
  return record;
}

/** The ToolMessage that answers a declined call (nothing runs). */
function decline(proposal, content) {
  if (proposal === null || typeof proposal !== 'object' || isProxy(proposal)) throw invalidArgument('decline expects a proposal of this gate');
  const id = own(proposal, 'toolCallId');
  const name = own(proposal, 'toolName');
  if (!isCallId(id) || !isWellFormedString(name)) throw invalidArgument('decline expects a proposal with its toolCallId and toolName');
  if (content !== undefined && !isWellFormedString(content)) throw invalidArgument('decline: the message must be a well-formed string');
  return errorMessage(id, name, content === undefined ? 'A reviewer declined this tool call; it was not executed [declined].' : content);
}

module.exports = { pending, approve, decline };
