'use strict';
// tool-argument-snapshot/temporal/workflow: the workflow's side of the Temporal gate, for
// the workflow sandbox (no native addon, no Node built-in; it requires only `ai`, which
// @temporalio/ai-sdk bundles into workflows too). It records the text of each tool call of
// the model response the model activity returned (the response Temporal keeps in the
// workflow's history), hands the model AI SDK tools whose input schema validates nothing
// (the schema runs once, in the activity, on that text), and runs each call through the
// worker's activities (tool-argument-snapshot/temporal): runToolCall with the exact text;
// on require_approval, the application's `approval(request)` (a signal the workflow waits
// for) carrying the proposal back, grantToolCall, then runToolCall again.

const { createRecorder, own } = require('../durable/record');

const ObjectFreeze = Object.freeze;
const ObjectDefineProperty = Object.defineProperty;
const ObjectGetOwnPropertyNames = Object.getOwnPropertyNames;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectHasOwn = Object.hasOwn;
const SafeError = Error;
const SafeTypeError = TypeError;

const ADAPTER = 'temporal/workflow';

function setData(object, key, value) {
  ObjectDefineProperty(object, key, { __proto__: null, value, enumerable: true, writable: true, configurable: true });
}

/** An Error with a stable `code`; the message names the code, never a payload. */
function codedError(code, what) {
  const error = new SafeError(`tool-argument-snapshot/${ADAPTER}: ${what} (${code})`);
  ObjectDefineProperty(error, 'code', { __proto__: null, value: code, enumerable: true, writable: false, configurable: true });
  return error;
}

function invalidArgument(message) {
  const error = new SafeTypeError(message);
  ObjectDefineProperty(error, 'code', { __proto__: null, value: 'ERR_INVALID_ARG_TYPE', enumerable: true, writable: false, configurable: true });
  return error;
}

let ai;
function loadAi() {
  if (ai === undefined) {
    try {
      ai = require('ai');
    } catch (error) {
      if (error === null || typeof error !== 'object' || error.code !== 'MODULE_NOT_FOUND') throw error;
      const missing = new SafeError(`tool-argument-snapshot/${ADAPTER} needs the Vercel AI SDK 7 (an optional peer dependency): npm install ai`);
      ObjectDefineProperty(missing, 'code', { __proto__: null, value: 'MODULE_NOT_FOUND', enumerable: true, writable: false, configurable: true });
      ObjectDefineProperty(missing, 'packageName', { __proto__: null, value: 'ai', enumerable: true, writable: false, configurable: true });
      throw missing;
    }
  }
  return ai;
}

/**
 * `options`: `tools` (the tools the model is shown: description and inputSchema; an
 * execute here is never called), `runToolCall` and `grantToolCall` (the activities of
 * createToolActivities, from proxyActivities), `approval(request)` (optional: resolves
 * the reviewer's answer `{ approved, proposal }`, for example once a signal arrived).
 */
function createWorkflowToolGate(options) {
  const sdk = loadAi();
  if (options === null || typeof options !== 'object') throw invalidArgument('createWorkflowToolGate expects { tools, runToolCall, grantToolCall, approval? }');
  const given = own(options, 'tools');
  const runToolCall = own(options, 'runToolCall');
  const grantToolCall = own(options, 'grantToolCall');
  const approval = own(options, 'approval');
  if (given === null || typeof given !== 'object') throw invalidArgument('options.tools must be an object of AI SDK tools');
  if (typeof runToolCall !== 'function' || typeof grantToolCall !== 'function')
    throw invalidArgument('options.runToolCall and options.grantToolCall must be the activities createToolActivities made (from proxyActivities)');
  if (approval !== undefined && typeof approval !== 'function') throw invalidArgument('options.approval must be a function');

  const names = ObjectGetOwnPropertyNames(given);
  const recorder = createRecorder((toolName) => ObjectHasOwn(given, toolName));

  /** The tool's answer to the SDK for an activity's outcome. */
  function answer(outcome) {
    const status = own(outcome, 'status');
    if (status === 'executed') return own(outcome, 'result');
    if (status === 'invalid') {
      const error = codedError(own(outcome, 'code'), "the call's arguments were refused");
      setData(error, 'stage', own(outcome, 'stage'));
      throw error;
    }
    if (status === 'denied') {
      const error = codedError('denied', 'the call was denied');
      setData(error, 'reason', own(outcome, 'reason'));
      setData(error, 'decidedBy', own(outcome, 'decidedBy'));
      throw error;
    }
    if (status === 'refused') throw codedError(own(outcome, 'code'), 'the call must not run');
    throw codedError('unexpected_outcome', 'the activity answered no outcome of the gate');
  }

  function executorFor(toolName) {
    return async function execute(input, executeOptions) {
      const toolCallId = own(executeOptions, 'toolCallId');
      const recorded = recorder.take(toolName, toolCallId);
      if (recorded.refusal !== undefined) throw codedError(recorded.refusal, 'the call has no provider text of its own');
      const request = { toolName, toolCallId, rawArguments: recorded.text };
      let outcome = await runToolCall(request);
      if (own(outcome, 'status') !== 'approval_required') return answer(outcome);
      const asked = own(outcome, 'proposal');
      if (approval === undefined) return answer({ status: 'denied', reason: 'approval_required', decidedBy: 'runtime' });
      const reviewed = await approval(ObjectFreeze({ toolName, toolCallId, reason: own(outcome, 'reason'), proposal: asked }));
      const granted = await grantToolCall({ answer: reviewed, proposal: asked });
      if (own(granted, 'granted') !== true) return answer({ status: 'denied', reason: own(granted, 'refused'), decidedBy: 'runtime' });
      // A new activity (a new id, so a new receipt key): the grant allows exactly this hash.
      outcome = await runToolCall(request);
      if (own(outcome, 'status') === 'approval_required') return answer({ status: 'denied', reason: 'grant_unavailable', decidedBy: 'runtime' });
      return answer(outcome);
    };
  }

  const tools = {};
  for (let i = 0; i < names.length; i++) {
    const toolName = names[i];
    const descriptor = ObjectGetOwnPropertyDescriptor(given, toolName);
    const target = descriptor.value;
    if (!ObjectHasOwn(descriptor, 'value') || target === null || typeof target !== 'object')
      throw invalidArgument(`options.tools["${toolName}"] must be an AI SDK tool (an own data property)`);
    const copy = {};
    const fields = ObjectGetOwnPropertyNames(target);
    for (let j = 0; j < fields.length; j++) {
      const field = ObjectGetOwnPropertyDescriptor(target, fields[j]);
      if (field.enumerable && ObjectHasOwn(field, 'value')) setData(copy, fields[j], field.value);
    }
    const original = own(target, 'inputSchema');
    setData(
      copy,
      'inputSchema',
      sdk.jsonSchema(() => sdk.asSchema(original).jsonSchema, { validate: (value) => ({ success: true, value }) }),
    );
    setData(copy, 'execute', executorFor(toolName));
    delete copy.needsApproval;
    setData(tools, toolName, ObjectFreeze(copy));
  }

  function model(languageModel) {
    return sdk.wrapLanguageModel({ model: languageModel, middleware: recorder.middleware });
  }

  return ObjectFreeze({ tools: ObjectFreeze(tools), model, middleware: recorder.middleware });
}

module.exports = { createWorkflowToolGate };
