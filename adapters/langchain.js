'use strict';
// tool-argument-snapshot/langchain: RFC-0016 for LangChain.js core 1.x.
//
// Where LangChain still has the provider's text: an OpenAI-style integration keeps the
// raw argument string in `additional_kwargs.tool_calls[].function.arguments` (and, for a
// concatenated stream, in `tool_call_chunks[].args`); `tool_calls[].args` is already a
// lenient `JSON.parse` of it (duplicate keys: the last wins). The gate decodes the text
// strictly, runs the tool's schema once (through the package, never through
// `tool.invoke`, which would run zod again), asks the policy, and executes the tool's own
// `_call` from a StructuredTool of its own whose schema accepts anything, so LangChain's
// callbacks and ToolMessage formatting still apply while nothing validates twice.
// Providers that return objects (Anthropic, Gemini) have no text: the gate marks those
// calls `argumentsSource: 'object'` for the policy and in proposals, and cannot decode
// them strictly.
//
// Core has no approval mechanism: `require_approval` calls come back as pending
// proposals; the caller grants one by hash and runs the same message again for that call.

let core;
try {
  core = {
    tools: require('@langchain/core/tools'),
    messages: require('@langchain/core/messages'),
  };
} catch (error) {
  if (error === null || typeof error !== 'object' || error.code !== 'MODULE_NOT_FOUND') throw error;
  const missing = new Error('tool-argument-snapshot/langchain needs @langchain/core 1.x (an optional peer dependency): npm install @langchain/core');
  Object.defineProperty(missing, 'code', { value: 'MODULE_NOT_FOUND', enumerable: true });
  throw missing;
}

const {
  prepareToolCallAsync,
  evaluateToolCall,
  executeToolCall,
  createSnapshot,
  decodeView,
  isToolArgumentsValidationError,
  isToolCallNotAllowedError,
} = require('tool-argument-snapshot');

const { StructuredTool, ToolInputParsingException } = core.tools;
const { ToolMessage } = core.messages;

// Built-ins, captured when the adapter loads.
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectGetOwnPropertyNames = Object.getOwnPropertyNames;
const ObjectHasOwn = Object.hasOwn;
const ObjectFreeze = Object.freeze;
const ObjectDefineProperty = Object.defineProperty;
const ArrayIsArray = Array.isArray;
const ReflectApply = Reflect.apply;
const SafeMap = Map;
const SafeSet = Set;
const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
const MapPrototypeGet = uncurryThis(Map.prototype.get);
const MapPrototypeSet = uncurryThis(Map.prototype.set);
const MapPrototypeHas = uncurryThis(Map.prototype.has);
const SetPrototypeHas = uncurryThis(Set.prototype.has);
const SetPrototypeAdd = uncurryThis(Set.prototype.add);
const ArrayPrototypePush = uncurryThis(Array.prototype.push);
const StringPrototypeIsWellFormed = uncurryThis(String.prototype.isWellFormed);

function invalidArgument(message) {
  const error = new TypeError(message);
  ObjectDefineProperty(error, 'code', { __proto__: null, value: 'ERR_INVALID_ARG_TYPE', enumerable: true });
  return error;
}

/** An own data property of `object`, or undefined (getters and inherited values never count). */
function own(object, key) {
  if (object === null || (typeof object !== 'object' && typeof object !== 'function')) return undefined;
  const descriptor = ObjectGetOwnPropertyDescriptor(object, key);
  return descriptor !== undefined && ObjectHasOwn(descriptor, 'value') ? descriptor.value : undefined;
}

/** The own data properties of `object` as a new plain record (getters are not run). */
function ownDataCopy(object) {
  const copy = {};
  if (object === null || typeof object !== 'object') return copy;
  const names = ObjectGetOwnPropertyNames(object);
  for (let i = 0; i < names.length; i++) {
    const descriptor = ObjectGetOwnPropertyDescriptor(object, names[i]);
    if (descriptor.enumerable && ObjectHasOwn(descriptor, 'value')) {
      ObjectDefineProperty(copy, names[i], { __proto__: null, value: descriptor.value, enumerable: true, writable: true, configurable: true });
    }
  }
  return copy;
}

/** The elements of an own data array property, or an empty list. */
function ownArray(object, key) {
  const value = own(object, key);
  return ArrayIsArray(value) ? value : [];
}

function isSchema(schema) {
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function')) return false;
  if (typeof schema === 'function') return true;
  return typeof schema.parse === 'function' || typeof schema.parseAsync === 'function' || (schema['~standard'] !== null && typeof schema['~standard'] === 'object');
}

/**
 * One entry per tool: its name, the schema the package runs (the same object LangChain
 * would run in `tool.invoke` and converts for `bindTools`), and its `_call`, read once.
 */
