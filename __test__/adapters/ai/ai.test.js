'use strict';
// tool-argument-snapshot/ai with the real Vercel AI SDK 7 and its MockLanguageModelV4
// (no network), for zod 4 and zod 3 tool schemas: what an app on the SDK relies on.

const test = require('node:test');
const assert = require('node:assert/strict');
const { generateText, streamText, tool, stepCountIs } = require('ai');
const { MockLanguageModelV4, convertArrayToReadableStream } = require('ai/test');
const { createApprovalGrants, ToolArgumentsValidationError } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/ai');

const FLAVORS = [
  ['zod 4', require('zod').z],
  ['zod 3', require('zod3').z],
];

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const TEXT = { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE };

function toolCall(input, toolCallId = 'call-1') {
  return {
    content: [{ type: 'tool-call', toolCallId, toolName: 'transfer', input }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE,
  };
}

/** A model that answers with the given responses, one per step. */
function model(...responses) {
  return new MockLanguageModelV4({ doGenerate: responses });
}

/** The error of a ToolArgumentsValidationError somewhere in an SDK error's cause chain. */
function validationCause(error) {
  for (let e = error, i = 0; e != null && i < 5; e = e.cause, i++) {
    if (e instanceof ToolArgumentsValidationError) return e;
  }
  return undefined;
}

/**
 * A transfer tool for one schema flavor, counting its schema's runs and recording what
 * its handler receives.
 */
function transferApp(z, policy, gateOptions = {}) {
  const counts = { schema: 0 };
  const executed = [];
  const schema = z.object({ amount: z.number().int().positive(), to: z.string() }).refine(() => {
    counts.schema++;
    return true;
  });
  const tools = {
    transfer: tool({
      description: 'Send money',
      inputSchema: schema,
      execute: async (args) => {
        executed.push(args);
        return `sent ${args.amount}`;
      },
    }),
  };
  const decisions = [];
  const gate = createToolGate({
    agentName: 'payments',
    tools,
    policy,
    onDecision: (decision, info) => decisions.push({ decision: decision.decision, reason: decision.reason, decidedBy: decision.decidedBy, ...info }),
    ...gateOptions,
  });
  const run = (languageModel, messages) =>
    generateText({
      model: gate.model(languageModel),
      tools: gate.tools,
      toolApproval: gate.toolApproval,
      stopWhen: stepCountIs(3),
      messages,
    });
  return { counts, executed, tools, gate, run, decisions };
}

const PROMPT = [{ role: 'user', content: 'pay bob' }];

function limitPolicy(input) {
  const { amount } = input.parsedArguments;
  if (amount <= 1000) return { decision: 'allow', reason: 'small' };
  if (amount > 1_000_000) return { decision: 'deny', reason: 'over_limit' };
  return { decision: 'require_approval', reason: 'large' };
}

for (const [flavor, z] of FLAVORS) {
  test(`${flavor}: an allowed call's handler gets its own object with the approved JSON; the schema runs once`, async () => {
    const views = [];
    const app = transferApp(z, (input) => {
      views.push(input.parsedArguments);
      assert.equal(input.argumentsSource, 'provider_text');
      assert.equal(input.rawArguments, ' {"to":"bob","amount":500} ');
      return limitPolicy(input);
    });
    const result = await app.run(model(toolCall(' {"to":"bob","amount":500} '), TEXT), PROMPT);
    assert.equal(app.executed.length, 1);
    const [args] = app.executed;
    assert.equal(JSON.stringify(args), '{"amount":500,"to":"bob"}');
    assert.notEqual(args, views[0], 'the handler does not get the policy view');
    const sdkInput = result.steps[0].toolCalls[0].input;
    assert.notEqual(args, sdkInput, "the handler does not get the SDK's (hooks') object");
    assert.deepEqual(
      result.steps[0].toolResults.map((r) => r.output),
      ['sent 500'],
    );
    assert.equal(app.counts.schema, 1);
  });

  test(`${flavor}: a policy deny reaches the SDK as a denial and nothing executes`, async () => {
    const app = transferApp(z, limitPolicy);
    const result = await app.run(model(toolCall('{"amount":5000000,"to":"bob"}'), TEXT), PROMPT);
    assert.equal(app.executed.length, 0);
    const response = result.steps[0].content.find((p) => p.type === 'tool-approval-response');
    assert.equal(response.approved, false);
    assert.equal(response.reason, 'over_limit');
    assert.deepEqual(
      app.decisions.map((d) => [d.decision, d.reason, d.decidedBy]),
      [['deny', 'over_limit', 'policy']],
    );
    assert.equal(app.counts.schema, 1);
  });

  test(`${flavor}: a policy that mutates its view is denied by the runtime and nothing executes`, async () => {
    // The framework alone: the approval hook and execute share one object.
    const plain = transferApp(z, limitPolicy);
    await generateText({
      model: model(toolCall('{"amount":500,"to":"bob"}'), TEXT),
      tools: plain.tools,
      toolApproval: ({ toolCall: call }) => {
        call.input.amount = 9999900;
        return 'approved';
      },
      stopWhen: stepCountIs(3),
      messages: PROMPT,
    });
    assert.deepEqual(
      plain.executed.map((a) => a.amount),
      [9999900],
    );

    const app = transferApp(z, (input) => {
      input.parsedArguments.amount = 9999900;
      return { decision: 'allow', reason: 'looks fine' };
    });
    const result = await app.run(model(toolCall('{"amount":500,"to":"bob"}'), TEXT), PROMPT);
    assert.equal(app.executed.length, 0);
    const response = result.steps[0].content.find((p) => p.type === 'tool-approval-response');
    assert.equal(response.approved, false);
    assert.equal(response.reason, 'policy_mutated_arguments');
    assert.deepEqual(
      app.decisions.map((d) => [d.decision, d.decidedBy]),
      [['deny', 'runtime']],
    );
  });

  test(`${flavor}: a duplicate-key call is invalid input at stage json (the SDK alone executes the last value)`, async () => {
    const raw = '{"amount":1,"to":"bob","amount":9999900}';
    // The framework alone: its lenient parse keeps the last value and executes it.
    const plain = transferApp(z, limitPolicy);
    await generateText({ model: model(toolCall(raw), TEXT), tools: plain.tools, stopWhen: stepCountIs(3), messages: PROMPT });
    assert.deepEqual(
      plain.executed.map((a) => a.amount),
      [9999900],
    );

    let policyRan = false;
    const app = transferApp(z, () => {
      policyRan = true;
      return { decision: 'allow', reason: 'any' };
    });
    const result = await app.run(model(toolCall(raw), TEXT), PROMPT);
    assert.equal(app.executed.length, 0);
    assert.equal(policyRan, false, 'a JSON failure is not a policy decision');
    assert.equal(app.counts.schema, 0);
    const call = result.steps[0].content.find((p) => p.type === 'tool-call');
    assert.equal(call.invalid, true, "the SDK's invalid-input path");
    assert.equal(call.error.name, 'AI_InvalidToolInputError');
    const cause = validationCause(call.error);
    assert.ok(cause instanceof ToolArgumentsValidationError);
    assert.equal(cause.stage, 'json');
    assert.equal(cause.code, 'duplicate_key');
    assert.ok(
      result.steps[0].content.some((p) => p.type === 'tool-error'),
      'the model gets a tool error it can correct',
    );
    assert.equal(
      result.steps[0].content.some((p) => p.type === 'tool-approval-response'),
      false,
      'no denial',
    );
  });

  test(`${flavor}: a schema output outside the snapshot domain is invalid input at stage snapshot`, async () => {
    const executed = [];
    const tools = {
      schedule: tool({
        inputSchema: z.object({ at: z.string().transform((s) => new Date(s)) }),
        execute: async (args) => executed.push(args),
      }),
    };
    const gate = createToolGate({ agentName: 'ops', tools, policy: () => ({ decision: 'allow', reason: 'any' }) });
    const response = {
      content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'schedule', input: '{"at":"2030-01-01"}' }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: USAGE,
    };
    const result = await generateText({
      model: gate.model(model(response, TEXT)),
      tools: gate.tools,
      toolApproval: gate.toolApproval,
      stopWhen: stepCountIs(3),
      messages: PROMPT,
    });
    assert.equal(executed.length, 0);
    const call = result.steps[0].content.find((p) => p.type === 'tool-call');
    assert.equal(call.invalid, true);
    const cause = validationCause(call.error);
    assert.equal(cause.stage, 'snapshot');
    assert.equal(cause.code, 'non_plain_object', 'a Date is not plain JSON data');
  });

  test(`${flavor}: a call needing approval, granted by hash and resumed, executes once; replayed, nothing`, async () => {
    const app = transferApp(z, limitPolicy);
    const first = await app.run(model(toolCall('{"amount":50000,"to":"bob"}')), PROMPT);
    assert.equal(app.executed.length, 0);
    const request = first.content.find((p) => p.type === 'tool-approval-request');
    assert.equal(request.reason, 'large');
    const proposal = app.gate.proposalOf(request);
    assert.equal(proposal.kind, 'tool');
    assert.equal(proposal.argsCanonicalJson, '{"amount":50000,"to":"bob"}');
    assert.equal(proposal.rawArguments, '{"amount":50000,"to":"bob"}');
    assert.equal(proposal.reason, 'large');
    assert.equal(app.counts.schema, 1);

    const approval = await app.gate.approve(request);
    assert.deepEqual(approval, { type: 'tool-approval-response', approvalId: request.approvalId, approved: true });
    const resumed = [...PROMPT, ...first.responseMessages, { role: 'tool', content: [approval] }];
    await app.run(model(TEXT), resumed);
    assert.deepEqual(
      app.executed.map((a) => JSON.stringify(a)),
      ['{"amount":50000,"to":"bob"}'],
    );
    assert.equal(app.counts.schema, 2, 'once for the first attempt, once for the resumed one');
    assert.equal(app.decisions.at(-1).argumentsSource, 'history');
    assert.equal(app.decisions.at(-1).reason, 'approval_granted');

    // The same approval replayed: the grant is spent, so the resume is denied (the SDK's
    // denial, not a tool error: on this path the SDK executes whatever is not denied). It was
    // approved through the gate, so not approved_without_grant (issue 26): this gate has no
    // runId, hence no receipts, and the approval's grant is used: grant_unavailable.
    const replay = await app.run(model(TEXT), resumed);
    assert.equal(app.executed.length, 1);
    const outputs = replay.responseMessages
      .filter((m) => m.role === 'tool')
      .flatMap((m) => m.content)
      .map((p) => p.output);
    assert.deepEqual(outputs, [{ type: 'execution-denied', reason: 'grant_unavailable' }]);
    assert.deepEqual([app.decisions.at(-1).decision, app.decisions.at(-1).reason], ['require_approval', 'large']);
    assert.equal(app.counts.schema, 3);
  });

  test(`${flavor}: arguments edited in the stored history after approval execute nothing and keep the grant`, async () => {
    // The framework alone: the approval binds the call id, so the edited value executes.
    const plain = transferApp(z, limitPolicy);
    const plainRun = (languageModel, messages) =>
      generateText({ model: languageModel, tools: plain.tools, toolApproval: () => 'user-approval', stopWhen: stepCountIs(3), messages });
    const asked = await plainRun(model(toolCall('{"amount":50000,"to":"bob"}')), PROMPT);
    const plainRequest = asked.content.find((p) => p.type === 'tool-approval-request');
    const plainStored = JSON.parse(
      JSON.stringify([
        ...PROMPT,
        ...asked.responseMessages,
        { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: plainRequest.approvalId, approved: true }] },
      ]),
    );
    plainStored[1].content[0].input.amount = 5000000;
    await plainRun(model(TEXT), plainStored);
    assert.deepEqual(
      plain.executed.map((a) => a.amount),
      [5000000],
    );

    const grants = createApprovalGrants();
    const app = transferApp(z, limitPolicy, { grants });
    const first = await app.run(model(toolCall('{"amount":50000,"to":"bob"}')), PROMPT);
    const request = first.content.find((p) => p.type === 'tool-approval-request');
    const proposal = app.gate.proposalOf(request);
    const approval = await app.gate.approve(request);
    // The history is stored (JSON) and edited before the resume; a fresh gate (another
    // process) with the same grants resumes it.
    const stored = JSON.parse(JSON.stringify([...PROMPT, ...first.responseMessages, { role: 'tool', content: [approval] }]));
    stored[1].content[0].input.amount = 5000000 - 1;
    const fresh = transferApp(z, limitPolicy, { grants });
    await fresh.run(model(TEXT), stored);
    assert.equal(fresh.executed.length, 0);
    assert.equal(fresh.decisions.at(-1).argumentsSource, 'history');
    assert.notEqual(fresh.decisions.at(-1).decision, 'allow');
    assert.equal(await grants.has(proposal), true, 'a mismatching attempt does not burn the grant');

    // The unedited history resumes in the fresh gate and executes once.
    stored[1].content[0].input.amount = 50000;
    await fresh.run(model(TEXT), stored);
    assert.deepEqual(
      fresh.executed.map((a) => a.amount),
      [50000],
    );
  });

  test(`${flavor}: the same action respelled by the model matches the grant`, async () => {
    const app = transferApp(z, limitPolicy);
    const first = await app.run(model(toolCall('{"amount":50000,"to":"bob"}')), PROMPT);
    await app.gate.approve(first.content.find((p) => p.type === 'tool-approval-request'));
    // A new turn: the model proposes the same action, spelled differently.
    const again = await app.run(model(toolCall('{ "to": "bob", "amount": 5e4 }', 'call-2'), TEXT), PROMPT);
    assert.deepEqual(
      app.executed.map((a) => JSON.stringify(a)),
      ['{"amount":50000,"to":"bob"}'],
    );
    assert.equal(
      again.steps[0].content.some((p) => p.type === 'tool-approval-request'),
      false,
    );
    // A different value is a new approval request.
    const other = await app.run(model(toolCall('{"amount":50001,"to":"bob"}', 'call-3')), PROMPT);
    assert.ok(other.content.some((p) => p.type === 'tool-approval-request'));
    assert.equal(app.executed.length, 1);
  });

  test(`${flavor}: streamText: the raw string is captured in the stream, the schema runs once, the handler once`, async () => {
    const app = transferApp(z, limitPolicy);
    const streamModel = new MockLanguageModelV4({
      doStream: [
        {
          stream: convertArrayToReadableStream([
            { type: 'stream-start', warnings: [] },
            { type: 'tool-call', toolCallId: 'call-1', toolName: 'transfer', input: '{"amount":700,"to":"bob"}' },
            { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: USAGE },
          ]),
        },
        {
          stream: convertArrayToReadableStream([
            { type: 'stream-start', warnings: [] },
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'done' },
            { type: 'text-end', id: 't' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE },
          ]),
        },
      ],
    });
    const result = streamText({
      model: app.gate.model(streamModel),
      tools: app.gate.tools,
      toolApproval: app.gate.toolApproval,
      stopWhen: stepCountIs(3),
      messages: PROMPT,
    });
    assert.equal(await result.text, 'done');
    assert.deepEqual(
      app.executed.map((a) => JSON.stringify(a)),
      ['{"amount":700,"to":"bob"}'],
    );
    assert.equal(app.counts.schema, 1);
    assert.equal(app.decisions[0].argumentsSource, 'provider_text');
  });
}

