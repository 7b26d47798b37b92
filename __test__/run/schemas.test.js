'use strict';
// Schemas of the run-loop contract v2 (issue 10): prepareToolCallAsync runs the schema's
// own code exactly once per attempt (safeParseAsync/parseAsync where present, else
// ~standard.validate), with zod 3, zod 4, valibot and arktype; prepareToolCall accepts a
// Standard Schema v1; failures are stage schema with the issue data of issue 9, item 8.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const zod3 = require('zod3');
const zod4 = require('zod');
const v = require('valibot');
const { type } = require('arktype');

const { prepareToolCall, prepareToolCallAsync, evaluateToolCall, executeToolCall, canonicalize, ToolArgumentsValidationError } = require('../..');

const AGENT = 'Schema agent';
const TOOL = 'book';

async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return assert.fail('expected a rejection');
}

/** A zod schema with an async refinement and a transform, each counted. */
function zodAsync(z, counts) {
  return z.object({
    city: z.string().transform((city) => {
      counts.transform += 1;
      return city.trim();
    }),
    days: z.number().refine(
      async (days) => {
        counts.refine += 1;
        await new Promise((resolve) => setImmediate(resolve));
        return days > 0;
      },
      { message: 'days must be positive' },
    ),
  });
}

const RAW = '{"city":"  Oslo ","days":3,"extra":true}';
const CANONICAL = '{"city":"Oslo","days":3}';

describe('prepareToolCallAsync: the schema runs exactly once per attempt', () => {
  for (const [name, z] of [
    ['zod 3', zod3],
    ['zod 4', zod4],
  ]) {
    test(`${name}: an async refinement and a transform run once, and the snapshot is the output`, async () => {
      const counts = { refine: 0, transform: 0 };
      const prepared = await prepareToolCallAsync({ agentName: AGENT, toolName: TOOL, rawArguments: RAW, schema: zodAsync(z, counts) });
      assert.equal(prepared.argsCanonicalJson, CANONICAL);
      assert.deepEqual(counts, { refine: 1, transform: 1 });
    });

    test(`${name}: the same schema through ~standard.validate runs the refinement twice (why safeParseAsync is preferred)`, async () => {
      const counts = { refine: 0, transform: 0 };
      const schema = zodAsync(z, counts);
      const result = await schema['~standard'].validate(JSON.parse(RAW));
      assert.deepEqual(result.value, { city: 'Oslo', days: 3 });
      assert.ok(counts.refine >= 2 || counts.transform >= 2, `~standard.validate ran the schema's code once: ${JSON.stringify(counts)}`);
    });

    test(`${name}: a failing async refinement is stage schema with the issue data, run once`, async () => {
      const counts = { refine: 0, transform: 0 };
      const error = await rejection(
        prepareToolCallAsync({ agentName: AGENT, toolName: TOOL, rawArguments: '{"city":"x","days":-1}', schema: zodAsync(z, counts), includePath: true }),
      );
      assert.ok(error instanceof ToolArgumentsValidationError);
      assert.equal(error.stage, 'schema');
      assert.equal(error.code, 'schema_error');
      assert.equal(error.issueCount, 1);
      assert.deepEqual(error.issueCodes, ['custom']);
      assert.deepEqual(error.issuePaths, ['/days']);
      assert.ok(error.getSchemaError() instanceof z.ZodError);
      assert.equal(counts.refine, 1);
    });

    test(`${name}: a synchronous schema works through prepareToolCallAsync too`, async () => {
      const prepared = await prepareToolCallAsync({ agentName: AGENT, toolName: TOOL, rawArguments: '{"a":"1"}', schema: z.object({ a: z.coerce.number() }) });
      assert.equal(prepared.argsCanonicalJson, '{"a":1}');
    });
  }

  test('valibot: an async pipe through ~standard.validate runs once', async () => {
    const counts = { check: 0, transform: 0 };
    const schema = v.objectAsync({
      city: v.pipe(
        v.string(),
        v.transform((city) => {
          counts.transform += 1;
          return city.trim();
        }),
      ),
      days: v.pipeAsync(
        v.number(),
        v.checkAsync(async (days) => {
          counts.check += 1;
          return days > 0;
        }, 'days must be positive'),
      ),
    });
    const prepared = await prepareToolCallAsync({ agentName: AGENT, toolName: TOOL, rawArguments: RAW, schema });
    assert.equal(prepared.argsCanonicalJson, CANONICAL);
    assert.deepEqual(counts, { check: 1, transform: 1 });
    const error = await rejection(
      prepareToolCallAsync({ agentName: AGENT, toolName: TOOL, rawArguments: '{"city":"x","days":-1}', schema, includePath: true }),
    );
    assert.equal(error.stage, 'schema');
    assert.equal(error.issueCount, 1);
    assert.deepEqual(error.issuePaths, ['/days']);
    assert.equal(error.issueCodes, undefined, 'valibot is not zod');
  });

  test('arktype: a morph and a narrow through ~standard.validate run once', async () => {
    const counts = { morph: 0, narrow: 0 };
    const schema = type({
      city: type('string').pipe((city) => {
        counts.morph += 1;
        return city.trim();
      }),
      days: type('number').narrow((days) => {
        counts.narrow += 1;
        return days > 0;
      }),
    });
    const prepared = await prepareToolCallAsync({ agentName: AGENT, toolName: TOOL, rawArguments: '{"city":"  Oslo ","days":3}', schema });
    assert.equal(prepared.argsCanonicalJson, CANONICAL);
    assert.deepEqual(counts, { morph: 1, narrow: 1 });
    const error = await rejection(
      prepareToolCallAsync({ agentName: AGENT, toolName: TOOL, rawArguments: '{"city":"x","days":"3"}', schema, includePath: true }),
    );
    assert.equal(error.stage, 'schema');
    assert.equal(error.issueCount, 1);
    assert.deepEqual(error.issuePaths, ['/days']);
  });

  test('an async schema function runs once and its result is awaited', async () => {
    let runs = 0;
    const prepared = await prepareToolCallAsync({
      agentName: AGENT,
      toolName: TOOL,
      rawArguments: '{"a":1}',
      schema: async (value) => {
        runs += 1;
        return { ...value, checked: true };
      },
    });
    assert.equal(prepared.argsCanonicalJson, '{"a":1,"checked":true}');
    assert.equal(runs, 1);
    const error = await rejection(
      prepareToolCallAsync({
        agentName: AGENT,
        toolName: TOOL,
        rawArguments: '{}',
        schema: async () => {
          throw new Error('no');
        },
      }),
    );
    assert.equal(error.stage, 'schema');
    assert.equal(error.getSchemaError().message, 'no');
  });

  test('a schema function resolving to a non-native thenable: stage snapshot async_schema, then never called', async () => {
    let thens = 0;
    const error = await rejection(
      prepareToolCallAsync({
        agentName: AGENT,
        toolName: TOOL,
        rawArguments: '{}',
        schema: () => ({
          then() {
            thens += 1;
          },
        }),
      }),
    );
    assert.equal(error.stage, 'snapshot');
    assert.equal(error.code, 'async_schema');
    assert.equal(thens, 0);
  });

  test('a failure at stage json rejects before the schema runs', async () => {
    let runs = 0;
    const error = await rejection(
      prepareToolCallAsync({
        agentName: AGENT,
        toolName: TOOL,
        rawArguments: '{"a":1,"a":2}',
        schema: async (x) => {
          runs += 1;
          return x;
        },
      }),
    );
    assert.equal(error.stage, 'json');
    assert.equal(error.code, 'duplicate_key');
    assert.equal(runs, 0);
  });

  test('the prepared call of prepareToolCallAsync goes through evaluate and execute', async () => {
    const prepared = await prepareToolCallAsync({ agentName: AGENT, toolName: TOOL, rawArguments: RAW, schema: zodAsync(zod4, { refine: 0, transform: 0 }) });
    const decision = await evaluateToolCall({ prepared, policy: () => ({ decision: 'allow', reason: 'ok' }) });
    const seen = await executeToolCall(decision, (args) => canonicalize(args));
    assert.equal(seen, CANONICAL);
  });
});

