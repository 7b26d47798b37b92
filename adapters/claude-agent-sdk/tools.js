'use strict';
// The application's own tools of a Claude Agent SDK gate, read as own data: each one's
// schema (run once, by the package), its JSON Schema (what the model is shown), its execute,
// and the wire schema the SDK's in-process MCP server runs instead: a zod 4 object that
// accepts every object unchanged and reports the tool's JSON Schema.

const {
  ArrayPrototypePush,
  isProxy,
  JSONParse,
  JSONStringify,
  ObjectKeys,
  StringPrototypeCharCodeAt,
  StringPrototypeSlice,
  StringPrototypeStartsWith,
} = require('../gate/primordials');
const { invalidArgument, own, setData } = require('../gate/read');
const { ownTools, readExecuteTool } = require('../gate/options');
const { isPlainJsonSchema } = require('../gate/json-schema');

/** A tool name the SDK accepts for an MCP tool (its own rule for in-process tools). */
function isToolName(name) {
  if (typeof name !== 'string' || name.length === 0 || name.length > 64) return false;
  for (let i = 0; i < name.length; i++) {
    const c = StringPrototypeCharCodeAt(name, i);
    const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;
    if (!ok) return false;
  }
  return true;
}

/** A JSON value with only JSON data (a JSON round trip: no `~standard`, no functions). */
function jsonData(value) {
  return JSONParse(JSONStringify(value));
}

/**
 * The JSON Schema the model is shown for a tool: the JSON Schema itself, or what the
 * schema's Standard JSON Schema interface (zod 4, valibot's converters, arktype) gives.
 */
function jsonSchemaOf(inputSchema, toolName) {
  if (inputSchema === undefined) return { type: 'object', properties: {}, additionalProperties: false };
  if (isPlainJsonSchema(inputSchema)) return jsonData(inputSchema);
  const standard = inputSchema['~standard'];
  const converter = standard !== null && typeof standard === 'object' ? standard.jsonSchema : undefined;
  if (converter === null || typeof converter !== 'object' || typeof converter.input !== 'function') {
    throw invalidArgument(`options.tools["${toolName}"].inputSchema must be a JSON Schema or a schema with a JSON Schema form (zod 4, a Standard JSON Schema)`);
  }
  const json = jsonData(converter.input({ target: 'draft-07' }));
  if (json === null || typeof json !== 'object' || own(json, 'type') !== 'object') {
    throw invalidArgument(`options.tools["${toolName}"].inputSchema must describe an object (MCP tool input is an object)`);
  }
  return json;
}

/**
 * What the SDK's MCP server validates with and lists: a zod 4 object that keeps every
 * property (the package runs the tool's schema, once) and whose JSON Schema is the tool's.
 */
function wireSchemaOf(z, json) {
  const loose = typeof z.looseObject === 'function' ? z.looseObject({}) : z.object({}).passthrough();
  const meta = {};
  const names = ObjectKeys(json);
  for (let i = 0; i < names.length; i++) if (names[i] !== '$schema' && names[i] !== 'id') setData(meta, names[i], json[names[i]]);
  return loose.meta(meta);
}

/** The tools option: `{ [name]: { description, inputSchema?, execute, annotations? } }`. */
function readTools(tools, jsonSchemaOptions) {
  if (tools === undefined) return [];
  const pairs = ownTools(tools, isToolName, {
    tools: 'options.tools must be an object of tools by name: { description, inputSchema?, execute, annotations? }',
    name: 'options.tools has a tool name the SDK does not accept (1 to 64 letters, digits, _ or -)',
    tool: (toolName) => `options.tools["${toolName}"] must be { description, inputSchema?, execute, annotations? } (an own data property, not a Proxy)`,
  });
  const entries = [];
  for (let i = 0; i < pairs.length; i++) {
    const toolName = pairs[i][0];
    const given = pairs[i][1];
    const { execute, description, inputSchema, schema } = readExecuteTool(toolName, given, jsonSchemaOptions);
    ArrayPrototypePush(entries, {
      toolName,
      description,
      execute,
      schema,
      jsonSchema: jsonSchemaOf(inputSchema, toolName),
      annotations: own(given, 'annotations'),
      policy: undefined,
    });
  }
  return entries;
}

/** The gate's own tool a PreToolUse input names: `mcp__SERVER__TOOL` of its in-process server. */
function ownToolName(sdkToolName, serverName, mcpServer) {
  const prefix = `mcp__${serverName}__`;
  if (!StringPrototypeStartsWith(sdkToolName, prefix)) return undefined;
  // Only the server this process registered (`source: 'sdk'`): a configured server may
  // carry the same name (its tools are gated as foreign tools, by their full name).
  if (mcpServer === null || typeof mcpServer !== 'object' || isProxy(mcpServer)) return undefined;
  if (own(mcpServer, 'source') !== 'sdk' || own(mcpServer, 'name') !== serverName) return undefined;
  return StringPrototypeSlice(sdkToolName, prefix.length);
}

module.exports = { readTools, wireSchemaOf, ownToolName, isToolName };