test('a call whose text did not pass the middleware (an unwrapped model) is denied, never executed', async () => {
  const z = require('zod').z;
  const app = transferApp(z, () => ({ decision: 'allow', reason: 'any' }));
  const result = await generateText({
    model: model(toolCall('{"amount":5,"to":"bob"}'), TEXT),
    tools: app.gate.tools,
    toolApproval: app.gate.toolApproval,
    stopWhen: stepCountIs(3),
    messages: PROMPT,
  });
  assert.equal(app.executed.length, 0);
  const response = result.steps[0].content.find((p) => p.type === 'tool-approval-response');
  assert.equal(response.reason, 'no_provider_text');
});

test('without toolApproval wired, execute still decides first: a deny or an approval request executes nothing', async () => {
  const z = require('zod').z;
  const app = transferApp(z, limitPolicy);
  for (const raw of ['{"amount":5000000,"to":"bob"}', '{"amount":50000,"to":"bob"}']) {
    const result = await generateText({ model: app.gate.model(model(toolCall(raw), TEXT)), tools: app.gate.tools, stopWhen: stepCountIs(3), messages: PROMPT });
    const error = result.steps[0].content.find((p) => p.type === 'tool-error');
    assert.ok(error, 'the call ends as a tool error');
    assert.equal(error.error.code, 'not_allowed');
  }
  await generateText({
    model: app.gate.model(model(toolCall('{"amount":5,"to":"bob"}'), TEXT)),
    tools: app.gate.tools,
    stopWhen: stepCountIs(3),
    messages: PROMPT,
  });
  assert.deepEqual(
    app.executed.map((a) => a.amount),
    [5],
  );
});

