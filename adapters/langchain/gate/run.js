'use strict';
// gate.run of createToolGate: each call of a model message paired, prepared, decided and,
// on an allow, run through the tool's own `_call`; one that needs approval is kept for a
// reviewer (`s`: the gate's record, the keys of the proposals it handed out).

const { invalidArgument, own, ownOption, setData, readOptions } = require('../../gate/read');
const {
  ObjectFreeze,
  ArrayIsArray,
  ArrayPrototypePush,
  SafeSet,
  SetPrototypeAdd,
  SetPrototypeHas,
  WeakMapPrototypeSet,
  isProxy,
} = require('../../gate/primordials');
const { toolCallsOf } = require('./calls');
const { toolEntry } = require('./options');
const {
  toolMessageClass,
  errorMessage,
  callProblemError,
  invalidFields,
  prepareAttempt,
  policyContextOf,
  scopeOf,
  evaluate,
  executeAllowed,
} = require('./execute');
const { pendingProposal, keptKeyOf, keepPending, readRunId } = require('./proposals');
const { threadIdOf, ambientThreadId, receiptRun, replayCode } = require('./receipts');

/**
 * A call that requires approval: a replay of a call that ran (or runs now) is answered with
 * its receipt's code, no reviewer asked to approve it again; else its proposal, kept for
 * the run (`key`, sealed with keys) or sealed, is pending.
 */
async function askApproval(s, verdict, decision, call, receipts, key, scope) {
  const { gate } = s;
  const { grants } = gate;
  const { id, name, argumentsSource } = call;
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
  if (key !== undefined) WeakMapPrototypeSet(s.keptKeys, proposal, key);
  return { ...verdict, status: 'pending', proposal };
}

async function runOne(s, call, config, context, runId, threadId) {
  const { gate } = s;
  const { tools, grants } = gate;
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

  if (decision.decision === 'require_approval') return askApproval(s, verdict, decision, call, receipts, key, scope);
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

/** gate.run: every call of a model message (or those of `options.toolCallIds`), in order. */
async function run(s, message, runOptions) {
  const { grants } = s.gate;
  const calls = toolCallsOf(message);
  const opts = readOptions(runOptions, 'run options');
  const config = opts === null ? undefined : own(opts, 'config');
  const context = opts === null ? undefined : own(opts, 'policyContext');
  const runId = readRunId(
    opts === null ? undefined : ownOption(opts, 'runId', 'options.runId must be a non-empty well-formed string (an own data property)'),
    grants,
  );
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
    const result = ObjectFreeze(await runOne(s, call, config, context, runId, threadId));
    ArrayPrototypePush(results, result);
    if (result.message !== undefined) ArrayPrototypePush(messages, result.message);
    if (result.status === 'pending') ArrayPrototypePush(pending, result.proposal);
  }
  return ObjectFreeze({ messages, pending, results });
}

module.exports = { run };
