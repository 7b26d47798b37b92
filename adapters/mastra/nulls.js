'use strict';
// Nulls for optional fields and undefined values: what Mastra and a provider's compat layer
// change in a call's arguments before a tool sees them, undone on the package's side only
// where the tool's own JSON Schema says so for certain (read without running schema code).

const {
  ArrayIsArray,
  isProxy,
  ObjectFreeze,
  ObjectGetOwnPropertyDescriptor,
  ObjectGetOwnPropertyNames,
  ObjectGetPrototypeOf,
  ObjectHasOwn,
  ObjectPrototype,
  ReflectApply,
  ArrayPrototypeSlice,
} = require('../gate/primordials');
const { own, ownDataCopy, setData } = require('../gate/read');
const { jsonSchemaRefusesNull, jsonSchemaLocalRef } = require('../gate/json-schema');

// Nulls for optional fields. Mastra's OpenAI compat layer shows OpenAI models every
// optional field as required and nullable (its JSON Schema lists them in `x-optional`), so
// the model sends `null` for a field it omits, and Mastra alone turns such a null into an
// absent field before validating, also where the schema accepts null (a
// `z.union([z.string(), z.literal(null)]).optional()` "unassign" arrives as "unchanged").
// The gate removes a null from the schema's own decoded copy only at an optional property
// whose schema is known to refuse null (read from the tool's JSON Schema, without running
// schema code); everywhere else the null stays and the schema decides. The provider text
// (rawArguments) keeps it.

/** The object schema a value of `schema` follows (through local refs), or undefined. */
function objectSchemaOf(schema, root, depth) {
  if (schema === null || typeof schema !== 'object' || ArrayIsArray(schema) || depth > 64) return undefined;
  const ref = own(schema, '$ref');
  if (typeof ref === 'string') return objectSchemaOf(jsonSchemaLocalRef(root, ref), root, depth + 1);
  return schema;
}

/**
 * `value` without the nulls of optional properties whose schema refuses null, copied
 * where something is removed (the decoded value itself is never changed).
 */
function withoutRefusedNulls(value, schema, root, depth) {
  const node = objectSchemaOf(schema, root, depth);
  if (node === undefined || value === null || typeof value !== 'object' || depth > 1100) return value;
  if (ArrayIsArray(value)) {
    const items = own(node, 'items');
    if (items === undefined || ArrayIsArray(items)) return value;
    let copy;
    for (let i = 0; i < value.length; i++) {
      const item = withoutRefusedNulls(value[i], items, root, depth + 1);
      if (item !== value[i]) {
        if (copy === undefined) copy = ArrayPrototypeSlice(value);
        copy[i] = item;
      }
    }
    return copy ?? value;
  }
  const properties = own(node, 'properties');
  if (properties === null || typeof properties !== 'object') return value;
  const required = own(node, 'required');
  const isRequired = (key) => {
    if (!ArrayIsArray(required)) return false;
    for (let i = 0; i < required.length; i++) if (required[i] === key) return true;
    return false;
  };
  let copy;
  const names = ObjectGetOwnPropertyNames(value);
  for (let i = 0; i < names.length; i++) {
    const key = names[i];
    const property = own(properties, key);
    if (property === undefined) continue;
    const current = own(value, key);
    let next = current;
    if (current === null) {
      if (!isRequired(key) && jsonSchemaRefusesNull(property, root)) next = undefined;
    } else {
      next = withoutRefusedNulls(current, property, root, depth + 1);
    }
    if (next === current) continue;
    if (copy === undefined) copy = ownDataCopy(value);
    if (next === undefined) delete copy[key];
    else setData(copy, key, next);
  }
  return copy ?? value;
}

/**
 * The schema the package runs for a tool: the tool's own, seeing its decoded value without
 * the nulls above (the JSON Schema is the tool's own, as Mastra makes it). zod keeps its
 * safeParseAsync (run once per attempt, as the package runs zod); a Standard Schema its
 * validate; anything else is run as it is.
 */
function nullTolerantSchema(schema, jsonSchemaOf) {
  if (schema === undefined) return undefined;
  let json;
  const strip = (value) => {
    if (json === undefined) {
      try {
        json = jsonSchemaOf();
      } catch {
        json = null;
      }
    }
    return json === null ? value : withoutRefusedNulls(value, json, json, 0);
  };
  const standard = schema['~standard'];
  const validate = standard !== null && typeof standard === 'object' ? standard.validate : undefined;
  const wrapper = {};
  if (typeof schema.safeParseAsync === 'function') {
    setData(wrapper, 'safeParseAsync', (value) => schema.safeParseAsync(strip(value)));
  } else if (typeof validate !== 'function') {
    return schema;
  }
  if (typeof validate === 'function') {
    setData(wrapper, '~standard', ObjectFreeze({ version: 1, vendor: standard.vendor, validate: (value) => ReflectApply(validate, standard, [strip(value)]) }));
  }
  return ObjectFreeze(wrapper);
}

/**
 * `value` without own properties whose value is undefined (JSON has none: Mastra's storage
 * drops them), copied where one is removed; anything else as it is.
 */
function withoutUndefined(value, depth) {
  if (value === null || typeof value !== 'object' || isProxy(value) || depth > 1100) return value;
  if (ArrayIsArray(value)) {
    let copy;
    for (let i = 0; i < value.length; i++) {
      const item = withoutUndefined(value[i], depth + 1);
      if (item !== value[i]) {
        if (copy === undefined) copy = ArrayPrototypeSlice(value);
        copy[i] = item;
      }
    }
    return copy ?? value;
  }
  const proto = ObjectGetPrototypeOf(value);
  if (proto !== ObjectPrototype && proto !== null) return value;
  let copy;
  const names = ObjectGetOwnPropertyNames(value);
  for (let i = 0; i < names.length; i++) {
    const descriptor = ObjectGetOwnPropertyDescriptor(value, names[i]);
    if (!ObjectHasOwn(descriptor, 'value')) continue;
    const next = descriptor.value === undefined ? undefined : withoutUndefined(descriptor.value, depth + 1);
    if (next === descriptor.value && descriptor.value !== undefined) continue;
    if (copy === undefined) copy = ownDataCopy(value);
    if (next === undefined) delete copy[names[i]];
    else setData(copy, names[i], next);
  }
  return copy ?? value;
}

module.exports = { nullTolerantSchema, withoutUndefined };
