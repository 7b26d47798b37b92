'use strict';
// tool-argument-snapshot/mastra: RFC-0016 for Mastra agents (@mastra/core 1.x).
//
// Where Mastra still has what RFC-0016 needs, and so where this gate works (read in
// @mastra/core 1.71):
// - The provider's raw argument string exists only in the model's output: Mastra's loop
//   turns each `tool-call` part's `input` into an object with JSON.parse (repairing bad
//   JSON, last duplicate key wins) before any tool code or hook runs. `gate.model(model)`
//   wraps the AI SDK language model (v2, v3 or v4, what Mastra runs) and records the
//   `input` text of every tool call of a gated tool, keyed by its call id. The tool calls
//   of a response are passed on to Mastra when the response is complete (before its
//   `finish` part): only then can a call id the response uses twice be known, and Mastra
//   starts tools eagerly as soon as it sees a call.
// - Mastra validates a tool's input twice on its own path (the tool builder, then the
//   Tool's execute wrapper: a zod transform runs twice) and leniently (nulls stripped,
//   stringified JSON coerced). The gated tools Mastra runs are made with Mastra's
//   `createTool` around a schema that accepts its value unchanged and reports the tool's
//   own JSON Schema (what Mastra would send to the provider); the tool's schema runs once,
//   in the package's prepare step on the recorded text. The app's `execute` is called
//   directly, never through a Tool's execute wrapper (which would parse again), so the
//   gate takes createTool's options, or a tool made by this module's `createTool`.
// - Mastra's approval hooks (`requireApproval`, `requireToolApproval`) get the parsed
//   input without the raw text or the call id. The gate decides in the tool's execute,
//   where Mastra gives the call id and the run id: allow runs the handler through
//   executeToolCall (a new execution view, a grant spent right before it); deny answers
//   the model without running it; require_approval keeps the proposal and suspends
//   through Mastra's own approval flow (`suspend(payload, { requireToolApproval: true })`:
//   a `tool-call-approval` chunk, `pendingToolApprovals`, `approveToolCall` /
//   `declineToolCall`, `listSuspendedRuns`).
// - Mastra binds an approval to nothing but the run (and, when given, the call id): an
//   approval carries no payload, `approveToolCall({ runId })` resumes whichever call is
//   suspended, and on resume Mastra runs the arguments it stored. On resume the gate
//   prepares those stored arguments again (their RFC 8785 form: `argumentsSource:
//   'history'`), and executes only when the hash equals the kept proposal's and the
//   policy (an approved hash first) allows it. An approval for one call never executes
//   another (another hash: no grant), stored arguments edited after the request execute
//   nothing (`proposal_changed`), and a call approved the Mastra way without a grant is
//   refused with `approved_without_grant` (and one warning per gate).
// - Where the proposal waits. Mastra persists a suspended run as a workflow snapshot and
//   the thread's messages, but on the approval path it rebuilds the suspend payload
//   itself (`requireToolApproval: { toolCallId, toolName, args }`): the only field the gate
//   could write is `args`, which Mastra shows reviewers as the call's arguments and stores
//   in the assistant message's metadata. No field carries a proposal there, so the gate
//   keeps it with the package (grants.keepProposal, sealed with a key ring) under Mastra's
//   runId and the call id, namespaced by agent and grant scope: any process that shares
//   the grants' store (and Mastra's storage) approves and resumes it.
// - State: decisions and attempts live in one execute call (one run's one call); the
//   recorded texts are evidence keyed by call id until the call takes its own: only a text
//   that parses to the arguments Mastra parsed for the call, so a resumed call or another
//   run whose provider reuses the id never takes one that is not its own. An id a response
//   uses twice is `duplicate_call_id`; texts of concurrent runs that parse alike and differ
//   are `unpaired_call` (invalid input at stage json, as the package declares them).

const {
  requirePeer, invalidArgument, own, setData, ownDataCopy, readOptions, isWellFormedString,
  approvedWithoutGrantNotice, APPROVED_WITHOUT_GRANT, noPendingProposalError,
  jsonSchemaRefusesNull, jsonSchemaLocalRef,
} = require('./shared');

// The framework first: without it, requiring this subpath names the package to install.
const mastraTools = requirePeer('mastra', '@mastra/core', 'Mastra (@mastra/core 1.x)', () => require('@mastra/core/tools'));
const mastraSchema = requirePeer('mastra', '@mastra/core', 'Mastra (@mastra/core 1.x)', () => require('@mastra/core/schema'));
const api = require('tool-argument-snapshot');

const {
  prepareToolCallAsync, evaluateToolCall, executeToolCall, createApprovalGrants, canonicalize,
  isToolArgumentsValidationError, isToolCallNotAllowedError, isSnapshotDomainError, isApprovalGrantError,
  ToolArgumentsValidationError,
} = api;
const mastraCreateTool = mastraTools.createTool;
const validateToolOutput = mastraTools.validateToolOutput;
const toStandardSchema = mastraSchema.toStandardSchema;

