'use strict';
// tool-argument-snapshot/ai: RFC-0016 for the Vercel AI SDK (the `ai` package, 7.x).
//
// Where the SDK still has what RFC-0016 needs, and so where this adapter works:
// - The provider's raw argument string exists only inside the model: `gate.model(model)`
//   is a language-model middleware (wrapGenerate / wrapStream) that records the `input`
//   text of every tool call the provider returns, unchanged.
// - The SDK parses that text leniently and then calls the tool's `inputSchema.validate`.
//   The gate gives each tool an `inputSchema` made with `jsonSchema(...)` (the JSON Schema
//   the SDK would have sent) whose `validate` runs the package's prepare step on the
//   recorded text: strict decoding, the tool's own schema exactly once, the snapshot. A
//   JSON, schema or snapshot failure is returned from `validate`, so it takes the SDK's
//   invalid-input path (InvalidToolInputError, a tool-error the model can correct, or
//   repairToolCall); it is never a policy decision. The SDK's zod never runs.
// - `toolApproval` (the hook that can interrupt) evaluates the policy on a fresh view and
//   maps the decision: allow -> not-applicable, deny -> denied, require_approval ->
//   user-approval (the SuspendedToolProposal stays with the gate: `gate.proposalOf(part)`).
// - `execute` never uses the SDK's input object (the one the approval hooks saw): it runs
//   the tool's own `execute` through `executeToolCall`, with a new execution view, at most
//   once, and spends a grant right before it.
// - On resume the SDK replays the approved call from message history, where only a parsed
//   object exists (no provider text): the gate snapshots that object (it must be strict
//   JSON data), runs the schema once, and the policy (grants first) must allow that exact
//   hash. Any other answer becomes `denied`, because on that path the SDK executes
//   everything that is not denied. Edited history has another hash: it never executes.
//
// `validate` gets only the SDK's value, not the text or the call id: the gate pairs the
// value with the oldest recorded text of that tool that parses (leniently) to it, and the
// approval hook then checks that this text is the one recorded for the call's id
// (`provider_text_mismatch` otherwise). A call whose text did not pass the middleware (a
// repaired call, a model not wrapped by the gate) is denied with `no_provider_text`.

let ai;
try {
  ai = require('ai');
} catch (error) {
  if (error === null || typeof error !== 'object' || error.code !== 'MODULE_NOT_FOUND') throw error;
  const missing = new Error('tool-argument-snapshot/ai needs the Vercel AI SDK 7 (an optional peer dependency): npm install ai');
  Object.defineProperty(missing, 'code', { value: 'MODULE_NOT_FOUND', enumerable: true });
  throw missing;
}

const api = require('tool-argument-snapshot');

// prepareToolCallAsync awaits the schema's own async parse (zod) or `~standard.validate`.
const { prepareToolCallAsync, evaluateToolCall, executeToolCall, createApprovalGrants, canonicalize } = api;
const { jsonSchema, asSchema, wrapLanguageModel } = ai;

// Built-ins, captured when the adapter loads.
const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectGetOwnPropertyNames = Object.getOwnPropertyNames;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const ObjectHasOwn = Object.hasOwn;
const ObjectFreeze = Object.freeze;
const ObjectDefineProperty = Object.defineProperty;
const ObjectPrototype = Object.prototype;
const ObjectPrototypeToString = uncurryThis(Object.prototype.toString);
const ArrayIsArray = Array.isArray;
const ArrayPrototypePush = uncurryThis(Array.prototype.push);
const ArrayPrototypeSplice = uncurryThis(Array.prototype.splice);
const ReflectApply = Reflect.apply;
const JSONParse = JSON.parse;
const SafeMap = Map;
const SafeWeakMap = WeakMap;
const MapPrototypeGet = uncurryThis(Map.prototype.get);
const MapPrototypeSet = uncurryThis(Map.prototype.set);
const MapPrototypeDelete = uncurryThis(Map.prototype.delete);
const MapPrototypeKeys = uncurryThis(Map.prototype.keys);
const MapIteratorNext = uncurryThis(ObjectGetPrototypeOf(new Map().keys()).next);
const WeakMapPrototypeGet = uncurryThis(WeakMap.prototype.get);
const WeakMapPrototypeSet = uncurryThis(WeakMap.prototype.set);
const StringPrototypeTrim = uncurryThis(String.prototype.trim);
const StringPrototypeIsWellFormed = uncurryThis(String.prototype.isWellFormed);
const NumberIsNaN = Number.isNaN;
const SafeTransformStream = TransformStream;
const ReadableStreamPrototypePipeThrough = uncurryThis(ReadableStream.prototype.pipeThrough);
const { isProxy } = require('node:util').types;

