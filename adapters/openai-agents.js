'use strict';
// tool-argument-snapshot/openai-agents: RFC-0016 for the OpenAI Agents SDK (0.20).
//
// Where the SDK still has what RFC-0016 needs, and so where this adapter works:
// - The provider's raw argument string reaches `needsApproval` nowhere (it gets the SDK's
//   lenient JSON.parse copy and the call id), so `gate.model(model)` records the raw
//   string of every function call in the model's response.
// - Everything the gate remembers belongs to one run. The SDK gives the model call
//   nothing of the run (a ModelRequest has no run context), but it runs each turn of each
//   run inside that run's own tracing span (`getCurrentSpan()`, the SDK's
//   AsyncLocalStorage, kept even with tracing disabled): the model call and the
//   `needsApproval` calls of one turn see the same span object and no other run sees it.
//   Provider texts are kept per span; decisions and proposals per RunContext (the object
//   the SDK makes for each run and passes to `needsApproval` and `execute`). Nothing is
//   keyed by call id across runs: two runs with the same call id and arguments never see
//   each other's text, decision or proposal.
// - `needsApproval` is the only hook that can interrupt a run for approval. The gate
//   prepares the call there (strict decode, the schema once, the snapshot), asks the
//   policy, and interrupts only on `require_approval`.
// - `execute` receives `details.toolCall.arguments`, the raw string of the call the SDK is
//   about to run. The decision made in `needsApproval` is used only for that exact string;
//   any other string (a resumed run, a restored or edited RunState) is a new attempt,
//   prepared and evaluated again there. Nothing runs without an allow made for the very
//   string being executed, and `executeToolCall` spends a grant right before the handler.
//   A call the SDK approved (`state.approve`) whose new attempt finds no grant is refused
//   with reason `approved_without_grant` (and one warning per gate).
// - The proposal of a pending call is carried in the run's serialized state, in the one
//   place of it that never reaches the model provider: the run context's `context` object
//   (the SDK documents it as local; `RunContext.toJSON` serializes it), under the key
//   `tool-argument-snapshot`. It is sealed when the grants have keys. So `gate.pending`
//   shows it after `RunState.fromString` in a fresh process, with a fresh gate, and a call
//   left undecided when a run resumes stays pending.
// - The SDK is given a JSON schema that does not validate, so the tool's schema runs in
//   this package only. In strict mode (the SDK's default) the model sees optional fields as
//   required and nullable and sends `null` for an omitted one; the gate removes such a null
//   from the schema's own decoded copy before the schema runs, only where the schema is
//   known to refuse null (zod 3, zod 4 and JSON Schema definitions, read without running
//   schema code); everywhere else the null stays. The raw string and requestedArguments
//   keep it.
// - A JSON, schema or snapshot failure is thrown from `execute` and answered through the
//   tool's `errorFunction`, the SDK's path for invalid input: the model gets an error
//   output it can correct; no decision exists and the policy never ran.

const {
  requirePeer, invalidArgument: sharedInvalidArgument, own, setData, ownDataCopy, readOptions,
  isWellFormedString, approvedWithoutGrantNotice, APPROVED_WITHOUT_GRANT, noPendingProposalError,
  jsonSchemaRefusesNull, jsonSchemaLocalRef,
} = require('./shared');

// The framework first: without it, requiring this subpath names the package to install.
const sdk = requirePeer('openai-agents', '@openai/agents', 'the OpenAI Agents SDK', () => require('@openai/agents'));
const api = require('tool-argument-snapshot');

const {
  prepareToolCallAsync: prepare, evaluateToolCall, executeToolCall, ToolArgumentsValidationError, canonicalize,
  isToolArgumentsValidationError: isValidationError, isToolCallNotAllowedError: isNotAllowedError,
} = api;
const sdkTool = sdk.tool;
const getCurrentSpan = sdk.getCurrentSpan;

// Built-ins captured at load, like the package's own.
const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
const ObjectKeys = Object.keys;
const ObjectFreeze = Object.freeze;
const ObjectIsExtensible = Object.isExtensible;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const ObjectPrototype = Object.prototype;
const ObjectHasOwn = Object.hasOwn;
const ArrayIsArray = Array.isArray;
const ArrayPrototypePush = uncurryThis(Array.prototype.push);
const ArrayPrototypeIncludes = uncurryThis(Array.prototype.includes);
const SafeMap = Map;
const SafeWeakMap = WeakMap;
const MapPrototypeGet = uncurryThis(Map.prototype.get);
const MapPrototypeSet = uncurryThis(Map.prototype.set);
const MapPrototypeDelete = uncurryThis(Map.prototype.delete);
const WeakMapPrototypeGet = uncurryThis(WeakMap.prototype.get);
const WeakMapPrototypeSet = uncurryThis(WeakMap.prototype.set);
const JSONParse = JSON.parse;
const JSONStringify = JSON.stringify;
const { isProxy } = require('node:util').types;

