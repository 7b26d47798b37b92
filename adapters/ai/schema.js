'use strict';
// The AI SDK tools a gate is given: each read as own data, its schema turned into one the
// package runs (zod, Standard Schema, an SDK Schema's validate, or a JSON Schema compiled
// with fromJsonSchema), and whether the gate guards it.

const sdk = require('./sdk');
const { fromJsonSchema } = require('tool-argument-snapshot');
const { ArrayPrototypePush, ObjectPrototypeToString, PromisePrototypeThen, PromiseResolve, ReflectApply } = require('../gate/primordials');
const { invalidArgument, own, isWellFormedString } = require('../gate/read');
const { compileToolJsonSchema } = require('../gate/json-schema');
const { ownTools } = require('../gate/options');

function compileJsonSchema(json, toolName, jsonSchemaOptions) {
  return compileToolJsonSchema(fromJsonSchema, json, toolName, jsonSchemaOptions, true);
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
  if (
    typeof inputSchema === 'object' &&
    (typeof inputSchema.safeParseAsync === 'function' || (inputSchema['~standard'] !== null && typeof inputSchema['~standard'] === 'object'))
  ) {
    return inputSchema;
  }
  const sdkSchema = sdk().asSchema(inputSchema);
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
        if (compiled === undefined)
          compiled = PromisePrototypeThen(PromiseResolve(json), (resolved) => compileJsonSchema(resolved, toolName, jsonSchemaOptions));
        const schema = await compiled;
        return schema['~standard'].validate(value);
      },
    },
  };
}

function readTools(tools, jsonSchemaOptions) {
  const pairs = ownTools(tools, isWellFormedString, {
    tools: 'options.tools must be an object of AI SDK tools',
    name: 'options.tools has a tool name that is not a well-formed string',
    tool: (toolName) => `options.tools["${toolName}"] must be an AI SDK tool (an own data property, not a Proxy)`,
  });
  const entries = [];
  for (let i = 0; i < pairs.length; i++) {
    const toolName = pairs[i][0];
    const target = pairs[i][1];
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

module.exports = { readTools };
