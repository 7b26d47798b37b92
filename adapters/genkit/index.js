'use strict';
// tool-argument-snapshot/genkit: RFC-0016 for Genkit (the `genkit` package, 1.42).
// createToolGate assembles the gate: Genkit tools whose calls are decided and run by the
// gate's generate middleware (its `tool` hook sees each tool request with its ref), an
// approval that is Genkit's own interrupt carrying the proposal, and approve / decline /
// pending that grant exactly that proposal, so that a restart runs only the approved hash
// (Genkit's `resumed.toolApproved` is a value the caller sets: the gate never reads it as
// an approval). Built on the gate kernel (adapters/gate/). How: docs/adapters/genkit.md.

const {
  prepareToolCallAsync, canonicalize, isToolArgumentsValidationError, isSnapshotDomainError, isApprovalGrantError,
  ToolArgumentsValidationError,
} = require('tool-argument-snapshot');
const { ADAPTER, genkitModule } = require('./framework');
const {
  ArrayIsArray, ArrayPrototypePush, isProxy, MapPrototypeGet, ObjectFreeze, ReflectApply, randomUUID,
} = require('../gate/primordials');
const { invalidArgument, own, setData, readOptions, isWellFormedString, isId } = require('../gate/read');
const { readGrants, readOnDecision, readProposalTtl, readJsonSchemaOptions, entriesWithPolicies } = require('../gate/options');
const { decideCall } = require('../gate/decide');
const { executeDecision, isGrantUnavailable } = require('../gate/execute');
const { readReceipts, receiptKey } = require('../gate/receipts');
const { executeOptions, receiptRefusalCode, replayCode } = require('../gate/replays');
const { reviewKept } = require('../gate/pending');
const { proposalStore, keptRunId, keepOptions, grantOptions: grantOptionsOf, grantOnce, grantsMethod, noPendingProposalError } = require('../gate/proposals');
const { approvedWithoutGrantNotice, APPROVED_WITHOUT_GRANT } = require('../gate/warnings');
const { readTools } = require('./tools');

const USAGE = 'createToolGate expects { agentName, tools, ai?, policy?, grants?, receipts?, grantScope?, proposalTtlMs?, onDecision?, includePath?, jsonSchemaOptions? }';
/** Where the gate's interrupt keeps what it says (the approval request) in Genkit's interrupt metadata. */
const META_KEY = 'tool-argument-snapshot';
const HOW_TO_APPROVE = 'grant the reviewer\'s approval with `await gate.approve(interrupt)` before restarting the tool; `resumed: { toolApproved: true }` alone approves nothing.';

function notExecutedOutput(decision, reason, decidedBy) {
  const message = decision === 'require_approval'
    ? `The tool call was not executed: it waits for a reviewer's approval (${reason}).`
    : `The tool call was not executed (${decision}: ${reason}).`;
  return { error: true, message, decision, reason, decidedBy };
}

function invalidInputOutput(error) {
  return { error: true, message: `${own(error, 'message')} Please call the tool again with valid arguments.`, stage: own(error, 'stage'), code: own(error, 'code') };
}

function notPendingError() {
  return noPendingProposalError('no proposal is waiting for approval for this tool call of this run (approved, declined, expired, or never asked under this agent and grant scope)');
}

/**
 * The approval reference of `request`: `{ runId?, toolCallId, grantScope? }`, or an interrupt
 * Genkit lists (`response.interrupts[i]`: the tool request's `ref`, and the run id and grant
 * scope the gate put in its interrupt metadata). Read as own data.
 */
function approvalRef(request, what) {
  const usage = `${what} expects an interrupt of the gate (response.interrupts[i]) or { runId?, toolCallId, grantScope? }`;
  if (request === null || typeof request !== 'object' || isProxy(request)) throw invalidArgument(usage);
  let runId = own(request, 'runId');
  let toolCallId = own(request, 'toolCallId');
  let grantScope = own(request, 'grantScope');
  const toolRequest = own(request, 'toolRequest');
  if (toolCallId === undefined && toolRequest !== undefined) {
    toolCallId = own(toolRequest, 'ref');
    const said = own(own(own(request, 'metadata'), 'interrupt'), META_KEY);
    if (runId === undefined) runId = own(said, 'runId');
    if (grantScope === undefined && said !== undefined && own(said, 'grantScope') !== undefined) grantScope = own(said, 'grantScope');
  }
  if (runId === null) runId = undefined;
  if ((runId !== undefined && !isId(runId)) || !isId(toolCallId)) throw invalidArgument(usage);
  if (grantScope !== undefined && grantScope !== null && !isWellFormedString(grantScope)) throw invalidArgument(`${what}: grantScope must be a well-formed string or null`);
  return { runId, toolCallId, grantScope };
}

