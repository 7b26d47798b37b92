'use strict';
// Strict mode's null-for-optional in zod 3 and zod 4 schemas, read through their definitions.

const { own } = require('../gate/read');
const { ObjectKeys, ObjectFreeze, ObjectHasOwn, ArrayIsArray, ArrayPrototypeIncludes, isProxy } = require('../gate/primordials');

// Strict mode's null-for-optional, undone only where the schema is known to refuse null.
// zod 3 and zod 4 are read through their definitions (own data properties): no schema
// method or user code runs, a lazy schema's getter is never called. Anything the gate
// cannot read for certain (lazy, custom, a transform or preprocess, catch, any, unknown,
// an unknown kind) counts as accepting null: the null stays and the schema decides.

const MAX_SCHEMA_DEPTH = 64;

/** The definition of a zod schema with its kind, or undefined for anything else. */
function zodDefinition(schema) {
  const zod4 = own(schema, '_zod');
  if (zod4 !== undefined) {
    const def = own(zod4, 'def');
    const type = own(def, 'type');
    return typeof type === 'string' ? { __proto__: null, version: 4, kind: type, def } : undefined;
  }
  const def = own(schema, '_def');
  const typeName = own(def, 'typeName');
  return typeof typeName === 'string' ? { __proto__: null, version: 3, kind: typeName, def } : undefined;
}

function isZodSchema(schema) {
  return zodDefinition(schema) !== undefined;
}

// Kinds whose every value is something other than null (zod 4 type, zod 3 typeName).
const REFUSES_NULL = ObjectFreeze({
  __proto__: null,
  string: true,
  ZodString: true,
  number: true,
  ZodNumber: true,
  int: true,
  bigint: true,
  ZodBigInt: true,
  boolean: true,
  ZodBoolean: true,
  date: true,
  ZodDate: true,
  symbol: true,
  ZodSymbol: true,
  undefined: true,
  ZodUndefined: true,
  void: true,
  ZodVoid: true,
  never: true,
  ZodNever: true,
  nan: true,
  ZodNaN: true,
  object: true,
  ZodObject: true,
  array: true,
  ZodArray: true,
  tuple: true,
  ZodTuple: true,
  record: true,
  ZodRecord: true,
  map: true,
  ZodMap: true,
  set: true,
  ZodSet: true,
  template_literal: true,
  file: true,
  function: true,
  ZodFunction: true,
});

// Wrappers that hand null, as it is, to one inner schema: [definition field].
const PASS_NULL = ObjectFreeze({
  __proto__: null,
  optional: 'innerType',
  ZodOptional: 'innerType',
  default: 'innerType',
  ZodDefault: 'innerType',
  prefault: 'innerType',
  readonly: 'innerType',
  ZodReadonly: 'innerType',
  nonoptional: 'innerType',
  ZodBranded: 'type',
  pipe: 'in',
  ZodPipeline: 'in',
});

// Wrappers that make a property optional (the model is shown it nullable in strict mode).
const OPTIONAL = ObjectFreeze({ __proto__: null, optional: true, ZodOptional: true, default: true, ZodDefault: true, prefault: true });

/** A zod 3 ZodEffects' inner schema when the effect runs after it (refine, transform), else undefined. */
function effectsInner(info) {
  if (info.kind !== 'ZodEffects') return undefined;
  const type = own(own(info.def, 'effect'), 'type');
  return type === 'refinement' || type === 'transform' ? own(info.def, 'schema') : undefined;
}

/** Whether the zod schema refuses null for certain. */
function zodRefusesNull(schema, depth = 0) {
  const info = zodDefinition(schema);
  if (info === undefined || depth > MAX_SCHEMA_DEPTH) return false;
  const { kind, def } = info;
  if (kind in REFUSES_NULL) return true;
  if (kind in PASS_NULL) return zodRefusesNull(own(def, PASS_NULL[kind]), depth + 1);
  const inner = effectsInner(info);
  if (inner !== undefined) return zodRefusesNull(inner, depth + 1);
  if (kind === 'literal') {
    const values = own(def, 'values');
    if (ArrayIsArray(values) && !isProxy(values)) return !ArrayPrototypeIncludes(values, null);
    return false;
  }
  if (kind === 'ZodLiteral') return ObjectHasOwn(def, 'value') && own(def, 'value') !== null;
  if (kind === 'enum' || kind === 'ZodNativeEnum') {
    const entries = own(def, kind === 'enum' ? 'entries' : 'values');
    if (entries === null || typeof entries !== 'object' || isProxy(entries)) return false;
    const keys = ObjectKeys(entries);
    for (let i = 0; i < keys.length; i++) if (own(entries, keys[i]) === null) return false;
    return true;
  }
  if (kind === 'ZodEnum') return true; // zod 3 enums hold strings only
  if (kind === 'union' || kind === 'ZodUnion' || kind === 'ZodDiscriminatedUnion') {
    const options = own(def, 'options');
    if (!ArrayIsArray(options) || isProxy(options) || options.length === 0) return false;
    for (let i = 0; i < options.length; i++) if (!zodRefusesNull(options[i], depth + 1)) return false;
    return true;
  }
  if (kind === 'intersection' || kind === 'ZodIntersection') {
    return zodRefusesNull(own(def, 'left'), depth + 1) || zodRefusesNull(own(def, 'right'), depth + 1);
  }
  // nullable, null, any, unknown, catch, transform, lazy, custom, promise, success, and
  // every kind this file does not know: null may pass.
  return false;
}

