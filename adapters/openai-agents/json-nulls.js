'use strict';
// Strict mode's null-for-optional in JSON Schema tools, and the schema steps that undo it.

const { own } = require('../gate/read');
const { jsonSchemaRefusesNull, jsonSchemaLocalRef } = require('../gate/json-schema');
const { ObjectKeys, ObjectHasOwn, ArrayIsArray, ArrayPrototypeIncludes, isProxy } = require('../gate/primordials');
const { MAX_SCHEMA_DEPTH, stripZodNulls } = require('./zod-nulls');

// JSON Schema: a property is optional when its object's `required` does not list it; whether
// its schema refuses null for certain is shared.js jsonSchemaRefusesNull (the Mastra gate
// reads it too): `false`, `type`, `enum`, `const`, `anyOf`/`oneOf` whose every branch
// refuses, `allOf` with a branch that refuses, local `$ref`s, and never a schema with
// `nullable: true` (OpenAPI 3.0, which Ajv and so fromJsonSchema honour). Anything else
// keeps the null.

function isSchemaObject(value) {
  return value !== null && typeof value === 'object' && !ArrayIsArray(value) && !isProxy(value);
}

/** Follows local `$ref`s of a container schema (bounded). */
function jsonDeref(schema, root) {
  let current = schema;
  for (let depth = 0; isSchemaObject(current) && own(current, '$ref') !== undefined && depth < MAX_SCHEMA_DEPTH; depth++) {
    current = jsonSchemaLocalRef(root, own(current, '$ref'));
  }
  return current;
}

function stripJsonNulls(schema, value, root, depth = 0) {
  if (value === null || typeof value !== 'object' || depth > MAX_SCHEMA_DEPTH) return;
  const container = jsonDeref(schema, root);
  if (!isSchemaObject(container)) return;
  if (ArrayIsArray(value)) {
    const items = own(container, 'items');
    if (isSchemaObject(items)) for (let i = 0; i < value.length; i++) stripJsonNulls(items, value[i], root, depth + 1);
    return;
  }
  const properties = own(container, 'properties');
  if (!isSchemaObject(properties)) return;
  const required = own(container, 'required');
  const keys = ObjectKeys(properties);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const field = own(properties, key);
    if (field === undefined || !ObjectHasOwn(value, key)) continue;
    if (value[key] === null) {
      const optional = !(ArrayIsArray(required) && !isProxy(required) && ArrayPrototypeIncludes(required, key));
      if (optional && jsonSchemaRefusesNull(field, root)) delete value[key];
    } else {
      stripJsonNulls(field, value[key], root, depth + 1);
    }
  }
}

/** The schema step for zod in strict mode (prepareToolCallAsync awaits safeParseAsync, zod 3 and 4). */
function zodStrictNullStep(schema) {
  return {
    safeParseAsync: (value) => {
      stripZodNulls(schema, value);
      return schema.safeParseAsync(value);
    },
  };
}

/** The schema step for a JSON Schema tool in strict mode: a Standard Schema around fromJsonSchema's. */
function jsonStrictNullStep(standardSchema, jsonSchema) {
  const standard = standardSchema['~standard'];
  const validate = standard.validate;
  return {
    '~standard': {
      version: 1,
      vendor: standard.vendor,
      validate: (value) => {
        stripJsonNulls(jsonSchema, value, jsonSchema);
        return validate(value);
      },
    },
  };
}

module.exports = { isSchemaObject, zodStrictNullStep, jsonStrictNullStep };
