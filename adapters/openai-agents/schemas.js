'use strict';
// What the SDK is given and answers: the wire schema, JSON Schema steps, default outputs.

const { own } = require('../gate/read');
const { ObjectFreeze, ObjectGetPrototypeOf, ObjectPrototype, ObjectHasOwn, JSONParse } = require('../gate/primordials');
const { sdk, api, CARRIER_KEY, invalidArgument } = require('./common');
const { isZodSchema } = require('./zod-nulls');
const { isSchemaObject } = require('./json-nulls');

/** The SDK's tool(), called as it was taken from the SDK (no `this`). */
function sdkTool(options) {
  const tool = sdk().tool;
  return tool(options);
}

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

const GATE_USAGE =
  'createOpenAIAgentsGate expects { agentName, policy?, grants?, grantScope?, receipts?, runId?, onDecision?, notExecutedOutput?, invalidInputOutput?, includePath? }';

module.exports = {
  sdkCanParse,
  defaultNotExecutedOutput,
  defaultInvalidInputOutput,
  SDK_DEFAULT_ERROR_OUTPUT,
  wireSchemaOf,
  isJsonSchema,
  jsonSchemaStep,
  GATE_TOOL_FIELDS,
  CARRIER_KEY,
  GATE_USAGE,
};
