'use strict';
// tool-argument-snapshot/openai-agents in strict mode (the SDK's default): the model is
// shown every optional field as required and nullable and sends `null` for one it omits.
// The gate removes such a null before the tool's schema runs only where the schema is
// known to refuse null, and keeps it everywhere else (issue 17, second review finding):
// zod 3 and zod 4 read through their definitions; JSON Schema through `required`, `type`,
// `enum`, `const`, `anyOf`/`oneOf`/`allOf`, local `$ref`s and `nullable` (adapters/gate/json-schema.js,
// the reader the Mastra gate uses too).

const test = require('node:test');
const assert = require('node:assert/strict');

const { Agent, run, tool, setTracingDisabled } = require('@openai/agents');
const { ScriptedModel, functionCall, assistantMessage } = require('@openai/agents/testing');
const { z } = require('zod');
const z3 = require('zod3');
const api = require('tool-argument-snapshot');
const { createOpenAIAgentsGate } = require('tool-argument-snapshot/openai-agents');

setTracingDisabled(true);

const AGENT = 'Tasks';

function model(raw) {
  return new ScriptedModel([[functionCall('update', raw, { callId: 'c1' })], [assistantMessage('done')]]);
}

function outputOf(result) {
  const item = result.newItems.find((i) => i.type === 'tool_call_output_item');
  const output = item.rawItem.output;
  return typeof output === 'string' ? output : output.text;
}

/** What the handler of a gated `update` tool receives for `raw`, or the tool's output when it did not run. */
async function gated(parameters, raw, extra = {}) {
  const received = [];
  const gate = createOpenAIAgentsGate({ agentName: AGENT, policy: () => ({ decision: 'allow', reason: 'ok' }) });
  const update = gate.tool({ name: 'update', description: 'Update a task', parameters, execute: (args) => (received.push(args), 'ok'), ...extra });
  const result = await run(new Agent({ name: AGENT, model: gate.model(model(raw)), tools: [update] }), 'go');
  return received.length === 1 ? { args: received[0] } : { output: outputOf(result) };
}

/** What the SDK's own tool() hands its execute for `raw`. */
async function sdkAlone(parameters, raw) {
  const received = [];
  const update = tool({ name: 'update', description: 'Update a task', parameters, execute: (args) => (received.push(args), 'ok') });
  const result = await run(new Agent({ name: AGENT, model: model(raw), tools: [update] }), 'go');
  return received.length === 1 ? { args: received[0] } : { output: outputOf(result) };
}

test('a union with literal(null) accepts null: {"assignee":null} reaches the handler as null ("unassign"), as in the SDK alone', async () => {
  for (const zod of [z, z3]) {
    const Update = zod.object({ id: zod.string(), assignee: zod.union([zod.string(), zod.literal(null)]).optional() });
    const raw = '{"id":"t1","assignee":null}';
    assert.deepEqual(await gated(Update, raw), { args: { assignee: null, id: 't1' } }, 'the null means "unassign"');
    assert.deepEqual(await gated(Update, '{"id":"t1"}'), { args: { id: 't1' } }, 'absent means "unchanged"');
    if (zod === z) assert.deepEqual(await sdkAlone(Update, raw), { args: { id: 't1', assignee: null } }, 'the SDK alone keeps the null too');
  }
});

test('lazy, custom, preprocess and catch schemas that take null get the null', async () => {
  const cases = [
    [z.lazy(() => z.string().nullable()).optional(), null],
    [z.custom((value) => value === null || typeof value === 'string').optional(), null],
    [z.preprocess((value) => value ?? 'nobody', z.string()).optional(), 'nobody'],
    [z.string().catch('fallback').optional(), 'fallback'],
    [z.union([z.string(), z.null()]).optional(), null],
    [z.any().optional(), null],
    [z.enum(['a', 'b']).nullable().optional(), null],
    [z3.lazy(() => z3.string().nullable()).optional(), null],
    [z3.custom((value) => value === null || typeof value === 'string').optional(), null],
    [z3.preprocess((value) => value ?? 'nobody', z3.string()).optional(), 'nobody'],
    [z3.string().catch('fallback').optional(), 'fallback'],
  ];
  for (const [assignee, expected] of cases) {
    const zod = assignee._zod === undefined ? z3 : z;
    const Update = zod.object({ id: zod.string(), assignee });
    // The JSON schema the model sees, given as is (the SDK cannot convert every one of these).
    const jsonSchema = { type: 'object', properties: { id: { type: 'string' }, assignee: {} }, required: ['id', 'assignee'], additionalProperties: false };
    const { args } = await gated(Update, '{"id":"t1","assignee":null}', { jsonSchema });
    assert.deepEqual(args, { assignee: expected, id: 't1' }, `${assignee._zod ? assignee._zod.def.type : assignee._def.typeName}: the null reached the schema`);
  }
});