const ADAPTER = 'openai-agents';

function invalidArgument(message) {
  return sharedInvalidArgument(`tool-argument-snapshot/${ADAPTER}: ${message}`);
}

// ---------------------------------------------------------------------------------
// Strict mode's null-for-optional, undone only where the schema is known to refuse null.
// zod 3 and zod 4 are read through their definitions (own data properties): no schema
// method or user code runs, a lazy schema's getter is never called. Anything the gate
// cannot read for certain (lazy, custom, a transform or preprocess, catch, any, unknown,
// an unknown kind) counts as accepting null: the null stays and the schema decides.

const MAX_SCHEMA_DEPTH = 64;

/** The definition of a zod schema with its kind, or undefined for anything else. */
function zodDefinition(schema) {
  const zod4 = own(schema, '_zod');
  if (zod4 !== undefined) {
    const def = own(zod4, 'def');
    const type = own(def, 'type');
    return typeof type === 'string' ? { __proto__: null, version: 4, kind: type, def } : undefined;
  }
  const def = own(schema, '_def');
  const typeName = own(def, 'typeName');
  return typeof typeName === 'string' ? { __proto__: null, version: 3, kind: typeName, def } : undefined;
}

function isZodSchema(schema) {
  return zodDefinition(schema) !== undefined;
}

// Kinds whose every value is something other than null (zod 4 type, zod 3 typeName).
const REFUSES_NULL = ObjectFreeze({
  __proto__: null,
  string: true, ZodString: true, number: true, ZodNumber: true, int: true, bigint: true, ZodBigInt: true,
  boolean: true, ZodBoolean: true, date: true, ZodDate: true, symbol: true, ZodSymbol: true,
  undefined: true, ZodUndefined: true, void: true, ZodVoid: true, never: true, ZodNever: true,
  nan: true, ZodNaN: true, object: true, ZodObject: true, array: true, ZodArray: true, tuple: true, ZodTuple: true,
  record: true, ZodRecord: true, map: true, ZodMap: true, set: true, ZodSet: true, template_literal: true,
  file: true, function: true, ZodFunction: true,
});

// Wrappers that hand null, as it is, to one inner schema: [definition field].
const PASS_NULL = ObjectFreeze({
  __proto__: null,
  optional: 'innerType', ZodOptional: 'innerType', default: 'innerType', ZodDefault: 'innerType',
  prefault: 'innerType', readonly: 'innerType', ZodReadonly: 'innerType', nonoptional: 'innerType',
  ZodBranded: 'type', pipe: 'in', ZodPipeline: 'in',
});

// Wrappers that make a property optional (the model is shown it nullable in strict mode).
const OPTIONAL = ObjectFreeze({ __proto__: null, optional: true, ZodOptional: true, default: true, ZodDefault: true, prefault: true });

/** A zod 3 ZodEffects' inner schema when the effect runs after it (refine, transform), else undefined. */
function effectsInner(info) {
  if (info.kind !== 'ZodEffects') return undefined;
  const type = own(own(info.def, 'effect'), 'type');
  return type === 'refinement' || type === 'transform' ? own(info.def, 'schema') : undefined;
}

/** Whether the zod schema refuses null for certain. */
function zodRefusesNull(schema, depth = 0) {
  const info = zodDefinition(schema);
  if (info === undefined || depth > MAX_SCHEMA_DEPTH) return false;
  const { kind, def } = info;
  if (kind in REFUSES_NULL) return true;
  if (kind in PASS_NULL) return zodRefusesNull(own(def, PASS_NULL[kind]), depth + 1);
  const inner = effectsInner(info);
  if (inner !== undefined) return zodRefusesNull(inner, depth + 1);
  if (kind === 'literal') {
    const values = own(def, 'values');
    if (ArrayIsArray(values) && !isProxy(values)) return !ArrayPrototypeIncludes(values, null);
    return false;
  }
  if (kind === 'ZodLiteral') return ObjectHasOwn(def, 'value') && own(def, 'value') !== null;
  if (kind === 'enum' || kind === 'ZodNativeEnum') {
    const entries = own(def, kind === 'enum' ? 'entries' : 'values');
    if (entries === null || typeof entries !== 'object' || isProxy(entries)) return false;
    const keys = ObjectKeys(entries);
    for (let i = 0; i < keys.length; i++) if (own(entries, keys[i]) === null) return false;
    return true;
  }
  if (kind === 'ZodEnum') return true; // zod 3 enums hold strings only
  if (kind === 'union' || kind === 'ZodUnion' || kind === 'ZodDiscriminatedUnion') {
    const options = own(def, 'options');
    if (!ArrayIsArray(options) || isProxy(options) || options.length === 0) return false;
    for (let i = 0; i < options.length; i++) if (!zodRefusesNull(options[i], depth + 1)) return false;
    return true;
  }
  if (kind === 'intersection' || kind === 'ZodIntersection') {
    return zodRefusesNull(own(def, 'left'), depth + 1) || zodRefusesNull(own(def, 'right'), depth + 1);
  }
  // nullable, null, any, unknown, catch, transform, lazy, custom, promise, success, and
  // every kind this file does not know: null may pass.
  return false;
}

