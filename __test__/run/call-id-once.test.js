'use strict';
// The call id given once (issue 34 item 2): a call prepared before its id is known takes it
// from its evaluation (evaluateToolCall's or authorizeToolCall's `toolCallId`), which is
// then its execution receipt's key, so no gate prepares a call a second time to give it its
// id. The AI SDK gate validates (prepares) a call before the SDK names it: each call is
// prepared once, counted on the package's public `tool-argument-snapshot.prepare` channel.

const test = require('node:test');
const assert = require('node:assert/strict');
const diagnostics = require('node:diagnostics_channel');
const { generateText, tool, stepCountIs } = require('ai');
const { MockLanguageModelV4 } = require('ai/test');
const { z } = require('zod');
const {
  prepareToolCall,
  evaluateToolCall,
  executeToolCall,
  authorizeToolCall,
  createExecutionReceipts,
  createApprovalGrants,
  isToolCallNotAllowedError,
} = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/ai');

const allow = () => ({ decision: 'allow', reason: 'ok' });

test("a call prepared without an id takes the evaluation's: the receipt is keyed by it, and a replay under it runs nothing", async () => {
  const receipts = createExecutionReceipts();
  let runs = 0;
  const prepare = () => prepareToolCall({ agentName: 'ops', toolName: 'restart', rawArguments: '{"host":"a"}', runId: 'run-1' });
  const decision = await evaluateToolCall({ prepared: prepare(), policy: allow, toolCallId: 'call-1' });
  await executeToolCall(
    decision,
    () => {
      runs += 1;
    },
    { receipts },
  );
  assert.equal(runs, 1);
  const receipt = await receipts.get({ agentName: 'ops', runId: 'run-1', toolCallId: 'call-1' });
  assert.equal(receipt.status, 'completed');
  assert.equal(receipt.proposalHash, decision.proposalHash);

  // Prepared again without an id, the same id given to the evaluation: a replay.
  const again = await evaluateToolCall({ prepared: prepare(), policy: allow, toolCallId: 'call-1' });
  await assert.rejects(
    executeToolCall(
      again,
      () => {
        runs += 1;
      },
      { receipts },
    ),
    (error) => isToolCallNotAllowedError(error) && error.code === 'call_already_executed',
  );
  // authorizeToolCall takes it the same way.
  const outcome = await authorizeToolCall({
    prepared: prepare(),
    policy: allow,
    toolCallId: 'call-1',
    execute: () => {
      runs += 1;
    },
    receipts,
  });
  assert.deepEqual([outcome.decision, outcome.reason], ['deny', 'call_already_executed']);
  const other = await authorizeToolCall({
    prepared: prepare(),
    policy: allow,
    toolCallId: 'call-2',
    execute: () => {
      runs += 1;
    },
    receipts,
  });
  assert.equal(other.decision, 'allow');
  assert.equal(runs, 2);
  assert.equal((await receipts.get({ agentName: 'ops', runId: 'run-1', toolCallId: 'call-2' })).status, 'completed');

  // Given twice, differently: still a TypeError (the key is the prepared call's).
  const both = prepareToolCall({ agentName: 'ops', toolName: 'restart', rawArguments: '{"host":"a"}', toolCallId: 'a' });
  await assert.rejects(
    executeToolCall(
      await evaluateToolCall({ prepared: both, policy: allow, toolCallId: 'b' }),
      () => {
        runs += 1;
      },
      { receipts },
    ),
    TypeError,
  );
  await assert.rejects(
    authorizeToolCall({
      prepared: both,
      policy: allow,
      toolCallId: 'b',
      execute: () => {
        runs += 1;
      },
      receipts,
    }),
    TypeError,
  );
  // Given to neither: call_id_required, as before.
  const none = await evaluateToolCall({ prepared: prepare(), policy: allow });
  await assert.rejects(
    executeToolCall(
      none,
      () => {
        runs += 1;
      },
      { receipts },
    ),
    (error) => error.code === 'call_id_required',
  );
  assert.equal(runs, 2);
});

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const TEXT = { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE };
const PROMPT = [{ role: 'user', content: 'pay bob' }];

function model(...responses) {
  let i = 0;
  return new MockLanguageModelV4({ doGenerate: async () => responses[i++] ?? TEXT });
}

