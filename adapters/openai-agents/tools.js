'use strict';
// The gated SDK function tools (their hooks: hooks.js): `tool(options)` and `tools(list)`
// make them.

const { own, setData, ownDataCopy } = require('../gate/read');
const { ArrayIsArray, ArrayPrototypePush, MapPrototypeSet, JSONParse, JSONStringify, isProxy } = require('../gate/primordials');
const { sdk, api, invalidArgument } = require('./common');
const { isZodSchema } = require('./zod-nulls');
const { isSchemaObject, zodStrictNullStep, jsonStrictNullStep } = require('./json-nulls');
const { wireSchemaOf, isJsonSchema, jsonSchemaStep, GATE_TOOL_FIELDS } = require('./schemas');
const { needsApproval: needsApprovalHook, execute: executeHook, errorOutput } = require('./hooks');

const { canonicalize } = api;

/** The SDK's tool(), called as it was taken from the SDK (no `this`). */
function sdkTool(options) {
  const tool = sdk().tool;
  return tool(options);
}

/**
 * The SDK function tool of a gated tool: `needsApproval` decides on the captured text,
 * `execute` on the exact text it is given, `handler(args, runContext, details)` runs on an
 * execution view of an allow (hooks.js).
 */
function gatedTool(g, rest, schemaStep, wireSchema, strict, handler, errorFunction) {
  // The tool's name is the SDK's (made.name), known once the SDK made it.
  const t = { g, toolName: undefined, schemaStep, handler, errorFunction };
  const made = sdkTool({
    ...rest,
    parameters: wireSchema,
    strict,
    needsApproval: (runContext, _sdkCopy, callId) => needsApprovalHook(t, runContext, callId),
    execute: (_sdkInput, runContext, details) => executeHook(t, runContext, details),
    errorFunction: (runContext, error, details) => errorOutput(t, runContext, error, details),
  });
  t.toolName = made.name;
  MapPrototypeSet(g.toolNames, t.toolName, true);
  return made;
}

/** The tool makers of one gate (`g`: its options and per-run state). */
function createTools(g) {
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
    return gatedTool(g, rest, schemaStep, wireSchema, strict, handler, errorFunction);
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
      ArrayPrototypePush(out, gatedTool(g, rest, schemaStep, JSONParse(JSONStringify(parameters)), strict, handler, own(original, 'errorFunction')));
    }
    return out;
  }

  return { tool, tools };
}

module.exports = { createTools };
