'use strict';
// tool-argument-snapshot/ai with JSON Schema tools (issue 18 item 2): an SDK `jsonSchema()`
// without its own `validate` is validated by the package (fromJsonSchema, Ajv), once per
// attempt, compiled when the gate is made; one that has `validate` keeps it as the one
// parse (adapters/ai/ai.test.js pins that). The real AI SDK 7 with MockLanguageModelV4.

const test = require('node:test');
const assert = require('node:assert/strict');
const { generateText, tool, dynamicTool, jsonSchema, stepCountIs } = require('ai');
const { MockLanguageModelV4 } = require('ai/test');
const { createApprovalGrants, fromJsonSchema, ToolArgumentsValidationError } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/ai');

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const TEXT = { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE };
const PROMPT = [{ role: 'user', content: 'pay bob' }];

const TRANSFER_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { amount: { type: 'integer', minimum: 1 }, to: { type: 'string', minLength: 1 }, memo: { type: 'string', default: 'none' } },
  required: ['amount', 'to'],
  additionalProperties: false,
};

function calls(...list) {
  return {
    content: list.map(([toolCallId, input, toolName = 'transfer']) => ({ type: 'tool-call', toolCallId, toolName, input })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE,
  };
}

function model(seen, ...responses) {
  let i = 0;
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      seen.push(options);
      return responses[i++] ?? TEXT;
    },
  });
}

function validationCause(error) {
  for (let e = error, i = 0; e != null && i < 6; e = e.cause, i++) if (e instanceof ToolArgumentsValidationError) return e;
  return undefined;
}

/** A JSON Schema tool, and what its handler received. */
function jsonTool(inputSchema, make = tool) {
  const executed = [];
  return {
    executed,
    tool: make({
      description: 'Send money',
      inputSchema,
      execute: async (args) => {
        executed.push(JSON.stringify(args));
        return 'sent';
      },
    }),
  };
}

const allow = () => ({ decision: 'allow', reason: 'any' });

test('jsonSchema() without validate: the SDK alone validates nothing and executes any input; through the gate the JSON Schema runs (Ajv), a violation is invalid input at stage schema', async () => {
  const plain = jsonTool(jsonSchema(TRANSFER_SCHEMA));
  await generateText({
    model: model([], calls(['c1', '{"amount":"lots","to":""}'])),
    tools: { transfer: plain.tool },
    stopWhen: stepCountIs(2),
    messages: PROMPT,
  });
  assert.deepEqual(plain.executed, ['{"amount":"lots","to":""}'], 'the SDK alone ran it');

  const gated = jsonTool(jsonSchema(TRANSFER_SCHEMA));
  const policies = [];
  const gate = createToolGate({
    agentName: 'payments',
    tools: { transfer: gated.tool },
    policy: (input) => {
      policies.push(input.parsedArguments);
      return allow();
    },
  });
  const result = await generateText({
    model: gate.model(model([], calls(['c1', '{"amount":"lots","to":""}'], ['c2', '{"amount":5,"to":"bob","extra":1}'], ['c3', '{"to":"bob","amount":5}']))),
    tools: gate.tools,
    toolApproval: gate.toolApproval,
    stopWhen: stepCountIs(2),
    messages: PROMPT,
  });
  assert.deepEqual(gated.executed, ['{"amount":5,"to":"bob"}']);
  assert.equal(policies.length, 1, 'the policy never sees invalid input');
  const invalid = result.steps[0].content
    .filter((p) => p.type === 'tool-call' && p.invalid)
    .map((p) => [p.toolCallId, validationCause(p.error)?.stage, validationCause(p.error)?.code]);
  assert.deepEqual(invalid, [
    ['c1', 'schema', 'schema_error'],
    ['c2', 'schema', 'schema_error'],
  ]);
});

test('a JSON Schema tool: a duplicate key is refused at stage json (the SDK alone runs the last value); the handler gets its own validated copy', async () => {
  const raw = '{"amount":1,"to":"bob","amount":9999900}';
  const plain = jsonTool(jsonSchema(TRANSFER_SCHEMA));
  await generateText({ model: model([], calls(['c1', raw])), tools: { transfer: plain.tool }, stopWhen: stepCountIs(2), messages: PROMPT });
  assert.deepEqual(plain.executed, ['{"amount":9999900,"to":"bob"}']);

  const gated = jsonTool(jsonSchema(TRANSFER_SCHEMA));
  const gate = createToolGate({ agentName: 'payments', tools: { transfer: gated.tool }, policy: allow });
  const result = await generateText({
    model: gate.model(model([], calls(['c1', raw], ['c2', '{"to":"eve","amount":7}']))),
    tools: gate.tools,
    toolApproval: gate.toolApproval,
    stopWhen: stepCountIs(2),
    messages: PROMPT,
  });
  assert.deepEqual(gated.executed, ['{"amount":7,"to":"eve"}']);
  const refused = result.steps[0].content.find((p) => p.type === 'tool-call' && p.toolCallId === 'c1');
  assert.equal(validationCause(refused.error).code, 'duplicate_key');
});

