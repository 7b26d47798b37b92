'use strict';
// createCedarPolicy: a Cedar policy set as a policy of evaluateToolCall (and of every
// place a policy goes). The set is parsed and validated in the addon (src/cedar/, bound in src/binding/); the
// request's context is built there from the snapshot's canonical JSON, never from a
// JavaScript object of the caller. Default deny, forbid wins (over a live grant too), any
// evaluation error denies, and `@approval("required")` permits ask for an approval that a
// live grant of `grants` answers. docs/cedar.md.

const { binding } = require('../native');
const { invalidArgument } = require('../errors');
const { own, requireInput } = require('../input');
const P = require('../primordials');
const { ours } = require('../promises');
const { CedarPolicyError, isCedarPolicyError, cedarDeciderOf, cedarEventFields, result, DECIDERS } = require('./shared');

const { ObjectFreeze, ObjectDefineProperty, ArrayIsArray, JSONParse, JSONStringify, StringPrototypeIsWellFormed, StringPrototypeCharCodeAt, isProxy } = P;
const { StringPrototypeIndexOf, ReflectOwnKeys } = P;
const { WeakMapPrototypeSet } = P;
const cedarCheck = binding.cedarCheck;
const cedarCompile = binding.cedarCompile;
const cedarAuthorize = binding.cedarAuthorize;
const cedarSetHash = binding.cedarSetHash;

const USAGE = 'createCedarPolicy expects { policies, tools?, entities?, principal?, schema?, grants? }';

/** Whether `list` (an array this module made or checked) holds `value`. */
function holds(list, value) {
  for (let i = 0; i < list.length; i++) if (list[i] === value) return true;
  return false;
}

/** Whether a schema text is JSON (its first non-space character is `{`) rather than Cedar's schema syntax. */
function isJsonText(text) {
  for (let i = 0; i < text.length; i++) {
    const c = StringPrototypeCharCodeAt(text, i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return c === 0x7b;
  }
  return false;
}

/** A tool schema's JSON Schema: a Standard Schema's `~standard.jsonSchema.input`, else the object itself. */
function jsonSchemaOf(schema, toolName) {
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function') || isProxy(schema)) {
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
        const isRequired = ArrayIsArray(required) && !isProxy(required) && holds(required, key) && !ArrayIsArray(own(own(properties, key), 'type'));
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
    if (typeof type === 'string' && StringPrototypeIndexOf(type, '::') === -1 && !holds(types, type)) types[types.length] = type;
  }
  return types;
}

/** Checks and compiles a policy text: the state a decision is made under, or a CedarPolicyError. */
function compile(text, schema, entitiesJson, hintsJson) {
  if (typeof text !== 'string' || !StringPrototypeIsWellFormed(text)) throw invalidArgument('policies must be a well-formed string of Cedar policy text');
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
    handle = cedarCompile(text, entitiesJson, hintsJson);
  } catch {
    throw new CedarPolicyError(ObjectFreeze([ObjectFreeze({ code: 'parse_error', policyId: null, message: 'the entities are not valid Cedar entities' })]));
  }
  return ObjectFreeze({ handle, policySetHash: cedarSetHash(handle) });
}

/** The principal of a policy input: the option's function, else `policyContext.principal`, else the agent. */
function principalOf(principalFn, input, agentName) {
  const principal = principalFn === undefined ? own(input, 'principal') : principalFn(input);
  if (principal === undefined || principal === null) return { type: 'Agent', id: agentName };
  if (typeof principal !== 'object' || isProxy(principal)) return null;
  const type = own(principal, 'type');
  const id = own(principal, 'id');
  if (typeof type !== 'string' || typeof id !== 'string') return null;
  return { type, id };
}

/** `options.entities`: Cedar entities JSON (an array or its text), or undefined. */
function readEntities(entities) {
  if (entities === undefined) return undefined;
  if (typeof entities === 'string') return entities;
  if (ArrayIsArray(entities) && !isProxy(entities)) return JSONStringify(entities);
  throw invalidArgument('entities must be Cedar entities JSON (an array or its text)');
}

/**
 * `options.tools`: each tool's Cedar record type derived from its schema, and the number
 * hints of the tools that have some (see cedar_authorize in src/cedar/ and its binding in
 * src/binding/), given to the set once as JSON (undefined: none).
 */
