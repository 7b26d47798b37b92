'use strict';
// Review finding: fromJsonSchema compiled every tool on one shared Ajv instance, so a tool's
// unresolvable `$ref` resolved against what other tools had registered (a nested `$id`,
// a root without `$id` whose `$defs` stayed behind as the empty-URI schema).
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { fromJsonSchema } = require('../..');

const ok = (schema, value) => schema['~standard'].validate(value).issues === undefined;
const refuses = (schema) =>
  assert.throws(
    () => fromJsonSchema(schema),
    (e) => e.code === 'ERR_INVALID_ARG_VALUE' && /does not compile/.test(e.message),
  );

const byId = {
  type: 'object',
  properties: { amount: { $ref: 'https://tools.example/shared#/$defs/amount' } },
};
const byLocal = {
  type: 'object',
  properties: { amount: { $ref: '#/$defs/amount' } },
};

test('an unresolvable $ref to an $id fails alone', () => {
  refuses(byId);
  refuses(byLocal);
});

test('an unresolvable $ref still fails after other tools registered a nested $id and $defs', () => {
  // One tool with a nested $id holding $defs/amount, one root without $id with $defs/amount: {}.
  const nested = fromJsonSchema({
    type: 'object',
    properties: { inner: { $id: 'https://tools.example/shared', $defs: { amount: {} }, type: 'object' } },
  });
  const defs = fromJsonSchema({ type: 'object', $defs: { amount: {} }, properties: { n: { $ref: '#/$defs/amount' } } });
  assert.ok(ok(nested, { inner: {} }));
  assert.ok(ok(defs, { n: 1 }));
  refuses(byId);
  refuses(byLocal);
});

test('two tools may use the same $id with different contents', () => {
  const a = fromJsonSchema({ $id: 'https://tools.example/pay', type: 'object', properties: { cents: { type: 'integer' } } });
  const b = fromJsonSchema({ $id: 'https://tools.example/pay', type: 'object', properties: { cents: { type: 'string' } } });
  assert.ok(ok(a, { cents: 5 }));
  assert.ok(!ok(a, { cents: '5' }));
  assert.ok(ok(b, { cents: '5' }));
  assert.ok(!ok(b, { cents: 5 }));
});

test('a tool may use an $id that another tool used for a nested schema', () => {
  // The shared instance kept the nested $id after removeSchema: this tool then failed with
  // "already exists", and a $ref to that $id could resolve against another tool's schema.
  fromJsonSchema({ type: 'object', properties: { x: { $id: 'https://tools.example/nested', type: 'object' } } });
  fromJsonSchema({ type: 'object', $defs: { amount: {} } });
  const own = fromJsonSchema({
    $id: 'https://tools.example/nested',
    type: 'object',
    $defs: { amount: { type: 'integer' } },
    properties: { amount: { $ref: '#/$defs/amount' } },
  });
  assert.ok(ok(own, { amount: 5 }));
  assert.ok(!ok(own, { amount: 'all of it' }));
});
