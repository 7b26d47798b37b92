'use strict';
// tool-argument-snapshot/openai-agents: RFC-0016 for the OpenAI Agents SDK (0.20).
//
// Where the SDK still has what RFC-0016 needs, and so where this adapter works:
// - The provider's raw argument string reaches `needsApproval` nowhere (it gets the SDK's
//   lenient JSON.parse copy and the call id), so `gate.model(model)` records the raw
//   string of every function call in the model's response, by call id.
// - `needsApproval` is the only hook that can interrupt a run for approval. The gate
//   prepares the call there (strict decode, the schema once, the snapshot), asks the
//   policy, and interrupts only on `require_approval`, keeping the SuspendedToolProposal.
// - `execute` receives `details.toolCall.arguments`, the raw string of the call the SDK is
//   about to run. The decision made in `needsApproval` is used only for that exact string;
//   any other string (a resumed run, a restored or edited RunState) is a new attempt,
//   prepared and evaluated again there. Nothing runs without an allow made for the very
//   string being executed, and `executeToolCall` spends a grant right before the handler.
// - The SDK is given a JSON schema that does not validate, so the tool's schema runs in
//   this package only. In strict mode (the SDK's default) the model sees optional fields as
//   required and nullable and sends `null` for an omitted one; for zod schemas the gate
//   removes such a null (optional, not nullable) from the schema's own decoded copy before
//   the schema runs. The raw string and requestedArguments keep it.
// - A JSON, schema or snapshot failure is thrown from `execute` and answered through the
//   tool's `errorFunction`, the SDK's path for invalid input: the model gets an error
//   output it can correct; no decision exists and the policy never ran.

const api = require('tool-argument-snapshot');
const sdk = require('@openai/agents');

const {
  prepareToolCallAsync: prepare, evaluateToolCall, executeToolCall,
  isToolArgumentsValidationError: isValidationError, isToolCallNotAllowedError: isNotAllowedError,
} = api;
const sdkTool = sdk.tool;

// Built-ins captured at load, like the package's own.
const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectHasOwn = Object.hasOwn;
const ObjectKeys = Object.keys;
const ObjectFreeze = Object.freeze;
const ArrayIsArray = Array.isArray;
const SafeMap = Map;
const MapPrototypeGet = uncurryThis(Map.prototype.get);
const MapPrototypeSet = uncurryThis(Map.prototype.set);
const MapPrototypeDelete = uncurryThis(Map.prototype.delete);
const MapPrototypeKeys = uncurryThis(Map.prototype.keys);
const MapSize = uncurryThis(ObjectGetOwnPropertyDescriptor(Map.prototype, 'size').get);
const IteratorNext = uncurryThis(Object.getPrototypeOf(new Map().keys()).next);

/** Calls remembered per gate before the oldest is dropped (each lives from one model
 * response to its execution, so only calls that never reach a hook pile up). */
const MAX_REMEMBERED = 4096;

/** The value of an own data property, or undefined (an accessor is never called). */
function own(object, key) {
  if (object === null || (typeof object !== 'object' && typeof object !== 'function')) return undefined;
  const descriptor = ObjectGetOwnPropertyDescriptor(object, key);
  return descriptor !== undefined && ObjectHasOwn(descriptor, 'value') ? descriptor.value : undefined;
}

function remember(map, key, value) {
  MapPrototypeDelete(map, key);
  MapPrototypeSet(map, key, value);
  if (MapSize(map) > MAX_REMEMBERED) MapPrototypeDelete(map, IteratorNext(MapPrototypeKeys(map)).value);
}

function take(map, key) {
  const value = MapPrototypeGet(map, key);
  MapPrototypeDelete(map, key);
  return value;
}

// ---------------------------------------------------------------------------------
// Strict mode's null-for-optional, undone for zod schemas (zod 3 and zod 4), reading only
// the schema's definitions (own data properties): no schema method or user code runs.

const REMOVE = Symbol('remove');

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

// Wrappers that pass a value through to an inner schema: [zod 4 kind, zod 3 typeName, field].
const OPTIONAL = { __proto__: null, optional: 'innerType', ZodOptional: 'innerType', default: 'innerType', ZodDefault: 'innerType', prefault: 'innerType' };
const NULLABLE = { __proto__: null, nullable: 'innerType', ZodNullable: 'innerType' };
const TRANSPARENT = {
  __proto__: null,
  readonly: 'innerType', ZodReadonly: 'innerType', catch: 'innerType', ZodCatch: 'innerType',
  pipe: 'in', ZodPipeline: 'in', ZodEffects: 'schema', ZodBranded: 'type', nonoptional: 'innerType',
};
const ACCEPTS_NULL = { __proto__: null, null: true, ZodNull: true, any: true, ZodAny: true, unknown: true, ZodUnknown: true };

