'use strict';
// Review finding (lib/json-schema.js, standard): with `defaults: true`, validate() copies the
// value it checks (copyValue) and writes array elements by assignment, `out[i] = item`
// (lib/json-schema.js:257; also copySchema :194, cloneSchema :226, pointerKeys :308 and
// issuesOf :337/:340). Assigning an index a new array does not have yet goes through
// Array.prototype: a setter planted there after load swallows the element, and the
// prepared call's outcome changes (here: sparse_array instead of the snapshot). The
// header of the file says its own code captures what it uses; the rest of the package
// defines fields (lib/input.js defineField).
//
// Fails on main (7e7def7). Suggested fix: define elements with ObjectDefineProperty (as
// defineData does for records), or build arrays with a captured ArrayPrototypePush on a
// null-prototype-free path, in copyValue, copySchema, cloneSchema, pointerKeys, issuesOf.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { fromJsonSchema, prepareToolCall } = require('../..');

test('review: fromJsonSchema with defaults gives the same snapshot after Array.prototype is patched', () => {
  const schema = fromJsonSchema({
    type: 'object',
    properties: { tags: { type: 'array', items: { type: 'string' } }, n: { type: 'number', default: 1 } },
  }, { defaults: true });
  const prepare = () => {
    try {
      return prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{"tags":["x","y"]}', schema }).argsCanonicalJson;
    } catch (error) {
      return `error ${error.code}`;
    }
  };
  const before = prepare();
  assert.equal(before, '{"n":1,"tags":["x","y"]}');
  let hits = 0;
  Object.defineProperty(Array.prototype, '0', { configurable: true, set() { hits++; }, get() { return undefined; } });
  let after;
  try {
    after = prepare();
  } finally {
    delete Array.prototype[0];
  }
  assert.equal(hits, 0, 'a setter on Array.prototype ran while validating');
  assert.equal(after, before);
});
