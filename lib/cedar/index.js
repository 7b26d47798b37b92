'use strict';
// createCedarPolicy: a Cedar policy set as a policy of evaluateToolCall (and of every
// place a policy goes). The set is parsed and validated in the addon (src/cedar.rs); the
// request's context is built there from the snapshot's canonical JSON, never from a
// JavaScript object of the caller. Default deny, forbid wins (over a live grant too), any
// evaluation error denies, and `@approval("required")` permits ask for an approval that a
// live grant of `grants` answers. docs/cedar.md.

const { createHash } = require('node:crypto');
const { binding } = require('../native');
const { invalidArgument } = require('../errors');
const { own, requireInput } = require('../input');
const P = require('../primordials');

const { ObjectFreeze, ObjectDefineProperty, ArrayIsArray, JSONParse, isProxy } = P;
const JSONStringify = JSON.stringify;
const ReflectOwnKeys = Reflect.ownKeys;
const WeakSetHas = WeakSet.prototype.has;
const WeakSetAdd = WeakSet.prototype.add;
const FunctionCall = Function.prototype.call;
const cedarCheck = binding.cedarCheck;
const cedarCompile = binding.cedarCompile;
const cedarAuthorize = binding.cedarAuthorize;

const USAGE = 'createCedarPolicy expects { policies, tools?, entities?, principal?, schema?, grants? }';

/** The error of a policy set refused at creation or update: codes and policy ids, never argument values. */
class CedarPolicyError extends Error {
  constructor(issues) {
    const first = issues[0];
    const where = first.policyId === null || first.policyId === undefined ? '' : ` (policy "${first.policyId}")`;
    super(`Cedar policy set refused${where}: ${first.message} [${first.code}]`);
    define(this, 'name', 'CedarPolicyError', false);
    define(this, BRAND, 'CedarPolicyError', false);
    define(this, 'code', first.code, true);
    define(this, 'policyId', first.policyId ?? undefined, true);
    define(this, 'issues', issues, true);
  }
}

const BRAND = Symbol.for('tool-argument-snapshot.error');

function define(target, key, value, enumerable) {
  ObjectDefineProperty(target, key, { __proto__: null, value, enumerable, writable: false, configurable: true });
}

function isCedarPolicyError(value) {
  return value !== null && typeof value === 'object' && !isProxy(value) && own(value, BRAND) === 'CedarPolicyError';
}

/** The results createCedarPolicy made: only these carry their fields into the evaluate event. */
const RESULTS = new WeakSet();

function result(decision, reason, policies, policySetHash) {
  const made = ObjectFreeze({ decision, reason, policies: ObjectFreeze(policies), policySetHash });
  FunctionCall.call(WeakSetAdd, RESULTS, made);
  return made;
}

/** The evaluate event's Cedar fields (payload-free: policy ids and the set's hash), when the result is ours. */
function cedarEventFields(context, policyResult, setField) {
  if (policyResult === null || typeof policyResult !== 'object' || !FunctionCall.call(WeakSetHas, RESULTS, policyResult)) return;
  setField(context, 'policies', policyResult.policies);
  setField(context, 'policySetHash', policyResult.policySetHash);
}

function sha256Hex(text) {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A tool schema's JSON Schema: a Standard Schema's `~standard.jsonSchema.input`, else the object itself. */
function jsonSchemaOf(schema, toolName) {
  if (schema === null || typeof schema !== 'object' && typeof schema !== 'function' || isProxy(schema)) {
    throw invalidArgument(`tools["${toolName}"] must be a schema object`);
  }
  const standard = schema['~standard'];
  if (standard !== null && typeof standard === 'object' && !isProxy(standard)) {
    const converter = standard.jsonSchema;
    if (converter !== null && typeof converter === 'object' && typeof converter.input === 'function') {
      return converter.input({ target: 'draft-2020-12' });
    }
    throw invalidArgument(`tools["${toolName}"] is a Standard Schema without JSON Schema`);
  }
  return schema;
}

/** The type JSON Schema `js` declares, without null: a string or undefined. */
function typeOf(js) {
  const type = own(js, 'type');
  if (typeof type === 'string') return type;
  if (ArrayIsArray(type)) {
    const kinds = [];
    for (let i = 0; i < type.length; i++) if (type[i] !== 'null') kinds[kinds.length] = type[i];
    if (kinds.length === 1) return kinds[0];
  }
  return undefined;
}

/** A Cedar schema type and a number hint for a JSON Schema, or null when Cedar has no type for it. */
function cedarTypeOf(js, depth) {
  if (js === null || typeof js !== 'object' || isProxy(js) || depth > 64) return null;
  const type = typeOf(js);
  if (type === 'integer') return { type: { type: 'Long' }, hint: 'long' };
  if (type === 'number') return { type: { type: 'Extension', name: 'decimal' }, hint: 'decimal' };
  if (type === 'string') return { type: { type: 'String' }, hint: null };
  if (type === 'boolean') return { type: { type: 'Boolean' }, hint: null };
  if (type === 'array') {
    const element = cedarTypeOf(own(js, 'items'), depth + 1);
    if (element === null) return null;
    return { type: { type: 'Set', element: element.type }, hint: element.hint === null ? null : [element.hint] };
  }
  if (type === 'object') {
    const properties = own(js, 'properties');
    const required = own(js, 'required');
    const attributes = { __proto__: null };
    const hint = { __proto__: null };
    if (properties !== null && typeof properties === 'object' && !isProxy(properties)) {
      const keys = ReflectOwnKeys(properties);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        if (typeof key !== 'string') continue;
        const inner = cedarTypeOf(own(properties, key), depth + 1);
        if (inner === null) continue;
        // A nullable or optional property: `has` tells whether it is there.
        const isRequired = ArrayIsArray(required) && required.includes(key) && !ArrayIsArray(own(own(properties, key), 'type'));
        attributes[key] = { ...inner.type, required: isRequired };
        if (inner.hint !== null) hint[key] = inner.hint;
      }
    }
    return { type: { type: 'Record', attributes: { ...attributes } }, hint: { ...hint } };
  }
  return null;
}