// Built-ins, captured when the adapter loads.
const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectGetOwnPropertyNames = Object.getOwnPropertyNames;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const ObjectHasOwn = Object.hasOwn;
const ObjectFreeze = Object.freeze;
const ObjectDefineProperty = Object.defineProperty;
const ObjectPrototype = Object.prototype;
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
const ArrayPrototypeSlice = uncurryThis(Array.prototype.slice);
const NumberIsNaN = Number.isNaN;
const NumberIsFinite = Number.isFinite;
const SafeTransformStream = TransformStream;
const ReadableStreamPrototypePipeThrough = uncurryThis(ReadableStream.prototype.pipeThrough);
const { isProxy } = require('node:util').types;

const ADAPTER = 'mastra';

/** Recorded provider texts per gate before the oldest is dropped: each lives from the
 * model's response to the execute of its call, so only calls Mastra never runs (an aborted
 * step, a tool the step hid) pile up. */
const MAX_PENDING = 4096;

/** Model properties Mastra may read besides the language model specification's. */
const PASSED_THROUGH = ['supportsStructuredOutputs', 'defaultObjectGenerationMode', 'supportsImageUrls'];

const MISSING_CALL_ID = 'missing_call_id';
const DUPLICATE_CALL_ID = 'duplicate_call_id';
const UNPAIRED_CALL = 'unpaired_call';
const NO_PROVIDER_TEXT = 'no_provider_text';
const HOW_TO_APPROVE = 'grant the reviewer\'s approval with `await gate.approve({ runId, toolCallId })` before `agent.approveToolCall({ runId, toolCallId })`, in this process or in any other that shares the grants\' store.';

// The options of Mastra's createTool the gate reads itself or replaces; every other own
// data option is passed to Mastra's createTool as it is.
const REPLACED_OPTIONS = ['inputSchema', 'outputSchema', 'execute', 'requireApproval'];

function isId(value) {
  return isWellFormedString(value) && value !== '';
}

/**
 * Invalid input (stage json) of a call that cannot be paired with its own provider text:
 * `missing_call_id`, `duplicate_call_id` (the response used the id twice), `unpaired_call`
 * (texts of concurrent runs share the id and the run's arguments do not single one out),
 * `no_provider_text` (no text was recorded: a model the gate does not wrap, a call made
 * outside an agent run, nothing kept for a resumed call).
 */
function callError(toolName, code) {
  return new ToolArgumentsValidationError('json', toolName, code);
}

/** `approve` or `decline` found no proposal waiting for this call (code TAS_NO_PENDING_PROPOSAL). */
function notPendingError() {
  return noPendingProposalError('no proposal is waiting for approval for this tool call of this run (approved, declined, expired, or never asked under this agent and grant scope)');
}

/** The first key of a map (insertion order), or undefined. */
function firstKey(map) {
  const step = MapIteratorNext(MapPrototypeKeys(map));
  return step.done ? undefined : step.value;
}

/**
 * Whether a recorded text's lenient parse `a` is the arguments object `b` Mastra made of
 * it: the same JSON data, own data properties only, except that a property null on one side
 * may be absent or undefined on the other (a provider's compat layer turns such nulls into
 * undefined in place before the tool runs).
 */
function sameArguments(a, b, depth) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return typeof a === 'number' && NumberIsNaN(a) && NumberIsNaN(b);
  if (depth > 1100 || isProxy(a) || isProxy(b)) return false;
  const arrays = ArrayIsArray(a);
  if (arrays !== ArrayIsArray(b)) return false;
  if (arrays) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameArguments(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (ObjectGetPrototypeOf(a) !== ObjectPrototype || ObjectGetPrototypeOf(b) !== ObjectPrototype) return false;
  const namesA = ObjectGetOwnPropertyNames(a);
  const namesB = ObjectGetOwnPropertyNames(b);
  for (let side = 0; side < 2; side++) {
    const names = side === 0 ? namesA : namesB;
    for (let i = 0; i < names.length; i++) {
      const va = dataOf(a, names[i]);
      const vb = dataOf(b, names[i]);
      if (va === NOT_DATA || vb === NOT_DATA) return false;
      const noneA = va === null || va === undefined;
      const noneB = vb === null || vb === undefined;
      if (noneA && noneB) continue;
      if (noneA !== noneB) return false;
      // Keys of both sides were compared on the first pass.
      if (side === 0 && !sameArguments(va, vb, depth + 1)) return false;
    }
  }
  return true;
}

/** What `dataOf` answers for an accessor property. */
const NOT_DATA = ObjectFreeze({});