/** Whether a property's schema is optional in input (optional, default, prefault under transparent wrappers). */
function zodIsOptional(schema, depth = 0) {
  const info = zodDefinition(schema);
  if (info === undefined || depth > MAX_SCHEMA_DEPTH) return false;
  if (info.kind in OPTIONAL) return true;
  if (info.kind === 'readonly' || info.kind === 'ZodReadonly' || info.kind === 'catch' || info.kind === 'ZodCatch') {
    return zodIsOptional(own(info.def, 'innerType'), depth + 1);
  }
  if (info.kind === 'ZodBranded') return zodIsOptional(own(info.def, 'type'), depth + 1);
  if (info.kind === 'pipe' || info.kind === 'ZodPipeline') return zodIsOptional(own(info.def, 'in'), depth + 1);
  const inner = effectsInner(info);
  return inner !== undefined ? zodIsOptional(inner, depth + 1) : false;
}

/** The schema that shapes a container value, through wrappers that pass it on unchanged. */
function zodContainer(schema) {
  let info = zodDefinition(schema);
  for (let depth = 0; info !== undefined && depth < MAX_SCHEMA_DEPTH; depth++) {
    let next;
    if (info.kind in PASS_NULL) next = own(info.def, PASS_NULL[info.kind]);
    else if (info.kind === 'nullable' || info.kind === 'ZodNullable') next = own(info.def, 'innerType');
    else next = effectsInner(info);
    if (next === undefined) return info;
    info = zodDefinition(next);
  }
  return undefined;
}

/** The object shape of a zod object definition, or undefined. */
function zodShape(info) {
  if (info.version === 4) return info.kind === 'object' ? own(info.def, 'shape') : undefined;
  if (info.kind !== 'ZodObject') return undefined;
  const shape = own(info.def, 'shape');
  // zod 3 keeps the shape behind a function z.object made (zod's code, not the app's).
  return typeof shape === 'function' ? shape() : undefined;
}

function zodElement(info) {
  if (info.version === 4) return info.kind === 'array' ? own(info.def, 'element') : undefined;
  return info.kind === 'ZodArray' ? own(info.def, 'type') : undefined;
}

/**
 * Removes, in place, every `null` the model sent for a property that is optional in the
 * schema and whose schema refuses null for certain, through objects and arrays. The value
 * is the schema's own decoded copy (plain JSON data), so it can be edited.
 */
function stripZodNulls(schema, value, depth = 0) {
  if (value === null || typeof value !== 'object' || depth > MAX_SCHEMA_DEPTH) return;
  const info = zodContainer(schema);
  if (info === undefined) return;
  if (ArrayIsArray(value)) {
    const element = zodElement(info);
    // An array element cannot be absent: a null there stays.
    if (element !== undefined) for (let i = 0; i < value.length; i++) stripZodNulls(element, value[i], depth + 1);
    return;
  }
  const shape = zodShape(info);
  if (shape === undefined || shape === null || typeof shape !== 'object' || isProxy(shape)) return;
  const keys = ObjectKeys(shape);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const field = own(shape, key); // an accessor (a recursive schema's getter) is not followed
    if (field === undefined || !ObjectHasOwn(value, key)) continue;
    if (value[key] === null) {
      if (zodIsOptional(field) && zodRefusesNull(field)) delete value[key];
    } else {
      stripZodNulls(field, value[key], depth + 1);
    }
  }
}

// JSON Schema: a property is optional when its object's `required` does not list it; whether
// its schema refuses null for certain is shared.js jsonSchemaRefusesNull (the Mastra gate
// reads it too): `false`, `type`, `enum`, `const`, `anyOf`/`oneOf` whose every branch
// refuses, `allOf` with a branch that refuses, local `$ref`s, and never a schema with
// `nullable: true` (OpenAPI 3.0, which Ajv and so fromJsonSchema honour). Anything else
// keeps the null.

