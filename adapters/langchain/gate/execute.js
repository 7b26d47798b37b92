'use strict';
// One attempt of a call: prepare, evaluate, and run an allow through the tool's own `_call`
// (LangChain's callbacks and ToolMessage, no second schema run); its error answers.

const { own, setData, ownDataCopy, isWellFormedString } = require('../../gate/read');
const { ObjectDefineProperty, ReflectApply, SafeError } = require('../../gate/primordials');
const { core, api } = require('./core');
const { CALL_PROBLEMS } = require('./calls');

const { decideCall } = require('../../gate/decide');
const { executeDecision } = require('../../gate/execute');
const { executeOptionsOf, afterExecution } = require('./receipts');

const { prepareToolCallAsync, createSnapshot, decodeView, isToolArgumentsValidationError, isToolCallNotAllowedError } = api;
/** LangChain's ToolMessage class (@langchain/core is loaded at the adapter's first use). */
function toolMessageClass() {
  return core().messages.ToolMessage;
}

let SnapshotToolExecution;

/**
 * The StructuredTool that runs an allowed call, made at the first one (it extends
 * @langchain/core's class). Its schema (`{}`, a JSON schema that accepts anything) is all
 * `StructuredTool.call` validates, so the tool's zod does not run again; `call` still runs
 * the callbacks and makes the ToolMessage. `_call` ignores its input (the callbacks' own
 * view) and lets executeToolCall hand the tool's `_call` a new execution view.
 */
function snapshotToolExecution() {
  if (SnapshotToolExecution !== undefined) return SnapshotToolExecution;
  const { StructuredTool } = core().tools;
  SnapshotToolExecution = class SnapshotToolExecution extends StructuredTool {
    static lc_name() {
      return 'SnapshotToolExecution';
    }

    #run;

    constructor(entry, run) {
      const { target } = entry;
      super({
        callbacks: own(target, 'callbacks'),
        tags: own(target, 'tags'),
        metadata: own(target, 'metadata'),
        verbose: own(target, 'verbose'),
        responseFormat: own(target, 'responseFormat'),
      });
      this.name = entry.name;
      this.description = own(target, 'description') ?? '';
      this.schema = {};
      this.returnDirect = own(target, 'returnDirect') === true;
      this.#run = run;
    }

    _call(_callbackView, runManager, config) {
      return this.#run(runManager, config);
    }
  };
  return SnapshotToolExecution;
}

/** The error LangChain rejects with for an aborted signal (its reason when that is an Error). */
function abortError(signal) {
  const reason = signal.reason;
  if (reason instanceof SafeError) return reason;
  return new SafeError(typeof reason === 'string' ? reason : 'Aborted');
}

/** An error ToolMessage (a call without an id is answered with an empty `tool_call_id`). */
function errorMessage(id, name, content) {
  const ToolMessage = toolMessageClass();
  return new ToolMessage({ status: 'error', tool_call_id: id === undefined ? '' : id, name, content });
}

/** LangChain's invalid-input error, with the package's error as `cause` and no payload. */
function invalidInput(error) {
  const { ToolInputParsingException } = core().tools;
  const exception = new ToolInputParsingException(error.message);
  ObjectDefineProperty(exception, 'cause', { __proto__: null, value: error, enumerable: false, writable: true, configurable: true });
  return exception;
}

/** The invalid-input error of a call that cannot be paired (its code says why; no payload). */
function callProblemError(code) {
  const error = new SafeError(`${CALL_PROBLEMS[code]} [${code}]`);
  setData(error, 'code', code);
  return error;
}

/** The fields of an `invalid_input` result for a package error or a call problem. */
function invalidFields(id, name, error) {
  const stage = own(error, 'stage');
  return {
    status: 'invalid_input',
    code: own(error, 'code'),
    stage: stage === undefined ? 'call' : stage,
    error: invalidInput(error),
    message: errorMessage(id, name, error.message),
  };
}