/** The value of an own data property (undefined when absent), or NOT_DATA for an accessor. */
function dataOf(object, key) {
  const descriptor = ObjectGetOwnPropertyDescriptor(object, key);
  if (descriptor === undefined) return undefined;
  return ObjectHasOwn(descriptor, 'value') ? descriptor.value : NOT_DATA;
}

// ---------------------------------------------------------------------------------
// Tools: createTool options in, Mastra tools out.

/** The options each tool made by this module's createTool was made with (own data copies). */
const optionsOfTool = new SafeWeakMap();

/**
 * Mastra's `createTool(options)`, returning the same Mastra tool, that also remembers the
 * options so that `createToolGate` can gate the tool: a Mastra tool's `execute` validates
 * its input again, so the gate needs the `execute` you wrote.
 */
function createTool(options) {
  if (options === null || typeof options !== 'object' || isProxy(options)) throw invalidArgument('createTool expects the options of Mastra\'s createTool');
  const copy = ownDataCopy(options);
  const tool = mastraCreateTool(copy);
  WeakMapPrototypeSet(optionsOfTool, tool, ObjectFreeze(copy));
  return tool;
}

/** Whether `schema` is a plain JSON Schema object (no validator: not zod, not a Standard Schema). */
function isPlainJsonSchema(schema) {
  if (schema === null || typeof schema !== 'object' || ArrayIsArray(schema)) return false;
  const proto = ObjectGetPrototypeOf(schema);
  if (proto !== ObjectPrototype && proto !== null) return false;
  return !ObjectHasOwn(schema, '~standard') && typeof own(schema, 'parse') !== 'function' && typeof own(schema, 'safeParse') !== 'function';
}

/** fromJsonSchema of the package (issue 18), compiled now; a TypeError naming what is missing. */
function compileJsonSchema(json, toolName, jsonSchemaOptions) {
  const fromJsonSchema = own(api, 'fromJsonSchema');
  if (typeof fromJsonSchema !== 'function') {
    throw invalidArgument(`the inputSchema of tool "${toolName}" is a JSON Schema: gating it needs fromJsonSchema from tool-argument-snapshot (a newer version)`);
  }
  try {
    return jsonSchemaOptions === undefined ? fromJsonSchema(json) : fromJsonSchema(json, jsonSchemaOptions);
  } catch (error) {
    if (own(error, 'code') === 'MODULE_NOT_FOUND') throw error;
    throw invalidArgument(`the JSON Schema of tool "${toolName}" cannot be used: ${own(error, 'message')}`);
  }
}

// ---------------------------------------------------------------------------------
// Nulls for optional fields. Mastra's OpenAI compat layer shows OpenAI models every
// optional field as required and nullable (its JSON Schema lists them in `x-optional`), so
// the model sends `null` for a field it omits, and Mastra alone turns such a null into an
// absent field before validating, also where the schema accepts null (a
// `z.union([z.string(), z.literal(null)]).optional()` "unassign" arrives as "unchanged").
// The gate removes a null from the schema's own decoded copy only at an optional property
// whose schema is known to refuse null (read from the tool's JSON Schema, without running
// schema code); everywhere else the null stays and the schema decides. The provider text
// (rawArguments) keeps it.

/** The object schema a value of `schema` follows (through local refs), or undefined. */
function objectSchemaOf(schema, root, depth) {
  if (schema === null || typeof schema !== 'object' || ArrayIsArray(schema) || depth > 64) return undefined;
  const ref = own(schema, '$ref');
  if (typeof ref === 'string') return objectSchemaOf(jsonSchemaLocalRef(root, ref), root, depth + 1);
  return schema;
}

/**
 * `value` without the nulls of optional properties whose schema refuses null, copied
 * where something is removed (the decoded value itself is never changed).
 */
function withoutRefusedNulls(value, schema, root, depth) {
  const node = objectSchemaOf(schema, root, depth);
  if (node === undefined || value === null || typeof value !== 'object' || depth > 1100) return value;
  if (ArrayIsArray(value)) {
    const items = own(node, 'items');
    if (items === undefined || ArrayIsArray(items)) return value;
    let copy;
    for (let i = 0; i < value.length; i++) {
      const item = withoutRefusedNulls(value[i], items, root, depth + 1);
      if (item !== value[i]) {
        if (copy === undefined) copy = ArrayPrototypeSlice(value);
        copy[i] = item;
      }
    }
    return copy ?? value;
  }
  const properties = own(node, 'properties');
  if (properties === null || typeof properties !== 'object') return value;
  const required = own(node, 'required');
  const isRequired = (key) => {
    if (!ArrayIsArray(required)) return false;
    for (let i = 0; i < required.length; i++) if (required[i] === key) return true;
    return false;
  };
  let copy;
  const names = ObjectGetOwnPropertyNames(value);
  for (let i = 0; i < names.length; i++) {
    const key = names[i];
    const property = own(properties, key);
    if (property === undefined) continue;
    const current = own(value, key);
    let next = current;
    if (current === null) {
      if (!isRequired(key) && jsonSchemaRefusesNull(property, root)) next = undefined;
    } else {
      next = withoutRefusedNulls(current, property, root, depth + 1);
    }
    if (next === current) continue;
    if (copy === undefined) copy = ownDataCopy(value);
    if (next === undefined) delete copy[key];
    else setData(copy, key, next);
  }
  return copy ?? value;
}