/** Follows wrappers down to the schema that shapes the value, noting optional and nullable. */
function unwrap(schema) {
  let optional = false;
  let nullable = false;
  let info = zodDefinition(schema);
  for (let steps = 0; info !== undefined && steps < 64; steps++) {
    const { kind, def } = info;
    let next;
    if (kind in OPTIONAL) {
      optional = true;
      next = own(def, OPTIONAL[kind]);
    } else if (kind in NULLABLE) {
      nullable = true;
      next = own(def, NULLABLE[kind]);
    } else if (kind in TRANSPARENT) {
      next = own(def, TRANSPARENT[kind]);
    } else {
      break;
    }
    info = zodDefinition(next);
  }
  return { __proto__: null, info, optional, nullable };
}

/** Whether the schema itself (not a wrapper) takes null: z.null(), z.any(), z.unknown(), or a union with one of them. */
function innerAcceptsNull(info) {
  if (info === undefined) return true; // unknown shape: keep the null
  if (info.kind in ACCEPTS_NULL) return true;
  if (info.kind === 'union' || info.kind === 'ZodUnion' || info.kind === 'ZodDiscriminatedUnion') {
    const options = own(info.def, 'options');
    if (!ArrayIsArray(options)) return true;
    for (let i = 0; i < options.length; i++) {
      const option = unwrap(options[i]);
      if (option.nullable || innerAcceptsNull(option.info)) return true;
    }
  }
  return false;
}

/** The object shape of a zod object definition, or undefined. */
function objectShape(info) {
  if (info.version === 4) return info.kind === 'object' ? own(info.def, 'shape') : undefined;
  if (info.kind !== 'ZodObject') return undefined;
  const shape = own(info.def, 'shape');
  // zod 3 keeps the shape behind a function z.object made (zod's code, not the app's).
  return typeof shape === 'function' ? shape() : undefined;
}

function arrayElement(info) {
  if (info.version === 4) return info.kind === 'array' ? own(info.def, 'element') : undefined;
  return info.kind === 'ZodArray' ? own(info.def, 'type') : undefined;
}

/**
 * Removes, in place, every `null` the model sent for a property the schema marks optional
 * (or defaulted) and not nullable, through objects and arrays. The value is the schema's
 * own decoded copy (plain JSON data), so it can be edited.
 */
function stripStrictNulls(schema, value) {
  const { info, optional, nullable } = unwrap(schema);
  if (value === null) return optional && !nullable && !innerAcceptsNull(info) ? REMOVE : value;
  if (info === undefined || value === undefined || typeof value !== 'object') return value;
  if (ArrayIsArray(value)) {
    const element = arrayElement(info);
    if (element !== undefined) {
      for (let i = 0; i < value.length; i++) {
        const next = stripStrictNulls(element, value[i]);
        // An array element cannot be absent: a null there stays.
        if (next !== REMOVE) value[i] = next;
      }
    }
    return value;
  }
  const shape = objectShape(info);
  if (shape === undefined || shape === null || typeof shape !== 'object') return value;
  const keys = ObjectKeys(shape);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const field = own(shape, key); // an accessor (a recursive schema's getter) is not followed
    if (field === undefined || !ObjectHasOwn(value, key)) continue;
    const next = stripStrictNulls(field, value[key]);
    if (next === REMOVE) delete value[key];
  }
  return value;
}

/** The schema step the package runs (prepareToolCallAsync awaits safeParseAsync, zod 3 and 4). */
function strictNullSchemaStep(schema) {
  return { safeParseAsync: (value) => schema.safeParseAsync(stripStrictNulls(schema, value)) };
}

// ---------------------------------------------------------------------------------

const JSONParse = JSON.parse;
const JSONStringify = JSON.stringify;

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