test('a null is still removed where the schema refuses null for certain, through objects and arrays', async () => {
  for (const zod of [z, z3]) {
    const Update = zod.object({
      id: zod.string(),
      title: zod.string().optional(),
      points: zod.number().int().default(1),
      tag: zod.union([zod.string(), zod.number()]).optional(),
      state: zod.enum(['open', 'closed']).optional(),
      kind: zod.literal('task').optional(),
      slug: zod
        .string()
        .transform((s) => s.toLowerCase())
        .optional(),
      checked: zod
        .string()
        .refine((s) => s.length > 0)
        .optional(),
      note: zod.string().nullable(),
      parts: zod.array(zod.object({ name: zod.string(), size: zod.number().optional() })),
      meta: zod.object({ owner: zod.string().optional() }).optional(),
    });
    const raw =
      '{"id":"t1","title":null,"points":null,"tag":null,"state":null,"kind":null,"slug":null,"checked":null,"note":null,' +
      '"parts":[{"name":"a","size":null}],"meta":{"owner":null}}';
    const { args } = await gated(Update, raw);
    assert.deepEqual(args, { id: 't1', meta: {}, note: null, parts: [{ name: 'a' }], points: 1 });
  }
});

test('a null for a required field, or a refused null the gate cannot read, reaches the schema and is invalid input', async () => {
  const Update = z.object({ id: z.string(), due: z.lazy(() => z.string()).optional() });
  const jsonSchema = { type: 'object', properties: { id: { type: 'string' }, due: {} }, required: ['id', 'due'], additionalProperties: false };
  const { output } = await gated(Update, '{"id":"t1","due":null}', { jsonSchema });
  assert.match(output, /stage schema/);
  const required = await gated(z.object({ id: z.string() }), '{"id":null}');
  assert.match(required.output, /stage schema/);
});

test('strict: false leaves every null to the schema', async () => {
  const Update = z3.object({ id: z3.string(), title: z3.string().optional() });
  const { output } = await gated(Update, '{"id":"t1","title":null}', { strict: false });
  assert.match(output, /stage schema/);
});

test(
  'JSON Schema tools: a null is removed only where the property is optional and its schema refuses null',
  { skip: typeof api.fromJsonSchema !== 'function' && 'needs fromJsonSchema (issue 18)' },
  async () => {
    const parameters = {
      type: 'object',
      properties: {
        id: { type: 'string' },
        title: { type: 'string' },
        assignee: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        state: { enum: ['open', 'closed'] },
        maybe: { enum: ['x', null] },
        kind: { const: 'task' },
        ref: { $ref: '#/$defs/name' },
        any: {},
        note: { type: ['string', 'null'] },
        parts: { type: 'array', items: { type: 'object', properties: { size: { type: 'number' } }, additionalProperties: false } },
        need: { type: 'string' },
      },
      required: ['id', 'need'],
      additionalProperties: false,
      $defs: { name: { type: 'string' } },
    };
    const raw =
      '{"id":"t1","title":null,"assignee":null,"state":null,"maybe":null,"kind":null,"ref":null,"any":null,' +
      '"note":null,"parts":[{"size":null}],"need":"x"}';
    const { args } = await gated(parameters, raw);
    assert.deepEqual(args, { any: null, assignee: null, id: 't1', maybe: null, need: 'x', note: null, parts: [{}] });
    const refused = await gated(parameters, '{"id":"t1","need":null}');
    assert.match(refused.output, /stage schema/, 'a required field keeps its null and the schema refuses it');
  },
);

test(
  'a JSON Schema property with `nullable: true` keeps its null in strict mode, as the tool\'s own schema accepts it ("unassign" is not "unchanged")',
  { skip: typeof api.fromJsonSchema !== 'function' && 'needs fromJsonSchema (issue 18)' },
  async () => {
    // Review finding: `nullable: true` (OpenAPI 3.0 style, which Ajv 8 and so fromJsonSchema
    // honour, and which MCP servers generated from OpenAPI emit) was read as "refuses null"
    // from its `type`, and the null was removed (failed on 7e7def7).
    const SCHEMA = {
      type: 'object',
      properties: { issue: { type: 'string' }, assignee: { type: 'string', nullable: true }, label: { $ref: '#/$defs/label' } },
      required: ['issue'],
      additionalProperties: false,
      $defs: { label: { type: 'string', nullable: true } },
    };
    // What the tool's own schema says of that null.
    const own = api.fromJsonSchema(SCHEMA)['~standard'].validate({ issue: '1', assignee: null, label: null });
    assert.equal(own.issues, undefined);
    assert.deepEqual({ ...own.value }, { issue: '1', assignee: null, label: null });
    const { args } = await gated(SCHEMA, '{"issue":"1","assignee":null,"label":null}');
    assert.deepEqual(args, { issue: '1', assignee: null, label: null }, 'the null the schema accepts was removed');
  },
);