function toolCall(toolCallId, input) {
  return {
    content: [{ type: 'tool-call', toolCallId, toolName: 'transfer', input }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE,
  };
}

/** The prepare starts and evaluate ends published while `fn` runs (payload-free contexts). */
async function eventsDuring(fn) {
  const prepares = [];
  const evaluations = [];
  const prepare = { start: (context) => prepares.push({ ...context }) };
  const evaluate = { asyncEnd: (context) => evaluations.push({ ...context }) };
  diagnostics.tracingChannel('tool-argument-snapshot.prepare').subscribe(prepare);
  diagnostics.tracingChannel('tool-argument-snapshot.evaluate').subscribe(evaluate);
  try {
    await fn();
  } finally {
    diagnostics.tracingChannel('tool-argument-snapshot.prepare').unsubscribe(prepare);
    diagnostics.tracingChannel('tool-argument-snapshot.evaluate').unsubscribe(evaluate);
  }
  return { prepares, evaluations };
}

test('AI SDK gate: every call is prepared once, asked and resumed, its id given by the evaluation; a replay is refused by the receipt of that id', async () => {
  const grants = createApprovalGrants();
  const executed = [];
  const schemaRuns = [];
  const gateFor = () =>
    createToolGate({
      agentName: 'payments',
      runId: 'chat-call-id-once',
      grants,
      policy: (input) => (input.parsedArguments.amount > 1000 ? { decision: 'require_approval', reason: 'large' } : { decision: 'allow', reason: 'small' }),
      tools: {
        transfer: tool({
          inputSchema: z.object({ amount: z.number(), to: z.string() }).transform((value) => {
            schemaRuns.push(value.amount);
            return value;
          }),
          execute: async (args) => {
            executed.push(args.amount);
            return 'sent';
          },
        }),
      },
    });
  const run = (gate, languageModel, messages) =>
    generateText({
      model: gate.model(languageModel),
      tools: gate.tools,
      toolApproval: gate.toolApproval,
      stopWhen: stepCountIs(3),
      messages,
    });

  // A call allowed at once: one prepare, evaluated under the provider's id.
  const small = await eventsDuring(() => run(gateFor(), model(toolCall('call-small', '{"amount":5,"to":"bob"}')), PROMPT));
  assert.equal(small.prepares.length, 1);
  assert.deepEqual(
    small.evaluations.map((e) => [e.toolCallId, e.attemptId]),
    [['call-small', small.prepares[0].attemptId]],
  );
  assert.deepEqual(executed, [5]);

  // A call that waits for a reviewer, then its resume in a fresh gate.
  const first = gateFor();
  let asked;
  const asking = await eventsDuring(async () => {
    asked = await run(first, model(toolCall('call-big', '{"amount":50000,"to":"bob"}')), PROMPT);
  });
  assert.equal(asking.prepares.length, 1);
  const history = JSON.parse(JSON.stringify([...PROMPT, ...asked.responseMessages]));
  const request = history[1].content.find((p) => p.type === 'tool-approval-request');
  const second = gateFor();
  const approval = await second.approve(request);
  const resumedMessages = JSON.parse(JSON.stringify([...history, { role: 'tool', content: [approval] }]));
  const resume = await eventsDuring(() => run(second, model(), resumedMessages));
  assert.equal(resume.prepares.length, 1, 'the resumed call is prepared once (validate), never again to be given its id');
  assert.deepEqual(
    resume.evaluations.map((e) => [e.toolCallId, e.attemptId, e.reason]),
    [['call-big', resume.prepares[0].attemptId, 'approval_granted']],
  );
  assert.deepEqual(executed, [5, 50000]);

  // The same resume again: refused by the receipt keyed by the evaluation's id.
  const third = gateFor();
  const replay = await run(third, model(), resumedMessages);
  const outputs = replay.responseMessages
    .filter((m) => m.role === 'tool')
    .flatMap((m) => m.content)
    .filter((p) => p.type === 'tool-result')
    .map((p) => p.output);
  assert.deepEqual(outputs, [{ type: 'execution-denied', reason: 'call_already_executed' }]);
  assert.deepEqual(executed, [5, 50000]);
  assert.deepEqual(schemaRuns, [5, 50000, 50000, 50000], 'the schema runs once per prepare: once per call and request');
});