function invalidArgument(message) {
  return new TypeError(`tool-argument-snapshot/openai-agents: ${message}`);
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

const GATE_USAGE = 'createOpenAIAgentsGate expects { agentName, policy?, grants?, onDecision?, notExecutedOutput?, invalidInputOutput?, includePath? }';

/**
 * A gate for one agent's function tools: `gate.model(model)` captures the provider's raw
 * argument strings, `gate.tool(options)` replaces the SDK's `tool(options)`, and
 * `gate.approve(state, interruption, proposal)` replaces `state.approve(interruption)`.
 */
function createOpenAIAgentsGate(options) {
  if (options === null || typeof options !== 'object') throw invalidArgument(GATE_USAGE);
  const agentName = own(options, 'agentName');
  if (typeof agentName !== 'string' || agentName === '') throw invalidArgument(GATE_USAGE);
  const appPolicy = own(options, 'policy');
  if (appPolicy !== undefined && typeof appPolicy !== 'function') throw invalidArgument('policy must be a function');
  const grants = own(options, 'grants');
  if (grants !== undefined && (grants === null || typeof grants !== 'object' || typeof own(grants, 'policy') !== 'function')) {
    throw invalidArgument('grants must be an object made by createApprovalGrants');
  }
  const onDecision = own(options, 'onDecision');
  if (onDecision !== undefined && typeof onDecision !== 'function') throw invalidArgument('onDecision must be a function');
  const includePath = own(options, 'includePath') === true;
  const notExecutedOutput = own(options, 'notExecutedOutput') ?? defaultNotExecutedOutput;
  const invalidInputOutput = own(options, 'invalidInputOutput') ?? defaultInvalidInputOutput;
  if (typeof notExecutedOutput !== 'function' || typeof invalidInputOutput !== 'function') {
    throw invalidArgument('notExecutedOutput and invalidInputOutput must be functions');
  }

  // With grants, a matching unspent grant allows; anything else goes to the app's policy
  // (with no policy: require approval). Without grants, the app's policy alone (with no
  // policy: the package's runtime deny `policy_not_configured`).
  const policy = grants !== undefined ? own(grants, 'policy')(appPolicy) : appPolicy;
  const executeOptions = grants !== undefined ? { grants } : undefined;

  /** callId -> { name, rawArguments } of function calls in model responses. */
  const captured = new SafeMap();
  /** callId -> { rawArguments, decision } or { rawArguments, error } from needsApproval. */
  const attempts = new SafeMap();
  /** callId -> SuspendedToolProposal of a call that interrupted the run. */
  const proposals = new SafeMap();
  /** Tool names this gate made. */
  const toolNames = new SafeMap();

  function captureOutput(output) {
    if (!ArrayIsArray(output)) return;
    for (let i = 0; i < output.length; i++) {
      const item = output[i];
      if (own(item, 'type') !== 'function_call') continue;
      const callId = own(item, 'callId');
      const rawArguments = own(item, 'arguments');
      if (typeof callId === 'string' && typeof rawArguments === 'string') {
        remember(captured, callId, { __proto__: null, name: own(item, 'name'), rawArguments });
      }
    }
  }

  /** One attempt: prepare (strict decode, the schema once, the snapshot), then decide. */
  async function attempt(toolName, schema, rawArguments, runContext, callId) {
    let prepared;
    try {
      prepared = await prepare({ agentName, toolName, rawArguments, schema, includePath });
    } catch (error) {
      if (isValidationError(error)) return { __proto__: null, rawArguments, error };
      throw error;
    }
    const decision = await evaluateToolCall({ prepared, policy, policyContext: { runContext, callId } });
    if (onDecision !== undefined) await onDecision(decision, { callId, runContext });
    return { __proto__: null, rawArguments, decision };
  }

  function model(inner) {
    if (inner === null || typeof inner !== 'object' || typeof inner.getResponse !== 'function') {
      throw invalidArgument('model expects a Model instance (getResponse, getStreamedResponse)');
    }
    const wrapped = {
      async getResponse(request) {
        const response = await inner.getResponse(request);
        captureOutput(own(response, 'output'));
        return response;
      },
      async *getStreamedResponse(request) {
        for await (const event of inner.getStreamedResponse(request)) {
          if (own(event, 'type') === 'response_done') captureOutput(own(own(event, 'response'), 'output'));
          yield event;
        }
      },
    };
    if (typeof inner.getRetryAdvice === 'function') wrapped.getRetryAdvice = (args) => inner.getRetryAdvice(args);
    if (inner.supportsPromptModelSelection !== undefined) wrapped.supportsPromptModelSelection = inner.supportsPromptModelSelection;
    return wrapped;
  }

  function tool(toolOptions) {
    if (toolOptions === null || typeof toolOptions !== 'object') throw invalidArgument('tool expects the options of the SDK tool()');
    // Own data properties only (inherited values never count): destructured from a
    // null-prototype copy, and `rest` read with own().
    const { parameters: schema, execute: handler, jsonSchema, needsApproval, errorFunction, ...rest } = { __proto__: null, ...toolOptions };
    if (typeof handler !== 'function') throw invalidArgument('tool options need an execute function');
    if (typeof own(rest, 'name') !== 'string' || own(rest, 'name') === '') throw invalidArgument('tool options need a name');
    if (needsApproval !== undefined) {
      throw invalidArgument('tool options must not set needsApproval: the policy decides (return require_approval)');
    }
    const strict = own(rest, 'strict') === undefined ? true : own(rest, 'strict');
    // Round-tripped through JSON: plain data the SDK cannot mistake for a validator (zod 4's
    // JSON Schema output carries `~standard`, and the SDK would run it as the schema).
    const wireSchema = JSONParse(JSONStringify(jsonSchema !== undefined ? jsonSchema : wireSchemaOf(own(rest, 'name'), schema)));
    const schemaStep = strict && isZodSchema(schema) ? strictNullSchemaStep(schema) : schema;
    let toolName;

    async function needsApprovalHook(runContext, _sdkCopy, callId) {
      // A call the SDK already approved (a resume) is decided in execute, on its raw string.
      if (typeof callId === 'string' && runContext.isToolApproved({ toolName, callId }) === true) return true;
      const call = take(captured, callId);
      if (call === undefined || call.name !== toolName) {
        throw new Error('tool-argument-snapshot/openai-agents: no raw arguments were captured for this call; give the agent gate.model(model)');
      }
      const result = await attempt(toolName, schemaStep, call.rawArguments, runContext, callId);
      remember(attempts, callId, result);
      if (result.decision !== undefined && result.decision.decision === 'require_approval') {
        remember(proposals, callId, result.decision.proposal);
        return true;
      }
      return false;
    }

    async function executeHook(_sdkInput, runContext, details) {
      const toolCall = own(details, 'toolCall');
      const rawArguments = own(toolCall, 'arguments');
      const callId = own(toolCall, 'callId');
      if (typeof rawArguments !== 'string') {
        throw new Error('tool-argument-snapshot/openai-agents: the SDK gave execute no raw arguments');
      }
      let result = take(attempts, callId);
      // The decision of needsApproval counts only for the very string it was made for, and
      // an approval request never executes: anything else is a new attempt.
      if (result === undefined || result.rawArguments !== rawArguments ||
          (result.decision !== undefined && result.decision.decision === 'require_approval')) {
        result = await attempt(toolName, schemaStep, rawArguments, runContext, callId);
      }
      if (result.error !== undefined) throw result.error;
      const decision = result.decision;
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

  /** The SuspendedToolProposal an interruption of this gate's tools carries, if any. */
  function proposal(interruption) {
    const rawItem = own(interruption, 'rawItem');
    const callId = own(rawItem, 'callId');
    const stored = MapPrototypeGet(proposals, callId);
    if (stored === undefined || stored.rawArguments !== own(rawItem, 'arguments') || stored.toolName !== own(rawItem, 'name')) {
      return undefined;
    }
    return stored;
  }

  /** Every interruption of the state with the proposal it carries. */
  function pending(state) {
    const interruptions = state.getInterruptions();
    const out = [];
    for (let i = 0; i < interruptions.length; i++) {
      const rawItem = own(interruptions[i], 'rawItem');
      if (MapPrototypeGet(toolNames, own(rawItem, 'name')) !== true) continue;
      out.push({ interruption: interruptions[i], proposal: proposal(interruptions[i]) });
    }
    return out;
  }

  /**
   * Approves exactly the reviewed proposal: a grant bound to its agent, tool and hash, then
   * the SDK's per-call approval (never alwaysApprove). The resumed call executes only if
   * its new attempt hashes the same, and spends the grant when it does.
   */
  async function approve(state, interruption, reviewed, grantOptions) {
    const approved = reviewed === undefined ? proposal(interruption) : reviewed;
    if (approved !== undefined) {
      if (grants === undefined) throw invalidArgument('approve needs a gate created with grants');
      await own(grants, 'grant')(approved, grantOptions);
    } else if (sdkCanParse(own(own(interruption, 'rawItem'), 'arguments'))) {
      throw invalidArgument('no proposal for this interruption: pass the proposal the reviewer approved');
    }
    // Without a proposal the SDK asked for approval of text it cannot parse at all (it does
    // so for any tool with an approval function): its approval lets the SDK's own
    // invalid-input answer reach the model, and nothing executes.
    state.approve(interruption);
  }

  return ObjectFreeze({ agentName, model, tool, proposal, pending, approve });
}

module.exports = { createOpenAIAgentsGate };