function readTools(tools) {
  if (!ArrayIsArray(tools)) throw invalidArgument('options.tools must be an array of LangChain tools');
  const byName = new SafeMap();
  for (let i = 0; i < tools.length; i++) {
    const target = tools[i];
    if (target === null || typeof target !== 'object') throw invalidArgument(`options.tools[${i}] must be a LangChain tool`);
    const name = own(target, 'name');
    if (typeof name !== 'string' || name === '') throw invalidArgument(`options.tools[${i}] must have an own string name`);
    const call = target._call;
    if (typeof call !== 'function') throw invalidArgument(`options.tools[${i}] must be a StructuredTool (a _call method)`);
    const schema = own(target, 'schema');
    if (!isSchema(schema)) {
      throw invalidArgument(`options.tools[${i}] must have a zod or Standard Schema schema (a JSON-schema tool has no schema the package can run)`);
    }
    if (MapPrototypeHas(byName, name)) throw invalidArgument(`options.tools has two tools with the name at index ${i}`);
    MapPrototypeSet(byName, name, ObjectFreeze({ target, name, schema, call }));
  }
  return byName;
}

/** The provider's raw argument strings of an OpenAI-style message, by tool call id. */
function rawArgumentsById(message) {
  const byId = new SafeMap();
  const rawCalls = ownArray(own(message, 'additional_kwargs'), 'tool_calls');
  for (let i = 0; i < rawCalls.length; i++) {
    const id = own(rawCalls[i], 'id');
    const fn = own(rawCalls[i], 'function');
    const name = own(fn, 'name');
    const text = own(fn, 'arguments');
    if (typeof id === 'string' && typeof name === 'string' && typeof text === 'string' && !MapPrototypeHas(byId, id)) {
      MapPrototypeSet(byId, id, { name, text });
    }
  }
  return byId;
}

/**
 * The tool calls of a message, in order, each with where its arguments come from:
 * `provider_text` (the provider's own string) or `object` (a parsed object, no text).
 */
function toolCallsOf(message) {
  if (message === null || typeof message !== 'object') throw invalidArgument('run expects an AIMessage (or an AIMessageChunk)');
  const raw = rawArgumentsById(message);
  const calls = [];
  function add(id, name, text, args) {
    if (typeof name !== 'string') return;
    const entry = typeof id === 'string' ? MapPrototypeGet(raw, id) : undefined;
    if (entry !== undefined && entry.name === name) ArrayPrototypePush(calls, { id, name, argumentsSource: 'provider_text', text: entry.text });
    else if (typeof text === 'string') ArrayPrototypePush(calls, { id, name, argumentsSource: 'provider_text', text });
    else ArrayPrototypePush(calls, { id, name, argumentsSource: 'object', args });
  }
  const toolCalls = own(message, 'tool_calls');
  if (ArrayIsArray(toolCalls)) {
    for (let i = 0; i < toolCalls.length; i++) add(own(toolCalls[i], 'id'), own(toolCalls[i], 'name'), undefined, own(toolCalls[i], 'args'));
    // Calls whose text the integration could not parse keep that text as `args`.
    const invalid = ownArray(message, 'invalid_tool_calls');
    for (let i = 0; i < invalid.length; i++) {
      const args = own(invalid[i], 'args');
      add(own(invalid[i], 'id'), own(invalid[i], 'name'), typeof args === 'string' ? args : '', undefined);
    }
    return calls;
  }
  // An AIMessageChunk computes tool_calls lazily from its chunks: read the chunks, whose
  // `args` is the concatenated provider text.
  const chunks = ownArray(message, 'tool_call_chunks');
  for (let i = 0; i < chunks.length; i++) {
    const args = own(chunks[i], 'args');
    add(own(chunks[i], 'id'), own(chunks[i], 'name'), typeof args === 'string' ? args : '', undefined);
  }
  return calls;
}

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
  if (reason instanceof Error) return reason;
  return new Error(typeof reason === 'string' ? reason : 'Aborted');
}

function toolMessage(id, name, content) {
  return new ToolMessage({ status: 'error', tool_call_id: id, name, content });
}

/** LangChain's invalid-input error, with the package's error as `cause` and no payload. */
function invalidInput(error) {
  const exception = new ToolInputParsingException(error.message);
  ObjectDefineProperty(exception, 'cause', { __proto__: null, value: error, enumerable: false, writable: true, configurable: true });
  return exception;
}