describe('prepareToolCall accepts a Standard Schema v1', () => {
  test('valibot (no parse method): the output is snapshotted; failures are stage schema', () => {
    let transforms = 0;
    const schema = v.object({
      city: v.pipe(
        v.string(),
        v.transform((c) => {
          transforms += 1;
          return c.trim();
        }),
      ),
      days: v.number(),
    });
    const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: RAW, schema });
    assert.equal(prepared.argsCanonicalJson, CANONICAL);
    assert.equal(transforms, 1);
    assert.throws(
      () => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"city":1}', schema }),
      (error) => error instanceof ToolArgumentsValidationError && error.stage === 'schema' && error.code === 'schema_error' && error.issueCount === 2,
    );
  });

  test('arktype (a callable type that returns its errors): ~standard.validate is used, not the call', () => {
    const schema = type({ city: 'string', days: 'number' });
    assert.equal(typeof schema, 'function');
    const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"city":"Oslo","days":3}', schema });
    assert.equal(prepared.argsCanonicalJson, CANONICAL);
    assert.throws(
      () => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"city":"Oslo","days":"3"}', schema }),
      (error) => error.stage === 'schema' && error.code === 'schema_error' && error.issueCount === 1,
    );
  });

  test('a hand-written Standard Schema; an issues array, even empty, is a failure', () => {
    const make = (result) => ({ '~standard': { version: 1, vendor: 'hand', validate: () => result } });
    const ok = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{}', schema: make({ value: { x: 1 } }) });
    assert.equal(ok.argsCanonicalJson, '{"x":1}');
    for (const issues of [[], [{ message: 'bad', path: ['a', { key: 'b' }, 0] }]]) {
      const error = assert.throws(
        () => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{}', schema: make({ issues }), includePath: true }),
        (e) => e.stage === 'schema' && e.issueCount === issues.length,
      );
      void error;
    }
    try {
      prepareToolCall({
        agentName: AGENT,
        toolName: TOOL,
        rawArguments: '{}',
        schema: make({ issues: [{ message: 'bad', path: ['a', { key: 'b/c' }, 0] }] }),
        includePath: true,
      });
      assert.fail('no throw');
    } catch (error) {
      assert.deepEqual(error.issuePaths, ['/a/b~1c/0']);
    }
  });

  test('a zod schema keeps its parse path (its ZodError behind getSchemaError)', () => {
    const error = assert.throws(
      () => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"a":1}', schema: zod4.object({ a: zod4.string() }) }),
      (e) => e.getSchemaError() instanceof zod4.ZodError,
    );
    void error;
  });

  test('something that is none of the three is a TypeError', () => {
    for (const schema of ['z', 1, {}, { parse: 1 }, { '~standard': { validate: 1 } }]) {
      assert.throws(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{}', schema }), TypeError);
    }
  });
});
