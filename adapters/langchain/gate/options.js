'use strict';
// The options every LangChain gate shares: agent, tools and their schemas, policy, grants.

const { invalidArgument, own, setData, readOptions, isWellFormedString } = require('../../gate/read');
const {
  ObjectFreeze, ObjectKeys, ObjectGetPrototypeOf, ObjectPrototype, ArrayIsArray, ArrayPrototypePush, ReflectApply,
  SafeMap, MapPrototypeGet, MapPrototypeSet, MapPrototypeHas, isProxy,
} = require('../../gate/primordials');
const { api } = require('./core');
const { readGateReceipts } = require('./receipts');

const { fromJsonSchema } = api;

function isSchema(schema) {
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function') || isProxy(schema)) return false;
  if (typeof schema === 'function') return true;
  return typeof schema.parse === 'function' || typeof schema.parseAsync === 'function' || (schema['~standard'] !== null && typeof schema['~standard'] === 'object');
}

/** A JSON Schema object (a `tool()` given one, an MCP tool): a plain record. */
function isJsonSchema(schema) {
  if (schema === null || typeof schema !== 'object' || isProxy(schema) || ArrayIsArray(schema)) return false;
  const proto = ObjectGetPrototypeOf(schema);
  return proto === ObjectPrototype || proto === null;
}

/**
 * One entry per tool: its name, the schema the package runs (the same object LangChain
 * would run in `tool.invoke` and converts for `bindTools`; a JSON Schema through
 * fromJsonSchema, compiled here so that one that does not compile fails now), and its
 * `_call`, read once.
 */
function readTools(tools, jsonSchemaOptions) {
  if (!ArrayIsArray(tools) || isProxy(tools)) throw invalidArgument('options.tools must be an array of LangChain tools');
  const byName = new SafeMap();
  const entries = [];
  for (let i = 0; i < tools.length; i++) {
    const target = tools[i];
    if (target === null || typeof target !== 'object' || isProxy(target)) throw invalidArgument(`options.tools[${i}] must be a LangChain tool`);
    const name = own(target, 'name');
    if (!isWellFormedString(name) || name === '') throw invalidArgument(`options.tools[${i}] must have an own string name`);
    const call = target._call;
    if (typeof call !== 'function') throw invalidArgument(`options.tools[${i}] must be a StructuredTool (a _call method)`);
    let schema = own(target, 'schema');
    if (!isSchema(schema)) {
      if (!isJsonSchema(schema)) throw invalidArgument(`options.tools[${i}] must have a zod, Standard Schema or JSON Schema schema`);
      schema = fromJsonSchema(schema, jsonSchemaOptions);
    }
    if (MapPrototypeHas(byName, name)) throw invalidArgument(`options.tools has two tools with the name at index ${i}`);
    const entry = { target, name, schema, call, policy: undefined };
    MapPrototypeSet(byName, name, entry);
    ArrayPrototypePush(entries, entry);
  }
  return { byName, entries };
}

const GRANTS_FUNCTIONS = ObjectFreeze(['policy', 'spend', 'grant', 'seal', 'keepProposal', 'keptProposal', 'forgetProposal']);

/** The grants object's functions, read once as own data properties. */
function readGrants(grants) {
  if (grants === undefined) return undefined;
  if (grants === null || typeof grants !== 'object' || isProxy(grants)) throw invalidArgument('options.grants must be an object made by createApprovalGrants');
  const fns = {};
  for (let i = 0; i < GRANTS_FUNCTIONS.length; i++) {
    const name = GRANTS_FUNCTIONS[i];
    const fn = own(grants, name);
    if (typeof fn !== 'function') throw invalidArgument(`options.grants must have an own ${name} function (createApprovalGrants)`);
    setData(fns, name, fn);
  }
  return ObjectFreeze({
    object: grants,
    sealing: own(grants, 'sealing') === true,
    policy: (fallback) => ReflectApply(fns.policy, grants, fallback === undefined ? [] : [fallback]),
    grant: (approved, options) => ReflectApply(fns.grant, grants, options === undefined ? [approved] : [approved, options]),
    seal: (proposal, options) => ReflectApply(fns.seal, grants, [proposal, options]),
    keep: (key, proposal, options) => ReflectApply(fns.keepProposal, grants, [key, proposal, options]),
    kept: (key) => ReflectApply(fns.keptProposal, grants, [key]),
    forget: (key) => ReflectApply(fns.forgetProposal, grants, [key]),
  });
}

/**
 * Gives each tool its policy. `policy` is one function for every tool (its input a union
 * discriminated by `toolName`), or a map `{ [toolName]: policy }` whose own data
 * properties name tools of the gate (a name the gate does not have is a TypeError: a
 * misspelt entry would leave its tool without its policy). A tool without a policy is
 * denied (`policy_not_configured`), or, with grants, needs approval unless granted.
 * With grants, the tool's policy decides first; a live grant for exactly this agent, tool
 * and hash answers its require_approval.
 */
function assignPolicies(tools, policy, grants) {
  let byName;
  if (policy !== undefined && typeof policy !== 'function') {
    if (policy === null || typeof policy !== 'object' || isProxy(policy)) {
      throw invalidArgument('options.policy must be a function or an object { [toolName]: policy }');
    }
    byName = new SafeMap();
    const names = ObjectKeys(policy);
    for (let i = 0; i < names.length; i++) {
      const fn = own(policy, names[i]);
      if (!MapPrototypeHas(tools.byName, names[i])) throw invalidArgument('options.policy has an entry for a tool the gate does not have');
      if (fn !== undefined && typeof fn !== 'function') throw invalidArgument('options.policy entries must be functions');
      MapPrototypeSet(byName, names[i], fn);
    }
  }
  for (let i = 0; i < tools.entries.length; i++) {
    const entry = tools.entries[i];
    const appPolicy = byName === undefined ? policy : MapPrototypeGet(byName, entry.name);
    entry.policy = grants === undefined ? appPolicy : grants.policy(appPolicy);
    ObjectFreeze(entry);
  }
}

/** The options every LangChain gate shares: agent, tools, policy, grants, receipts, includePath. */
function readGateOptions(options, what, defaultGrants) {
  const opts = readOptions(options, `${what} options`);
  if (opts === null) throw invalidArgument(`${what} expects { agentName, tools, policy?, grants? }`);
  const agentName = own(opts, 'agentName');
  if (!isWellFormedString(agentName)) throw invalidArgument('options.agentName must be a well-formed string');
  const jsonSchemaOptions = own(opts, 'jsonSchema');
  if (jsonSchemaOptions !== undefined && (jsonSchemaOptions === null || typeof jsonSchemaOptions !== 'object' || isProxy(jsonSchemaOptions))) {
    throw invalidArgument('options.jsonSchema must be the options of fromJsonSchema ({ defaults?, formats? })');
  }
  const tools = readTools(own(opts, 'tools'), jsonSchemaOptions);
  let given = own(opts, 'grants');
  if (given === undefined && defaultGrants !== undefined) given = defaultGrants();
  const grants = readGrants(given);
  assignPolicies(tools, own(opts, 'policy'), grants);
  const receipts = readGateReceipts(opts, grants === undefined ? undefined : grants.object);
  const includePath = own(opts, 'includePath') === true;
  return { agentName, tools, grants, receipts, includePath };
}

/** The gate's entry for a tool name, or undefined. */
function toolEntry(tools, name) {
  return MapPrototypeGet(tools.byName, name);
}

module.exports = { readGateOptions, toolEntry };
