'use strict';
// The gated SDK function tools: `needsApproval` decides on the captured text, `execute` on
// the exact text it is given; `tool(options)` and `tools(list)` make them.

const { own, setData, ownDataCopy } = require('../gate/read');
const { APPROVED_WITHOUT_GRANT } = require('../gate/warnings');
const {
  ArrayIsArray, ArrayPrototypePush, MapPrototypeGet, MapPrototypeSet, MapPrototypeDelete, JSONParse, JSONStringify, ObjectFreeze, ReflectApply, isProxy,
} = require('../gate/primordials');
const { sdk, api, ADAPTER, invalidArgument } = require('./common');
const { isZodSchema } = require('./zod-nulls');
const { isSchemaObject, zodStrictNullStep, jsonStrictNullStep } = require('./json-nulls');
const { SDK_DEFAULT_ERROR_OUTPUT, wireSchemaOf, isJsonSchema, jsonSchemaStep, GATE_TOOL_FIELDS } = require('./schemas');

const { executeDecision, isGrantUnavailable } = require('../gate/execute');
const { pruneShared } = require('../gate/receipts');

const {
  ToolArgumentsValidationError, canonicalize, isToolArgumentsValidationError: isValidationError, isToolCallNotAllowedError,
} = api;

/** The codes a receipt refuses an attempt with (executeToolCall's ToolCallNotAllowedError). */
const RECEIPT_CODES = ObjectFreeze({
  __proto__: null,
  call_id_required: true, call_already_executed: true, call_id_conflict: true, execution_in_progress: true,
  outcome_unknown: true, receipt_store_unavailable: true,
});

function isReceiptRefusal(error) {
  return isToolCallNotAllowedError(error) && RECEIPT_CODES[own(error, 'code')] === true;
}

/** The code an attempt of `proposalHash` would be refused with by this receipt (receipts.get's record). */
function receiptCode(receipt, proposalHash) {
  if (own(receipt, 'proposalHash') !== proposalHash) return 'call_id_conflict';
  const status = own(receipt, 'status');
  if (status === 'in_progress') return 'execution_in_progress';
  if (status === 'outcome_unknown') return 'outcome_unknown';
  return 'call_already_executed';
}
/** The SDK's tool(), called as it was taken from the SDK (no `this`). */
function sdkTool(options) {
  const tool = sdk().tool;
  return tool(options);
}