test('a JSON Schema that does not compile fails when the gate is made, naming the tool, not at the first call', () => {
  const broken = jsonTool(jsonSchema({ type: 'object', properties: { at: { type: 'string', format: 'no-such-format' } } }));
  assert.throws(
    () => createToolGate({ agentName: 'ops', tools: { schedule: broken.tool }, policy: allow }),
    (error) => error instanceof TypeError && /tool "schedule"/.test(error.message),
  );
  // The same format, declared to the package: compiles.
  const gate = createToolGate({
    agentName: 'ops',
    tools: { schedule: broken.tool },
    policy: allow,
    jsonSchemaOptions: { formats: { 'no-such-format': /^x/ } },
  });
  assert.equal(typeof gate.tools.schedule.execute, 'function');
  assert.throws(() => createToolGate({ agentName: 'ops', tools: { schedule: broken.tool }, policy: allow, jsonSchemaOptions: new Proxy({}, {}) }), TypeError);
});

test('defaults: off, the output is what was sent; with jsonSchemaOptions.defaults the defaults are in the snapshot and its hash', async () => {
  for (const [options, expected] of [
    [undefined, '{"amount":5,"to":"bob"}'],
    [{ defaults: true }, '{"amount":5,"memo":"none","to":"bob"}'],
  ]) {
    const gated = jsonTool(jsonSchema(TRANSFER_SCHEMA));
    const seen = [];
    const gate = createToolGate({
      agentName: 'payments',
      tools: { transfer: gated.tool },
      policy: (input) => {
        seen.push(input.argsCanonicalJson);
        return allow();
      },
      ...(options ? { jsonSchemaOptions: options } : {}),
    });
    await generateText({
      model: gate.model(model([], calls(['c1', '{"amount":5,"to":"bob"}']))),
      tools: gate.tools,
      toolApproval: gate.toolApproval,
      stopWhen: stepCountIs(2),
      messages: PROMPT,
    });
    assert.deepEqual(seen, [expected]);
    assert.deepEqual(gated.executed, [expected]);
  }
});

test('lazy and promised JSON Schemas, dynamic tools, and fromJsonSchema as the inputSchema: each validated by the package; the provider gets the JSON Schema as written', async () => {
  const tools = {
    lazy: jsonTool(jsonSchema(() => TRANSFER_SCHEMA)),
    promised: jsonTool(jsonSchema(Promise.resolve(TRANSFER_SCHEMA))),
    dynamic: jsonTool(jsonSchema(TRANSFER_SCHEMA), dynamicTool),
    standard: jsonTool(fromJsonSchema(TRANSFER_SCHEMA)),
  };
  const gate = createToolGate({ agentName: 'payments', tools: Object.fromEntries(Object.entries(tools).map(([name, t]) => [name, t.tool])), policy: allow });
  const seen = [];
  const names = Object.keys(tools);
  await generateText({
    model: gate.model(
      model(
        seen,
        calls(
          ...names.flatMap((name, i) => [
            [`ok-${i}`, '{"amount":3,"to":"bob"}', name],
            [`bad-${i}`, '{"amount":0,"to":"bob"}', name],
          ]),
        ),
      ),
    ),
    tools: gate.tools,
    toolApproval: gate.toolApproval,
    stopWhen: stepCountIs(2),
    messages: PROMPT,
  });
  for (const name of names) assert.deepEqual(tools[name].executed, ['{"amount":3,"to":"bob"}'], name);
  const sent = Object.fromEntries(seen[0].tools.map((t) => [t.name, t.inputSchema]));
  for (const name of names) {
    assert.deepEqual(sent[name].properties, TRANSFER_SCHEMA.properties, `${name}: the provider sees the schema's properties`);
    assert.deepEqual(sent[name].required, TRANSFER_SCHEMA.required);
  }
});

test('a JSON Schema tool needing approval: its schema runs once per attempt (the SDK runs none); granted and resumed from history, it executes once', async () => {
  // A format the package is told about counts the schema's runs (Ajv calls it once per validation).
  let runs = 0;
  const counted = { ...TRANSFER_SCHEMA, properties: { ...TRANSFER_SCHEMA.properties, to: { type: 'string', format: 'counted' } } };
  const jsonSchemaOptions = {
    formats: {
      counted: () => {
        runs++;
        return true;
      },
    },
  };
  const gated = jsonTool(jsonSchema(counted));
  const grants = createApprovalGrants();
  const policy = (input) => (input.parsedArguments.amount > 1000 ? { decision: 'require_approval', reason: 'large' } : allow());
  const make = () => createToolGate({ agentName: 'payments', tools: { transfer: gated.tool }, policy, grants, runId: 'chat-json', jsonSchemaOptions });
  const first = make();
  const asked = await generateText({
    model: first.model(model([], calls(['c1', '{"amount":5000,"to":"bob"}']))),
    tools: first.tools,
    toolApproval: first.toolApproval,
    stopWhen: stepCountIs(2),
    messages: PROMPT,
  });
  const history = JSON.parse(JSON.stringify([...PROMPT, ...asked.responseMessages]));
  assert.equal(runs, 1);
  const request = history[1].content.find((p) => p.type === 'tool-approval-request');
  const second = make();
  const approval = await second.approve(request);
  await generateText({
    model: second.model(model([])),
    tools: second.tools,
    toolApproval: second.toolApproval,
    stopWhen: stepCountIs(2),
    messages: [...history, { role: 'tool', content: [approval] }],
  });
  assert.deepEqual(gated.executed, ['{"amount":5000,"to":"bob"}']);
  assert.equal(runs, 2, 'once for the proposal, once for the resumed attempt');
});
