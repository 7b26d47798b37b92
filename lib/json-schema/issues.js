'use strict';
// Ajv's errors as Standard Schema issues (message, path of keys, keyword) and the results
// validate returns, for fromJsonSchema (lib/json-schema/index.js).

const P = require('../primordials');
const { MAX_DEPTH, defineData } = require('./copy');

const { ObjectFreeze, ArrayIsArray, StringPrototypeSlice, StringPrototypeCharCodeAt } = P;
// Captured when the package loaded (this module loads at first use).
const { StringPrototypeIndexOf } = P;

// ---------------------------------------------------------------------------------
// Issues: Ajv's errors as Standard Schema issues (message and path of keys).

/** The keys of a JSON Pointer ("/a/0" -> ["a", "0"]). */
function pointerKeys(pointer) {
  const keys = [];
  if (typeof pointer !== 'string' || pointer === '') return keys;
  let start = 1;
  for (;;) {
    const slash = StringPrototypeIndexOf(pointer, '/', start);
    const raw = StringPrototypeSlice(pointer, start, slash === -1 ? pointer.length : slash);
    let key = '';
    for (let i = 0; i < raw.length; i++) {
      const c = StringPrototypeCharCodeAt(raw, i);
      if (c === 0x7e && i + 1 < raw.length) {
        const next = StringPrototypeCharCodeAt(raw, i + 1);
        key += next === 0x31 ? '/' : '~';
        i++;
      } else {
        key += StringPrototypeSlice(raw, i, i + 1);
      }
    }
    defineData(keys, keys.length, key);
    if (slash === -1) return keys;
    start = slash + 1;
  }
}

class JsonSchemaIssue {
  message;
  path;
  /** The JSON Schema keyword that failed (`type`, `required`, `format`, ...). */
  keyword;
  constructor(message, path, keyword) {
    this.message = message;
    this.path = path;
    this.keyword = keyword;
    ObjectFreeze(path);
    ObjectFreeze(this);
  }
}

function issuesOf(errors) {
  const issues = [];
  if (!ArrayIsArray(errors)) return ObjectFreeze([new JsonSchemaIssue('invalid', [], 'unknown')]);
  for (let i = 0; i < errors.length; i++) {
    const error = errors[i];
    const path = pointerKeys(error.instancePath);
    const params = error.params;
    // A missing property is reported at its object; the issue names the property, as zod's do.
    if (error.keyword === 'required' && params !== null && typeof params === 'object' && typeof params.missingProperty === 'string') {
      defineData(path, path.length, params.missingProperty);
    }
    const message = typeof error.message === 'string' ? error.message : 'invalid';
    defineData(issues, issues.length, new JsonSchemaIssue(message, path, typeof error.keyword === 'string' ? error.keyword : 'unknown'));
  }
  return ObjectFreeze(issues);
}

const DEPTH_ISSUES = ObjectFreeze([new JsonSchemaIssue(`nested deeper than ${MAX_DEPTH}`, [], 'depth')]);

class Success {
  value;
  constructor(value) {
    this.value = value;
    ObjectFreeze(this);
  }
}

class Failure {
  issues;
  constructor(issues) {
    this.issues = issues;
    ObjectFreeze(this);
  }
}

module.exports = { issuesOf, DEPTH_ISSUES, Success, Failure };