/**
 * Two concurrent runs through one gate, where the first run's response is held back after
 * the gate recorded it (an outer middleware), so the SDK validates the second run's call
 * first: the gate's pairing of recorded text and SDK value is out of order.
 */
async function concurrentRuns(app, rawFirst, rawSecond) {
  const { wrapLanguageModel } = require('ai');
  const held = (ms) => ({
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate }) => {
      const result = await doGenerate();
      await new Promise((resolve) => setTimeout(resolve, ms));
      return result;
    },
  });
  const run = (raw, id, ms) =>
    generateText({
      model: wrapLanguageModel({ model: app.gate.model(model(toolCall(raw, id), TEXT)), middleware: held(ms) }),
      tools: app.gate.tools,
      toolApproval: app.gate.toolApproval,
      stopWhen: stepCountIs(3),
      messages: PROMPT,
    });
  return Promise.all([run(rawFirst, 'call-a', 30), run(rawSecond, 'call-b', 0)]);
}

test('concurrent runs on one gate: the same text from two calls executes each once', async () => {
  const z = require('zod').z;
  const app = transferApp(z, () => ({ decision: 'allow', reason: 'any' }));
  await concurrentRuns(app, '{"amount":7,"to":"bob"}', '{"amount":7,"to":"bob"}');
  assert.deepEqual(
    app.executed.map((a) => a.amount),
    [7, 7],
  );
  assert.deepEqual(app.decisions.map((d) => d.toolCallId).sort(), ['call-a', 'call-b']);
});

