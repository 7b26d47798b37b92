'use strict';
// One attempt of a call: prepare, evaluate, and run an allow through the tool's own `_call`
// (LangChain's callbacks and ToolMessage, no second schema run); its error answers.

const { own, setData, ownDataCopy, isWellFormedString } = require('../../shared');
const {
  ObjectDefineProperty, ReflectApply, SafeError,
} = require('../../gate/primordials');
const { core, api } = require('./core');
const { CALL_PROBLEMS } = require('./calls');

const { decideCall } = require('../../gate/decide');
const { executeDecision, isGrantUnavailable } = require('../../gate/execute');

const { prepareToolCallAsync, createSnapshot, decodeView, isToolArgumentsValidationError } = api;
const { StructuredTool, ToolInputParsingException } = core.tools;
const { ToolMessage } = core.messages;

/**
 * The StructuredTool that runs an allowed call. Its schema (`{}`, a JSON schema that
 * accepts anything) is all `StructuredTool.call` validates, so the tool's zod does not
 * run again; `call` still runs the callbacks and makes the ToolMessage. `_call` ignores
 * its input (the callbacks' own view) and lets executeToolCall hand the tool's `_call` a
 * new execution view.
 */
class SnapshotToolExecution extends StructuredTool {
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
}

/** The error LangChain rejects with for an aborted signal (its reason when that is an Error). */
function abortError(signal) {
  const reason = signal.reason;
  if (reason instanceof SafeError) return reason;
  return new SafeError(typeof reason === 'string' ? reason : 'Aborted');
}

/** An error ToolMessage (a call without an id is answered with an empty `tool_call_id`). */
function errorMessage(id, name, content) {
  return new ToolMessage({ status: 'error', tool_call_id: id === undefined ? '' : id, name, content });
}

/** LangChain's invalid-input error, with the package's error as `cause` and no payload. */
function invalidInput(error) {
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
 * stage snapshot), strict decoding, the tool's schema once, the snapshot. Resolves to
 * `{ prepared }` or `{ invalid }` (a ToolArgumentsValidationError).
 */
async function prepareAttempt(gate, entry, id, text, args) {
  const { agentName, includePath } = gate;
  const toolName = entry.name;
  try {
    const rawArguments = text !== undefined ? text : createSnapshot({ agentName, toolName, value: args, includePath }).argsCanonicalJson;
    return { prepared: await prepareToolCallAsync({ agentName, toolName, rawArguments, schema: entry.schema, includePath, toolCallId: id }), invalid: undefined };
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
 * ToolMessage formatting, no second zod) with an execution view of its own. Resolves to
 * `{ executed: true, output }` or, when the grant was spent by another attempt first,
 * `{ executed: false }`.
 */
async function executeAllowed(gate, entry, decision, id, config) {
  let started = false;
  const execution = new SnapshotToolExecution(entry, (runManager, runConfig) => {
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
      gate.executeOptions,
    );
  });
  try {
    // The callbacks (and config.toolCall) get a view of their own, never the handler's.
    const output = await execution.invoke({ type: 'tool_call', id, name: entry.name, args: decodeView(decision.argsCanonicalJson) }, config);
    return { executed: true, output };
  } catch (error) {
    if (!started && isGrantUnavailable(error)) return { executed: false, output: undefined };
    throw error;
  }
}

module.exports = {
  ToolMessage, errorMessage, callProblemError, invalidFields, prepareAttempt, policyContextOf, scopeOf, evaluate, executeAllowed,
};
