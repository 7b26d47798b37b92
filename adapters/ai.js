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
//   JSON, schema or snapshot failure (and a call without an id: `missing_call_id`; calls of
//   one response that share an id: `duplicate_call_id`) is
//   returned from `validate`, so it takes the SDK's invalid-input path
//   (InvalidToolInputError, a tool-error the model can correct, or repairToolCall); it is
//   never a policy decision. The SDK's zod never runs.
// - `toolApproval` (the hook that can interrupt) evaluates the policy on a fresh view and
//   maps the decision: allow -> not-applicable, deny -> denied, require_approval ->
//   user-approval.
// - `execute` never uses the SDK's input object (the one the approval hooks saw): it runs
//   the tool's own `execute` through `executeToolCall`, with a new execution view, at most
//   once, and spends a grant right before it.
// - On resume the SDK replays the approved call from message history, where only a parsed
//   object exists (no provider text): the gate snapshots that object (it must be strict
//   JSON data), runs the schema once, and the policy (grants first) must allow that exact
//   hash. Any other answer becomes `denied` (on that path the SDK executes everything
//   that is not denied); a call approved the SDK's own way without a grant is denied with
//   `approved_without_grant` (and one warning per gate). Edited history has another hash:
//   it never executes.
//
// Where the proposal waits for its reviewer. The SDK's approval round trip has no field
// that carries it without the browser (or whoever holds the messages) being able to
// rewrite it: a `tool-approval-request` part is dropped before the provider, but of its
// fields (approvalId, toolCallId, reason, isAutomatic, signature, inputSchemaInput) only
// `reason` is ours to write, and it is the text a UI shows as the request's reason; a UI
// message's `approval.descriptor`, `metadata` and data parts exist only in useChat apps
// and only when the app writes them; a tool call's providerOptions reach the provider.
// So the gate keeps each proposal that needs approval with the package
// (grants.keepProposal, sealed with a key ring) under its run and call id: the run is the
// conversation (`runId`, for example useChat's chat id; the SDK itself keys a whole
// history by toolCallId), namespaced by agent and grant scope. `gate.approve(request)`
// grants exactly that kept proposal, in this process or any other that shares the
// grants' store, once.
//
// `validate` gets only the SDK's value, not the text or the call id: the gate pairs the
// value with the oldest recorded text of that tool that parses (leniently) to it, and the
// approval hook then checks that this text is the one recorded for the call's id
// (`provider_text_mismatch` otherwise). A call whose text did not pass the middleware (a
// repaired call, a model not wrapped by the gate) is denied with `no_provider_text`.
// Recorded texts live in the gate: create a gate per request (cheap) so that they belong
// to one run.

const {
  requirePeer, invalidArgument, own, setData, ownDataCopy, readOptions, isWellFormedString,
  approvedWithoutGrantNotice, APPROVED_WITHOUT_GRANT, noPendingProposalError,
} = require('./shared');

const ai = requirePeer('ai', 'ai', 'the Vercel AI SDK 7', () => require('ai'));
const api = require('tool-argument-snapshot');

// prepareToolCallAsync awaits the schema's own async parse (zod) or `~standard.validate`.
const {
  prepareToolCallAsync, evaluateToolCall, executeToolCall, createApprovalGrants, canonicalize, fromJsonSchema, ToolArgumentsValidationError,
  isApprovalGrantError,
} = api;
const { jsonSchema, asSchema, wrapLanguageModel } = ai;

// Built-ins, captured when the adapter loads.
const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectGetOwnPropertyNames = Object.getOwnPropertyNames;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const ObjectHasOwn = Object.hasOwn;
const ObjectFreeze = Object.freeze;
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
const StringPrototypeStartsWith = uncurryThis(String.prototype.startsWith);
const StringPrototypeSlice = uncurryThis(String.prototype.slice);
const NumberIsNaN = Number.isNaN;
const NumberIsFinite = Number.isFinite;
const PromiseResolve = Promise.resolve.bind(Promise);
const PromisePrototypeThen = uncurryThis(Promise.prototype.then);
const SafeTypeError = TypeError;
const SafeTransformStream = TransformStream;
const ReadableStreamPrototypePipeThrough = uncurryThis(ReadableStream.prototype.pipeThrough);
const { isProxy } = require('node:util').types;
const { randomUUID } = require('node:crypto');

