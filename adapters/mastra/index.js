'use strict';
// tool-argument-snapshot/mastra: RFC-0016 for Mastra agents (@mastra/core 1.x).
// createToolGate assembles the gate: gated tools whose execute decides, runs or suspends
// for approval; gate.model, recording provider texts; approve and decline. Built on the
// gate kernel (adapters/gate/). How it works with Mastra: docs/adapters/mastra.md.

const { ADAPTER, mastraCreateTool, validateToolOutput, modelRouter } = require('./framework');
const {
  prepareToolCallAsync, canonicalize, isToolArgumentsValidationError, isSnapshotDomainError, isApprovalGrantError,
} = require('tool-argument-snapshot');
const {
  ArrayIsArray, ArrayPrototypePush, isProxy, MapPrototypeGet, ObjectDefineProperty, ObjectFreeze, ObjectGetOwnPropertyNames,
  ReflectApply,
} = require('../gate/primordials');
const { invalidArgument, own, setData, readOptions, isWellFormedString, isId } = require('../gate/read');
const { readGrants, readOnDecision, readProposalTtl, readJsonSchemaOptions, entriesWithPolicies } = require('../gate/options');
const { callIdUses } = require('../gate/texts');
const { recordingResult } = require('../gate/recording');
const { decideCall } = require('../gate/decide');
const { executeDecision, isGrantUnavailable } = require('../gate/execute');
const { readReceipts, receiptKey } = require('../gate/receipts');
const { executeOptions, receiptRefusalCode, replayCode } = require('../gate/replays');
const { reviewKept } = require('../gate/pending');
const { keptRunId, keepOptions, grantOptions: grantOptionsOf, grantOnce } = require('../gate/proposals');
const { approvedWithoutGrantNotice, APPROVED_WITHOUT_GRANT } = require('../gate/warnings');
const { createTool, readTools, wireSchemaOf } = require('./tools');
const { withoutUndefined } = require('./nulls');
const { RecordedTexts, DUPLICATE, UNPAIRED } = require('./texts');
const { callError, notPendingError, approvalRef, defaultNotExecutedOutput, defaultInvalidInputOutput } = require('./requests');
const { pendingRefs } = require('./pending');

/** Model properties Mastra may read besides the language model specification's. */
const PASSED_THROUGH = ['supportsStructuredOutputs', 'defaultObjectGenerationMode', 'supportsImageUrls'];

const MISSING_CALL_ID = 'missing_call_id';
const NO_PROVIDER_TEXT = 'no_provider_text';
const HOW_TO_APPROVE = 'grant the reviewer\'s approval with `await gate.approve({ runId, toolCallId })` before `agent.approveToolCall({ runId, toolCallId })`, in this process or in any other that shares the grants\' store.';

// The options of Mastra's createTool the gate reads itself or replaces; every other own
// data option is passed to Mastra's createTool as it is.
const REPLACED_OPTIONS = ['inputSchema', 'outputSchema', 'execute', 'requireApproval'];

const GATE_USAGE = 'createToolGate expects { agentName, tools, policy?, grants?, receipts?, grantScope?, proposalTtlMs?, onDecision?, notExecutedOutput?, invalidInputOutput?, includePath?, jsonSchemaOptions? }';

