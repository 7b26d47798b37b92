'use strict';
// JSON Schema read without running schema code (own data properties, no Proxy): local
// `$ref`s, whether a schema refuses `null` for certain, and a tool's JSON Schema compiled
// with the package's fromJsonSchema, the tool named in a compile error.

const {
  ArrayIsArray,
  DecodeURIComponent,
  isProxy,
  ObjectFreeze,
  ObjectGetPrototypeOf,
  ObjectHasOwn,
  ObjectPrototype,
  StringPrototypeReplaceAll,
  StringPrototypeSlice,
  StringPrototypeSplit,
  StringPrototypeStartsWith,
} = require('./primordials');
const { own, invalidArgument, setData } = require('./read');

const MAX_SCHEMA_DEPTH = 64;
const BRANCH_KEYWORDS = ObjectFreeze(['anyOf', 'oneOf']);

function isSchemaRecord(value) {
  return value !== null && typeof value === 'object' && !ArrayIsArray(value) && !isProxy(value);
}

function isPlainArray(value) {
  return ArrayIsArray(value) && !isProxy(value);
}

function includes(list, item) {
  for (let i = 0; i < list.length; i++) if (list[i] === item) return true;
  return false;
}

/** The schema a local `$ref` ("#", "#/a/b", JSON Pointer, URI-escaped) points to within `root`, or undefined. */
function jsonSchemaLocalRef(root, ref) {
  if (typeof ref !== 'string' || !StringPrototypeStartsWith(ref, '#')) return undefined;
  if (ref === '#') return root;
  if (!StringPrototypeStartsWith(ref, '#/')) return undefined;
  const tokens = StringPrototypeSplit(StringPrototypeSlice(ref, 2), '/');
  let current = root;
  for (let i = 0; i < tokens.length; i++) {
    let token;
    try {
      token = DecodeURIComponent(tokens[i]);
    } catch {
      return undefined;
    }
    token = StringPrototypeReplaceAll(StringPrototypeReplaceAll(token, '~1', '/'), '~0', '~');
    if (!isSchemaRecord(current) && !isPlainArray(current)) return undefined;
    current = own(current, token);
    if (current === undefined) return undefined;
  }
  return current;
}

/**
 * Whether a JSON Schema refuses `null` for certain: `false`; `nullable: true` (OpenAPI 3.0,
 * honoured by Ajv and so by fromJsonSchema) never refuses; a local `$ref` as its target
 * (its siblings are not counted: drafts disagree on them); else `type` without "null",
 * `const` other than null, `enum` without null, `anyOf`/`oneOf` whose every branch refuses,
 * `allOf` with a branch that refuses. Anything else (unknown, remote refs, too deep): false.
 */
function jsonSchemaRefusesNull(schema, root, depth = 0) {
  if (schema === false) return true;
  if (!isSchemaRecord(schema) || depth > MAX_SCHEMA_DEPTH) return false;
  if (own(schema, 'nullable') === true) return false;
  const ref = own(schema, '$ref');
  if (ref !== undefined) return jsonSchemaRefusesNull(jsonSchemaLocalRef(root, ref), root, depth + 1);
  const type = own(schema, 'type');
  if (typeof type === 'string' && type !== 'null') return true;
  if (isPlainArray(type) && type.length > 0 && !includes(type, 'null')) return true;
  if (ObjectHasOwn(schema, 'const') && own(schema, 'const') !== null) return true;
  const values = own(schema, 'enum');
  if (isPlainArray(values) && !includes(values, null)) return true;
  for (let k = 0; k < BRANCH_KEYWORDS.length; k++) {
    const branches = own(schema, BRANCH_KEYWORDS[k]);
    if (!isPlainArray(branches) || branches.length === 0) continue;
    let all = true;
    for (let i = 0; i < branches.length && all; i++) all = jsonSchemaRefusesNull(branches[i], root, depth + 1);
    if (all) return true;
  }
  const allOf = own(schema, 'allOf');
  if (isPlainArray(allOf)) {
    for (let i = 0; i < allOf.length; i++) if (jsonSchemaRefusesNull(allOf[i], root, depth + 1)) return true;
  }
  return false;
}

/**
 * A tool's JSON Schema compiled now with the package's `fromJsonSchema` (so a schema that
 * does not compile fails at gate creation, not at the first call). A compile error becomes
 * a TypeError naming the tool (the schema is the app's, not payload); `keepCode` carries
 * the package's error code over instead of ERR_INVALID_ARG_TYPE.
 */
function compileToolJsonSchema(fromJsonSchema, json, toolName, jsonSchemaOptions, keepCode) {
  try {
    return jsonSchemaOptions === undefined ? fromJsonSchema(json) : fromJsonSchema(json, jsonSchemaOptions);
  } catch (error) {
    const code = own(error, 'code');
    if (code === 'MODULE_NOT_FOUND') throw error;
    const failed = invalidArgument(`the JSON Schema of tool "${toolName}" cannot be used: ${own(error, 'message')}`);
    if (keepCode && typeof code === 'string') setData(failed, 'code', code);
    throw failed;
  }
}

/** Whether `schema` is a plain JSON Schema object (not zod, not a Standard Schema, not a Proxy). */
function isPlainJsonSchema(schema) {
  if (schema === null || typeof schema !== 'object' || ArrayIsArray(schema) || isProxy(schema)) return false;
  const proto = ObjectGetPrototypeOf(schema);
  if (proto !== ObjectPrototype && proto !== null) return false;
  return !ObjectHasOwn(schema, '~standard') && !ObjectHasOwn(schema, '_zod') && !ObjectHasOwn(schema, '_def');
}

module.exports = { jsonSchemaLocalRef, jsonSchemaRefusesNull, compileToolJsonSchema, isPlainJsonSchema };