/** Recorded provider texts per gate before the oldest is dropped: each lives from the
 * model's response to the SDK's validation of that call, so only calls the SDK never
 * validates (an aborted step) pile up. The same bound holds for resume attempts. */
const MAX_PENDING = 4096;

const MISSING_CALL_ID = 'missing_call_id';
const DUPLICATE_CALL_ID = 'duplicate_call_id';
const HOW_TO_APPROVE = 'grant the reviewer\'s approval with `await gate.approve(part)` (it returns the tool-approval-response), in this process or in any other that shares the grants\' store and the gate\'s runId.';

/** `approve` found no proposal waiting for this call in this run (code TAS_NO_PENDING_PROPOSAL). */
function notPendingError() {
  return noPendingProposalError('no proposal is waiting for approval for this tool call in this run (approved or declined before, expired, or never asked under this runId and grant scope)');
}

function isId(value) {
  return isWellFormedString(value) && value !== '';
}

/** The first key of a map (insertion order), or undefined. */
function firstKey(map) {
  const step = MapIteratorNext(MapPrototypeKeys(map));
  return step.done ? undefined : step.value;
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
 * `Schema` with a `validate` (`jsonSchema(..., { validate })`, `zodSchema(...)`) through
 * that `validate`, and a JSON Schema the SDK would not validate (`jsonSchema(...)` without
 * `validate`: MCP tools of @ai-sdk/mcp, hand-written JSON Schema tools) through the
 * package's `fromJsonSchema`, compiled now, so that a schema that does not compile fails
 * here and not at the first call.
 */
function packageSchema(inputSchema, toolName, jsonSchemaOptions) {
  if (inputSchema === undefined || inputSchema === null) return undefined;
  if (typeof inputSchema === 'object' && (typeof inputSchema.safeParseAsync === 'function' || (inputSchema['~standard'] !== null && typeof inputSchema['~standard'] === 'object'))) {
    return inputSchema;
  }
  const sdkSchema = asSchema(inputSchema);
  const validate = sdkSchema.validate;
  if (validate === undefined || validate === null) return jsonSchemaOf(sdkSchema, toolName, jsonSchemaOptions);
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

/** fromJsonSchema, with the tool named in a compile error (the schema is the app's, not payload). */
function compileJsonSchema(json, toolName, jsonSchemaOptions) {
  try {
    return jsonSchemaOptions === undefined ? fromJsonSchema(json) : fromJsonSchema(json, jsonSchemaOptions);
  } catch (error) {
    const code = own(error, 'code');
    if (code === 'MODULE_NOT_FOUND') throw error;
    const failed = invalidArgument(`the JSON Schema of tool "${toolName}" cannot be used: ${own(error, 'message')}`);
    if (typeof code === 'string') setData(failed, 'code', code);
    throw failed;
  }
}

/**
 * The JSON Schema of an SDK `Schema` without `validate` (its `jsonSchema` getter is the
 * SDK's own API), as a schema of the package. One given as a promise is compiled when it
 * resolves, before the first call is prepared.
 */
function jsonSchemaOf(sdkSchema, toolName, jsonSchemaOptions) {
  const json = sdkSchema.jsonSchema;
  if (json === null || typeof json !== 'object' || typeof json.then !== 'function') return compileJsonSchema(json, toolName, jsonSchemaOptions);
  let compiled;
  return {
    '~standard': {
      version: 1,
      vendor: 'tool-argument-snapshot',
      async validate(value) {
        if (compiled === undefined) compiled = PromisePrototypeThen(PromiseResolve(json), (resolved) => compileJsonSchema(resolved, toolName, jsonSchemaOptions));
        const schema = await compiled;
        return schema['~standard'].validate(value);
      },
    },
  };
}

function readTools(tools, jsonSchemaOptions) {
  if (tools === null || typeof tools !== 'object' || isProxy(tools)) throw invalidArgument('options.tools must be an object of AI SDK tools');
  const names = ObjectGetOwnPropertyNames(tools);
  const entries = [];
  for (let i = 0; i < names.length; i++) {
    const toolName = names[i];
    if (!isWellFormedString(toolName)) throw invalidArgument('options.tools has a tool name that is not a well-formed string');
    const target = own(tools, toolName);
    if (target === null || typeof target !== 'object' || isProxy(target)) throw invalidArgument(`options.tools["${toolName}"] must be an AI SDK tool (an own data property, not a Proxy)`);
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
      schema: guarded ? packageSchema(inputSchema, toolName, jsonSchemaOptions) : undefined,
      streaming: guarded && ObjectPrototypeToString(execute) === '[object AsyncGeneratorFunction]',
      policy: undefined,
    });
  }
  return entries;
}