function isSchemaObject(value) {
  return value !== null && typeof value === 'object' && !ArrayIsArray(value) && !isProxy(value);
}

/** Follows local `$ref`s of a container schema (bounded). */
function jsonDeref(schema, root) {
  let current = schema;
  for (let depth = 0; isSchemaObject(current) && own(current, '$ref') !== undefined && depth < MAX_SCHEMA_DEPTH; depth++) {
    current = jsonSchemaLocalRef(root, own(current, '$ref'));
  }
  return current;
}

function stripJsonNulls(schema, value, root, depth = 0) {
  if (value === null || typeof value !== 'object' || depth > MAX_SCHEMA_DEPTH) return;
  const container = jsonDeref(schema, root);
  if (!isSchemaObject(container)) return;
  if (ArrayIsArray(value)) {
    const items = own(container, 'items');
    if (isSchemaObject(items)) for (let i = 0; i < value.length; i++) stripJsonNulls(items, value[i], root, depth + 1);
    return;
  }
  const properties = own(container, 'properties');
  if (!isSchemaObject(properties)) return;
  const required = own(container, 'required');
  const keys = ObjectKeys(properties);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const field = own(properties, key);
    if (field === undefined || !ObjectHasOwn(value, key)) continue;
    if (value[key] === null) {
      const optional = !(ArrayIsArray(required) && !isProxy(required) && ArrayPrototypeIncludes(required, key));
      if (optional && jsonSchemaRefusesNull(field, root)) delete value[key];
    } else {
      stripJsonNulls(field, value[key], root, depth + 1);
    }
  }
}

/** The schema step for zod in strict mode (prepareToolCallAsync awaits safeParseAsync, zod 3 and 4). */
function zodStrictNullStep(schema) {
  return {
    safeParseAsync: (value) => {
      stripZodNulls(schema, value);
      return schema.safeParseAsync(value);
    },
  };
}

/** The schema step for a JSON Schema tool in strict mode: a Standard Schema around fromJsonSchema's. */
function jsonStrictNullStep(standardSchema, jsonSchema) {
  const standard = standardSchema['~standard'];
  const validate = standard.validate;
  return {
    '~standard': {
      version: 1,
      vendor: standard.vendor,
      validate: (value) => {
        stripJsonNulls(jsonSchema, value, jsonSchema);
        return validate(value);
      },
    },
  };
}

// ---------------------------------------------------------------------------------

/** Whether the SDK's own lenient parse accepts the text (it forces an approval otherwise). */
function sdkCanParse(text) {
  if (typeof text !== 'string') return false;
  try {
    JSONParse(text);
    return true;
  } catch {
    return false;
  }
}

function defaultNotExecutedOutput(decision) {
  return `The tool call was not executed (${decision.decision}: ${decision.reason}).`;
}

function defaultInvalidInputOutput(error) {
  // The package's message names the tool, the stage and the code, never the payload.
  return `${error.message} Please call the tool again with valid arguments.`;
}

// What the SDK answers for a tool error when a tool has no errorFunction of its own.
const SDK_DEFAULT_ERROR_OUTPUT = 'An error occurred while running the tool. Please try again.';

/**
 * The JSON schema the model sees, when the app gives none: the SDK's own conversion of the
 * schema (what the SDK would send without this adapter), taken from a throwaway tool; for
 * a schema the SDK cannot convert (a zod 4 transform, for one), the input JSON Schema of its
 * Standard JSON Schema interface, which the SDK then makes strict itself.
 */
function wireSchemaOf(name, schema) {
  try {
    return sdkTool({ name, description: '', parameters: schema, execute: () => undefined }).parameters;
  } catch (error) {
    // The schema's own interface, read as the SDK reads it (the schema is the app's code).
    const standard = schema !== null && typeof schema === 'object' ? schema['~standard'] : undefined;
    const jsonSchema = standard !== undefined && standard !== null ? standard.jsonSchema : undefined;
    if (jsonSchema === undefined || jsonSchema === null || typeof jsonSchema.input !== 'function') throw error;
    return jsonSchema.input({ target: 'draft-07' });
  }
}

/** Whether `schema` is a plain JSON Schema (an object that is no validator), not zod or a Standard Schema. */
function isJsonSchema(schema) {
  if (typeof schema === 'boolean') return true;
  if (!isSchemaObject(schema) || isZodSchema(schema)) return false;
  const proto = ObjectGetPrototypeOf(schema);
  if (proto !== ObjectPrototype && proto !== null) return false;
  return !ObjectHasOwn(schema, '~standard') && typeof own(schema, 'parse') !== 'function';
}