/** The tool makers of one gate (`g`: its options and per-run state). */
function createTools(g) {
  const { agentName, grants, sealing, executeOptions, receipts, receiptsGiven, notExecutedOutput, invalidInputOutput, notice, toolNames } = g;
  const { runRecord, attempt, takeCaptured, carriedEntry, carry, carriedProposal, forget, carriedApproved, forgetApproved } = g;

  // readReceipts checked it is an own data function.
  const receiptsGet = receipts !== undefined ? own(receipts, 'get') : undefined;
  const runtimeDeny = (reason) => notExecutedOutput({ decision: 'deny', decidedBy: 'runtime', reason });

  /**
   * Why an approved call whose new attempt still requires approval does not run: a call
   * that already ran (or runs, or ran with other arguments) answers with its receipt's code;
   * a call approved through the package for other arguments is `proposal_changed`, for the
   * same ones with its grant gone `grant_unavailable`; only an approval given the SDK's own
   * way (state.approve without a grant) is `approved_without_grant`, with its warning.
   */
  async function approvedButNotAllowed(decision, toolName, callId, runId, approvedHash) {
    const proposalHash = own(decision, 'proposalHash');
    if (receipts !== undefined) {
      let receipt;
      try {
        receipt = await ReflectApply(receiptsGet, receipts, [{ agentName, runId, toolCallId: callId }]);
      } catch {
        return runtimeDeny('receipt_store_unavailable');
      }
      if (receipt !== null && receipt !== undefined) return runtimeDeny(receiptCode(receipt, proposalHash));
    }
    if (approvedHash !== undefined) return runtimeDeny(approvedHash === proposalHash ? 'grant_unavailable' : 'proposal_changed');
    notice();
    return runtimeDeny(APPROVED_WITHOUT_GRANT);
  }

  /**
   * The hash this call was approved for through the package: by gate.approve (recorded in
   * this process and carried in the state), or by granting the carried proposal (the
   * documented `grants.grant(sealed)` before `state.approve`): a live grant for it.
   */
  async function approvedHashOf(runContext, callId, toolName, waiting) {
    const run = runRecord(runContext);
    const live = MapPrototypeGet(run.approved, callId);
    if (live !== undefined && live.toolName === toolName) return live.proposalHash;
    const carried = carriedApproved(runContext, callId);
    if (carried !== undefined && carried.toolName === toolName) return carried.proposalHash;
    if (waiting === undefined || grants === undefined) return undefined;
    const hash = own(waiting.proposal, 'proposalHash');
    if (typeof hash !== 'string') return undefined;
    try {
      const has = await own(grants, 'has')({ agentName, toolName, proposalHash: hash, scope: waiting.scope ?? null });
      return has === true ? hash : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The SDK function tool of a gated tool: `needsApproval` decides on the captured text,
   * `execute` on the exact text it is given, `handler(args, runContext, details)` runs on an
   * execution view of an allow.
   */
  function gatedTool(rest, schemaStep, wireSchema, strict, handler, errorFunction) {
    let toolName;

    async function needsApprovalHook(runContext, _sdkCopy, callId) {
      // A call the SDK already approved (a resume) is decided in execute, on its raw string.
      if (typeof callId !== 'string' || callId === '') return false; // execute answers it as invalid input
      if (runContext.isToolApproved({ toolName, callId }) === true) return true;
      const run = runRecord(runContext);
      const call = takeCaptured(callId);
      if (call === undefined) {
        // A call of a resumed run: not from this turn's model response. If it was waiting
        // for approval (this process, or carried in the restored state), it keeps waiting.
        if (MapPrototypeGet(run.pending, callId) !== undefined || carriedEntry(runContext, callId) !== undefined) return true;
        throw new Error(`tool-argument-snapshot/${ADAPTER}: no raw arguments were captured for this call; give the agent gate.model(model)`);
      }
      if (call.name !== toolName) {
        throw new Error(`tool-argument-snapshot/${ADAPTER}: the captured call does not name this tool`);
      }
      const result = await attempt(toolName, schemaStep, call.rawArguments, runContext, callId);
      MapPrototypeSet(run.attempts, callId, result);
      if (result.decision !== undefined && result.decision.decision === 'require_approval') {
        const proposal = result.decision.proposal;
        const sealed = sealing ? own(grants, 'seal')(proposal, result.scope !== null ? { scope: result.scope } : undefined) : undefined;
        MapPrototypeSet(run.pending, callId, { __proto__: null, toolName, rawArguments: call.rawArguments, proposal, sealed, scope: result.scope });
        carry(runContext, callId, { toolName, rawArguments: call.rawArguments, reason: proposal.reason, scope: result.scope, proposal: carriedProposal(proposal, sealed) });
        return true;
      }
      return false;
    }

    async function executeHook(_sdkInput, runContext, details) {
      const toolCall = own(details, 'toolCall');
      const rawArguments = own(toolCall, 'arguments');
      const callId = own(toolCall, 'callId');
      if (typeof rawArguments !== 'string') {
        throw new Error(`tool-argument-snapshot/${ADAPTER}: the SDK gave execute no raw arguments`);
      }
      if (typeof callId !== 'string' || callId === '') {
        // Receipts the app gave key every call by its id: without one nothing runs.
        if (receiptsGiven) return runtimeDeny('call_id_required');
        throw new ToolArgumentsValidationError('json', toolName, 'missing_call_id');
      }
      const run = runRecord(runContext);
      let result = MapPrototypeGet(run.attempts, callId);
      MapPrototypeDelete(run.attempts, callId);
      // What waited for approval, read before it is forgotten (a grant of it counts as a package approval).
      const live = MapPrototypeGet(run.pending, callId);
      const waiting = live !== undefined ? live : carriedEntry(runContext, callId);
      forget(runContext, callId);
      // The decision of needsApproval counts only for the very string it was made for, and
      // an approval request never executes: anything else is a new attempt.
      if (result === undefined || result.rawArguments !== rawArguments ||
          (result.decision !== undefined && result.decision.decision === 'require_approval')) {
        result = await attempt(toolName, schemaStep, rawArguments, runContext, callId);
      }
      if (result.error !== undefined) throw result.error;
      const decision = result.decision;
      // The package approval of this call, if any, is settled by this attempt.
      const approvedInSdk = decision.decision === 'require_approval' && runContext.isToolApproved({ toolName, callId }) === true;
      const approvedHash = approvedInSdk ? await approvedHashOf(runContext, callId, toolName, waiting) : undefined;
      MapPrototypeDelete(run.approved, callId);
      forgetApproved(runContext, callId);
      // Approved in the SDK, with no grant for what would execute.
      if (approvedInSdk) return approvedButNotAllowed(decision, toolName, callId, result.runId, approvedHash);
      if (decision.decision !== 'allow') return notExecutedOutput(decision);
      try {
        return await executeDecision(decision, (args) => handler(args, runContext, details), executeOptions);
      } catch (error) {
        if (isGrantUnavailable(error)) return runtimeDeny('grant_unavailable');
        // A call that already ran, runs elsewhere, ran with other arguments, or whose
        // outcome is unknown: refused by its receipt, answered as every other refusal.
        if (isReceiptRefusal(error)) return runtimeDeny(own(error, 'code'));
        throw error;
      } finally {
        pruneShared(receipts);
      }
    }

    function errorHook(runContext, error, details) {
      if (isValidationError(error)) return invalidInputOutput(error);
      if (errorFunction === null) throw error;
      if (errorFunction === undefined) return SDK_DEFAULT_ERROR_OUTPUT;
      return errorFunction(runContext, error, details);
    }

    const made = sdkTool({
      ...rest,
      parameters: wireSchema,
      strict,
      needsApproval: needsApprovalHook,
      execute: executeHook,
      errorFunction: errorHook,
    });
    toolName = made.name;
    MapPrototypeSet(toolNames, toolName, true);
    return made;
  }

  function tool(toolOptions) {
    if (toolOptions === null || typeof toolOptions !== 'object' || isProxy(toolOptions)) {
      throw invalidArgument('tool expects the options of the SDK tool()');
    }
    // Own data properties only: inherited values never count and no getter runs (a copy of
    // the own enumerable data properties; the gate's own fields taken out of it).
    const rest = ownDataCopy(toolOptions);
    const schema = own(rest, 'parameters');
    const handler = own(rest, 'execute');
    const jsonSchema = own(rest, 'jsonSchema');
    const needsApproval = own(rest, 'needsApproval');
    const errorFunction = own(rest, 'errorFunction');
    for (let i = 0; i < GATE_TOOL_FIELDS.length; i++) delete rest[GATE_TOOL_FIELDS[i]];
    if (typeof handler !== 'function') throw invalidArgument('tool options need an execute function');
    if (typeof own(rest, 'name') !== 'string' || own(rest, 'name') === '') throw invalidArgument('tool options need a name');
    if (needsApproval !== undefined) {
      throw invalidArgument('tool options must not set needsApproval: the policy decides (return require_approval)');
    }
    const strict = own(rest, 'strict') === undefined ? true : own(rest, 'strict');
    let wireSchema;
    let schemaStep;
    if (isJsonSchema(schema)) {
      // A JSON Schema: validated by fromJsonSchema (Ajv) once per attempt; the model sees it
      // as given (the SDK makes it strict in strict mode).
      const standard = jsonSchemaStep(schema);
      wireSchema = JSONParse(JSONStringify(jsonSchema !== undefined ? jsonSchema : schema));
      schemaStep = strict ? jsonStrictNullStep(standard, schema) : standard;
    } else {
      // Round-tripped through JSON: plain data the SDK cannot mistake for a validator (zod 4's
      // JSON Schema output carries `~standard`, and the SDK would run it as the schema).
      wireSchema = JSONParse(JSONStringify(jsonSchema !== undefined ? jsonSchema : wireSchemaOf(own(rest, 'name'), schema)));
      schemaStep = strict && isZodSchema(schema) ? zodStrictNullStep(schema) : schema;
    }
    return gatedTool(rest, schemaStep, wireSchema, strict, handler, errorFunction);
  }

  /**
   * Gated copies of SDK function tools with JSON schemas: the MCP tools of
   * `agent.getAllTools()` / `getAllMcpTools()`, or tools made by the SDK's `tool()` with a
   * JSON schema. Each call is paired with its provider text by the run's call id (an MCP
   * server's callTool gets no call id), validated once by fromJsonSchema, decided, and on an
   * allow the original tool is invoked with the snapshot's canonical JSON: the MCP server
   * receives exactly the arguments the policy saw.
   */
  function tools(list) {
    if (!ArrayIsArray(list) || isProxy(list)) throw invalidArgument('tools expects an array of SDK function tools');
    const out = [];
    for (let i = 0; i < list.length; i++) {
      const original = list[i];
      if (!isSchemaObject(original) || own(original, 'type') !== 'function' || typeof own(original, 'invoke') !== 'function') {
        throw invalidArgument('tools expects SDK function tools (type "function" with invoke)');
      }
      const name = own(original, 'name');
      const parameters = own(original, 'parameters');
      if (typeof name !== 'string' || name === '' || !isJsonSchema(parameters)) {
        throw invalidArgument('tools expects function tools with a name and a JSON schema');
      }
      const strict = own(original, 'strict') === true;
      const standard = jsonSchemaStep(parameters);
      const schemaStep = strict ? jsonStrictNullStep(standard, parameters) : standard;
      const invoke = own(original, 'invoke');
      const rest = { name, description: own(original, 'description') ?? '' };
      const timeoutMs = own(original, 'timeoutMs');
      if (timeoutMs !== undefined) setData(rest, 'timeoutMs', timeoutMs);
      // The original's invoke parses the text it is given: the canonical JSON of what the
      // policy allowed (no duplicate key, no spelling left to interpret), made by the
      // package's canonicalize, which reads own data only (JSON.stringify would call a
      // toJSON planted on Object.prototype).
      const handler = (args, runContext, details) => invoke(runContext, canonicalize(args), details);
      ArrayPrototypePush(out, gatedTool(rest, schemaStep, JSONParse(JSONStringify(parameters)), strict, handler, own(original, 'errorFunction')));
    }
    return out;
  }

  return { tool, tools };
}

module.exports = { createTools };