/**
 * The schema the package runs for a tool: the tool's own, seeing its decoded value without
 * the nulls above (the JSON Schema is the tool's own, as Mastra makes it). zod keeps its
 * safeParseAsync (run once per attempt, as the package runs zod); a Standard Schema its
 * validate; anything else is run as it is.
 */
function nullTolerantSchema(schema, jsonSchemaOf) {
  if (schema === undefined) return undefined;
  let json;
  const strip = (value) => {
    if (json === undefined) {
      try {
        json = jsonSchemaOf();
      } catch {
        json = null;
      }
    }
    return json === null ? value : withoutRefusedNulls(value, json, json, 0);
  };
  const standard = schema['~standard'];
  const validate = standard !== null && typeof standard === 'object' ? standard.validate : undefined;
  const wrapper = {};
  if (typeof schema.safeParseAsync === 'function') {
    setData(wrapper, 'safeParseAsync', (value) => schema.safeParseAsync(strip(value)));
  } else if (typeof validate !== 'function') {
    return schema;
  }
  if (typeof validate === 'function') {
    setData(wrapper, '~standard', ObjectFreeze({ version: 1, vendor: standard.vendor, validate: (value) => ReflectApply(validate, standard, [strip(value)]) }));
  }
  return ObjectFreeze(wrapper);
}

/**
 * What Mastra runs as the gated tool's input schema: it accepts every value unchanged
 * (the tool's schema runs in the package, once) and reports the JSON Schema Mastra makes
 * of the tool's own schema, so the provider sees what it would see without the gate.
 */
function wireSchemaOf(inputSchema) {
  let standard;
  const jsonSchemaOf = (io, options) => {
    if (inputSchema === undefined) return { type: 'object', properties: {}, additionalProperties: false };
    if (standard === undefined) standard = toStandardSchema(inputSchema);
    return standard['~standard'].jsonSchema[io](options);
  };
  return ObjectFreeze({
    '~standard': ObjectFreeze({
      version: 1,
      vendor: 'tool-argument-snapshot',
      validate: (value) => ({ value }),
      jsonSchema: ObjectFreeze({
        input: (options) => jsonSchemaOf('input', options),
        output: (options) => jsonSchemaOf('input', options),
      }),
    }),
  });
}

function readTools(tools, jsonSchemaOptions) {
  if (tools === null || typeof tools !== 'object' || isProxy(tools)) {
    throw invalidArgument('options.tools must be an object of tools by name: createTool options, or tools made by createTool of tool-argument-snapshot/mastra');
  }
  const names = ObjectGetOwnPropertyNames(tools);
  const entries = [];
  for (let i = 0; i < names.length; i++) {
    const toolName = names[i];
    if (!isId(toolName)) throw invalidArgument('options.tools has a tool name that is not a non-empty well-formed string');
    const given = own(tools, toolName);
    if (given === null || typeof given !== 'object' || isProxy(given)) {
      throw invalidArgument(`options.tools["${toolName}"] must be createTool options or a tool made by createTool of tool-argument-snapshot/mastra (an own data property, not a Proxy)`);
    }
    let options = WeakMapPrototypeGet(optionsOfTool, given);
    if (options === undefined) {
      if (typeof own(given, 'execute') === 'function' && ObjectGetPrototypeOf(given) !== ObjectPrototype && ObjectGetPrototypeOf(given) !== null) {
        // A Mastra Tool instance: its execute validates the input again (a second parse).
        throw invalidArgument(`options.tools["${toolName}"] is a Mastra tool whose execute would run its schema a second time: make it with createTool from tool-argument-snapshot/mastra (same options), or pass its createTool options`);
      }
      options = ownDataCopy(given);
    }
    const execute = own(options, 'execute');
    if (typeof execute !== 'function') throw invalidArgument(`options.tools["${toolName}"] has no execute function: a tool Mastra does not run here has nothing to gate`);
    if (own(options, 'suspendSchema') !== undefined || own(options, 'resumeSchema') !== undefined) {
      throw invalidArgument(`options.tools["${toolName}"] suspends itself (suspendSchema / resumeSchema): such tools are not gated (the gate suspends for approval itself)`);
    }
    const inputSchema = own(options, 'inputSchema');
    const jsonSchema = isPlainJsonSchema(inputSchema);
    const ownSchema = inputSchema === undefined ? undefined
      : jsonSchema ? compileJsonSchema(inputSchema, toolName, jsonSchemaOptions)
        : inputSchema;
    // The tool's JSON Schema as Mastra makes it (what the provider was shown, before any
    // provider's compat layer).
    const jsonSchemaOf = jsonSchema ? () => inputSchema : () => toStandardSchema(inputSchema)['~standard'].jsonSchema.input({ target: 'draft-07' });
    const schema = nullTolerantSchema(ownSchema, jsonSchemaOf);
    ArrayPrototypePush(entries, {
      toolName,
      options,
      execute,
      schema,
      inputSchema,
      outputSchema: own(options, 'outputSchema'),
      policy: undefined,
    });
  }
  return entries;
}