/** fromJsonSchema of the package (issue 18), or a TypeError naming what is missing. */
function jsonSchemaStep(jsonSchema) {
  const fromJsonSchema = own(api, 'fromJsonSchema');
  if (typeof fromJsonSchema !== 'function') {
    throw invalidArgument('a JSON Schema tool needs fromJsonSchema from tool-argument-snapshot (a newer version)');
  }
  return fromJsonSchema(jsonSchema);
}

/** The fields of gate.tool options the gate reads itself (the rest go to the SDK's tool()). */
const GATE_TOOL_FIELDS = ObjectFreeze(['parameters', 'execute', 'jsonSchema', 'needsApproval', 'errorFunction']);

/** The grant options approve passes on (the scope is the run's). */
const GRANT_OPTION_FIELDS = ObjectFreeze(['uses', 'ttlMs', 'expiresAt']);

/** The run context's `context` key that carries pending proposals in the serialized state. */
const CARRIER_KEY = 'tool-argument-snapshot';

const GATE_USAGE = 'createOpenAIAgentsGate expects { agentName, policy?, grants?, grantScope?, onDecision?, notExecutedOutput?, invalidInputOutput?, includePath? }';

/**
 * A gate for one agent's function tools: `gate.model(model)` captures the provider's raw
 * argument strings, `gate.tool(options)` replaces the SDK's `tool(options)`, `gate.tools(tools)`
 * gates SDK function tools with JSON schemas (MCP tools), and
 * `gate.approve(state, interruption, proposal)` replaces `state.approve(interruption)`.
 */