/**
 * The policy option: undefined, one function for every tool, or a map from tool name to a
 * function (each an own data property naming a tool of `tools`). Returns a function
 * from tool name to its policy (or undefined).
 */
function readPolicy(policy, byName) {
  if (policy === undefined) return () => undefined;
  if (typeof policy === 'function') {
    if (isProxy(policy)) throw invalidArgument('options.policy must be a function or an object of functions by tool name');
    return () => policy;
  }
  if (policy === null || typeof policy !== 'object' || isProxy(policy)) throw invalidArgument('options.policy must be a function or an object of functions by tool name');
  const perTool = new SafeMap();
  const names = ObjectGetOwnPropertyNames(policy);
  for (let i = 0; i < names.length; i++) {
    const toolName = names[i];
    const entry = MapPrototypeGet(byName, toolName);
    if (entry === undefined) throw invalidArgument('options.policy names a tool that is not in options.tools');
    const toolPolicy = own(policy, toolName);
    if (toolPolicy === undefined) continue;
    if (typeof toolPolicy !== 'function' || isProxy(toolPolicy)) throw invalidArgument(`options.policy["${toolName}"] must be a function (an own data property)`);
    MapPrototypeSet(perTool, toolName, toolPolicy);
  }
  return (toolName) => MapPrototypeGet(perTool, toolName);
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

/** A grants method read once as an own data function, or undefined. */
function grantsMethod(grants, name) {
  const method = own(grants, name);
  return typeof method === 'function' ? method : undefined;
}

/**
 * What an approval request names: `{ approvalId, toolCallId, toolName? }` from a
 * `tool-approval-request` part of a result (its `toolCall`), the same part as stored in
 * model messages (`toolCallId`), a UI message tool part with its `approval`, or a plain
 * `{ approvalId, toolCallId }`. Every field is read as an own data property.
 */
function approvalRef(request, what) {
  const usage = `${what} expects a tool-approval-request part, a UI tool part with an approval, or { approvalId, toolCallId }`;
  if (request === null || typeof request !== 'object' || isProxy(request)) throw invalidArgument(usage);
  const type = own(request, 'type');
  let approvalId;
  let toolCallId;
  let toolName;
  const approval = own(request, 'approval');
  if (typeof type === 'string' && (StringPrototypeStartsWith(type, 'tool-') || type === 'dynamic-tool') && approval !== null && typeof approval === 'object' && !isProxy(approval)) {
    // A UI message tool part (useChat): `tool-NAME` or `dynamic-tool` with `toolName`.
    approvalId = own(approval, 'id');
    toolCallId = own(request, 'toolCallId');
    toolName = type === 'dynamic-tool' ? own(request, 'toolName') : StringPrototypeSlice(type, 5);
  } else {
    approvalId = own(request, 'approvalId');
    const toolCall = own(request, 'toolCall');
    if (toolCall !== null && typeof toolCall === 'object' && !isProxy(toolCall)) {
      toolCallId = own(toolCall, 'toolCallId');
      toolName = own(toolCall, 'toolName');
    } else {
      toolCallId = own(request, 'toolCallId');
      toolName = own(request, 'toolName');
    }
  }
  if (!isId(approvalId) || !isId(toolCallId)) throw invalidArgument(usage);
  if (toolName !== undefined && !isWellFormedString(toolName)) throw invalidArgument(usage);
  return { approvalId, toolCallId, toolName };
}

function createToolGate(options) {
  const opts = readOptions(options, 'createToolGate options');
  if (opts === null) throw invalidArgument('createToolGate expects { agentName, tools, policy?, grants? }');
  const agentName = own(opts, 'agentName');
  if (!isWellFormedString(agentName)) throw invalidArgument('options.agentName must be a well-formed string');
  const grantsOption = own(opts, 'grants');
  let grants = grantsOption;
  if (grants === undefined) grants = createApprovalGrants();
  else if (grants === null || typeof grants !== 'object' || typeof own(grants, 'policy') !== 'function' || typeof own(grants, 'grant') !== 'function') {
    throw invalidArgument('options.grants must be an object made by createApprovalGrants');
  }
  const fallbackApproval = own(opts, 'toolApproval');
  if (fallbackApproval !== undefined && typeof fallbackApproval !== 'function') throw invalidArgument('options.toolApproval must be a function (for the tools the gate does not guard)');
  const onDecision = own(opts, 'onDecision');
  if (onDecision !== undefined && typeof onDecision !== 'function') throw invalidArgument('options.onDecision must be a function');
  const includePath = own(opts, 'includePath') === true;
  const runIdOption = own(opts, 'runId');
  if (runIdOption !== undefined && !isId(runIdOption)) throw invalidArgument('options.runId must be a non-empty well-formed string (the conversation, for example the chat id)');
  const scopeOption = own(opts, 'grantScope');
  if (scopeOption !== undefined && scopeOption !== null && !isWellFormedString(scopeOption)) throw invalidArgument('options.grantScope must be a well-formed string');
  const grantScope = scopeOption ?? null;
  const proposalTtlMs = own(opts, 'proposalTtlMs');
  if (proposalTtlMs !== undefined && (typeof proposalTtlMs !== 'number' || !(proposalTtlMs > 0) || !NumberIsFinite(proposalTtlMs))) {
    throw invalidArgument('options.proposalTtlMs must be a positive finite number of milliseconds');
  }

  // The grants' methods, read once.
  const grantsPolicy = own(grants, 'policy');
  const grantsGrant = own(grants, 'grant');
  const grantsSeal = grantsMethod(grants, 'seal');
  const keepProposal = grantsMethod(grants, 'keepProposal');
  const keptProposal = grantsMethod(grants, 'keptProposal');
  const forgetProposal = grantsMethod(grants, 'forgetProposal');
  // Whether the grants keep proposals (their store has putProposal, getProposal and
  // deleteProposal): grants answer a TypeError otherwise, met when the first is kept.
  let keeps = keepProposal !== undefined && keptProposal !== undefined && forgetProposal !== undefined;
  const sealing = own(grants, 'sealing') === true;

  // Kept proposals are namespaced by agent and grant scope; without a runId, the run is
  // this gate (approvals then work in this gate only).
  const runId = runIdOption ?? randomUUID();
  const scopePart = grantScope === null ? '-' : `${grantScope.length}:${grantScope}`;
  const keptRunId = `ai ${agentName.length}:${agentName} ${scopePart} ${runId}`;
  const keyOf = (toolCallId) => ({ runId: keptRunId, toolCallId });

  const notice = approvedWithoutGrantNotice('ai', HOW_TO_APPROVE);

  const jsonSchemaOptions = own(opts, 'jsonSchemaOptions');
  if (jsonSchemaOptions !== undefined && (jsonSchemaOptions === null || typeof jsonSchemaOptions !== 'object' || isProxy(jsonSchemaOptions))) {
    throw invalidArgument('options.jsonSchemaOptions must be an object ({ defaults?, formats? } of fromJsonSchema)');
  }
  const entries = readTools(own(opts, 'tools'), jsonSchemaOptions);
  const byName = new SafeMap();
  for (let i = 0; i < entries.length; i++) MapPrototypeSet(byName, entries[i].toolName, entries[i]);
  // The grants' policy first (an approved hash allows), then the application's. With
  // neither a policy nor grants, the package denies every call (policy_not_configured).
  const policyOf = readPolicy(own(opts, 'policy'), byName);
  for (let i = 0; i < entries.length; i++) {
    const appPolicy = policyOf(entries[i].toolName);
    entries[i].policy = appPolicy === undefined && grantsOption === undefined ? undefined : grantsPolicy(appPolicy);
  }

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

  /** Whether a content part (or stream chunk) is a call of a guarded tool that this process runs. */
  function guardedCall(part) {
    if (part === null || typeof part !== 'object' || own(part, 'type') !== 'tool-call') return false;
    return guardedEntry(own(part, 'toolName')) !== undefined && typeof own(part, 'input') === 'string' && own(part, 'providerExecuted') !== true;
  }

  /**
   * Records the guarded tool calls of one complete model response: `parts` (its content
   * parts, or the guarded calls of a stream) and `otherIds`, the ids of its other calls. A
   * call whose id another call of the response also has is recorded as a duplicate: the
   * SDK pairs approvals, resumes and kept proposals by call id, so neither call can be told
   * apart, and validate answers each as invalid input (`duplicate_call_id`).
   */
  function recordResponse(parts, otherIds) {
    const uses = new SafeMap();
    const count = (id) => {
      if (isId(id)) MapPrototypeSet(uses, id, (MapPrototypeGet(uses, id) ?? 0) + 1);
    };
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (part !== null && typeof part === 'object' && own(part, 'type') === 'tool-call') count(own(part, 'toolCallId'));
    }
    for (let i = 0; i < otherIds.length; i++) count(otherIds[i]);
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (!guardedCall(part)) continue;
      const toolCallId = own(part, 'toolCallId');
      const id = isId(toolCallId) ? toolCallId : undefined;
      const duplicate = id !== undefined && MapPrototypeGet(uses, id) > 1;
      const text = own(part, 'input');
      texts.add(own(part, 'toolName'), { text, id, duplicate, lenient: undefined });
      if (id !== undefined && !duplicate) textsById.add(id, text);
    }
  }

  /** Takes the oldest recorded call of the tool whose text parses (leniently) to the SDK's value. */
  function takeProviderCall(toolName, value) {
    return texts.take(toolName, (candidate) => {
      if (candidate.lenient === undefined) {
        try {
          candidate.lenient = { value: StringPrototypeTrim(candidate.text) === '' ? {} : JSONParse(candidate.text) };
        } catch {
          candidate.lenient = null;
        }
      }
      return candidate.lenient !== null && sameData(candidate.lenient.value, value, 0);
    });
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
        return { success: false, error: new SafeTypeError(`the input of tool "${entry.toolName}" must be a JSON object`) };
      }
      const recorded = takeProviderCall(entry.toolName, value);
      let rawArguments;
      let argumentsSource;
      if (recorded !== undefined) {
        // A call without an id could be neither paired nor approved: invalid input; so is
        // a call whose id another call of its response has.
        if (recorded.id === undefined) return { success: false, error: new ToolArgumentsValidationError('json', entry.toolName, MISSING_CALL_ID) };
        if (recorded.duplicate) return { success: false, error: new ToolArgumentsValidationError('json', entry.toolName, DUPLICATE_CALL_ID) };
        rawArguments = recorded.text;
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
        const prepareInput = { agentName, toolName: entry.toolName, rawArguments, schema: entry.schema, includePath };
        // The call's id, for the package's events (a resumed call's id is known only later).
        if (recorded !== undefined) setData(prepareInput, 'toolCallId', recorded.id);
        prepared = await prepareToolCallAsync(prepareInput);
      } catch (error) {
        return { success: false, error };
      }
      const attempt = {
        entry,
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
        approved: false,
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
        if (!isId(toolCallId)) {
          known.refusal = MISSING_CALL_ID;
        } else if (known.argumentsSource === 'history') {
          // No recorded text (a repaired call, or a model the gate does not wrap): there
          // is no provider text to authorize.
          resumable.remove(resumeKey(known.toolName, known.rawArguments), known);
          known.refusal = 'no_provider_text';
        } else if (known.toolName !== toolName || textsById.take(toolCallId, (text) => text === known.rawArguments) === undefined) {
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
    if (!isId(toolCallId)) resumed.refusal = MISSING_CALL_ID;
    WeakMapPrototypeSet(attempts, input, resumed);
    return resumed;
  }

  /** One decision per attempt, however many hooks ask (the first one evaluates). */
  function decide(attempt, runtimeContext) {
    if (attempt.deciding === undefined) attempt.deciding = evaluate(attempt, runtimeContext);
    return attempt.deciding;
  }

  async function evaluate(attempt, runtimeContext) {
    const toolCallId = attempt.toolCallId;
    const policyContext = { toolCallId, argumentsSource: attempt.argumentsSource, runtimeContext };
    if (grantScope !== null) setData(policyContext, 'grantScope', grantScope);
    const decision = await evaluateToolCall({ prepared: attempt.prepared, policy: attempt.entry.policy, policyContext, toolCallId });
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
    const decision = await decide(attempt, own(args, 'runtimeContext'));
    if (decision.decision === 'allow') return undefined;
    if (decision.decision === 'deny') return { type: 'denied', reason: decision.reason };
    if (attempt.resume) {
      // The SDK replays only approved calls, and executes every one that is not denied:
      // approved the SDK's own way, but no grant allows this exact hash.
      notice();
      return { type: 'denied', reason: APPROVED_WITHOUT_GRANT };
    }
    if (keeps) {
      // Kept with the package, so the approval can come back to any process. First wins: a
      // proposal already waiting under this run and call id (the id reused by a later
      // response) is never replaced by another, which the request shown for the first
      // would then approve; the later call is refused instead.
      try {
        const key = keyOf(attempt.toolCallId);
        const waiting = await ReflectApply(keptProposal, grants, [key]);
        if (waiting !== undefined && own(waiting, 'proposalHash') !== decision.proposalHash) return { type: 'denied', reason: DUPLICATE_CALL_ID };
        if (waiting === undefined) {
          const keepOptions = { scope: grantScope };
          if (proposalTtlMs !== undefined) setData(keepOptions, 'ttlMs', proposalTtlMs);
          await ReflectApply(keepProposal, grants, [key, decision.proposal, keepOptions]);
        }
      } catch (error) {
        // A store without kept proposals: approvals in this gate only (proposalOf).
        if (error instanceof SafeTypeError) keeps = false;
        // A store that failed: asking a reviewer who could never grant it is refused
        // instead (fails closed).
        else return { type: 'denied', reason: 'grant_store_unavailable' };
      }
    }
    return { type: 'user-approval', reason: decision.reason };
  }

  function executorFor(entry) {
    async function authorized(input, executeOptions) {
      const toolCallId = own(executeOptions, 'toolCallId');
      const attempt = attemptFor(entry.toolName, toolCallId, input);
      // No attempt, or a refused one: executeToolCall refuses a missing decision itself.
      const decision = attempt === undefined || attempt.refusal !== undefined ? undefined : await decide(attempt, undefined);
      return executeToolCall(decision, (view) => ReflectApply(entry.execute, entry.target, [view, executeOptions]));
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
      if (ArrayIsArray(content) && !isProxy(content)) recordResponse(content, []);
      return result;
    },
    async wrapStream({ doStream }) {
      const result = await doStream();
      const stream = own(result, 'stream');
      // The guarded calls of the response are held until it is complete (its `finish`
      // chunk, or its end), then recorded together, so that an id used twice is known
      // before the SDK validates either call, and passed on right before `finish`.
      let held = [];
      let otherIds = [];
      const release = (controller) => {
        const calls = held;
        recordResponse(calls, otherIds);
        held = [];
        otherIds = [];
        for (let i = 0; i < calls.length; i++) controller.enqueue(calls[i]);
      };
      const recording = new SafeTransformStream({
        transform(chunk, controller) {
          if (guardedCall(chunk)) {
            ArrayPrototypePush(held, chunk);
            return;
          }
          const type = chunk !== null && typeof chunk === 'object' ? own(chunk, 'type') : undefined;
          // Another tool's call is passed on at once; its id still counts for the response.
          if (type === 'tool-call') ArrayPrototypePush(otherIds, own(chunk, 'toolCallId'));
          else if (type === 'finish') release(controller);
          controller.enqueue(chunk);
        },
        flush(controller) {
          release(controller);
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

  /**
   * The SuspendedToolProposal of a `tool-approval-request` part of a result this gate made
   * (same process), or undefined. In another process: `await gate.keptProposal(part)`.
   */
  function proposalOf(part) {
    const toolCall = own(part, 'toolCall');
    const input = own(toolCall, 'input');
    const attempt = input !== null && typeof input === 'object' ? WeakMapPrototypeGet(attempts, input) : undefined;
    if (attempt === undefined || attempt.decision === undefined || attempt.decision.decision !== 'require_approval') return undefined;
    if (attempt.resume || attempt.toolCallId !== own(toolCall, 'toolCallId')) return undefined;
    return attempt.decision.proposal;
  }

  /** The proposal waiting for approval of this call in this run (sealed with a key ring), or undefined. */
  async function kept(request) {
    const ref = approvalRef(request, 'keptProposal');
    if (!keeps) return undefined;
    const record = await ReflectApply(keptProposal, grants, [keyOf(ref.toolCallId)]);
    if (record === undefined || (ref.toolName !== undefined && own(record, 'toolName') !== ref.toolName)) return undefined;
    return record;
  }

  /**
   * The reviewer approved this request: grants exactly the proposal the gate kept for the
   * call (sealed with a key ring: verified and granted once), forgets it, and returns the
   * `tool-approval-response` part for the next call's messages.
   */
  async function approve(request, grantOptions) {
    const ref = approvalRef(request, 'approve');
    const gopts = readOptions(grantOptions, 'approve options');
    const passed = {};
    if (gopts !== null) {
      const names = ['uses', 'ttlMs', 'expiresAt'];
      for (let i = 0; i < names.length; i++) {
        const value = own(gopts, names[i]);
        if (value !== undefined) setData(passed, names[i], value);
      }
    }
    setData(passed, 'scope', grantScope);
    let approved;
    let forget = false;
    if (keeps) {
      // A store without kept proposals that this gate has not met yet rejects here, saying
      // which methods it needs.
      approved = await ReflectApply(keptProposal, grants, [keyOf(ref.toolCallId)]);
      forget = approved !== undefined;
    } else {
      // Grants without kept proposals (a store without putProposal): only the proposal of
      // this gate's own attempt (a result part made in this process), once.
      const proposal = proposalOf(request);
      const attempt = proposal === undefined ? undefined : WeakMapPrototypeGet(attempts, own(own(request, 'toolCall'), 'input'));
      if (attempt !== undefined && attempt.approved !== true) {
        attempt.approved = true;
        approved = sealing ? ReflectApply(grantsSeal, grants, [proposal, { scope: grantScope }]) : proposal;
      }
    }
    if (approved === undefined || (ref.toolName !== undefined && own(approved, 'toolName') !== ref.toolName)) throw notPendingError();
    try {
      await ReflectApply(grantsGrant, grants, [approved, passed]);
    } catch (error) {
      // Another approval of the same kept record granted it first (its nonce is recorded).
      if (isApprovalGrantError(error) && own(error, 'code') === 'seal_used') throw notPendingError();
      throw error;
    }
    if (forget) await ReflectApply(forgetProposal, grants, [keyOf(ref.toolCallId)]);
    return { type: 'tool-approval-response', approvalId: ref.approvalId, approved: true };
  }

  /**
   * The reviewer declined this request: forgets the kept proposal and returns the
   * `tool-approval-response` part (approved: false) for the next call's messages.
   */
  async function decline(request, reason) {
    const ref = approvalRef(request, 'decline');
    if (reason !== undefined && !isWellFormedString(reason)) throw invalidArgument('decline reason must be a well-formed string');
    if (keeps) await ReflectApply(forgetProposal, grants, [keyOf(ref.toolCallId)]);
    const response = { type: 'tool-approval-response', approvalId: ref.approvalId, approved: false };
    if (reason !== undefined) setData(response, 'reason', reason);
    return response;
  }

  return ObjectFreeze({
    tools: ObjectFreeze(tools),
    toolApproval,
    middleware,
    model,
    proposalOf,
    keptProposal: kept,
    approve,
    decline,
    grants,
    runId,
  });
}

module.exports = { createToolGate };