function createToolGate(options) {
  if (options === null || typeof options !== 'object') throw invalidArgument('createToolGate expects { agentName, tools, policy?, grants? }');
  const agentName = own(options, 'agentName');
  if (typeof agentName !== 'string' || !StringPrototypeIsWellFormed(agentName)) throw invalidArgument('options.agentName must be a well-formed string');
  const tools = readTools(own(options, 'tools'));
  const appPolicy = own(options, 'policy');
  if (appPolicy !== undefined && typeof appPolicy !== 'function') throw invalidArgument('options.policy must be a function');
  const grants = own(options, 'grants');
  if (grants !== undefined && (grants === null || typeof grants !== 'object')) throw invalidArgument('options.grants must be an object made by createApprovalGrants');
  const includePath = own(options, 'includePath') === true;

  // With grants, an unspent grant for exactly this agent, tool and hash allows; every
  // other call goes to the application's policy. Without a policy and without grants,
  // evaluateToolCall denies (policy_not_configured).
  let policy = appPolicy;
  if (grants !== undefined) {
    const helper = own(grants, 'policy');
    if (typeof helper !== 'function' || typeof own(grants, 'spend') !== 'function') {
      throw invalidArgument('options.grants must have own policy and spend functions (createApprovalGrants)');
    }
    policy = ReflectApply(helper, grants, appPolicy === undefined ? [] : [appPolicy]);
  }
  const executeOptions = grants === undefined ? undefined : { grants };

  async function runOne(call, config, context) {
    const { id, name, argumentsSource } = call;
    const base = { toolCallId: id, toolName: name, argumentsSource };
    const entry = MapPrototypeGet(tools, name);
    if (entry === undefined) {
      return { ...base, status: 'unknown_tool', message: toolMessage(id, name, 'This tool does not exist [unknown_tool].') };
    }

    let prepared;
    try {
      // An object has no provider text: its strict canonical form (no getter runs; -0,
      // lone surrogates and non-JSON values fail at stage snapshot) stands in, marked.
      const rawArguments = argumentsSource === 'provider_text' ? call.text : createSnapshot({ agentName, toolName: name, value: call.args, includePath }).argsCanonicalJson;
      prepared = await prepareToolCallAsync({ agentName, toolName: name, rawArguments, schema: entry.schema, includePath });
    } catch (error) {
      if (!isToolArgumentsValidationError(error)) throw error;
      return { ...base, status: 'invalid_input', error: invalidInput(error), message: toolMessage(id, name, error.message) };
    }

    const policyContext = ownDataCopy(context);
    policyContext.toolCallId = id;
    policyContext.argumentsSource = argumentsSource;
    const decision = await evaluateToolCall({ prepared, policy, policyContext });
    const verdict = { ...base, decision, decidedBy: decision.decidedBy, reason: decision.reason };

    if (decision.decision === 'require_approval') {
      const { proposal } = decision;
      const pending = ObjectFreeze({
        kind: proposal.kind,
        agentName: proposal.agentName,
        toolName: proposal.toolName,
        rawArguments: proposal.rawArguments,
        parsedArguments: proposal.parsedArguments,
        argsCanonicalJson: proposal.argsCanonicalJson,
        proposalHash: proposal.proposalHash,
        reason: proposal.reason,
        toolCallId: id,
        argumentsSource,
      });
      return { ...verdict, status: 'pending', proposal: pending };
    }
    if (decision.decision !== 'allow') {
      return { ...verdict, status: 'denied', message: toolMessage(id, name, `The tool call was denied [${decision.reason}].`) };
    }

    let started = false;
    const execution = new SnapshotToolExecution(entry, (runManager, runConfig) => {
      // LangChain's tool() wrapper checks the signal only once the handler runs, which is
      // after the grant was spent: an aborted run stops here and keeps the grant.
      const signal = own(runConfig, 'signal');
      if (signal !== undefined && signal !== null && signal.aborted === true) throw abortError(signal);
      return executeToolCall(
        decision,
        (args) => {
          started = true;
          return ReflectApply(entry.call, entry.target, [args, runManager, runConfig]);
        },
        executeOptions,
      );
    });
    let output;
    try {
      // The callbacks (and config.toolCall) get a view of their own, never the handler's.
      output = await execution.invoke({ type: 'tool_call', id, name, args: decodeView(decision.argsCanonicalJson) }, config);
    } catch (error) {
      if (!started && isToolCallNotAllowedError(error) && error.code === 'grant_unavailable') {
        return { ...verdict, status: 'denied', decidedBy: 'runtime', reason: 'grant_unavailable', message: toolMessage(id, name, 'The tool call was denied [grant_unavailable].') };
      }
      throw error;
    }
    const executed = { ...verdict, status: 'executed' };
    if (ToolMessage.isInstance(output)) executed.message = output;
    else executed.output = output;
    return executed;
  }

  async function run(message, runOptions) {
    const calls = toolCallsOf(message);
    const opts = runOptions === undefined || runOptions === null ? null : runOptions;
    if (opts !== null && typeof opts !== 'object') throw invalidArgument('run options must be an object');
    const config = opts === null ? undefined : own(opts, 'config');
    const context = opts === null ? undefined : own(opts, 'policyContext');
    const only = opts === null ? undefined : own(opts, 'toolCallIds');
    if (only !== undefined && !ArrayIsArray(only)) throw invalidArgument('options.toolCallIds must be an array of strings');
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
      const result = ObjectFreeze(await runOne(call, config, context));
      ArrayPrototypePush(results, result);
      if (result.message !== undefined) ArrayPrototypePush(messages, result.message);
      if (result.status === 'pending') ArrayPrototypePush(pending, result.proposal);
    }
    return ObjectFreeze({ messages, pending, results });
  }

  return ObjectFreeze({ agentName, run });
}

module.exports = { createToolGate };
