'use strict';
// createToolGate: a gate for an agent loop of your own, run on each model message; its
// pending proposals are listed, approved once and declined here.

const { api } = require('./core');
const { invalidArgument, own, setData, readOptions, isWellFormedString, noPendingProposalError } = require('../../shared');
const { ownOption } = require('../../gate/read');
const {
  ObjectFreeze, ArrayIsArray, ArrayPrototypePush, SafeSet, SafeWeakMap, SafeWeakSet, SetPrototypeAdd, SetPrototypeHas,
  WeakMapPrototypeGet, WeakMapPrototypeSet, WeakSetPrototypeHas, WeakSetPrototypeAdd, WeakSetPrototypeDelete, isProxy,
} = require('../../gate/primordials');
const { isCallId, toolCallsOf } = require('./calls');
const { readGateOptions, toolEntry } = require('./options');
const {
  toolMessageClass, errorMessage, callProblemError, invalidFields, prepareAttempt, policyContextOf, scopeOf, evaluate, executeAllowed,
} = require('./execute');
const { pendingProposal, keptKeyOf, GRANT_OPTION_FIELDS, keepPending, readRunId, verifiedKept, withRefused } = require('./proposals');
const { threadIdOf, ambientThreadId, receiptRun, replayCode } = require('./receipts');

const { decodeView, isApprovalGrantError } = api;