/** The references `pending` reads: a generate response (`interrupts`), interrupts, references, or an array of these. */
function pendingRefs(source) {
  const refs = [];
  const add = (item) => {
    if (item === null || typeof item !== 'object' || isProxy(item)) throw invalidArgument('pending expects the interrupts of a generate response (response.interrupts), one of them, { runId?, toolCallId }, or an array of these');
    const interrupts = own(item, 'interrupts');
    if (ArrayIsArray(interrupts) && !isProxy(interrupts)) {
      for (let i = 0; i < interrupts.length; i++) ArrayPrototypePush(refs, approvalRef(interrupts[i], 'pending'));
      return;
    }
    ArrayPrototypePush(refs, approvalRef(item, 'pending'));
  };
  if (ArrayIsArray(source) && !isProxy(source)) for (let i = 0; i < source.length; i++) add(source[i]);
  else add(source);
  return refs;
}

/** A run id or grant scope of the middleware's config: a well-formed string, or absent. */
function configString(config, key) {
  const value = own(config, key);
  if (value === undefined || value === null) return undefined;
  if (!isWellFormedString(value) || value === '') throw invalidArgument(`the gate's middleware: config.${key} must be a non-empty well-formed string`);
  return value;
}

function createToolGate(options) {
  const opts = readOptions(options, USAGE);
  if (opts === null) throw invalidArgument(USAGE);
  // The framework first: a gate made without Genkit names the package to install.
  const { dynamicTool, generateMiddleware, ToolInterruptError } = genkitModule();
  const agentName = own(opts, 'agentName');
  if (!isId(agentName)) throw invalidArgument('options.agentName must be a non-empty well-formed string');
  const { grants, given: grantsGiven } = readGrants(opts);
  // Receipts keyed by { agentName, the run id given to the middleware, the tool request's
  // ref }: by default in the grants' own store. A call of a run without a run id executes
  // without receipts (refs such as "call_1" recur across conversations).
  const receipts = readReceipts(opts, grants, ADAPTER);
  const scopeOption = own(opts, 'grantScope');
  if (scopeOption !== undefined && scopeOption !== null && !isWellFormedString(scopeOption)) throw invalidArgument('options.grantScope must be a well-formed string (or give the middleware config.grantScope per run)');
  const proposalTtlMs = readProposalTtl(opts);
  const onDecision = readOnDecision(opts);
  const includePath = own(opts, 'includePath') === true;
  const jsonSchemaOptions = readJsonSchemaOptions(opts);
  const ai = own(opts, 'ai');
  if (ai !== undefined && (ai === null || typeof ai !== 'object' || isProxy(ai) || typeof ai.defineTool !== 'function')) {
    throw invalidArgument('options.ai must be the Genkit instance (genkit({ ... })) the tools are defined in');
  }
  const store = proposalStore(grants);
  if (!store.present) throw invalidArgument('options.grants must be an object made by createApprovalGrants (keepProposal, keptProposal, forgetProposal)');
  const grantsGrant = grantsMethod(grants, 'grant');

  const entries = readTools(own(opts, 'tools'), jsonSchemaOptions);
  // The grants' policy first (an approved hash allows), then the application's.
  const byName = entriesWithPolicies(entries, own(opts, 'policy'), grants, grantsGiven);
  const notice = approvedWithoutGrantNotice(ADAPTER, HOW_TO_APPROVE);

  function keyOf(scope, runId, toolCallId) {
    return { runId: keptRunId('genkit', agentName, scope, runId ?? ''), toolCallId };
  }

  function scopeOfRequest(ref) {
    if (ref.grantScope !== undefined) return ref.grantScope;
    return scopeOption ?? null;
  }

  function toolResponse(toolRequest, output) {
    const response = { name: own(toolRequest, 'name'), output };
    const ref = own(toolRequest, 'ref');
    if (ref !== undefined) setData(response, 'ref', ref);
    return { toolResponse: response };
  }

  /** The middleware's tool hook for one of the gate's tools: decide, then run, refuse or interrupt. */
  async function gatedCall(entry, req, ctx, config) {
    const toolRequest = own(req, 'toolRequest');
    const ref = own(toolRequest, 'ref');
    if (!isId(ref)) return toolResponse(toolRequest, invalidInputOutput(new ToolArgumentsValidationError('json', entry.toolName, 'missing_call_id')));
    let runId;
    let scope;
    try {
      runId = configString(config, 'runId');
      scope = configString(config, 'grantScope') ?? scopeOption ?? null;
    } catch {
      return toolResponse(toolRequest, notExecutedOutput('deny', 'invalid_middleware_config', 'runtime'));
    }
    // A restart the caller marked (`resumed`): it is prepared and decided like any call;
    // only a grant of this exact hash lets it run.
    const resumed = own(own(req, 'metadata'), 'resumed') !== undefined;
    let prepared;
    try {
      // Genkit hands the middleware the object its model plugin parsed from the provider's
      // arguments: its RFC 8785 form is what is prepared (a getter, a Proxy or a non-JSON
      // value is refused unread).
      let rawArguments;
      try {
        rawArguments = canonicalize(own(toolRequest, 'input') ?? {}, { includePath });
      } catch (error) {
        if (!isSnapshotDomainError(error)) throw error;
        throw new ToolArgumentsValidationError('snapshot', entry.toolName, own(error, 'code'));
      }
      const prepareInput = { agentName, toolName: entry.toolName, rawArguments, schema: entry.schema, includePath, toolCallId: ref };
      if (runId !== undefined) setData(prepareInput, 'runId', runId);
      prepared = await prepareToolCallAsync(prepareInput);
    } catch (error) {
      if (isToolArgumentsValidationError(error)) return toolResponse(toolRequest, invalidInputOutput(error));
      throw error;
    }
    const policyContext = { toolCallId: ref, argumentsSource: 'genkit_input', resume: resumed };
    if (runId !== undefined) setData(policyContext, 'runId', runId);
    if (scope !== null) setData(policyContext, 'grantScope', scope);
    const info = { toolCallId: ref, runId: runId ?? null, argumentsSource: 'genkit_input', resume: resumed };
    const decision = await decideCall(prepared, entry.policy, policyContext, ref, onDecision, info);
    if (decision.decision === 'deny') return toolResponse(toolRequest, notExecutedOutput('deny', decision.reason, decision.decidedBy));
    if (decision.decision === 'require_approval') {
      if (resumed) {
        // A restart no grant allows: approved the Genkit way only (`resumed: { toolApproved:
        // true }`), or restarted with other arguments than the approved ones (an edited
        // history, `replaceInput`). Not run. (It is answered, not interrupted again: Genkit
        // 1.42 fails a generate whose restarted tool interrupts.)
        // A restart of a call that already ran (its grant spent): its receipt's code.
        const code = runId === undefined ? undefined : await replayCode(receipts, receiptKey(agentName, runId, ref), prepared.proposalHash);
        if (code !== undefined) return toolResponse(toolRequest, notExecutedOutput('deny', code, 'runtime'));
        notice();
        return toolResponse(toolRequest, notExecutedOutput('deny', APPROVED_WITHOUT_GRANT, 'runtime'));
      }
      let kept;
      try {
        kept = await store.keep(keyOf(scope, runId, ref), decision.proposal, keepOptions(scope, proposalTtlMs));
      } catch {
        return toolResponse(toolRequest, notExecutedOutput('deny', 'grant_store_unavailable', 'runtime'));
      }
      const said = { proposal: kept ?? decision.proposal, reason: decision.reason, decidedBy: decision.decidedBy, runId: runId ?? null };
      if (scope !== null) setData(said, 'grantScope', scope);
      // Genkit's interrupt: the generate ends `interrupted`, the request listed in
      // `response.interrupts` with this metadata (the approval request, with its proposal).
      throw new ToolInterruptError({ [META_KEY]: said });
    }
    try {
      const output = await executeDecision(decision, (view) => ReflectApply(entry.execute, undefined, [view, ctx]), runId === undefined ? undefined : executeOptions(receipts));
      return toolResponse(toolRequest, output === undefined ? null : output);
    } catch (error) {
      if (isGrantUnavailable(error)) return toolResponse(toolRequest, notExecutedOutput('deny', 'grant_unavailable', 'runtime'));
      const code = receiptRefusalCode(error);
      if (code !== undefined) return toolResponse(toolRequest, notExecutedOutput('deny', code, 'runtime'));
      throw error;
    }
  }

  const middleware = generateMiddleware(
    // A name of this gate's own: Genkit keeps the first middleware registered under a name,
    // so two gates of one agent in one Genkit instance must not share it.
    { name: `tool-argument-snapshot/${agentName}/${randomUUID()}`, description: 'RFC-0016: every call of the gate\'s tools decided on its snapshot' },
    ({ config }) => ({
      async tool(req, ctx, next) {
        const name = own(own(req, 'toolRequest'), 'name');
        const entry = typeof name === 'string' ? MapPrototypeGet(byName, name) : undefined;
        // Another tool of the generate: not the gate's to decide.
        if (entry === undefined) return next(req, ctx);
        return gatedCall(entry, req, ctx, config);
      },
    }),
  );

  const tools = [];
  const toolsByName = {};
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    // Genkit lists the JSON Schema; the function runs only when the gate's middleware is
    // not in the generate (the middleware answers every call itself): it runs nothing.
    // Defined in the app's Genkit instance when given (`ai.defineTool`), else a dynamic tool.
    const config = { name: entry.toolName, description: entry.description, inputJsonSchema: entry.jsonSchema };
    const refuse = async () => notExecutedOutput('deny', 'not_decided_by_gate', 'runtime');
    const genkitTool = ai === undefined ? dynamicTool(config, refuse) : ai.defineTool(config, refuse);
    ArrayPrototypePush(tools, genkitTool);
    setData(toolsByName, entry.toolName, genkitTool);
  }

  /** The `use` entry of a generate: the gate's middleware with the run's id (and grant scope). */
  function use(config) {
    const given = readOptions(config, 'use options');
    const passed = {};
    if (given !== null) {
      const runId = configString(given, 'runId');
      const grantScope = configString(given, 'grantScope');
      if (runId !== undefined) setData(passed, 'runId', runId);
      if (grantScope !== undefined) setData(passed, 'grantScope', grantScope);
    }
    return middleware(passed);
  }

  async function kept(request) {
    const ref = approvalRef(request, 'keptProposal');
    return store.kept(keyOf(scopeOfRequest(ref), ref.runId, ref.toolCallId));
  }

  /**
   * The calls of `source` whose proposals wait for a reviewer: `{ runId, toolCallId,
   * toolName, proposal }` for each kept proposal that verifies (read from the store, never
   * from the interrupt), `{ runId, toolCallId, error: { name, code } }` for one that does not.
   */
  async function pending(source) {
    const refs = pendingRefs(source);
    const listed = [];
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i];
      const found = await reviewKept(store.kept, keyOf(scopeOfRequest(ref), ref.runId, ref.toolCallId));
      if (found === undefined) continue;
      const runId = ref.runId ?? null;
      if (found.error !== undefined) ArrayPrototypePush(listed, { runId, toolCallId: ref.toolCallId, error: found.error });
      else ArrayPrototypePush(listed, { runId, toolCallId: ref.toolCallId, toolName: own(found.proposal, 'toolName'), proposal: found.proposal });
    }
    return listed;
  }

  /**
   * The reviewer approved this interrupt: grants exactly the proposal the gate kept for the
   * call (not what the interrupt says), once. Then restart the tool
   * (`tool.restart(interrupt)` in `resume.restart`), here or in another process sharing the
   * grants' store: the restart runs only if its arguments have that hash.
   */
  async function approve(request, grantOptions) {
    const ref = approvalRef(request, 'approve');
    const scope = scopeOfRequest(ref);
    const passed = grantOptionsOf(readOptions(grantOptions, 'approve options'), scope);
    const key = keyOf(scope, ref.runId, ref.toolCallId);
    const record = await store.kept(key);
    if (record === undefined) throw notPendingError();
    await grantOnce(grantsGrant, grants, record, passed, isApprovalGrantError, notPendingError);
    await store.forget(key);
    return record;
  }

  /** The reviewer declined: the kept proposal is forgotten (answer the interrupt with `tool.respond`). */
  async function decline(request) {
    const ref = approvalRef(request, 'decline');
    const key = keyOf(scopeOfRequest(ref), ref.runId, ref.toolCallId);
    const record = await store.kept(key);
    if (record === undefined) throw notPendingError();
    await store.forget(key);
  }

  return ObjectFreeze({
    tools: ObjectFreeze(tools),
    toolsByName: ObjectFreeze(toolsByName),
    middleware,
    use,
    keptProposal: kept,
    pending,
    approve,
    decline,
    grants,
    receipts,
  });
}

module.exports = { createToolGate, INTERRUPT_METADATA_KEY: META_KEY };