function createToolGate(options) {
  const opts = readOptions(options, GATE_USAGE);
  if (opts === null) throw invalidArgument(GATE_USAGE);
  const agentName = own(opts, 'agentName');
  if (!isId(agentName)) throw invalidArgument('options.agentName must be a non-empty well-formed string');
  const { grants, given: grantsGiven } = readGrants(opts);
  // Execution receipts, keyed by { agentName, Mastra's runId, the provider's call id }: by
  // default those in the grants' store (durable grants), else the shared memory receipts;
  // none with `receipts: false`.
  const receipts = readReceipts(opts, grants, 'mastra');
  const scopeOption = own(opts, 'grantScope');
  if (scopeOption !== undefined && scopeOption !== null && typeof scopeOption !== 'function' && !isWellFormedString(scopeOption)) {
    throw invalidArgument('options.grantScope must be a well-formed string or a function of the run ({ requestContext, runId, threadId, resourceId })');
  }
  if (typeof scopeOption === 'function' && isProxy(scopeOption)) throw invalidArgument('options.grantScope must not be a Proxy');
  const proposalTtlMs = readProposalTtl(opts);
  const onDecision = readOnDecision(opts);
  const notExecutedOutput = own(opts, 'notExecutedOutput') ?? defaultNotExecutedOutput;
  const invalidInputOutput = own(opts, 'invalidInputOutput') ?? defaultInvalidInputOutput;
  if (typeof notExecutedOutput !== 'function' || typeof invalidInputOutput !== 'function') {
    throw invalidArgument('options.notExecutedOutput and options.invalidInputOutput must be functions');
  }
  const includePath = own(opts, 'includePath') === true;
  const jsonSchemaOptions = readJsonSchemaOptions(opts);

  // The grants' methods, read once.
  const grantsGrant = own(grants, 'grant');
  const keepProposal = own(grants, 'keepProposal');
  const keptProposal = own(grants, 'keptProposal');
  const forgetProposal = own(grants, 'forgetProposal');
  if (typeof keepProposal !== 'function' || typeof keptProposal !== 'function' || typeof forgetProposal !== 'function') {
    throw invalidArgument('options.grants must be an object made by createApprovalGrants (keepProposal, keptProposal, forgetProposal)');
  }

  const entries = readTools(own(opts, 'tools'), jsonSchemaOptions);
  // The application's policy behind the grants' wrapper: it decides first, an approved hash
  // answers its require_approval.
  const byName = entriesWithPolicies(entries, own(opts, 'policy'), grants, grantsGiven);

  const notice = approvedWithoutGrantNotice(ADAPTER, HOW_TO_APPROVE);
  const texts = new RecordedTexts();

  /** The kept proposal's key: Mastra's run and the call, namespaced by agent and grant scope. */
  function keyOf(scope, runId, toolCallId) {
    return { runId: keptRunId('mastra', agentName, scope, runId), toolCallId };
  }

  /**
   * Where a proposal goes once `approve` granted it: no longer waiting (approve and decline
   * never look here), still what Mastra's resumed call is checked against.
   */
  function approvedKeyOf(scope, runId, toolCallId) {
    return { runId: keptRunId('mastra-approved', agentName, scope, runId), toolCallId };
  }

  const keepOptionsOf = (scope) => keepOptions(scope, proposalTtlMs);

  /** The grant scope of a run: the option's string, or what its function answers (null: none). */
  async function scopeOfRun(call) {
    if (typeof scopeOption !== 'function') return scopeOption ?? null;
    const scope = await scopeOption({ requestContext: call.requestContext, runId: call.runId, threadId: call.threadId, resourceId: call.resourceId });
    if (scope === undefined || scope === null) return null;
    if (!isWellFormedString(scope)) throw invalidArgument('options.grantScope returned something other than a well-formed string, null or undefined');
    return scope;
  }

  function notExecuted(decision, reason, decidedBy) {
    return notExecutedOutput({ decision, reason, decidedBy });
  }

  async function decide(entry, prepared, call, argumentsSource, resume) {
    const policyContext = { toolCallId: call.toolCallId, runId: call.runId, argumentsSource, resume, requestContext: call.requestContext };
    // Defined, not assigned: a setter planted on Object.prototype cannot swallow them.
    if (call.threadId !== undefined) setData(policyContext, 'threadId', call.threadId);
    if (call.resourceId !== undefined) setData(policyContext, 'resourceId', call.resourceId);
    if (call.scope !== null) setData(policyContext, 'grantScope', call.scope);
    return decideCall(prepared, entry.policy, policyContext, call.toolCallId, onDecision, { toolCallId: call.toolCallId, runId: call.runId, argumentsSource, resume });
  }

  /** The receipt key of a call: the agent, Mastra's run and the provider's call id. */
  function receiptKeyOf(call) {
    return receiptKey(agentName, call.runId, call.toolCallId);
  }

  /**
   * Runs the handler for an allow: the app's execute on a new execution view, at most once
   * per call with receipts (a replay answers the model with the receipt's code, or with the
   * kept result when the receipts keep results).
   */
  async function runAllowed(entry, decision, context) {
    try {
      return await executeDecision(decision, async (view) => {
        const output = await ReflectApply(entry.execute, undefined, [view, context]);
        if (entry.outputSchema === undefined || entry.outputSchema === null) return output;
        // Mastra's own output check (the gated tool has none of its own, so a refusal
        // answered to the model is never checked as the tool's output).
        const checked = validateToolOutput(entry.outputSchema, output, entry.toolName);
        return own(checked, 'error') !== undefined ? own(checked, 'error') : own(checked, 'data');
      }, executeOptions(receipts));
    } catch (error) {
      // The grant the allow relied on could not be spent (used up, store down): not run.
      if (isGrantUnavailable(error)) return notExecuted('deny', 'grant_unavailable', 'runtime');
      // The call's receipt refused it (ran already, running, unknown outcome, other arguments).
      const code = receiptRefusalCode(error);
      if (code !== undefined) return notExecuted('deny', code, 'runtime');
      throw error;
    }
  }

  /** A call Mastra runs for the first time: its text recorded, its decision made now. */
  async function firstAttempt(entry, recorded, call, context) {
    let prepared;
    try {
      prepared = await prepareToolCallAsync({ agentName, toolName: entry.toolName, rawArguments: recorded.text, schema: entry.schema, includePath, toolCallId: call.toolCallId, runId: call.runId });
    } catch (error) {
      if (isToolArgumentsValidationError(error)) return invalidInputOutput(error);
      throw error;
    }
    const decision = await decide(entry, prepared, call, 'provider_text', false);
    if (decision.decision === 'allow') return runAllowed(entry, decision, context);
    if (decision.decision === 'deny') return notExecutedOutput({ decision: 'deny', reason: decision.reason, decidedBy: decision.decidedBy });
    const suspend = own(call.agent, 'suspend');
    if (typeof suspend !== 'function') return notExecutedOutput({ decision: 'require_approval', reason: decision.reason, decidedBy: decision.decidedBy });
    try {
      await ReflectApply(keepProposal, grants, [keyOf(call.scope, call.runId, call.toolCallId), decision.proposal, keepOptionsOf(call.scope)]);
    } catch {
      // Asking a reviewer who could never grant it is refused instead (fails closed).
      return notExecuted('deny', 'grant_store_unavailable', 'runtime');
    }
    // Mastra's approval flow: a tool-call-approval chunk, the run suspended, resumed by
    // approveToolCall / declineToolCall. (Run eagerly, Mastra's suspend throws so that the
    // step raises the suspension itself: that error is Mastra's and passes through.)
    await ReflectApply(suspend, call.agent, [{ toolName: entry.toolName }, { requireToolApproval: true }]);
    return undefined;
  }

  /**
   * A call without a recorded text: Mastra resuming an approval (its stored arguments), or
   * a call whose text never passed `gate.model` (refused: `no_provider_text`).
   */
  async function resumedAttempt(entry, args, call, context) {
    // Approved through the gate (moved by approve), else still waiting (approved the Mastra
    // way only, or a stale resume).
    let key = approvedKeyOf(call.scope, call.runId, call.toolCallId);
    let approved = true;
    let kept;
    try {
      kept = await ReflectApply(keptProposal, grants, [key]);
      if (kept === undefined) {
        key = keyOf(call.scope, call.runId, call.toolCallId);
        approved = false;
        kept = await ReflectApply(keptProposal, grants, [key]);
      }
    } catch (error) {
      // A kept record that does not verify (changed in the store, a bad seal) runs nothing.
      if (isApprovalGrantError(error) || isSnapshotDomainError(error)) {
        await forget(key);
        return notExecuted('deny', 'proposal_changed', 'runtime');
      }
      return notExecuted('deny', 'grant_store_unavailable', 'runtime');
    }
    let prepared;
    try {
      // Mastra stored only its parsed object: its RFC 8785 form is what is prepared. A
      // provider's compat layer may have set fields to undefined in it (absent in storage).
      const rawArguments = canonicalize(withoutUndefined(args, 0), { includePath });
      // Without a kept proposal and without receipts there is nothing to check it against.
      if (kept === undefined && receipts === undefined) return invalidInputOutput(callError(entry.toolName, NO_PROVIDER_TEXT));
      prepared = await prepareToolCallAsync({ agentName, toolName: entry.toolName, rawArguments, schema: entry.schema, includePath, toolCallId: call.toolCallId, runId: call.runId });
    } catch (error) {
      if (!isToolArgumentsValidationError(error) && !isSnapshotDomainError(error)) throw error;
      if (kept === undefined) return invalidInputOutput(callError(entry.toolName, NO_PROVIDER_TEXT));
      await forget(key);
      return notExecuted('deny', 'proposal_changed', 'runtime');
    }
    if (kept === undefined) {
      // Nothing waits for this call: a replay of a call that already ran (its receipt says
      // so), else a call that never passed gate.model.
      const code = await replayCode(receipts, receiptKeyOf(call), prepared.proposalHash);
      if (code !== undefined) return notExecuted('deny', code, 'runtime');
      return invalidInputOutput(callError(entry.toolName, NO_PROVIDER_TEXT));
    }
    if (prepared.proposalHash !== own(kept, 'proposalHash') || own(kept, 'toolName') !== entry.toolName || own(kept, 'agentName') !== agentName) {
      // The stored arguments are not the ones the reviewer was asked about.
      await forget(key);
      return notExecuted('deny', 'proposal_changed', 'runtime');
    }
    // The kept record stays until this call is settled: a resume of the same run at the
    // same time (a redelivered job, a second worker) still finds it, and is refused by the
    // call's receipt, or by its grant.
    try {
      const decision = await decide(entry, prepared, call, 'history', true);
      if (decision.decision === 'allow') return await runAllowed(entry, decision, context);
      if (decision.decision === 'deny') return notExecutedOutput({ decision: 'deny', reason: decision.reason, decidedBy: decision.decidedBy });
      // Nothing allows this hash now. A call that ran already: its receipt's code.
      const code = await replayCode(receipts, receiptKeyOf(call), prepared.proposalHash);
      if (code !== undefined) return notExecuted('deny', code, 'runtime');
      // Approved through the gate, its grant used or expired.
      if (approved) return notExecuted('deny', 'grant_unavailable', 'runtime');
      // Resumed by Mastra (approveToolCall) while no grant allows this exact hash.
      notice();
      return notExecuted('deny', APPROVED_WITHOUT_GRANT, 'runtime');
    } finally {
      await forget(key);
    }
  }

  async function forget(key) {
    try {
      await ReflectApply(forgetProposal, grants, [key]);
    } catch {
      // A kept proposal left behind expires (proposalTtlMs) or is pruned; it grants nothing.
    }
  }

  function executorFor(entry) {
    return async function execute(inputData, context) {
      const agent = own(context, 'agent');
      const call = {
        agent,
        toolCallId: own(agent, 'toolCallId'),
        runId: own(context, 'runId'),
        threadId: own(agent, 'threadId'),
        resourceId: own(agent, 'resourceId'),
        requestContext: own(context, 'requestContext'),
        scope: null,
      };
      if (typeof call.threadId !== 'string') call.threadId = undefined;
      if (typeof call.resourceId !== 'string') call.resourceId = undefined;
      if (!isId(call.toolCallId)) return invalidInputOutput(callError(entry.toolName, MISSING_CALL_ID));
      // Outside an agent run (a workflow step, a direct execute) there is no provider text.
      if (!isId(call.runId)) return invalidInputOutput(callError(entry.toolName, NO_PROVIDER_TEXT));
      try {
        call.scope = await scopeOfRun(call);
      } catch {
        return notExecuted('deny', 'invalid_grant_scope', 'runtime');
      }
      const recorded = texts.take(call.toolCallId, entry.toolName, inputData);
      if (recorded === DUPLICATE || recorded === UNPAIRED) return invalidInputOutput(callError(entry.toolName, recorded.code));
      if (recorded !== undefined) return firstAttempt(entry, recorded, call, context);
      return resumedAttempt(entry, inputData, call, context);
    };
  }

  const tools = {};
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const mastraOptions = {};
    const names = ObjectGetOwnPropertyNames(entry.options);
    for (let j = 0; j < names.length; j++) {
      let replaced = false;
      for (let k = 0; k < REPLACED_OPTIONS.length; k++) if (REPLACED_OPTIONS[k] === names[j]) replaced = true;
      if (!replaced) setData(mastraOptions, names[j], own(entry.options, names[j]));
    }
    if (own(mastraOptions, 'id') === undefined) setData(mastraOptions, 'id', entry.toolName);
    setData(mastraOptions, 'inputSchema', wireSchemaOf(entry.inputSchema));
    setData(mastraOptions, 'execute', executorFor(entry));
    // The policy decides what needs approval: no second approval gate of Mastra's.
    setData(mastraOptions, 'requireApproval', false);
    setData(tools, entry.toolName, mastraCreateTool(mastraOptions));
  }

  /** Whether a tool-call part is one of a gated tool, run by Mastra (not by the provider). */
  function gatedCall(part) {
    if (part === null || typeof part !== 'object' || own(part, 'type') !== 'tool-call') return false;
    if (own(part, 'providerExecuted') === true) return false;
    const toolName = own(part, 'toolName');
    return typeof toolName === 'string' && MapPrototypeGet(byName, toolName) !== undefined;
  }

  /**
   * Records the gated tool calls of one complete response: `parts` (tool calls, or all the
   * response's content parts) and the ids of other calls it made. An id used twice in the
   * response marks each of its calls.
   */
  function recordResponse(parts, otherIds) {
    const uses = callIdUses(parts, otherIds);
    const response = {};
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (!gatedCall(part)) continue;
      const id = own(part, 'toolCallId');
      const text = own(part, 'input');
      // A call without an id cannot be paired: its execute refuses it (missing_call_id).
      if (!isId(id) || typeof text !== 'string') continue;
      texts.add(id, { toolName: own(part, 'toolName'), text, response, duplicate: MapPrototypeGet(uses, id) > 1, lenient: undefined });
    }
  }

  function wrapModel(languageModel) {
    if (languageModel === null || typeof languageModel !== 'object' || isProxy(languageModel)) {
      throw invalidArgument('gate.model expects an AI SDK language model (v2, v3 or v4), a Mastra model id string, or a function returning one');
    }
    const specificationVersion = languageModel.specificationVersion;
    if (specificationVersion !== 'v2' && specificationVersion !== 'v3' && specificationVersion !== 'v4') {
      throw invalidArgument('gate.model expects a language model of specification v2, v3 or v4 (what Mastra runs through its agent loop)');
    }
    const doGenerate = languageModel.doGenerate;
    const doStream = languageModel.doStream;
    if (typeof doGenerate !== 'function' || typeof doStream !== 'function') throw invalidArgument('gate.model expects a language model with doGenerate and doStream');
    const wrapped = {
      specificationVersion,
      provider: languageModel.provider,
      modelId: languageModel.modelId,
      get supportedUrls() {
        return languageModel.supportedUrls;
      },
      async doGenerate(callOptions) {
        const result = await ReflectApply(doGenerate, languageModel, [callOptions]);
        const content = own(result, 'content');
        if (ArrayIsArray(content)) recordResponse(content, []);
        return result;
      },
      async doStream(callOptions) {
        const result = await ReflectApply(doStream, languageModel, [callOptions]);
        // The gated calls of the response are held until it is complete, then recorded
        // and passed on together, right before its `finish` part (or at its end).
        return recordingResult(result, gatedCall, recordResponse);
      },
    };
    // What Mastra reads of a model besides the specification (its schema compat layers ask
    // `supportsStructuredOutputs`), read through from the model when it has them.
    for (let i = 0; i < PASSED_THROUGH.length; i++) {
      const name = PASSED_THROUGH[i];
      if (name in languageModel) ObjectDefineProperty(wrapped, name, { __proto__: null, get: () => languageModel[name], enumerable: true, configurable: true });
    }
    return wrapped;
  }

  /**
   * The model Mastra's agent runs, recording provider texts: an AI SDK language model
   * (v2, v3, v4), a Mastra model id such as 'openai/gpt-5' (through Mastra's model
   * router), or a function of the request returning one (Mastra's dynamic model).
   */
  function model(languageModel) {
    if (typeof languageModel === 'function' && !isProxy(languageModel)) {
      const resolve = languageModel;
      return async (args) => model(await resolve(args));
    }
    if (typeof languageModel === 'string' || (languageModel !== null && typeof languageModel === 'object' && !isProxy(languageModel) && typeof languageModel.doStream !== 'function' && typeof own(languageModel, 'id') === 'string')) {
      const ModelRouterLanguageModel = modelRouter();
      return wrapModel(new ModelRouterLanguageModel(languageModel));
    }
    return wrapModel(languageModel);
  }

  /** The proposal waiting for approval of this call of this run (sealed with a key ring), or undefined. */
  async function kept(request) {
    const ref = approvalRef(request, 'keptProposal');
    return ReflectApply(keptProposal, grants, [keyOf(scopeOfRequest(ref), ref.runId, ref.toolCallId)]);
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
    if (optionScope !== undefined && optionScope !== null && !isWellFormedString(optionScope)) throw invalidArgument('pending: options.grantScope must be a well-formed string or null');
    const refs = pendingRefs(source);
    const listed = [];
    const read = (key) => ReflectApply(keptProposal, grants, [key]);
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i];
      if (ref.grantScope === undefined && optionScope !== undefined) ref.grantScope = optionScope;
      const found = await reviewKept(read, keyOf(scopeOfRequest(ref), ref.runId, ref.toolCallId));
      if (found === undefined) continue;
      if (found.error !== undefined) ArrayPrototypePush(listed, { runId: ref.runId, toolCallId: ref.toolCallId, error: found.error });
      else ArrayPrototypePush(listed, { runId: ref.runId, toolCallId: ref.toolCallId, toolName: own(found.proposal, 'toolName'), proposal: found.proposal });
    }
    return listed;
  }

  /** The scope of a request: its own `grantScope`, else the gate's string scope (a function needs the request's). */
  function scopeOfRequest(ref) {
    if (ref.grantScope !== undefined) return ref.grantScope;
    if (typeof scopeOption === 'function') {
      throw invalidArgument('this gate\'s grantScope is a function of the run: pass the run\'s scope as `grantScope` with { runId, toolCallId }');
    }
    return scopeOption ?? null;
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
    const scope = scopeOfRequest(ref);
    const gopts = readOptions(grantOptions, 'approve options');
    const passed = grantOptionsOf(gopts, scope);
    const key = keyOf(scope, ref.runId, ref.toolCallId);
    const record = await ReflectApply(keptProposal, grants, [key]);
    if (record === undefined) throw notPendingError();
    // Another approval of the same record granted it first (seal_used): not pending.
    await grantOnce(grantsGrant, grants, record, passed, isApprovalGrantError, notPendingError);
    // Granted: no longer waiting. Kept apart for the resumed call's check, then forgotten here.
    await ReflectApply(keepProposal, grants, [approvedKeyOf(scope, ref.runId, ref.toolCallId), record, keepOptionsOf(scope)]);
    await ReflectApply(forgetProposal, grants, [key]);
    return record;
  }

  /**
   * The reviewer declined this call: forgets its kept proposal, so no approval can be given
   * for it any more. Then `agent.declineToolCall({ runId, toolCallId })`.
   */
  async function decline(request) {
    const ref = approvalRef(request, 'decline');
    const key = keyOf(scopeOfRequest(ref), ref.runId, ref.toolCallId);
    const record = await ReflectApply(keptProposal, grants, [key]);
    if (record === undefined) throw notPendingError();
    await ReflectApply(forgetProposal, grants, [key]);
  }

  return ObjectFreeze({ tools: ObjectFreeze(tools), model, keptProposal: kept, pending, approve, decline, grants });
}

module.exports = { createToolGate, createTool };
