'use strict';
// The tools a Genkit gate is given, read as own data: each one's schema (run once, by the
// package), its JSON Schema (what Genkit lists to the model: `inputJsonSchema`, which Genkit
// itself only validates when a tool runs without the gate's middleware) and its execute.

const { ArrayPrototypePush, JSONParse, JSONStringify } = require('../gate/primordials');
const { invalidArgument, isId } = require('../gate/read');
const { ownTools, readExecuteTool } = require('../gate/options');
const { isPlainJsonSchema } = require('../gate/json-schema');
const { genkitToJsonSchema } = require('./framework');

/**
 * The JSON Schema listed for a tool: the JSON Schema itself, the schema's Standard JSON
 * Schema form (zod 4), or Genkit's own conversion of a zod 3 schema (Genkit's `z`).
 */
function jsonSchemaOf(inputSchema, toolName) {
  if (inputSchema === undefined) return { type: 'object', properties: {} };
  if (isPlainJsonSchema(inputSchema)) return JSONParse(JSONStringify(inputSchema));
  const standard = inputSchema['~standard'];
  const converter = standard !== null && typeof standard === 'object' ? standard.jsonSchema : undefined;
  if ((converter === undefined || converter === null) && inputSchema !== null && typeof inputSchema === 'object' && '_def' in inputSchema) {
    return JSONParse(JSONStringify(genkitToJsonSchema()({ schema: inputSchema })));
  }
  if (converter === null || typeof converter !== 'object' || typeof converter.input !== 'function') {
    throw invalidArgument(`options.tools["${toolName}"].inputSchema must be a JSON Schema or a schema with a JSON Schema form (zod 4, a Standard JSON Schema)`);
  }
  return JSONParse(JSONStringify(converter.input({ target: 'draft-07' })));
}

/** The tools option: `{ [name]: { description, inputSchema?, execute } }`. */
function readTools(tools, jsonSchemaOptions) {
  const pairs = ownTools(tools, isId, {
    tools: 'options.tools must be an object of tools by name: { description, inputSchema?, execute }',
    name: 'options.tools has a tool name that is not a non-empty well-formed string',
    tool: (toolName) => `options.tools["${toolName}"] must be { description, inputSchema?, execute } (an own data property, not a Proxy)`,
  });
  const entries = [];
  for (let i = 0; i < pairs.length; i++) {
    const toolName = pairs[i][0];
    const { execute, description, inputSchema, schema } = readExecuteTool(toolName, pairs[i][1], jsonSchemaOptions);
    ArrayPrototypePush(entries, { toolName, description, execute, schema, jsonSchema: jsonSchemaOf(inputSchema, toolName), policy: undefined });
  }
  return entries;
}

module.exports = { readTools };