/**
 * One attempt's preparation: the argument text (the provider's own, else the RFC 8785
 * text of an object: no getter runs; -0, lone surrogates and non-JSON values fail at
 * stage snapshot), strict decoding, the tool's schema once, the snapshot. `run` (the
 * call's receipts and run, or undefined) gives the prepared call its `runId`, the run of
 * its execution receipt (never hashed). Resolves to `{ prepared }` or `{ invalid }` (a
 * ToolArgumentsValidationError).
 */
async function prepareAttempt(gate, entry, id, text, args, run) {
  const { agentName, includePath } = gate;
  const toolName = entry.name;
  try {
    const rawArguments = text !== undefined ? text : createSnapshot({ agentName, toolName, value: args, includePath }).argsCanonicalJson;
    const input = { agentName, toolName, rawArguments, schema: entry.schema, includePath, toolCallId: id };
    if (run !== undefined && run.runId !== undefined) setData(input, 'runId', run.runId);
    return { prepared: await prepareToolCallAsync(input), invalid: undefined };
  } catch (error) {
    if (!isToolArgumentsValidationError(error)) throw error;
    return { prepared: undefined, invalid: error };
  }
}

/** The policy input's extra fields: the caller's context, then the call's id and source. */
function policyContextOf(context, id, argumentsSource) {
  const policyContext = ownDataCopy(context);
  setData(policyContext, 'toolCallId', id);
  setData(policyContext, 'argumentsSource', argumentsSource);
  return policyContext;
}

/** `policyContext.grantScope` (own data) or null: the scope a kept or sealed proposal gets. */
function scopeOf(policyContext) {
  const scope = own(policyContext, 'grantScope');
  return isWellFormedString(scope) ? scope : null;
}

function evaluate(entry, prepared, policyContext, id) {
  return decideCall(prepared, entry.policy, policyContext, id, undefined);
}

/**
 * Runs an allowed decision through the tool's own `_call` (LangChain's callbacks and
 * ToolMessage formatting, no second zod) with an execution view of its own, under the
 * gate's grants and the call's receipts (`run`, or undefined for none). Resolves to
 * `{ executed: true, output, replayed }` (`replayed`: the receipts' kept result came back,
 * the tool did not run) or, when executeToolCall refused before the tool ran (the grant
 * spent by another attempt first, a receipt: `call_already_executed`,
 * `execution_in_progress`, `outcome_unknown`, `call_id_conflict`, `call_id_required`,
 * `receipt_store_unavailable`), `{ executed: false, reason }` with its code.
 */
async function executeAllowed(gate, entry, decision, id, config, run) {
  let started = false;
  const Execution = snapshotToolExecution();
  const execution = new Execution(entry, (runManager, runConfig) => {
    // LangChain's tool() wrapper checks the signal only once the handler runs, which is
    // after the grant was spent: an aborted run stops here and keeps the grant.
    const signal = own(runConfig, 'signal');
    if (signal !== undefined && signal !== null && signal.aborted === true) throw abortError(signal);
    return executeDecision(
      decision,
      (args) => {
        started = true;
        return ReflectApply(entry.call, entry.target, [args, runManager, runConfig]);
      },
      executeOptionsOf(gate, run),
    );
  });
  try {
    // The callbacks (and config.toolCall) get a view of their own, never the handler's.
    const output = await execution.invoke({ type: 'tool_call', id, name: entry.name, args: decodeView(decision.argsCanonicalJson) }, config);
    afterExecution(run);
    return { executed: true, output, replayed: !started, reason: undefined };
  } catch (error) {
    if (!started && isToolCallNotAllowedError(error)) {
      const code = own(error, 'code');
      return { executed: false, output: undefined, replayed: false, reason: typeof code === 'string' ? code : 'not_allowed' };
    }
    throw error;
  }
}

module.exports = {
  toolMessageClass,
  errorMessage,
  callProblemError,
  invalidFields,
  prepareAttempt,
  policyContextOf,
  scopeOf,
  evaluate,
  executeAllowed,
};
