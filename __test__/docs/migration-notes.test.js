'use strict';
// The migration notes of docs/migration-from-aioc.md, checked against the real libraries: what zod's
// `.default(obj)` does in zod 4.6 (`zod`), in the `zod/v4` that zod 3.25 ships (`zod3/v4`)
// and in zod 3.25 itself (`zod3`); and the most common refusal, a transform leaving
// `{ limit: undefined }`, with the fixes the notes give.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');

const { prepareToolCall } = require('../..');
const { attempt, describeError } = require('../helpers/attempt');

const ZODS = [
  ['zod 4.6', require('zod'), require('zod/package.json').version],
  ['zod/v4 of zod 3.25', require('zod3/v4'), require('zod3/package.json').version],
  ['zod 3.25', require('zod3'), require('zod3/package.json').version],
];

/** prepareToolCall's outcome: the canonical JSON, or stage/code of the refusal. */
function outcome(schema, rawArguments = '{}') {
  const result = attempt(() => prepareToolCall({ agentName: 'a', toolName: 'configure', rawArguments, schema, includePath: true }));
  if (result.ok) return result.value.argsCanonicalJson;
  assert.ok(result.error && typeof result.error.stage === 'string', describeError(result.error));
  return `${result.error.stage}/${result.error.code}${result.error.path === undefined ? '' : ` at ${result.error.path}`}`;
}

describe('zod .default(obj) shared by two fields', () => {
  test('the versions under test', () => {
    assert.match(ZODS[0][2], /^4\.6\./);
    assert.match(ZODS[1][2], /^3\.25\./);
  });

  test('zod 4.6 copies the default object shallowly on each use: a flat shared default is fine', () => {
    const { z } = require('zod');
    const limits = { max: 5 };
    const schema = z.object({ read: z.object({ max: z.number() }).default(limits), write: z.object({ max: z.number() }).default(limits) });
    const first = schema.parse({});
    assert.notEqual(first.read, limits, 'not your object');
    assert.notEqual(first.read, first.write, 'one copy per field');
    assert.equal(outcome(schema), '{"read":{"max":5},"write":{"max":5}}');
  });

  test('zod 4.6 shares what is nested in the default: two fields sharing a default that holds an array are a repeated_reference', () => {
    const { z } = require('zod');
    const defaults = { tags: ['ops'] };
    const field = z.object({ tags: z.array(z.string()) }).default(defaults);
    const schema = z.object({ read: field, write: field });
    const parsed = schema.parse({});
    assert.equal(parsed.read.tags, parsed.write.tags, 'the nested array is the same one');
    assert.equal(parsed.read.tags, defaults.tags, 'and it is yours');
    assert.equal(outcome(schema), 'snapshot/repeated_reference at /write/tags');
  });

  test('the zod/v4 inside zod 3.25 returns your own object: even a flat shared default is a repeated_reference', () => {
    const { z } = require('zod3/v4');
    const limits = { max: 5 };
    const schema = z.object({ read: z.object({ max: z.number() }).default(limits), write: z.object({ max: z.number() }).default(limits) });
    assert.equal(schema.parse({}).read, limits, 'your object');
    assert.equal(outcome(schema), 'snapshot/repeated_reference at /write');
  });

  test('zod 3.25 runs the inner schema over the default: z.object copies, z.any() does not', () => {
    const { z } = require('zod3');
    const limits = { max: 5 };
    assert.equal(
      outcome(z.object({ read: z.object({ max: z.number() }).default(limits), write: z.object({ max: z.number() }).default(limits) })),
      '{"read":{"max":5},"write":{"max":5}}',
    );
    assert.equal(outcome(z.object({ read: z.any().default(limits), write: z.any().default(limits) })), 'snapshot/repeated_reference at /write');
  });

  for (const [label, zod] of ZODS) {
    test(`${label}: a function default (.default(() => ({...}))) builds a new value each time and always snapshots`, () => {
      const { z } = zod;
      const field = z.object({ tags: z.array(z.string()) }).default(() => ({ tags: ['ops'] }));
      assert.equal(outcome(z.object({ read: field, write: field })), '{"read":{"tags":["ops"]},"write":{"tags":["ops"]}}');
    });
  }
});

describe('a transform that leaves { limit: undefined }', () => {
  test('a field-level .optional().transform() leaves an absent key absent in zod 4.6 and zod 3.25, but sets it to undefined in the zod/v4 of zod 3.25', () => {
    const results = ZODS.map(([, { z }]) =>
      outcome(
        z.object({
          query: z.string(),
          limit: z
            .string()
            .optional()
            .transform((v) => (v === undefined ? v : Number(v))),
        }),
        '{"query":"x"}',
      ),
    );
    assert.deepEqual(results, ['{"query":"x"}', 'snapshot/unsupported_type at /limit', '{"query":"x"}']);
  });

  for (const [label, zod] of ZODS) {
    test(`${label}: is refused at stage snapshot with unsupported_type; omitting the key or a default fixes it`, () => {
      const { z } = zod;
      const input = z.object({ query: z.string(), limit: z.string().optional() });
      // The common shape: rebuild the object, converting an optional field.
      const leaky = input.transform((v) => ({ query: v.query, limit: v.limit === undefined ? undefined : Number(v.limit) }));
      assert.equal(outcome(leaky, '{"query":"x"}'), 'snapshot/unsupported_type at /limit');
      assert.equal(outcome(leaky, '{"query":"x","limit":"5"}'), '{"limit":5,"query":"x"}', 'only the absent field is refused');
      // Fix 1: leave the key out when there is no value.
      const omitting = input.transform((v) => ({ query: v.query, ...(v.limit === undefined ? {} : { limit: Number(v.limit) }) }));
      assert.equal(outcome(omitting, '{"query":"x"}'), '{"query":"x"}');
      // Fix 2: give the field a default, so it always has a value.
      const defaulted = z.object({ query: z.string(), limit: z.coerce.number().default(10) });
      assert.equal(outcome(defaulted, '{"query":"x"}'), '{"limit":10,"query":"x"}');
    });
  }
});
