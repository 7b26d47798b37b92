'use strict';
// The options every LangChain gate shares: agent, tools and their schemas, policy, grants,
// read with the kernel's steps (adapters/gate/options.js), and the grants' functions read once.

const { invalidArgument, own, readOptions, isWellFormedString } = require('../../gate/read');
const {
  ObjectFreeze,
  ObjectGetPrototypeOf,
  ObjectPrototype,
  ArrayIsArray,
  ArrayPrototypePush,
  ReflectApply,
  SafeMap,
  MapPrototypeGet,
  MapPrototypeSet,
  MapPrototypeHas,
  isProxy,
} = require('../../gate/primordials');
const { readGrants: readKernelGrants, readPolicy, readJsonSchemaOptions } = require('../../gate/options');
const { proposalStore, grantsMethod } = require('../../gate/proposals');
const { compileToolJsonSchema } = require('../../gate/json-schema');
const { api } = require('./core');
const { readGateReceipts } = require('./receipts');

const { fromJsonSchema } = api;

function isSchema(schema) {
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function') || isProxy(schema)) return false;
  if (typeof schema === 'function') return true;
  return (
    typeof schema.parse === 'function' || typeof schema.parseAsync === 'function' || (schema['~standard'] !== null && typeof schema['~standard'] === 'object')
  );
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
      schema = compileToolJsonSchema(fromJsonSchema, schema, name, jsonSchemaOptions, true);
    }
    if (MapPrototypeHas(byName, name)) throw invalidArgument(`options.tools has two tools with the name at index ${i}`);
    const entry = { target, name, schema, call, policy: undefined };
    MapPrototypeSet(byName, name, entry);
    ArrayPrototypePush(entries, entry);
  }
  return { byName, entries };
}

/**
 * The grants of a LangChain gate, read with the kernel's readGrants (`options.grants`, or
 * with `byDefault` a fresh createApprovalGrants() when not given; else none: undefined),
 * their functions read once as own data properties. LangChain gates keep, seal and spend
 * through them, so all of those must be there.
 */
function readGrants(opts, byDefault) {
  if (own(opts, 'grants') === undefined && !byDefault) return undefined;
  const { grants } = readKernelGrants(opts);
  const store = proposalStore(grants);
  const policy = own(grants, 'policy');
  const grant = own(grants, 'grant');
  const seal = grantsMethod(grants, 'seal');
  if (!store.present || seal === undefined || grantsMethod(grants, 'spend') === undefined) {
    throw invalidArgument(
      'options.grants must be an object made by createApprovalGrants (own spend, seal, keepProposal, keptProposal and forgetProposal functions)',
    );
  }
  return ObjectFreeze({
    object: grants,
    sealing: own(grants, 'sealing') === true,
    policy: (fallback) => ReflectApply(policy, grants, fallback === undefined ? [] : [fallback]),
    grant: (approved, options) => ReflectApply(grant, grants, options === undefined ? [approved] : [approved, options]),
    seal: (proposal, options) => ReflectApply(seal, grants, [proposal, options]),
    keep: store.keep,
    kept: store.kept,
    forget: store.forget,
  });
}

/**
 * Gives each tool its policy, read with the kernel's readPolicy: one function for every
 * tool (its input a union discriminated by `toolName`), or a map `{ [toolName]: policy }`
 * whose own data properties name tools of the gate (a name the gate does not have is a
 * TypeError: a misspelt entry would leave its tool without its policy). A tool without a
 * policy is denied (`policy_not_configured`), or, with grants, needs approval unless
 * granted. With grants, the tool's policy decides first; a live grant for exactly this
 * agent, tool and hash answers its require_approval.
 */
function assignPolicies(tools, policy, grants) {
  const policyOf = readPolicy(policy, tools.byName);
  for (let i = 0; i < tools.entries.length; i++) {
    const entry = tools.entries[i];
    const appPolicy = policyOf(entry.name);
    entry.policy = grants === undefined ? appPolicy : grants.policy(appPolicy);
    ObjectFreeze(entry);
  }
}

/**
 * The options every LangChain gate shares: agent, tools, policy, grants (with
 * `grantsByDefault`, a fresh createApprovalGrants() when not given), receipts, includePath,
 * jsonSchemaOptions.
 */
function readGateOptions(options, what, grantsByDefault) {
  const opts = readOptions(options, `${what} options`);
  if (opts === null) throw invalidArgument(`${what} expects { agentName, tools, policy?, grants? }`);
  const agentName = own(opts, 'agentName');
  if (!isWellFormedString(agentName)) throw invalidArgument('options.agentName must be a well-formed string');
  // One name per option across the gates: fromJsonSchema's options are `jsonSchemaOptions`.
  if (own(opts, 'jsonSchema') !== undefined)
    throw invalidArgument("options.jsonSchema is not an option: pass fromJsonSchema's options as options.jsonSchemaOptions");
  const jsonSchemaOptions = readJsonSchemaOptions(opts);
  const tools = readTools(own(opts, 'tools'), jsonSchemaOptions);
  const grants = readGrants(opts, grantsByDefault);
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