/** Recorded provider texts per gate before the oldest is dropped: each lives from the
 * model's response to the SDK's validation of that call, so only calls the SDK never
 * validates (an aborted step) pile up. The same bound holds for resume attempts. */
const MAX_PENDING = 4096;

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

/** Defines a data property (an assignment could reach a setter on Object.prototype). */
function setData(object, key, value) {
  ObjectDefineProperty(object, key, { __proto__: null, value, enumerable: true, writable: true, configurable: true });
}

/** The first key of a map (insertion order), or undefined. */
function firstKey(map) {
  const step = MapIteratorNext(MapPrototypeKeys(map));
  return step.done ? undefined : step.value;
}

/** A new record of the own enumerable data properties of `object` (no getter runs). */
function ownDataCopy(object) {
  const copy = {};
  const names = ObjectGetOwnPropertyNames(object);
  for (let i = 0; i < names.length; i++) {
    const descriptor = ObjectGetOwnPropertyDescriptor(object, names[i]);
    if (descriptor.enumerable && ObjectHasOwn(descriptor, 'value')) {
      setData(copy, names[i], descriptor.value);
    }
  }
  return copy;
}

/**
 * Whether two values are the same JSON data, comparing own data properties only, in
 * order (a lenient parse of the recorded text against the SDK's own parse of it).
 */
function sameData(a, b, depth) {
  if (a === b) return a !== 0 || 1 / a === 1 / b;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return typeof a === 'number' && NumberIsNaN(a) && NumberIsNaN(b);
  if (depth > 1100 || isProxy(a) || isProxy(b)) return false;
  const arrays = ArrayIsArray(a);
  if (arrays !== ArrayIsArray(b)) return false;
  if (!arrays && (ObjectGetPrototypeOf(a) !== ObjectPrototype || ObjectGetPrototypeOf(b) !== ObjectPrototype)) return false;
  const namesA = ObjectGetOwnPropertyNames(a);
  const namesB = ObjectGetOwnPropertyNames(b);
  if (namesA.length !== namesB.length) return false;
  for (let i = 0; i < namesA.length; i++) {
    if (namesA[i] !== namesB[i]) return false;
    const da = ObjectGetOwnPropertyDescriptor(a, namesA[i]);
    const db = ObjectGetOwnPropertyDescriptor(b, namesB[i]);
    if (!ObjectHasOwn(da, 'value') || !ObjectHasOwn(db, 'value')) return false;
    if (!sameData(da.value, db.value, depth + 1)) return false;
  }
  return true;
}

/**
 * The schema the package runs for an SDK tool: zod 3 and 4 and Standard Schemas as they
 * are (prepareToolCallAsync awaits safeParseAsync or `~standard.validate`), an AI SDK
 * `Schema` (`jsonSchema(..., { validate })`, `zodSchema(...)`) through its `validate`.
 */
function packageSchema(inputSchema, toolName) {
  if (inputSchema === undefined || inputSchema === null) return undefined;
  if (typeof inputSchema === 'object' && (typeof inputSchema.safeParseAsync === 'function' || (inputSchema['~standard'] !== null && typeof inputSchema['~standard'] === 'object'))) {
    return inputSchema;
  }
  const sdkSchema = asSchema(inputSchema);
  const validate = sdkSchema.validate;
  if (validate === undefined || validate === null) return undefined;
  if (typeof validate !== 'function') throw invalidArgument(`the inputSchema of tool "${toolName}" has a validate that is not a function`);
  return {
    '~standard': {
      version: 1,
      vendor: 'ai-sdk-schema',
      async validate(value) {
        const result = await ReflectApply(validate, sdkSchema, [value]);
        if (own(result, 'success') === true) return { value: own(result, 'value') };
        return { issues: [{ message: 'the tool schema rejected the arguments' }] };
      },
    },
  };
}