function readTools(tools) {
  const toolSchemas = { __proto__: null };
  const hints = { __proto__: null };
  let hinted = false;
  if (tools !== undefined) {
    requireInput(tools, 'tools must be an object mapping tool names to schemas');
    const names = ReflectOwnKeys(tools);
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      if (typeof name !== 'string') continue;
      const schema = own(tools, name);
      const derived = cedarTypeOf(jsonSchemaOf(schema, name), 0);
      toolSchemas[name] = derived ?? { type: { type: 'Record', attributes: {} }, hint: null };
      if (derived !== null && derived.hint !== null) {
        hints[name] = derived.hint;
        hinted = true;
      }
    }
  }
  return { toolSchemas, hintsJson: hinted ? JSONStringify(hints) : undefined };
}

/** `options.schema` (JSON or its text), else the schema derived from the tools, else none. */
function readSchema(schemaOption, tools, toolSchemas, entities) {
  if (schemaOption !== undefined) {
    if (typeof schemaOption === 'string') return { text: schemaOption, isText: !isJsonText(schemaOption) };
    if (schemaOption !== null && typeof schemaOption === 'object' && !isProxy(schemaOption)) return { text: JSONStringify(schemaOption), isText: false };
    throw invalidArgument('schema must be a Cedar schema (JSON or its text)');
  }
  if (tools !== undefined) {
    return {
      text: deriveSchema(toolSchemas, entityTypesOf(entities === undefined ? undefined : typeof entities === 'string' ? JSONParse(entities) : entities)),
      isText: false,
    };
  }
  return { text: undefined, isText: false };
}

/** `options.grants`: the grants object's policy helper, or undefined. */
function readGrantPolicy(grants) {
  if (grants === undefined) return undefined;
  if (grants === null || typeof grants !== 'object' || isProxy(grants) || typeof own(grants, 'policy') !== 'function') {
    throw invalidArgument('grants must be an object made by createApprovalGrants()');
  }
  return own(grants, 'policy');
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

  const entitiesJson = readEntities(entities);
  const { toolSchemas, hintsJson } = readTools(tools);
  const schema = readSchema(schemaOption, tools, toolSchemas, entities);
  const grantPolicy = readGrantPolicy(grants);
  let state = compile(policies, schema, entitiesJson, hintsJson);

  /**
   * One decision. `lookup`, when a grants object's policy wrapper runs this policy, is its
   * grant lookup: called only for an approval the set asks for, it answers the grants'
   * allow, their deny (a store that failed), or undefined (no live grant).
   */
  async function decide(input, lookup) {
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
      answer = cedarAuthorize(current.handle, principal.type, principal.id, toolName, agentName, json, typeof scope === 'string' ? scope : undefined);
    } catch {
      return result('deny', 'cedar_evaluation_error', [], hash);
    }
    const ids = answer.policies;
    if (answer.outcome === 'error') return result('deny', 'cedar_evaluation_error', ids, hash);
    if (answer.outcome === 'unrepresentable') return result('deny', 'cedar_unrepresentable_value', [], hash);
    if (answer.outcome !== 'allow') return result('deny', ids.length === 0 ? 'no_permit' : 'forbidden', ids, hash);
    if (!answer.approval) return result('allow', 'permitted', ids, hash);
    const asks = result('require_approval', 'approval_required', ids, hash);
    // The grants look only now: a forbid has already denied above, whatever grant is live.
    let granted;
    if (grantPolicy !== undefined) {
      const mine = await ours(grantPolicy(() => asks)(input));
      if (mine !== asks) granted = mine;
    }
    if (granted === undefined && lookup !== undefined) granted = await ours(lookup(input));
    if (granted === undefined) return asks;
    if (granted !== null && typeof granted === 'object' && granted.decision === 'allow' && granted.reason === 'approval_granted') {
      return result('allow', 'approval_granted', ids, hash);
    }
    return result('deny', typeof granted?.reason === 'string' ? granted.reason : 'grant_store_unavailable', ids, hash);
  }

  async function cedarPolicy(input) {
    return decide(input, undefined);
  }

  function update(text) {
    // Parsed and validated first: a refused text throws and leaves the set as it was.
    const next = compile(text, schema, entitiesJson, hintsJson);
    state = next;
    return next.policySetHash;
  }

  ObjectDefineProperty(cedarPolicy, 'update', { __proto__: null, value: update, enumerable: true, writable: false, configurable: false });
  ObjectDefineProperty(cedarPolicy, 'policySetHash', {
    __proto__: null,
    get() {
      return state.policySetHash;
    },
    enumerable: true,
    configurable: false,
  });
  WeakMapPrototypeSet(DECIDERS, cedarPolicy, decide);
  return ObjectFreeze(cedarPolicy);
}

module.exports = { createCedarPolicy, CedarPolicyError, isCedarPolicyError, cedarEventFields, cedarDeciderOf, deriveSchema, cedarTypeOf };