/** The Cedar JSON schema derived from `tools` (one action per tool) and the entity types of `entities`. */
function deriveSchema(toolSchemas, entityTypes) {
  const entityTypesOut = { Agent: { memberOfTypes: entityTypes } };
  for (let i = 0; i < entityTypes.length; i++) {
    if (entityTypes[i] !== 'Agent') entityTypesOut[entityTypes[i]] = { memberOfTypes: entityTypes };
  }
  const principalTypes = ['Agent'];
  for (let i = 0; i < entityTypes.length; i++) if (entityTypes[i] !== 'Agent') principalTypes[principalTypes.length] = entityTypes[i];
  const actions = {};
  const names = ReflectOwnKeys(toolSchemas);
  for (let i = 0; i < names.length; i++) {
    const input = toolSchemas[names[i]].type;
    actions[names[i]] = {
      appliesTo: {
        principalTypes,
        resourceTypes: ['Agent'],
        context: { type: 'Record', attributes: { input: { ...input, required: true }, scope: { type: 'String', required: false } } },
      },
    };
  }
  return JSONStringify({ '': { entityTypes: entityTypesOut, actions } });
}

function entityTypesOf(entities) {
  const types = ['Agent'];
  if (!ArrayIsArray(entities)) return types;
  for (let i = 0; i < entities.length; i++) {
    const uid = entities[i] !== null && typeof entities[i] === 'object' ? entities[i].uid : undefined;
    const type = uid !== null && typeof uid === 'object' ? uid.type : undefined;
    if (typeof type === 'string' && !type.includes('::') && !types.includes(type)) types[types.length] = type;
  }
  return types;
}

/** Checks and compiles a policy text: the state a decision is made under, or a CedarPolicyError. */
function compile(text, schema, entitiesJson) {
  if (typeof text !== 'string' || !text.isWellFormed()) throw invalidArgument('policies must be a well-formed string of Cedar policy text');
  const issues = cedarCheck(text, schema.text, schema.isText);
  if (issues.length !== 0) {
    const copies = [];
    for (let i = 0; i < issues.length; i++) {
      copies[i] = ObjectFreeze({ code: issues[i].code, policyId: issues[i].policyId ?? null, message: issues[i].message });
    }
    throw new CedarPolicyError(ObjectFreeze(copies));
  }
  let handle;
  try {
    handle = cedarCompile(text, entitiesJson);
  } catch (error) {
    throw new CedarPolicyError(ObjectFreeze([ObjectFreeze({ code: 'parse_error', policyId: null, message: 'the entities are not valid Cedar entities' })]));
  }
  return ObjectFreeze({ handle, policySetHash: sha256Hex(text) });
}

/** The principal of a policy input: the option's function, else `policyContext.principal`, else the agent. */
function principalOf(principalFn, input, agentName) {
  let principal = principalFn === undefined ? own(input, 'principal') : principalFn(input);
  if (principal === undefined || principal === null) return { type: 'Agent', id: agentName };
  if (typeof principal !== 'object' || isProxy(principal)) return null;
  const type = own(principal, 'type');
  const id = own(principal, 'id');
  if (typeof type !== 'string' || typeof id !== 'string') return null;
  return { type, id };
}