function readTools(tools) {
  if (tools === null || typeof tools !== 'object') throw invalidArgument('options.tools must be an object of AI SDK tools');
  const names = ObjectGetOwnPropertyNames(tools);
  const entries = [];
  for (let i = 0; i < names.length; i++) {
    const toolName = names[i];
    const target = own(tools, toolName);
    if (target === null || typeof target !== 'object') throw invalidArgument(`options.tools["${toolName}"] must be an AI SDK tool (an own data property)`);
    if (!StringPrototypeIsWellFormed(toolName)) throw invalidArgument('options.tools has a tool name that is not a well-formed string');
    const execute = own(target, 'execute');
    // Provider-executed tools run at the provider; tools without execute are run by the
    // application itself. Neither passes through this process's handler: left as they are.
    const guarded = typeof execute === 'function' && own(target, 'type') !== 'provider';
    const inputSchema = own(target, 'inputSchema');
    ArrayPrototypePush(entries, {
      toolName,
      target,
      guarded,
      execute,
      inputSchema,
      schema: guarded ? packageSchema(inputSchema, toolName) : undefined,
      streaming: guarded && ObjectPrototypeToString(execute) === '[object AsyncGeneratorFunction]',
    });
  }
  return entries;
}

/**
 * Lists of items by key, oldest first, holding at most MAX_PENDING items in all (past that,
 * the first item of the oldest key goes).
 */
class BoundedMultimap {
  #lists = new SafeMap();
  #size = 0;