test('concurrent runs on one gate: a duplicate-key call never borrows the strict text of another call', async () => {
  const z = require('zod').z;
  const app = transferApp(z, () => ({ decision: 'allow', reason: 'any' }));
  const [first, second] = await concurrentRuns(app, '{"amount":1,"to":"bob","amount":9}', '{"amount":9,"to":"bob"}');
  // The lenient values are equal, so the pairing crosses: the duplicate-key call is refused
  // by the id check, and the other, paired with the duplicate-key text, is invalid input.
  const outcome = (result) => {
    const content = result.steps[0].content;
    const response = content.find((p) => p.type === 'tool-approval-response');
    if (response) return `denied ${response.reason}`;
    if (content.find((p) => p.type === 'tool-call').invalid) return 'invalid';
    return 'executed';
  };
  assert.equal(outcome(first), 'denied provider_text_mismatch', 'the duplicate-key call does not execute');
  assert.equal(outcome(second), 'invalid');
  assert.equal(app.executed.length, 0);
});

test('an SDK jsonSchema tool with its own validate, and a zod async refinement: each runs once per attempt', async () => {
  const { jsonSchema } = require('ai');
  const z = require('zod').z;
  let validations = 0;
  let refinements = 0;
  const executed = [];
  const tools = {
    note: tool({
      inputSchema: jsonSchema(
        { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        {
          validate: async (value) => {
            validations++;
            return typeof value.text === 'string' ? { success: true, value: { text: value.text.trim() } } : { success: false, error: new Error('text') };
          },
        },
      ),
      execute: async (args) => executed.push(JSON.stringify(args)),
    }),
    transfer: tool({
      inputSchema: z.object({ amount: z.number(), to: z.string() }).refine(async () => {
        refinements++;
        return true;
      }),
      execute: async (args) => executed.push(JSON.stringify(args)),
    }),
  };
  const gate = createToolGate({ agentName: 'ops', tools, policy: () => ({ decision: 'allow', reason: 'any' }) });
  const response = {
    content: [
      { type: 'tool-call', toolCallId: 'n', toolName: 'note', input: '{"text":"  hi  "}' },
      { type: 'tool-call', toolCallId: 't', toolName: 'transfer', input: '{"amount":3,"to":"bob"}' },
      { type: 'tool-call', toolCallId: 'x', toolName: 'note', input: '{"text":1}' },
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE,
  };
  const result = await generateText({
    model: gate.model(model(response, TEXT)),
    tools: gate.tools,
    toolApproval: gate.toolApproval,
    stopWhen: stepCountIs(3),
    messages: PROMPT,
  });
  assert.deepEqual(executed.sort(), ['{"amount":3,"to":"bob"}', '{"text":"hi"}']);
  assert.equal(validations, 2, 'once per note call (one valid, one rejected)');
  assert.equal(refinements, 1);
  const rejected = result.steps[0].content.find((p) => p.type === 'tool-call' && p.toolCallId === 'x');
  assert.equal(rejected.invalid, true);
  assert.equal(validationCause(rejected.error).stage, 'schema');
});

test('without a policy: every call is denied (policy_not_configured); with grants only, an ungranted call needs approval', async () => {
  const z = require('zod').z;
  const run = (app) => app.run(model(toolCall('{"amount":5,"to":"bob"}'), TEXT), PROMPT);
  const bare = transferApp(z, undefined);
  const denied = await run(bare);
  assert.equal(denied.steps[0].content.find((p) => p.type === 'tool-approval-response').reason, 'policy_not_configured');
  assert.deepEqual(
    bare.decisions.map((d) => d.decidedBy),
    ['runtime'],
  );
  const grantsOnly = transferApp(z, undefined, { grants: createApprovalGrants() });
  const asked = await run(grantsOnly);
  assert.equal(asked.content.find((p) => p.type === 'tool-approval-request').reason, 'approval_required');
  assert.equal(bare.executed.length + grantsOnly.executed.length, 0);
});

test('a call fixed by repairToolCall (no provider text) is denied with no_provider_text', async () => {
  const z = require('zod').z;
  const app = transferApp(z, () => ({ decision: 'allow', reason: 'any' }));
  let repaired = 0;
  const result = await generateText({
    model: app.gate.model(model(toolCall('{"amount":5,"to":'), TEXT)),
    tools: app.gate.tools,
    toolApproval: app.gate.toolApproval,
    repairToolCall: async ({ toolCall: call }) => {
      repaired++;
      return { ...call, input: '{"amount":5,"to":"bob"}' };
    },
    stopWhen: stepCountIs(3),
    messages: PROMPT,
  });
  assert.equal(repaired, 1);
  assert.equal(app.executed.length, 0);
  assert.equal(result.steps[0].content.find((p) => p.type === 'tool-approval-response').reason, 'no_provider_text');
});

test('experimental_refineToolInput replaces the input object: the call is denied with not_prepared', async () => {
  const z = require('zod').z;
  const app = transferApp(z, () => ({ decision: 'allow', reason: 'any' }));
  const result = await generateText({
    model: app.gate.model(model(toolCall('{"amount":5,"to":"bob"}'), TEXT)),
    tools: app.gate.tools,
    toolApproval: app.gate.toolApproval,
    experimental_refineToolInput: { transfer: (input) => ({ ...input, amount: 6 }) },
    stopWhen: stepCountIs(3),
    messages: PROMPT,
  });
  assert.equal(app.executed.length, 0);
  assert.equal(result.steps[0].content.find((p) => p.type === 'tool-approval-response').reason, 'not_prepared');
});

test('a streaming tool (async generator execute) streams through the gate with its own view', async () => {
  const z = require('zod').z;
  const seen = [];
  const tools = {
    progress: tool({
      inputSchema: z.object({ steps: z.number() }),
      async *execute(args) {
        seen.push(args);
        for (let i = 1; i <= args.steps; i++) yield `step ${i}`;
      },
    }),
  };
  const gate = createToolGate({ agentName: 'ops', tools, policy: () => ({ decision: 'allow', reason: 'any' }) });
  const response = {
    content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'progress', input: '{"steps":2}' }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE,
  };
  const result = await generateText({
    model: gate.model(model(response, TEXT)),
    tools: gate.tools,
    toolApproval: gate.toolApproval,
    stopWhen: stepCountIs(3),
    messages: PROMPT,
  });
  assert.deepEqual(
    result.steps[0].toolResults.map((r) => r.output),
    ['step 2'],
  );
  assert.deepEqual(
    seen.map((a) => JSON.stringify(a)),
    ['{"steps":2}'],
  );
  assert.notEqual(seen[0], result.steps[0].toolCalls[0].input);
});

test('examples/ai-agent.js: allowed, approved and resumed, duplicate key refused', async () => {
  const { runAgent, scriptedModel } = require('../../../examples/ai-agent.js');
  const shown = [];
  const messages = await runAgent(
    scriptedModel([
      [
        ['call_1', 'transfer', '{"to":"alice","cents":500}'],
        ['call_2', 'transfer', '{"to":"bob","cents":250000}'],
        ['call_3', 'transfer', '{"to":"eve","cents":5,"cents":99999999}'],
      ],
    ]),
    'Pay alice and bob',
    (proposal) => {
      shown.push(proposal.argsCanonicalJson);
      return true;
    },
  );
  const results = messages
    .filter((m) => m.role === 'tool')
    .flatMap((m) => m.content)
    .filter((p) => p.type === 'tool-result');
  const byId = Object.fromEntries(results.map((p) => [p.toolCallId, p.output]));
  assert.deepEqual(shown, ['{"cents":250000,"to":"bob"}']);
  assert.deepEqual(byId.call_1, { type: 'text', value: 'sent 500 cents to alice' });
  assert.deepEqual(byId.call_2, { type: 'text', value: 'sent 250000 cents to bob' });
  assert.equal(byId.call_3.type, 'error-text');
  assert.match(byId.call_3.value, /duplicate_key/);
  assert.equal(results.length, 3);
});

test('the package pulls no framework: ai is an optional peer dependency only', () => {
  const manifest = require('../../../package.json');
  assert.equal(manifest.peerDependenciesMeta.ai.optional, true);
  assert.match(manifest.peerDependencies.ai, /^\^7\./);
  assert.equal((manifest.dependencies ?? {}).ai, undefined);
  assert.equal((manifest.optionalDependencies ?? {}).ai, undefined);
  assert.equal(manifest.exports['./ai'].default, './adapters/ai/entry.js');
});

test('the declarations accept ordinary usage and reject misuse under tsc --strict (CommonJS and ESM)', () => {
  const { spawnSync } = require('node:child_process');
  const { join } = require('node:path');
  const tsc = require.resolve('typescript/bin/tsc');
  // skipLibCheck: the SDK's own declarations do not check against @types/node.
  const result = spawnSync(process.execPath, [tsc, '-p', join(__dirname, '..', '..', 'package', 'types', 'ai', 'tsconfig.json')], { encoding: 'utf8' });
  assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
});