function createToolGate(options) {
  const gate = readGateOptions(options, 'createToolGate');
  const { agentName, tools, grants } = gate;
  // The proposals this gate handed out with the key they are kept under (run had a runId,
  // or pending), and those it approved: by the proposal object, never by call id.
  const keptKeys = new SafeWeakMap();
  const approvedProposals = new SafeWeakSet();

  async function runOne(call, config, context, runId, threadId) {
    const { id, name, argumentsSource } = call;
    const base = { toolCallId: id, toolName: name, argumentsSource };
    if (call.problem !== undefined) return { ...base, ...invalidFields(id, name, callProblemError(call.problem)) };
    const entry = toolEntry(tools, name);
    if (entry === undefined) {
      return { ...base, status: 'unknown_tool', message: errorMessage(id, name, 'This tool does not exist [unknown_tool].') };
    }

    const receipts = receiptRun(gate, id, threadId, runId);
    const { prepared, invalid } = await prepareAttempt(gate, entry, id, call.text, call.args, receipts);
    if (invalid !== undefined) return { ...base, ...invalidFields(id, name, invalid) };

    const policyContext = policyContextOf(context, id, argumentsSource);
    const decision = await evaluate(entry, prepared, policyContext, id);
    const verdict = { ...base, decision, decidedBy: decision.decidedBy, reason: decision.reason };
    const scope = scopeOf(policyContext);
    const key = runId === undefined ? undefined : keptKeyOf(grants, runId, id, scope);

    if (decision.decision === 'require_approval') {
      // A replay of a call that ran (or runs now) is answered with its receipt's code: no
      // reviewer is asked to approve it again.
      const replayed = await replayCode(gate, receipts, id, decision.proposalHash);
      if (replayed !== undefined) {
        if (key !== undefined) await grants.forget(key);
        return { ...verdict, status: 'denied', decidedBy: 'runtime', reason: replayed, message: errorMessage(id, name, `The tool call was denied [${replayed}].`) };
      }
      let sealed;
      if (key !== undefined) {
        const kept = await keepPending(grants, key, decision.proposal, scope);
        if (grants.sealing) sealed = kept;
      } else if (grants !== undefined && grants.sealing) {
        sealed = grants.seal(decision.proposal, { scope });
      }
      const proposal = pendingProposal(decision.proposal, id, argumentsSource, sealed, scope);
      if (key !== undefined) WeakMapPrototypeSet(keptKeys, proposal, key);
      return { ...verdict, status: 'pending', proposal };
    }
    if (key !== undefined) await grants.forget(key);
    if (decision.decision !== 'allow') {
      return { ...verdict, status: 'denied', message: errorMessage(id, name, `The tool call was denied [${decision.reason}].`) };
    }
    const { executed, output, replayed, reason } = await executeAllowed(gate, entry, decision, id, config, receipts);
    if (!executed) {
      return { ...verdict, status: 'denied', decidedBy: 'runtime', reason, message: errorMessage(id, name, `The tool call was denied [${reason}].`) };
    }
    const result = { ...verdict, status: 'executed' };
    if (replayed) setData(result, 'replayed', true);
    // Defined, not assigned: a setter planted on Object.prototype cannot swallow them.
    if (toolMessageClass().isInstance(output)) setData(result, 'message', output);
    else setData(result, 'output', output);
    return result;
  }

  async function run(message, runOptions) {
    const calls = toolCallsOf(message);
    const opts = readOptions(runOptions, 'run options');
    const config = opts === null ? undefined : own(opts, 'config');
    const context = opts === null ? undefined : own(opts, 'policyContext');
    const runId = readRunId(opts === null ? undefined : ownOption(opts, 'runId', 'options.runId must be a non-empty well-formed string (an own data property)'), grants);
    // The run of the calls' execution receipts: the LangGraph thread of `config`, else that
    // of the graph node this runs in (else, with receipts given, the application's runId).
    const threadId = threadIdOf(config) ?? ambientThreadId();
    const only = opts === null ? undefined : own(opts, 'toolCallIds');
    if (only !== undefined && (!ArrayIsArray(only) || isProxy(only))) throw invalidArgument('options.toolCallIds must be an array of strings');
    let selected;
    if (only !== undefined) {
      selected = new SafeSet();
      for (let i = 0; i < only.length; i++) SetPrototypeAdd(selected, only[i]);
    }

    const results = [];
    const messages = [];
    const pending = [];
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i];
      if (selected !== undefined && !SetPrototypeHas(selected, call.id)) continue;
      /** @type {Readonly<{ status: string, message?: unknown, proposal?: unknown }>} one of the results runOne makes */
      const result = ObjectFreeze(await runOne(call, config, context, runId, threadId));
      ArrayPrototypePush(results, result);
      if (result.message !== undefined) ArrayPrototypePush(messages, result.message);
      if (result.status === 'pending') ArrayPrototypePush(pending, result.proposal);
    }
    return ObjectFreeze({ messages, pending, results });
  }

  /**
   * The proposals kept for the calls of a stored message (`run` with the same runId kept
   * them), verified again: what a reviewer in any process sees and approves. Only records
   * that verify are listed; one that does not (edited in the store, a seal of an unknown
   * key, expired) is in the list's `refused`: its call id, tool name and code, never a
   * field of the record.
   */
  async function pending(message, pendingOptions) {
    const opts = readOptions(pendingOptions, 'pending options');
    const runId = readRunId(opts === null ? undefined : ownOption(opts, 'runId', 'options.runId must be a non-empty well-formed string (an own data property)'), grants);
    if (runId === undefined) throw invalidArgument('pending needs { runId }: the run whose proposals were kept');
    const scopeOption = opts === null ? undefined : own(opts, 'grantScope');
    if (scopeOption !== undefined && scopeOption !== null && !isWellFormedString(scopeOption)) throw invalidArgument('options.grantScope must be a well-formed string or null');
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
      const scope = grants.sealing ? own(kept, 'scope') ?? null : scopeOption ?? null;
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
      WeakMapPrototypeSet(keptKeys, proposal, key);
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
  async function approve(proposal, grantOptions) {
    if (grants === undefined) throw invalidArgument('approve needs the gate\'s grants');
    if (proposal === null || typeof proposal !== 'object' || isProxy(proposal)) throw invalidArgument('approve expects a proposal of this gate');
    const gopts = readOptions(grantOptions, 'approve options');
    const passed = {};
    if (gopts !== null) {
      for (let i = 0; i < GRANT_OPTION_FIELDS.length; i++) {
        const value = own(gopts, GRANT_OPTION_FIELDS[i]);
        if (value !== undefined) setData(passed, GRANT_OPTION_FIELDS[i], value);
      }
    }
    const asked = gopts === null ? undefined : own(gopts, 'scope');
    const carried = own(proposal, 'grantScope');
    let scope = asked;
    if (carried !== undefined) {
      if (carried !== null && !isWellFormedString(carried)) throw invalidArgument('approve expects a proposal of this gate (its grantScope is a string or null)');
      if (asked !== undefined && asked !== carried) throw invalidArgument('approve options: scope differs from the scope the call was evaluated under (the proposal\'s grantScope)');
      scope = carried;
    }
    if (scope !== undefined) setData(passed, 'scope', scope);
    const sealed = own(proposal, 'sealed');
    if (WeakSetPrototypeHas(approvedProposals, proposal)) throw noPendingProposalError('this proposal was approved already');
    const key = WeakMapPrototypeGet(keptKeys, proposal);
    if (key !== undefined) {
      const kept = await grants.kept(key);
      if (kept === undefined || own(kept, 'proposalHash') !== own(proposal, 'proposalHash')) {
        throw noPendingProposalError('no proposal is waiting for approval for this tool call in this run (approved or answered before, expired, or kept under another scope)');
      }
    }
    // Marked first: a second approve of this object while the grant is on its way is refused.
    WeakSetPrototypeAdd(approvedProposals, proposal);
    let record;
    try {
      record = await grants.grant(sealed === undefined ? proposal : sealed, passed);
    } catch (error) {
      WeakSetPrototypeDelete(approvedProposals, proposal);
      // Another approval of the same seal granted it first.
      if (isApprovalGrantError(error) && own(error, 'code') === 'seal_used') throw noPendingProposalError('this proposal was approved already');
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

  return ObjectFreeze({ agentName, run, pending, approve, decline });
}

module.exports = { createToolGate };
