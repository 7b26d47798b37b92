'use strict';
// Reading a gate's options the way every gate reads them: the grants (made by
// createApprovalGrants, or a fresh one), the policy per tool (the grants' policy first),
// onDecision, proposalTtlMs and jsonSchemaOptions. Messages name the option, never a value.

const { createApprovalGrants, fromJsonSchema } = require('tool-argument-snapshot');
const { ArrayPrototypePush, isProxy, MapPrototypeGet, MapPrototypeSet, NumberIsFinite, ObjectGetOwnPropertyNames, SafeMap } = require('./primordials');
const { invalidArgument, own } = require('./read');
const { compileToolJsonSchema, isPlainJsonSchema } = require('./json-schema');

/** `options.grants`: `{ grants, given }`, a fresh createApprovalGrants() when not given. */
function readGrants(opts) {
  const given = own(opts, 'grants');
  if (given === undefined) return { grants: createApprovalGrants(), given: false };
  if (
    given === null ||
    typeof given !== 'object' ||
    isProxy(given) ||
    typeof own(given, 'policy') !== 'function' ||
    typeof own(given, 'grant') !== 'function'
  ) {
    throw invalidArgument('options.grants must be an object made by createApprovalGrants');
  }
  return { grants: given, given: true };
}

/** `options.onDecision`: a function or undefined. */
function readOnDecision(opts) {
  const onDecision = own(opts, 'onDecision');
  if (onDecision !== undefined && typeof onDecision !== 'function') throw invalidArgument('options.onDecision must be a function');
  return onDecision;
}

/** `options.proposalTtlMs`: a positive finite number of milliseconds, or undefined. */
function readProposalTtl(opts) {
  const proposalTtlMs = own(opts, 'proposalTtlMs');
  if (proposalTtlMs !== undefined && (typeof proposalTtlMs !== 'number' || !(proposalTtlMs > 0) || !NumberIsFinite(proposalTtlMs))) {
    throw invalidArgument('options.proposalTtlMs must be a positive finite number of milliseconds');
  }
  return proposalTtlMs;
}

/** `options.jsonSchemaOptions`: fromJsonSchema's options, or undefined. */
function readJsonSchemaOptions(opts) {
  const jsonSchemaOptions = own(opts, 'jsonSchemaOptions');
  if (jsonSchemaOptions !== undefined && (jsonSchemaOptions === null || typeof jsonSchemaOptions !== 'object' || isProxy(jsonSchemaOptions))) {
    throw invalidArgument('options.jsonSchemaOptions must be an object ({ defaults?, formats? } of fromJsonSchema)');
  }
  return jsonSchemaOptions;
}

/**
 * The policy option: undefined, one function for every tool, or a map from tool name to a
 * function (each an own data property naming a tool of `byName`). Returns a function from
 * tool name to its policy (or undefined).
 */
function readPolicy(policy, byName) {
  if (policy === undefined) return () => undefined;
  if (typeof policy === 'function') {
    if (isProxy(policy)) throw invalidArgument('options.policy must be a function or an object of functions by tool name');
    return () => policy;
  }
  if (policy === null || typeof policy !== 'object' || isProxy(policy))
    throw invalidArgument('options.policy must be a function or an object of functions by tool name');
  const perTool = new SafeMap();
  const names = ObjectGetOwnPropertyNames(policy);
  for (let i = 0; i < names.length; i++) {
    const toolName = names[i];
    if (MapPrototypeGet(byName, toolName) === undefined) throw invalidArgument('options.policy names a tool that is not in options.tools');
    const toolPolicy = own(policy, toolName);
    if (toolPolicy === undefined) continue;
    if (typeof toolPolicy !== 'function' || isProxy(toolPolicy))
      throw invalidArgument(`options.policy["${toolName}"] must be a function (an own data property)`);
    MapPrototypeSet(perTool, toolName, toolPolicy);
  }
  return (toolName) => MapPrototypeGet(perTool, toolName);
}

/**
 * The tool entries by name, each given its `policy`: the grants' policy first (an approved
 * hash allows), then the application's. With neither a policy nor grants given, none: the
 * package denies every call (policy_not_configured).
 */
function entriesWithPolicies(entries, policyOption, grants, grantsGiven) {
  const byName = new SafeMap();
  for (let i = 0; i < entries.length; i++) MapPrototypeSet(byName, entries[i].toolName, entries[i]);
  const policyOf = readPolicy(policyOption, byName);
  const grantsPolicy = own(grants, 'policy');
  for (let i = 0; i < entries.length; i++) {
    const appPolicy = policyOf(entries[i].toolName);
    entries[i].policy = appPolicy === undefined && !grantsGiven ? undefined : grantsPolicy(appPolicy);
  }
  return byName;
}

/**
 * The tools option as `[toolName, tool]` pairs: an object (not a Proxy) of own data
 * properties, each name passing `isName`, each tool an object that is not a Proxy. The
 * messages say what the adapter expects: `messages.tools`, `messages.name`, and
 * `messages.tool(toolName)`.
 */
function ownTools(tools, isName, messages) {
  if (tools === null || typeof tools !== 'object' || isProxy(tools)) throw invalidArgument(messages.tools);
  const names = ObjectGetOwnPropertyNames(tools);
  const pairs = [];
  for (let i = 0; i < names.length; i++) {
    const toolName = names[i];
    if (!isName(toolName)) throw invalidArgument(messages.name);
    const tool = own(tools, toolName);
    if (tool === null || typeof tool !== 'object' || isProxy(tool)) throw invalidArgument(messages.tool(toolName));
    ArrayPrototypePush(pairs, [toolName, tool]);
  }
  return pairs;
}

/**
 * A tool given as `{ description, inputSchema?, execute }` (own data properties): its
 * `execute` (a function, not a Proxy), its `description` ('' when absent), its
 * `inputSchema`, and the `schema` the package runs: a plain JSON Schema compiled now with
 * fromJsonSchema (jsonSchemaOptions), any other schema as it is.
 */
function readExecuteTool(toolName, given, jsonSchemaOptions) {
  const execute = own(given, 'execute');
  if (typeof execute !== 'function' || isProxy(execute)) throw invalidArgument(`options.tools["${toolName}"].execute must be a function`);
  const description = own(given, 'description') ?? '';
  if (typeof description !== 'string') throw invalidArgument(`options.tools["${toolName}"].description must be a string`);
  const inputSchema = own(given, 'inputSchema');
  const schema = isPlainJsonSchema(inputSchema) ? compileToolJsonSchema(fromJsonSchema, inputSchema, toolName, jsonSchemaOptions, false) : inputSchema;
  return { execute, description, inputSchema, schema };
}

module.exports = { ownTools, readExecuteTool, readGrants, readOnDecision, readProposalTtl, readJsonSchemaOptions, readPolicy, entriesWithPolicies };