function createCedarPolicy(options) {
  requireInput(options, USAGE);
  const policies = own(options, 'policies');
  const tools = own(options, 'tools');
  const entities = own(options, 'entities');
  const principalFn = own(options, 'principal');
  const schemaOption = own(options, 'schema');
  const grants = own(options, 'grants');
  if (principalFn !== undefined && typeof principalFn !== 'function') throw invalidArgument('principal must be a function');

  let entitiesJson;
  if (entities !== undefined) {
    if (typeof entities === 'string') entitiesJson = entities;
    else if (ArrayIsArray(entities) && !isProxy(entities)) entitiesJson = JSONStringify(entities);
    else throw invalidArgument('entities must be Cedar entities JSON (an array or its text)');
  }

  const toolSchemas = { __proto__: null };
  const hints = { __proto__: null };
  if (tools !== undefined) {
    requireInput(tools, 'tools must be an object mapping tool names to schemas');
    const names = ReflectOwnKeys(tools);
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      if (typeof name !== 'string') continue;
      const schema = own(tools, name);
      const derived = cedarTypeOf(jsonSchemaOf(schema, name), 0);
      toolSchemas[name] = derived ?? { type: { type: 'Record', attributes: {} }, hint: null };
      hints[name] = derived === null || derived.hint === null ? undefined : JSONStringify(derived.hint);
    }
  }

  let schema;
  if (schemaOption !== undefined) {
    if (typeof schemaOption === 'string') schema = { text: schemaOption, isText: schemaOption.trimStart()[0] !== '{' };
    else if (schemaOption !== null && typeof schemaOption === 'object' && !isProxy(schemaOption)) schema = { text: JSONStringify(schemaOption), isText: false };
    else throw invalidArgument('schema must be a Cedar schema (JSON or its text)');
  } else if (tools !== undefined) {
    schema = { text: deriveSchema(toolSchemas, entityTypesOf(entities === undefined ? undefined : typeof entities === 'string' ? JSON.parse(entities) : entities)), isText: false };
  } else {
    schema = { text: undefined, isText: false };
  }

  let grantPolicy;
  if (grants !== undefined) {
    if (grants === null || typeof grants !== 'object' || isProxy(grants) || typeof own(grants, 'policy') !== 'function') {
      throw invalidArgument('grants must be an object made by createApprovalGrants()');
    }
    grantPolicy = own(grants, 'policy');
  }

  let state = compile(policies, schema, entitiesJson);

  async function cedarPolicy(input) {
    // The state this decision is made under, whatever update() does meanwhile.
    const current = state;
    const hash = current.policySetHash;
    if (input === null || typeof input !== 'object' || isProxy(input)) return result('deny', 'cedar_evaluation_error', [], hash);
    const agentName = own(input, 'agentName');
    const toolName = own(input, 'toolName');
    const json = own(input, 'argsCanonicalJson');
    if (typeof agentName !== 'string' || typeof toolName !== 'string' || typeof json !== 'string') return result('deny', 'cedar_evaluation_error', [], hash);
    const principal = principalOf(principalFn, input, agentName);
    if (principal === null) return result('deny', 'cedar_evaluation_error', [], hash);
    const scope = own(input, 'grantScope');
    let answer;
    try {
      answer = cedarAuthorize(current.handle, principal.type, principal.id, toolName, 'Agent', agentName, json,
        hints[toolName], typeof scope === 'string' ? scope : undefined);
    } catch {
      return result('deny', 'cedar_evaluation_error', [], hash);
    }
    const ids = answer.policies;
    if (answer.outcome === 'error') return result('deny', 'cedar_evaluation_error', ids, hash);
    if (answer.outcome === 'unrepresentable') return result('deny', 'cedar_unrepresentable_value', [], hash);
    if (answer.outcome !== 'allow') return result('deny', ids.length === 0 ? 'no_permit' : 'forbidden', ids, hash);
    if (!answer.approval) return result('allow', 'permitted', ids, hash);
    const asks = result('require_approval', 'approval_required', ids, hash);
    if (grantPolicy === undefined) return asks;
    // The grants look only now: a forbid has already denied above, whatever grant is live.
    const granted = await grantPolicy(() => asks)(input);
    if (granted === asks) return asks;
    if (granted !== null && typeof granted === 'object' && granted.decision === 'allow' && granted.reason === 'approval_granted') {
      return result('allow', 'approval_granted', ids, hash);
    }
    return result('deny', typeof granted?.reason === 'string' ? granted.reason : 'grant_store_unavailable', ids, hash);
  }

  function update(text) {
    // Parsed and validated first: a refused text throws and leaves the set as it was.
    const next = compile(text, schema, entitiesJson);
    state = next;
    return next.policySetHash;
  }

  ObjectDefineProperty(cedarPolicy, 'update', { __proto__: null, value: update, enumerable: true, writable: false, configurable: false });
  ObjectDefineProperty(cedarPolicy, 'policySetHash', { __proto__: null, get() { return state.policySetHash; }, enumerable: true, configurable: false });
  return ObjectFreeze(cedarPolicy);
}

module.exports = { createCedarPolicy, CedarPolicyError, isCedarPolicyError, cedarEventFields, deriveSchema, cedarTypeOf };