/**
 * The policy option: undefined, one function for every tool, or a map from tool name to a
 * function (each an own data property naming a tool of `tools`). Returns a function from
 * tool name to its policy (or undefined).
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
    if (MapPrototypeGet(byName, toolName) === undefined) throw invalidArgument('options.policy names a tool that is not in options.tools');
    const toolPolicy = own(policy, toolName);
    if (toolPolicy === undefined) continue;
    if (typeof toolPolicy !== 'function' || isProxy(toolPolicy)) throw invalidArgument(`options.policy["${toolName}"] must be a function (an own data property)`);
    MapPrototypeSet(perTool, toolName, toolPolicy);
  }
  return (toolName) => MapPrototypeGet(perTool, toolName);
}

// ---------------------------------------------------------------------------------
// Recorded provider texts.

/** What `take` answers when the response used the call id twice. */
const DUPLICATE = ObjectFreeze({ code: DUPLICATE_CALL_ID });
/** What `take` answers when texts of several responses share the id and none is the run's for sure. */
const UNPAIRED = ObjectFreeze({ code: UNPAIRED_CALL });

/**
 * Provider texts of gated tool calls by call id, oldest first, at most MAX_PENDING in all
 * (past that, the oldest goes). Each is taken once, by the execute of its call.
 */
class RecordedTexts {
  #byId = new SafeMap();
  #size = 0;