function createOpenAIAgentsGate(options) {
  const opts = readOptions(options, GATE_USAGE);
  if (opts === null) throw invalidArgument(GATE_USAGE);
  const agentName = own(opts, 'agentName');
  if (!isWellFormedString(agentName) || agentName === '') throw invalidArgument(GATE_USAGE);
  const appPolicy = own(opts, 'policy');
  /** toolName -> policy, when the policy is a map. */
  let policyMap;
  if (appPolicy !== undefined && typeof appPolicy !== 'function') {
    if (!isSchemaObject(appPolicy)) throw invalidArgument('policy must be a function or an object { [toolName]: policy }');
    policyMap = new SafeMap();
    const names = ObjectKeys(appPolicy);
    for (let i = 0; i < names.length; i++) {
      const entry = own(appPolicy, names[i]);
      if (typeof entry !== 'function') throw invalidArgument('each policy of the map must be a function');
      MapPrototypeSet(policyMap, names[i], entry);
    }
  }
  const grants = own(opts, 'grants');
  if (grants !== undefined && (grants === null || typeof grants !== 'object' || isProxy(grants) || typeof own(grants, 'policy') !== 'function')) {
    throw invalidArgument('grants must be an object made by createApprovalGrants');
  }
  const sealing = grants !== undefined && own(grants, 'sealing') === true;
  const grantScope = own(opts, 'grantScope');
  if (grantScope !== undefined && typeof grantScope !== 'function') throw invalidArgument('grantScope must be a function of the run context');
  const onDecision = own(opts, 'onDecision');
  if (onDecision !== undefined && typeof onDecision !== 'function') throw invalidArgument('onDecision must be a function');
  const includePath = own(opts, 'includePath') === true;
  const notExecutedOutput = own(opts, 'notExecutedOutput') ?? defaultNotExecutedOutput;
  const invalidInputOutput = own(opts, 'invalidInputOutput') ?? defaultInvalidInputOutput;
  if (typeof notExecutedOutput !== 'function' || typeof invalidInputOutput !== 'function') {
    throw invalidArgument('notExecutedOutput and invalidInputOutput must be functions');
  }
  const notice = approvedWithoutGrantNotice(ADAPTER, 'gate.approve(state, interruption, proposal), or grants.grant(sealedProposal) before state.approve(interruption)');

  /**
   * The policy of one tool. With grants, a matching unspent grant allows; anything else
   * goes to the app's policy (with no policy: require approval). Without grants, the app's
   * policy alone (with no policy: the package's runtime deny `policy_not_configured`).
   */
  function policyFor(toolName) {
    const app = policyMap !== undefined ? MapPrototypeGet(policyMap, toolName) : appPolicy;
    return grants !== undefined ? own(grants, 'policy')(app) : app;
  }
  const executeOptions = grants !== undefined ? { grants } : undefined;

  /** span -> (callId -> { name, rawArguments }): the function calls of one turn's model response. */
  const captured = new SafeWeakMap();
  /** RunContext -> { attempts, pending }: what the gate knows of one run in this process. */
  const runs = new SafeWeakMap();
  /** Tool names this gate made. */
  const toolNames = new SafeMap();

  function runRecord(runContext) {
    let record = WeakMapPrototypeGet(runs, runContext);
    if (record === undefined) {
      // attempts: callId -> { rawArguments, decision } or { rawArguments, error } from needsApproval.
      // pending: callId -> { toolName, rawArguments, proposal, sealed, reason } of a call that interrupted the run.
      record = { __proto__: null, attempts: new SafeMap(), pending: new SafeMap() };
      WeakMapPrototypeSet(runs, runContext, record);
    }
    return record;
  }

  function scopeOf(runContext) {
    if (grantScope === undefined) return null;
    const scope = grantScope(runContext);
    if (scope === undefined || scope === null) return null;
    if (!isWellFormedString(scope)) throw invalidArgument('grantScope must return a well-formed string, null or undefined');
    return scope;
  }

  // ---- The carrier: the run context's own `context` object, serialized with the RunState.

  /** The carried pending entries of this gate's agent in a run context, or undefined. */
  function carried(runContext) {
    const context = own(runContext, 'context');
    const carrier = own(context, CARRIER_KEY);
    const byAgent = own(own(carrier, 'pending'), agentName);
    return isSchemaObject(byAgent) ? byAgent : undefined;
  }

  function carriedEntry(runContext, callId) {
    const byAgent = carried(runContext);
    if (byAgent === undefined) return undefined;
    const entry = own(byAgent, callId);
    if (!isSchemaObject(entry)) return undefined;
    const toolName = own(entry, 'toolName');
    const rawArguments = own(entry, 'rawArguments');
    const proposal = own(entry, 'proposal');
    if (typeof toolName !== 'string' || typeof rawArguments !== 'string' || !isSchemaObject(proposal)) return undefined;
    const scope = own(entry, 'scope');
    return { __proto__: null, toolName, rawArguments, proposal, reason: own(entry, 'reason'), scope: typeof scope === 'string' ? scope : null };
  }

  /** Writes (or, with entry undefined, removes) a carried entry. A context it cannot extend carries nothing. */
  function carry(runContext, callId, entry) {
    const context = own(runContext, 'context');
    if (!isSchemaObject(context) || !ObjectIsExtensible(context)) return false;
    let carrier = own(context, CARRIER_KEY);
    if (!isSchemaObject(carrier)) {
      if (entry === undefined) return false;
      carrier = { v: 1, pending: {} };
      setData(context, CARRIER_KEY, carrier);
    }
    let pending = own(carrier, 'pending');
    if (!isSchemaObject(pending)) {
      pending = {};
      setData(carrier, 'pending', pending);
    }
    let byAgent = own(pending, agentName);
    if (!isSchemaObject(byAgent)) {
      if (entry === undefined) return false;
      byAgent = {};
      setData(pending, agentName, byAgent);
    }
    if (entry === undefined) {
      delete byAgent[callId];
      return true;
    }
    // Entries of calls the SDK rejected since (state.reject) never reach execute: drop them here.
    const carriedIds = ObjectKeys(byAgent);
    for (let i = 0; i < carriedIds.length; i++) {
      const toolName = own(own(byAgent, carriedIds[i]), 'toolName');
      if (typeof toolName === 'string' && runContext.isToolApproved({ toolName, callId: carriedIds[i] }) === false) delete byAgent[carriedIds[i]];
    }
    setData(byAgent, callId, entry);
    return true;
  }

  /** What the reviewer sees and grants: the seal with keys, else the four snapshot fields. */
  function carriedProposal(proposal, sealed) {
    if (sealed !== undefined) return sealed;
    return {
      agentName: proposal.agentName,
      toolName: proposal.toolName,
      argsCanonicalJson: proposal.argsCanonicalJson,
      proposalHash: proposal.proposalHash,
    };
  }

  function forget(runContext, callId) {
    MapPrototypeDelete(runRecord(runContext).pending, callId);
    carry(runContext, callId, undefined);
  }

  // ---- Provider texts, per run turn.

  function captureOutput(span, output) {
    if (!ArrayIsArray(output) || span === null || span === undefined || (typeof span !== 'object' && typeof span !== 'function')) return;
    let calls = WeakMapPrototypeGet(captured, span);
    if (calls === undefined) {
      calls = new SafeMap();
      WeakMapPrototypeSet(captured, span, calls);
    }
    for (let i = 0; i < output.length; i++) {
      const item = output[i];
      if (own(item, 'type') !== 'function_call') continue;
      const callId = own(item, 'callId');
      const rawArguments = own(item, 'arguments');
      if (typeof callId === 'string' && typeof rawArguments === 'string') {
        MapPrototypeSet(calls, callId, { __proto__: null, name: own(item, 'name'), rawArguments });
      }
    }
  }

  /** The text the model sent for `callId` in the current turn of the current run, taken once. */
  function takeCaptured(callId) {
    const span = getCurrentSpan();
    if (span === null || span === undefined) return undefined;
    const calls = WeakMapPrototypeGet(captured, span);
    if (calls === undefined) return undefined;
    const call = MapPrototypeGet(calls, callId);
    MapPrototypeDelete(calls, callId);
    return call;
  }

  /** One attempt: prepare (strict decode, the schema once, the snapshot), then decide. */
  async function attempt(toolName, schemaStep, rawArguments, runContext, callId) {
    let prepared;
    try {
      prepared = await prepare({ agentName, toolName, rawArguments, schema: schemaStep, includePath, toolCallId: callId });
    } catch (error) {
      if (isValidationError(error)) return { __proto__: null, rawArguments, error };
      throw error;
    }
    const policyContext = { runContext, callId, toolCallId: callId };
    const scope = scopeOf(runContext);
    // Defined, not assigned: a setter planted on Object.prototype cannot swallow it.
    if (scope !== null) setData(policyContext, 'grantScope', scope);
    const decision = await evaluateToolCall({ prepared, policy: policyFor(toolName), policyContext, toolCallId: callId });
    if (onDecision !== undefined) await onDecision(decision, { callId, toolCallId: callId, runContext });
    return { __proto__: null, rawArguments, decision, scope };
  }

  function model(inner) {
    if (inner === null || typeof inner !== 'object' || isProxy(inner) || typeof inner.getResponse !== 'function') {
      throw invalidArgument('model expects a Model instance (getResponse, getStreamedResponse)');
    }
    const wrapped = {
      async getResponse(request) {
        const span = getCurrentSpan();
        const response = await inner.getResponse(request);
        captureOutput(span, own(response, 'output'));
        return response;
      },
      async *getStreamedResponse(request) {
        const span = getCurrentSpan();
        for await (const event of inner.getStreamedResponse(request)) {
          if (own(event, 'type') === 'response_done') captureOutput(span, own(own(event, 'response'), 'output'));
          yield event;
        }
      },
    };
    if (typeof inner.getRetryAdvice === 'function') wrapped.getRetryAdvice = (args) => inner.getRetryAdvice(args);
    if (inner.supportsPromptModelSelection !== undefined) wrapped.supportsPromptModelSelection = inner.supportsPromptModelSelection;
    return wrapped;
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
      if (typeof callId !== 'string' || callId === '') throw new ToolArgumentsValidationError('json', toolName, 'missing_call_id');
      const run = runRecord(runContext);
      let result = MapPrototypeGet(run.attempts, callId);
      MapPrototypeDelete(run.attempts, callId);
      forget(runContext, callId);
      // The decision of needsApproval counts only for the very string it was made for, and
      // an approval request never executes: anything else is a new attempt.
      if (result === undefined || result.rawArguments !== rawArguments ||
          (result.decision !== undefined && result.decision.decision === 'require_approval')) {
        result = await attempt(toolName, schemaStep, rawArguments, runContext, callId);
      }
      if (result.error !== undefined) throw result.error;
      const decision = result.decision;
      if (decision.decision === 'require_approval' && runContext.isToolApproved({ toolName, callId }) === true) {
        // Approved in the SDK (state.approve), with no grant for what would execute.
        notice();
        return notExecutedOutput({ decision: 'deny', decidedBy: 'runtime', reason: APPROVED_WITHOUT_GRANT });
      }
      if (decision.decision !== 'allow') return notExecutedOutput(decision);
      try {
        return await executeToolCall(decision, (args) => handler(args, runContext, details), executeOptions);
      } catch (error) {
        if (isNotAllowedError(error) && error.code === 'grant_unavailable') {
          return notExecutedOutput({ decision: 'deny', decidedBy: 'runtime', reason: 'grant_unavailable' });
        }
        throw error;
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

  /** The pending entry of an interruption of this gate's tools: live in this process, else carried. */
  function pendingOf(runContext, interruption) {
    const rawItem = own(interruption, 'rawItem');
    const callId = own(rawItem, 'callId');
    const name = own(rawItem, 'name');
    const rawArguments = own(rawItem, 'arguments');
    if (typeof callId !== 'string' || MapPrototypeGet(toolNames, name) !== true) return undefined;
    const live = runContext !== undefined ? MapPrototypeGet(runRecord(runContext).pending, callId) : undefined;
    if (live !== undefined) {
      return live.rawArguments === rawArguments && live.toolName === name ? live : undefined;
    }
    const entry = runContext !== undefined ? carriedEntry(runContext, callId) : undefined;
    if (entry === undefined || entry.rawArguments !== rawArguments || entry.toolName !== name) return undefined;
    const proposal = entry.proposal;
    if (own(proposal, 'agentName') !== agentName || own(proposal, 'toolName') !== name) return undefined;
    const sealed = typeof own(proposal, 'signature') === 'string' ? proposal : undefined;
    return { __proto__: null, toolName: name, rawArguments, proposal, sealed, reason: entry.reason, scope: entry.scope };
  }

  function contextOf(state) {
    const runContext = own(state, '_context');
    return runContext !== null && typeof runContext === 'object' ? runContext : undefined;
  }

  /**
   * The proposal an interruption of `state` carries, if any (same call id, same raw
   * string): `proposal(state, interruption)` (also accepted: `proposal(interruption, state)`).
   */
  function proposal(first, second) {
    const [state, interruption] = first !== null && typeof first === 'object' && typeof first.getInterruptions === 'function'
      ? [first, second] : [second, first];
    const runContext = state !== undefined && state !== null ? contextOf(state) : undefined;
    if (runContext === undefined) return undefined;
    const found = pendingOf(runContext, interruption);
    return found !== undefined ? found.proposal : undefined;
  }

  /** Every interruption of the state of this gate's tools, with the proposal it carries. */
  function pending(state) {
    const runContext = contextOf(state);
    const interruptions = state.getInterruptions();
    const out = [];
    for (let i = 0; i < interruptions.length; i++) {
      const interruption = interruptions[i];
      const rawItem = own(interruption, 'rawItem');
      if (MapPrototypeGet(toolNames, own(rawItem, 'name')) !== true) continue;
      const found = runContext !== undefined ? pendingOf(runContext, interruption) : undefined;
      const item = { interruption, proposal: found !== undefined ? found.proposal : undefined };
      if (found !== undefined && found.sealed !== undefined) setData(item, 'sealed', found.sealed);
      ArrayPrototypePush(out, item);
    }
    return out;
  }

  /**
   * Approves exactly the reviewed proposal: a grant bound to its agent, tool and hash (the
   * seal, with keys), then the SDK's per-call approval (never alwaysApprove). The resumed
   * call executes only if its new attempt hashes the same, and spends the grant when it does.
   * Once granted, the interruption's proposal is no longer pending (forgotten here and in
   * the state's carrier): approving it again rejects with TAS_NO_PENDING_PROPOSAL instead of
   * granting a second use.
   */
  async function approve(state, interruption, reviewed, grantOptions) {
    // A Proxy is refused unread; uses, ttlMs and expiresAt are read as own data properties.
    const gopts = readOptions(grantOptions, 'approve grant options');
    const runContext = contextOf(state);
    const found = runContext !== undefined ? pendingOf(runContext, interruption) : undefined;
    if (found === undefined) {
      // Without a proposal the SDK asked for approval of text it cannot parse at all (it
      // does so for any tool with an approval function): its approval lets the SDK's own
      // invalid-input answer reach the model, and nothing executes.
      if (sdkCanParse(own(own(interruption, 'rawItem'), 'arguments'))) {
        throw noPendingProposalError(`tool-argument-snapshot/${ADAPTER}: no proposal is waiting for approval for this interruption in this state (approved before, or never carried)`);
      }
      state.approve(interruption);
      return;
    }
    if (grants === undefined) throw invalidArgument('approve needs a gate created with grants');
    let approved = found.sealed !== undefined ? found.sealed : found.proposal;
    if (reviewed !== undefined) {
      // The reviewer's proposal must be this interruption's (with keys, granted through its seal).
      if (own(reviewed, 'proposalHash') !== own(found.proposal, 'proposalHash')) {
        throw invalidArgument('the proposal given is not the one this interruption carries');
      }
      if (!sealing) approved = reviewed;
    }
    const options = {};
    if (gopts !== null) {
      for (let i = 0; i < GRANT_OPTION_FIELDS.length; i++) {
        const value = own(gopts, GRANT_OPTION_FIELDS[i]);
        if (value !== undefined) setData(options, GRANT_OPTION_FIELDS[i], value);
      }
    }
    // The run's scope (with keys, the seal carries it).
    if (!sealing && found.scope !== undefined && found.scope !== null) setData(options, 'scope', found.scope);
    await own(grants, 'grant')(approved, options);
    forget(runContext, own(own(interruption, 'rawItem'), 'callId'));
    state.approve(interruption);
  }

  return ObjectFreeze({ agentName, model, tool, tools, proposal, pending, approve });
}

module.exports = { createOpenAIAgentsGate, CARRIER_KEY };
