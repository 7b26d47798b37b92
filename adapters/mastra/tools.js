'use strict';
// The tools a Mastra gate is given (createTool options, or tools made by this module's
// createTool), read as own data, each with the schema the package runs once and the
// schema Mastra runs (accepting its value unchanged, reporting the tool's JSON Schema).

const api = require('tool-argument-snapshot');
const { mastraCreateTool, toStandardSchema } = require('./framework');
const {
  ArrayIsArray,
  ArrayPrototypePush,
  isProxy,
  ObjectFreeze,
  ObjectGetPrototypeOf,
  ObjectHasOwn,
  ObjectPrototype,
  SafeWeakMap,
  WeakMapPrototypeGet,
  WeakMapPrototypeSet,
} = require('../gate/primordials');
const { invalidArgument, own, ownDataCopy, isId } = require('../gate/read');
const { compileToolJsonSchema } = require('../gate/json-schema');
const { nullTolerantSchema } = require('./nulls');
const { ownTools } = require('../gate/options');

/** The options each tool made by this module's createTool was made with (own data copies). */
const optionsOfTool = new SafeWeakMap();

/**
 * Mastra's `createTool(options)`, returning the same Mastra tool, that also remembers the
 * options so that `createToolGate` can gate the tool: a Mastra tool's `execute` validates
 * its input again, so the gate needs the `execute` you wrote.
 */
function createTool(options) {
  if (options === null || typeof options !== 'object' || isProxy(options)) throw invalidArgument("createTool expects the options of Mastra's createTool");
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
    throw invalidArgument(
      `the inputSchema of tool "${toolName}" is a JSON Schema: gating it needs fromJsonSchema from tool-argument-snapshot (a newer version)`,
    );
  }
  return compileToolJsonSchema(fromJsonSchema, json, toolName, jsonSchemaOptions, false);
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
  const pairs = ownTools(tools, isId, {
    tools: 'options.tools must be an object of tools by name: createTool options, or tools made by createTool of tool-argument-snapshot/mastra',
    name: 'options.tools has a tool name that is not a non-empty well-formed string',
    tool: (toolName) =>
      `options.tools["${toolName}"] must be createTool options or a tool made by createTool of tool-argument-snapshot/mastra (an own data property, not a Proxy)`,
  });
  const entries = [];
  for (let i = 0; i < pairs.length; i++) {
    const toolName = pairs[i][0];
    const given = pairs[i][1];
    let options = WeakMapPrototypeGet(optionsOfTool, given);
    if (options === undefined) {
      if (typeof own(given, 'execute') === 'function' && ObjectGetPrototypeOf(given) !== ObjectPrototype && ObjectGetPrototypeOf(given) !== null) {
        // A Mastra Tool instance: its execute validates the input again (a second parse).
        throw invalidArgument(
          `options.tools["${toolName}"] is a Mastra tool whose execute would run its schema a second time: make it with createTool from tool-argument-snapshot/mastra (same options), or pass its createTool options`,
        );
      }
      options = ownDataCopy(given);
    }
    const execute = own(options, 'execute');
    if (typeof execute !== 'function')
      throw invalidArgument(`options.tools["${toolName}"] has no execute function: a tool Mastra does not run here has nothing to gate`);
    if (own(options, 'suspendSchema') !== undefined || own(options, 'resumeSchema') !== undefined) {
      throw invalidArgument(
        `options.tools["${toolName}"] suspends itself (suspendSchema / resumeSchema): such tools are not gated (the gate suspends for approval itself)`,
      );
    }
    const inputSchema = own(options, 'inputSchema');
    const jsonSchema = isPlainJsonSchema(inputSchema);
    const ownSchema = inputSchema === undefined ? undefined : jsonSchema ? compileJsonSchema(inputSchema, toolName, jsonSchemaOptions) : inputSchema;
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

module.exports = { createTool, readTools, wireSchemaOf };