  add(toolCallId, record) {
    let list = MapPrototypeGet(this.#byId, toolCallId);
    if (list === undefined) {
      list = [];
      MapPrototypeSet(this.#byId, toolCallId, list);
    }
    ArrayPrototypePush(list, record);
    if (++this.#size > MAX_PENDING) this.#removeAt(firstKey(this.#byId), 0);
  }

  /**
   * The recorded text of the call `toolCallId` of `toolName` whose arguments Mastra parsed
   * as `args`: undefined when none is, DUPLICATE when the id was used twice in one
   * response, UNPAIRED when texts of several responses (concurrent runs) share it, parse to
   * these arguments and differ (which is this run's cannot be told). What it answers, it removes.
   */
  take(toolCallId, toolName, args) {
    const list = MapPrototypeGet(this.#byId, toolCallId);
    if (list === undefined) return undefined;
    const candidates = [];
    for (let i = 0; i < list.length; i++) if (list[i].toolName === toolName) ArrayPrototypePush(candidates, list[i]);
    if (candidates.length === 0) return undefined;
    for (let i = 0; i < candidates.length; i++) {
      if (candidates[i].duplicate) {
        // The response used this id twice (Mastra runs one of them): every call of it goes.
        const response = candidates[i].response;
        for (let j = list.length - 1; j >= 0; j--) if (list[j].response === response) this.#removeAt(toolCallId, j);
        return DUPLICATE;
      }
    }
    // This run's call is the one whose text parses to the arguments Mastra parsed for it:
    // another run's text with the same id (a provider that reuses ids) is left to its run,
    // and a call whose own text never passed the gate (a resumed call) takes none.
    const matching = [];
    for (let i = 0; i < candidates.length; i++) if (lenientMatches(candidates[i], args)) ArrayPrototypePush(matching, candidates[i]);
    if (matching.length === 0) return undefined;
    for (let i = 1; i < matching.length; i++) {
      if (matching[i].text !== matching[0].text) {
        for (let j = 0; j < matching.length; j++) this.#remove(toolCallId, matching[j]);
        return UNPAIRED;
      }
    }
    this.#remove(toolCallId, matching[0]);
    return matching[0];
  }

  #remove(toolCallId, record) {
    const list = MapPrototypeGet(this.#byId, toolCallId);
    for (let i = 0; i < list.length; i++) {
      if (list[i] === record) {
        this.#removeAt(toolCallId, i);
        return;
      }
    }
  }

  #removeAt(toolCallId, index) {
    const list = MapPrototypeGet(this.#byId, toolCallId);
    ArrayPrototypeSplice(list, index, 1);
    this.#size--;
    if (list.length === 0) MapPrototypeDelete(this.#byId, toolCallId);
  }
}

/**
 * Whether a recorded text is the one Mastra parsed to `args`: its lenient parse is the same
 * arguments, or it does not parse at all (Mastra repairs or drops such text; the strict
 * decode then refuses it).
 */
function lenientMatches(record, args) {
  if (record.lenient === undefined) {
    try {
      record.lenient = { value: StringPrototypeTrim(record.text) === '' ? {} : JSONParse(record.text) };
    } catch {
      record.lenient = null;
    }
  }
  return record.lenient === null || sameArguments(record.lenient.value, args, 0);
}

/**
 * `value` without own properties whose value is undefined (JSON has none: Mastra's storage
 * drops them), copied where one is removed; anything else as it is.
 */
function withoutUndefined(value, depth) {
  if (value === null || typeof value !== 'object' || isProxy(value) || depth > 1100) return value;
  if (ArrayIsArray(value)) {
    let copy;
    for (let i = 0; i < value.length; i++) {
      const item = withoutUndefined(value[i], depth + 1);
      if (item !== value[i]) {
        if (copy === undefined) copy = ArrayPrototypeSlice(value);
        copy[i] = item;
      }
    }
    return copy ?? value;
  }
  const proto = ObjectGetPrototypeOf(value);
  if (proto !== ObjectPrototype && proto !== null) return value;
  let copy;
  const names = ObjectGetOwnPropertyNames(value);
  for (let i = 0; i < names.length; i++) {
    const descriptor = ObjectGetOwnPropertyDescriptor(value, names[i]);
    if (!ObjectHasOwn(descriptor, 'value')) continue;
    const next = descriptor.value === undefined ? undefined : withoutUndefined(descriptor.value, depth + 1);
    if (next === descriptor.value && descriptor.value !== undefined) continue;
    if (copy === undefined) copy = ownDataCopy(value);
    if (next === undefined) delete copy[names[i]];
    else setData(copy, names[i], next);
  }
  return copy ?? value;
}

// ---------------------------------------------------------------------------------
// Approval requests.

/**
 * What `approve`, `decline` and `keptProposal` accept: `{ runId, toolCallId, grantScope? }`
 * (also what `agent.approveToolCall` takes), a `tool-call-approval` chunk of Mastra's stream
 * (`{ runId, payload: { toolCallId } }`), or a suspended generate result
 * (`{ runId, suspendPayload: { toolCallId } }`). Read as own data properties.
 */
function approvalRef(request, what) {
  const usage = `${what} expects { runId, toolCallId, grantScope? }, a tool-call-approval chunk or a suspended generate result`;
  if (request === null || typeof request !== 'object' || isProxy(request)) throw invalidArgument(usage);
  const runId = own(request, 'runId');
  let toolCallId = own(request, 'toolCallId');
  if (toolCallId === undefined) {
    const payload = own(request, 'payload') ?? own(request, 'suspendPayload');
    if (payload !== null && typeof payload === 'object' && !isProxy(payload)) toolCallId = own(payload, 'toolCallId');
  }
  const grantScope = own(request, 'grantScope');
  if (!isId(runId) || !isId(toolCallId)) throw invalidArgument(usage);
  if (grantScope !== undefined && grantScope !== null && !isWellFormedString(grantScope)) throw invalidArgument(`${what}: grantScope must be a well-formed string`);
  return { runId, toolCallId, grantScope };
}

// ---------------------------------------------------------------------------------
// Default answers to the model for calls that do not run.

function defaultNotExecutedOutput(info) {
  return {
    error: true,
    message: `The tool call was not executed (${info.decision}: ${info.reason}).`,
    decision: info.decision,
    reason: info.reason,
    decidedBy: info.decidedBy,
  };
}

function defaultInvalidInputOutput(error) {
  // The package's message names the tool, the stage and the code, never the payload. The
  // shape is Mastra's own for invalid tool input (`isValidationError` recognizes it).
  const message = `${error.message} Please call the tool again with valid arguments.`;
  return { error: true, message, validationErrors: { errors: [message], fields: {} }, stage: error.stage, code: error.code };
}

// ---------------------------------------------------------------------------------

const GATE_USAGE = 'createToolGate expects { agentName, tools, policy?, grants?, grantScope?, proposalTtlMs?, onDecision?, notExecutedOutput?, invalidInputOutput?, includePath?, jsonSchemaOptions? }';

function createToolGate(options) {
  const opts = readOptions(options, GATE_USAGE);
  if (opts === null) throw invalidArgument(GATE_USAGE);
  const agentName = own(opts, 'agentName');
  if (!isId(agentName)) throw invalidArgument('options.agentName must be a non-empty well-formed string');
  const grantsOption = own(opts, 'grants');
  let grants = grantsOption;
  if (grants === undefined) grants = createApprovalGrants();
  else if (grants === null || typeof grants !== 'object' || isProxy(grants) || typeof own(grants, 'policy') !== 'function' || typeof own(grants, 'grant') !== 'function') {
    throw invalidArgument('options.grants must be an object made by createApprovalGrants');
  }
  const scopeOption = own(opts, 'grantScope');
  if (scopeOption !== undefined && scopeOption !== null && typeof scopeOption !== 'function' && !isWellFormedString(scopeOption)) {
    throw invalidArgument('options.grantScope must be a well-formed string or a function of the run ({ requestContext, runId, threadId, resourceId })');
  }
  if (typeof scopeOption === 'function' && isProxy(scopeOption)) throw invalidArgument('options.grantScope must not be a Proxy');
  const proposalTtlMs = own(opts, 'proposalTtlMs');
  if (proposalTtlMs !== undefined && (typeof proposalTtlMs !== 'number' || !(proposalTtlMs > 0) || !NumberIsFinite(proposalTtlMs))) {
    throw invalidArgument('options.proposalTtlMs must be a positive finite number of milliseconds');
  }
  const onDecision = own(opts, 'onDecision');
  if (onDecision !== undefined && typeof onDecision !== 'function') throw invalidArgument('options.onDecision must be a function');
  const notExecutedOutput = own(opts, 'notExecutedOutput') ?? defaultNotExecutedOutput;
  const invalidInputOutput = own(opts, 'invalidInputOutput') ?? defaultInvalidInputOutput;
  if (typeof notExecutedOutput !== 'function' || typeof invalidInputOutput !== 'function') {
    throw invalidArgument('options.notExecutedOutput and options.invalidInputOutput must be functions');
  }
  const includePath = own(opts, 'includePath') === true;
  const jsonSchemaOptions = own(opts, 'jsonSchemaOptions');
  if (jsonSchemaOptions !== undefined && (jsonSchemaOptions === null || typeof jsonSchemaOptions !== 'object' || isProxy(jsonSchemaOptions))) {
    throw invalidArgument('options.jsonSchemaOptions must be an object ({ defaults?, formats? } of fromJsonSchema)');
  }

  // The grants' methods, read once.
  const grantsPolicy = own(grants, 'policy');
  const grantsGrant = own(grants, 'grant');
  const keepProposal = own(grants, 'keepProposal');
  const keptProposal = own(grants, 'keptProposal');
  const forgetProposal = own(grants, 'forgetProposal');
  if (typeof keepProposal !== 'function' || typeof keptProposal !== 'function' || typeof forgetProposal !== 'function') {
    throw invalidArgument('options.grants must be an object made by createApprovalGrants (keepProposal, keptProposal, forgetProposal)');
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

  const notice = approvedWithoutGrantNotice(ADAPTER, HOW_TO_APPROVE);
  const texts = new RecordedTexts();

  /** The kept proposal's key: Mastra's run and the call, namespaced by agent and grant scope. */
  function keyOf(scope, runId, toolCallId) {
    const scopePart = scope === null ? '-' : `${scope.length}:${scope}`;
    return { runId: `mastra ${agentName.length}:${agentName} ${scopePart} ${runId}`, toolCallId };
  }

  /**
   * Where a proposal goes once `approve` granted it: no longer waiting (approve and decline
   * never look here), still what Mastra's resumed call is checked against.
   */
  function approvedKeyOf(scope, runId, toolCallId) {
    const scopePart = scope === null ? '-' : `${scope.length}:${scope}`;
    return { runId: `mastra-approved ${agentName.length}:${agentName} ${scopePart} ${runId}`, toolCallId };
  }

  function keepOptionsOf(scope) {
    const keepOptions = { scope };
    if (proposalTtlMs !== undefined) setData(keepOptions, 'ttlMs', proposalTtlMs);
    return keepOptions;
  }

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
    const decision = await evaluateToolCall({ prepared, policy: entry.policy, policyContext, toolCallId: call.toolCallId });
    if (onDecision !== undefined) await onDecision(decision, { toolCallId: call.toolCallId, runId: call.runId, argumentsSource, resume });
    return decision;
  }

  /** Runs the handler for an allow: the app's execute on a new execution view, at most once. */
  async function runAllowed(entry, decision, context) {
    try {
      return await executeToolCall(decision, async (view) => {
        const output = await ReflectApply(entry.execute, undefined, [view, context]);
        if (entry.outputSchema === undefined || entry.outputSchema === null) return output;
        // Mastra's own output check (the gated tool has none of its own, so a refusal
        // answered to the model is never checked as the tool's output).
        const checked = validateToolOutput(entry.outputSchema, output, entry.toolName);
        return own(checked, 'error') !== undefined ? own(checked, 'error') : own(checked, 'data');
      });
    } catch (error) {
      // The grant the allow relied on could not be spent (used up, store down): not run.
      if (isToolCallNotAllowedError(error) && own(error, 'code') === 'grant_unavailable') return notExecuted('deny', 'grant_unavailable', 'runtime');
      throw error;
    }
  }

  /** A call Mastra runs for the first time: its text recorded, its decision made now. */
  async function firstAttempt(entry, recorded, call, context) {
    let prepared;
    try {
      prepared = await prepareToolCallAsync({ agentName, toolName: entry.toolName, rawArguments: recorded.text, schema: entry.schema, includePath, toolCallId: call.toolCallId });
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
    let kept;
    try {
      kept = await ReflectApply(keptProposal, grants, [key]);
      if (kept === undefined) {
        key = keyOf(call.scope, call.runId, call.toolCallId);
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
    if (kept === undefined) return invalidInputOutput(callError(entry.toolName, NO_PROVIDER_TEXT));
    let prepared;
    try {
      // Mastra stored only its parsed object: its RFC 8785 form is what is prepared. A
      // provider's compat layer may have set fields to undefined in it (absent in storage).
      const rawArguments = canonicalize(withoutUndefined(args, 0), { includePath });
      prepared = await prepareToolCallAsync({ agentName, toolName: entry.toolName, rawArguments, schema: entry.schema, includePath, toolCallId: call.toolCallId });
    } catch (error) {
      if (!isToolArgumentsValidationError(error) && !isSnapshotDomainError(error)) throw error;
      await forget(key);
      return notExecuted('deny', 'proposal_changed', 'runtime');
    }
    if (prepared.proposalHash !== own(kept, 'proposalHash') || own(kept, 'toolName') !== entry.toolName || own(kept, 'agentName') !== agentName) {
      // The stored arguments are not the ones the reviewer was asked about.
      await forget(key);
      return notExecuted('deny', 'proposal_changed', 'runtime');
    }
    const decision = await decide(entry, prepared, call, 'history', true);
    // Settled now: whatever follows, this request is answered.
    await forget(key);
    if (decision.decision === 'allow') return runAllowed(entry, decision, context);
    if (decision.decision === 'deny') return notExecutedOutput({ decision: 'deny', reason: decision.reason, decidedBy: decision.decidedBy });
    // Resumed by Mastra (approveToolCall) while no grant allows this exact hash.
    notice();
    return notExecuted('deny', APPROVED_WITHOUT_GRANT, 'runtime');
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
    const uses = new SafeMap();
    const count = (id) => {
      if (isId(id)) MapPrototypeSet(uses, id, (MapPrototypeGet(uses, id) ?? 0) + 1);
    };
    for (let i = 0; i < parts.length; i++) if (own(parts[i], 'type') === 'tool-call') count(own(parts[i], 'toolCallId'));
    for (let i = 0; i < otherIds.length; i++) count(otherIds[i]);
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
            if (gatedCall(chunk)) {
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
        setData(copy, 'stream', ReadableStreamPrototypePipeThrough(own(result, 'stream'), recording));
        return copy;
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
      const { ModelRouterLanguageModel } = requirePeer(ADAPTER, '@mastra/core', 'Mastra (@mastra/core 1.x)', () => require('@mastra/core/llm'));
      return wrapModel(new ModelRouterLanguageModel(languageModel));
    }
    return wrapModel(languageModel);
  }

  /** The proposal waiting for approval of this call of this run (sealed with a key ring), or undefined. */
  async function kept(request) {
    const ref = approvalRef(request, 'keptProposal');
    return ReflectApply(keptProposal, grants, [keyOf(scopeOfRequest(ref), ref.runId, ref.toolCallId)]);
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
    const passed = {};
    if (gopts !== null) {
      const names = ['uses', 'ttlMs', 'expiresAt'];
      for (let i = 0; i < names.length; i++) {
        const value = own(gopts, names[i]);
        if (value !== undefined) setData(passed, names[i], value);
      }
    }
    setData(passed, 'scope', scope);
    const key = keyOf(scope, ref.runId, ref.toolCallId);
    const record = await ReflectApply(keptProposal, grants, [key]);
    if (record === undefined) throw notPendingError();
    try {
      await ReflectApply(grantsGrant, grants, [record, passed]);
    } catch (error) {
      // Another approval of the same record granted it first (its nonce is recorded).
      if (isApprovalGrantError(error) && own(error, 'code') === 'seal_used') throw notPendingError();
      throw error;
    }
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

  return ObjectFreeze({ tools: ObjectFreeze(tools), model, keptProposal: kept, approve, decline, grants });
}

module.exports = { createToolGate, createTool };