/** Whether a property's schema is optional in input (optional, default, prefault under transparent wrappers). */
function zodIsOptional(schema, depth = 0) {
  const info = zodDefinition(schema);
  if (info === undefined || depth > MAX_SCHEMA_DEPTH) return false;
  if (info.kind in OPTIONAL) return true;
  if (info.kind === 'readonly' || info.kind === 'ZodReadonly' || info.kind === 'catch' || info.kind === 'ZodCatch') {
    return zodIsOptional(own(info.def, 'innerType'), depth + 1);
  }
  if (info.kind === 'ZodBranded') return zodIsOptional(own(info.def, 'type'), depth + 1);
  if (info.kind === 'pipe' || info.kind === 'ZodPipeline') return zodIsOptional(own(info.def, 'in'), depth + 1);
  const inner = effectsInner(info);
  return inner !== undefined ? zodIsOptional(inner, depth + 1) : false;
}

/** The schema that shapes a container value, through wrappers that pass it on unchanged. */
function zodContainer(schema) {
  let info = zodDefinition(schema);
  for (let depth = 0; info !== undefined && depth < MAX_SCHEMA_DEPTH; depth++) {
    let next;
    if (info.kind in PASS_NULL) next = own(info.def, PASS_NULL[info.kind]);
    else if (info.kind === 'nullable' || info.kind === 'ZodNullable') next = own(info.def, 'innerType');
    else next = effectsInner(info);
    if (next === undefined) return info;
    info = zodDefinition(next);
  }
  return undefined;
}

/** The object shape of a zod object definition, or undefined. */
function zodShape(info) {
  if (info.version === 4) return info.kind === 'object' ? own(info.def, 'shape') : undefined;
  if (info.kind !== 'ZodObject') return undefined;
  const shape = own(info.def, 'shape');
  // zod 3 keeps the shape behind a function z.object made (zod's code, not the app's).
  return typeof shape === 'function' ? shape() : undefined;
}

function zodElement(info) {
  if (info.version === 4) return info.kind === 'array' ? own(info.def, 'element') : undefined;
  return info.kind === 'ZodArray' ? own(info.def, 'type') : undefined;
}

/**
 * Removes, in place, every `null` the model sent for a property that is optional in the
 * schema and whose schema refuses null for certain, through objects and arrays. The value
 * is the schema's own decoded copy (plain JSON data), so it can be edited.
 */
function stripZodNulls(schema, value, depth = 0) {
  if (value === null || typeof value !== 'object' || depth > MAX_SCHEMA_DEPTH) return;
  const info = zodContainer(schema);
  if (info === undefined) return;
  if (ArrayIsArray(value)) {
    const element = zodElement(info);
    // An array element cannot be absent: a null there stays.
    if (element !== undefined) for (let i = 0; i < value.length; i++) stripZodNulls(element, value[i], depth + 1);
    return;
  }
  const shape = zodShape(info);
  if (shape === undefined || shape === null || typeof shape !== 'object' || isProxy(shape)) return;
  const keys = ObjectKeys(shape);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const field = own(shape, key); // an accessor (a recursive schema's getter) is not followed
    if (field === undefined || !ObjectHasOwn(value, key)) continue;
    if (value[key] === null) {
      if (zodIsOptional(field) && zodRefusesNull(field)) delete value[key];
    } else {
      stripZodNulls(field, value[key], depth + 1);
    }
  }
}

module.exports = { MAX_SCHEMA_DEPTH, isZodSchema, stripZodNulls };