  add(key, item) {
    let list = MapPrototypeGet(this.#lists, key);
    if (list === undefined) {
      list = [];
      MapPrototypeSet(this.#lists, key, list);
    }
    ArrayPrototypePush(list, item);
    if (++this.#size > MAX_PENDING) this.#removeAt(firstKey(this.#lists), 0);
  }

  /** Removes and returns the first item of `key` that `matches` (any, if undefined; the newest if `newest`). */
  take(key, matches, newest) {
    const list = MapPrototypeGet(this.#lists, key);
    if (list === undefined) return undefined;
    if (newest) return this.#removeAt(key, list.length - 1);
    for (let i = 0; i < list.length; i++) {
      if (matches === undefined || matches(list[i])) return this.#removeAt(key, i);
    }
    return undefined;
  }

  remove(key, item) {
    this.take(key, (candidate) => candidate === item);
  }

  #removeAt(key, index) {
    const list = MapPrototypeGet(this.#lists, key);
    const item = ArrayPrototypeSplice(list, index, 1)[0];
    this.#size--;
    if (list.length === 0) MapPrototypeDelete(this.#lists, key);
    return item;
  }
}

function createToolGate(options) {
  if (options === null || typeof options !== 'object') throw invalidArgument('createToolGate expects { agentName, tools, policy?, grants? }');
  const agentName = own(options, 'agentName');
  if (typeof agentName !== 'string' || !StringPrototypeIsWellFormed(agentName)) throw invalidArgument('options.agentName must be a well-formed string');
  const appPolicy = own(options, 'policy');
  if (appPolicy !== undefined && typeof appPolicy !== 'function') throw invalidArgument('options.policy must be a function');
  const grantsOption = own(options, 'grants');
  let grants = grantsOption;
  if (grants === undefined) grants = createApprovalGrants();
  else if (grants === null || typeof grants !== 'object' || typeof own(grants, 'policy') !== 'function' || typeof own(grants, 'spend') !== 'function') {
    throw invalidArgument('options.grants must be an object made by createApprovalGrants');
  }
  const fallbackApproval = own(options, 'toolApproval');
  if (fallbackApproval !== undefined && typeof fallbackApproval !== 'function') throw invalidArgument('options.toolApproval must be a function (for the tools the gate does not guard)');
  const onDecision = own(options, 'onDecision');
  if (onDecision !== undefined && typeof onDecision !== 'function') throw invalidArgument('options.onDecision must be a function');
  const includePath = own(options, 'includePath') === true;

  // The grants' policy first (an approved hash allows), then the application's. With
  // neither a policy nor grants, the package denies every call (policy_not_configured).
  const policy = appPolicy === undefined && grantsOption === undefined ? undefined : own(grants, 'policy')(appPolicy);
  const spender = grants;

  const entries = readTools(own(options, 'tools'));
  const byName = new SafeMap();
  for (let i = 0; i < entries.length; i++) MapPrototypeSet(byName, entries[i].toolName, entries[i]);

  // Provider texts recorded by the middleware: by tool name (to pair with the SDK's value
  // in validate) and by tool call id (to check the pairing in the approval hook).
  const texts = new BoundedMultimap();
  const textsById = new BoundedMultimap();
  // Attempts prepared from message history (no provider text), by tool and canonical text.
  const resumable = new BoundedMultimap();
  // The attempt of each SDK input object: set by validate (the step path) or by the
  // approval hook (the resume path), read by the approval hook and execute.
  const attempts = new SafeWeakMap();

  function guardedEntry(toolName) {
    const entry = typeof toolName === 'string' ? MapPrototypeGet(byName, toolName) : undefined;
    return entry !== undefined && entry.guarded ? entry : undefined;
  }

  function record(part) {
    if (part === null || typeof part !== 'object' || own(part, 'type') !== 'tool-call') return;
    const toolName = own(part, 'toolName');
    const text = own(part, 'input');
    const toolCallId = own(part, 'toolCallId');
    if (guardedEntry(toolName) === undefined || typeof text !== 'string' || own(part, 'providerExecuted') === true) return;
    texts.add(toolName, { text, lenient: undefined });
    textsById.add(typeof toolCallId === 'string' ? toolCallId : '', text);
  }

  /** Takes the oldest recorded text of the tool whose lenient parse is the SDK's value. */
  function takeProviderText(toolName, value) {
    const recorded = texts.take(toolName, (candidate) => {
      if (candidate.lenient === undefined) {
        try {
          candidate.lenient = { value: StringPrototypeTrim(candidate.text) === '' ? {} : JSONParse(candidate.text) };
        } catch {
          candidate.lenient = null;
        }
      }
      return candidate.lenient !== null && sameData(candidate.lenient.value, value, 0);
    });
    return recorded === undefined ? undefined : recorded.text;
  }

  function resumeKey(toolName, text) {
    return `${toolName.length}:${toolName}${text}`;
  }

  /**
   * The SDK's validate for one tool: every call the SDK parses comes here once (the step
   * path with the lenient parse of the provider text; the resume path with a copy of the
   * history input). Prepares the attempt; a failure is the SDK's invalid input.
   */
  function validatorFor(entry) {
    return async function validate(value) {
      if (value === null || typeof value !== 'object' || ArrayIsArray(value)) {
        // Kept apart by object identity below, and tool inputs are objects: invalid input.
        return { success: false, error: new TypeError(`the input of tool "${entry.toolName}" must be a JSON object`) };
      }
      let rawArguments = takeProviderText(entry.toolName, value);
      let argumentsSource;
      if (rawArguments !== undefined) {
        argumentsSource = 'provider_text';
      } else {
        // No provider text (message history, or a call that skipped the middleware): the
        // object itself, which must be strict JSON data, in its canonical form.
        try {
          rawArguments = canonicalize(value, { includePath });
        } catch (error) {
          return { success: false, error };
        }
        argumentsSource = 'history';
      }
      let prepared;
      try {
        prepared = await prepareToolCallAsync({ agentName, toolName: entry.toolName, rawArguments, schema: entry.schema, includePath });
      } catch (error) {
        return { success: false, error };
      }
      const attempt = {
        toolName: entry.toolName,
        toolCallId: undefined,
        argumentsSource,
        rawArguments,
        prepared,
        checked: false,
        deciding: undefined,
        decision: undefined,
        resume: false,
        refusal: undefined,
      };
      WeakMapPrototypeSet(attempts, value, attempt);
      if (argumentsSource === 'history') resumable.add(resumeKey(entry.toolName, rawArguments), attempt);
      return { success: true, value };
    };
  }

  /** The attempt for the SDK's call; a refused one carries its `refusal`. */
  function attemptFor(toolName, toolCallId, input) {
    if (input === null || typeof input !== 'object') return undefined;
    const known = WeakMapPrototypeGet(attempts, input);
    if (known !== undefined && !known.resume) {
      // The SDK's own value of this step (validate saw this very object).
      if (!known.checked) {
        known.checked = true;
        known.toolCallId = toolCallId;
        if (known.argumentsSource === 'history') {
          // No recorded text (a repaired call, or a model the gate does not wrap): there
          // is no provider text to authorize.
          resumable.remove(resumeKey(known.toolName, known.rawArguments), known);
          known.refusal = 'no_provider_text';
        } else if (known.toolName !== toolName || textsById.take(typeof toolCallId === 'string' ? toolCallId : '', (text) => text === known.rawArguments) === undefined) {
          // The text validate paired with the SDK's value is not the one recorded for this call.
          known.refusal = 'provider_text_mismatch';
        }
      }
      return known;
    }
    // The resume path: a history object (each time it comes back, a new attempt that
    // validate prepared from a copy of it).
    let text;
    try {
      text = canonicalize(input);
    } catch {
      return known;
    }
    const resumed = resumable.take(resumeKey(toolName, text), undefined, true);
    if (resumed === undefined) return known;
    resumed.resume = true;
    resumed.checked = true;
    resumed.toolCallId = toolCallId;
    WeakMapPrototypeSet(attempts, input, resumed);
    return resumed;
  }

  /** One decision per attempt, however many hooks ask (the first one evaluates). */
  function decide(attempt, toolCallId, runtimeContext) {
    if (attempt.deciding === undefined) attempt.deciding = evaluate(attempt, toolCallId, runtimeContext);
    return attempt.deciding;
  }

  async function evaluate(attempt, toolCallId, runtimeContext) {
    const decision = await evaluateToolCall({
      prepared: attempt.prepared,
      policy,
      policyContext: { toolCallId, argumentsSource: attempt.argumentsSource, runtimeContext },
    });
    if (onDecision !== undefined) await onDecision(decision, { toolCallId, argumentsSource: attempt.argumentsSource, resume: attempt.resume });
    attempt.decision = decision;
    return decision;
  }

  /** Approval for tools the gate does not guard: the application's, or the tool's own needsApproval. */
  async function unguardedApproval(args) {
    if (fallbackApproval !== undefined) return fallbackApproval(args);
    const toolCall = own(args, 'toolCall');
    const tool = own(own(args, 'tools'), own(toolCall, 'toolName'));
    const needsApproval = own(tool, 'needsApproval');
    if (needsApproval === undefined || needsApproval === null) return undefined;
    const needed = typeof needsApproval === 'function'
      ? await ReflectApply(needsApproval, tool, [own(toolCall, 'input'), { toolCallId: own(toolCall, 'toolCallId'), messages: own(args, 'messages'), context: own(own(args, 'toolsContext'), own(toolCall, 'toolName')) }])
      : needsApproval;
    return needed ? 'user-approval' : undefined;
  }

  async function toolApproval(args) {
    const toolCall = own(args, 'toolCall');
    const toolName = own(toolCall, 'toolName');
    if (guardedEntry(toolName) === undefined) return unguardedApproval(args);
    const toolCallId = own(toolCall, 'toolCallId');
    const attempt = attemptFor(toolName, toolCallId, own(toolCall, 'input'));
    if (attempt === undefined) return { type: 'denied', reason: 'not_prepared' };
    if (attempt.refusal !== undefined) return { type: 'denied', reason: attempt.refusal };
    const decision = await decide(attempt, toolCallId, own(args, 'runtimeContext'));
    if (decision.decision === 'allow') return undefined;
    if (decision.decision === 'deny' || attempt.resume) {
      // On the resume path the SDK executes every call that is not denied.
      return { type: 'denied', reason: decision.reason };
    }
    return { type: 'user-approval', reason: decision.reason };
  }

  function executorFor(entry) {
    async function authorized(input, executeOptions) {
      const toolCallId = own(executeOptions, 'toolCallId');
      const attempt = attemptFor(entry.toolName, toolCallId, input);
      // No attempt, or a refused one: executeToolCall refuses a missing decision itself.
      const decision = attempt === undefined || attempt.refusal !== undefined ? undefined : await decide(attempt, toolCallId, undefined);
      return executeToolCall(decision, (view) => ReflectApply(entry.execute, entry.target, [view, executeOptions]), { grants: spender });
    }
    if (entry.streaming) {
      return async function* execute(input, executeOptions) {
        yield* await authorized(input, executeOptions);
      };
    }
    return async function execute(input, executeOptions) {
      return authorized(input, executeOptions);
    };
  }

  const tools = {};
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (!entry.guarded) {
      setData(tools, entry.toolName, entry.target);
      continue;
    }
    const copy = ownDataCopy(entry.target);
    const original = entry.inputSchema;
    // The JSON Schema the SDK would have sent for the tool's own schema, computed when the
    // SDK first asks for it; the validate function is the package's pipeline.
    setData(copy, 'inputSchema', jsonSchema(() => asSchema(original).jsonSchema, { validate: validatorFor(entry) }));
    setData(copy, 'execute', executorFor(entry));
    // The policy decides what needs approval; the tool's own flag would be a second gate.
    delete copy.needsApproval;
    setData(tools, entry.toolName, ObjectFreeze(copy));
  }

  const middleware = ObjectFreeze({
    specificationVersion: 'v4',
    async wrapGenerate({ doGenerate }) {
      const result = await doGenerate();
      const content = own(result, 'content');
      if (ArrayIsArray(content)) for (let i = 0; i < content.length; i++) record(content[i]);
      return result;
    },
    async wrapStream({ doStream }) {
      const result = await doStream();
      const stream = own(result, 'stream');
      const recording = new SafeTransformStream({
        transform(chunk, controller) {
          record(chunk);
          controller.enqueue(chunk);
        },
      });
      const copy = ownDataCopy(result);
      setData(copy, 'stream', ReadableStreamPrototypePipeThrough(stream, recording));
      return copy;
    },
  });

  function model(languageModel) {
    return wrapLanguageModel({ model: languageModel, middleware });
  }

  /** The SuspendedToolProposal of a `tool-approval-request` part of a result, or undefined. */
  function proposalOf(part) {
    const toolCall = own(part, 'toolCall');
    const input = own(toolCall, 'input');
    const attempt = input !== null && typeof input === 'object' ? WeakMapPrototypeGet(attempts, input) : undefined;
    if (attempt === undefined || attempt.decision === undefined || attempt.decision.decision !== 'require_approval') return undefined;
    if (attempt.toolCallId !== own(toolCall, 'toolCallId')) return undefined;
    return attempt.decision.proposal;
  }

  /**
   * Grants exactly the proposal of an approval request (by its hash) and returns the
   * `tool-approval-response` part for the next call's messages.
   */
  async function approve(part, grantOptions) {
    const proposal = proposalOf(part);
    if (proposal === undefined) throw invalidArgument('approve expects a tool-approval-request part of a result made through this gate');
    await own(grants, 'grant')(proposal, grantOptions);
    return { type: 'tool-approval-response', approvalId: own(part, 'approvalId'), approved: true };
  }

  return ObjectFreeze({ tools: ObjectFreeze(tools), toolApproval, middleware, model, proposalOf, approve, grants });
}

module.exports = { createToolGate };
