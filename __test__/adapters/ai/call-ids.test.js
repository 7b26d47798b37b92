'use strict';
// tool-argument-snapshot/ai: tool calls that share a call id. The SDK pairs approvals,
// resumes and history by toolCallId, and the gate keeps proposals by (runId, toolCallId).
// Review finding (failed on 7e7def7): two calls of one response with one id; the second
// call's kept proposal overwrote the first's, the one approval request the SDK made was
// shown with the first call's input, and gate.approve(request) granted the other call;
// that grant stayed live and a later identical call executed without review. Now every
// call of a response whose id is shared is invalid input (`duplicate_call_id`, as in the
// LangChain and Mastra gates), also when streamed, and a kept proposal is never replaced
// by a later call that reuses its id (first wins; the later call is denied).

const test = require('node:test');
const assert = require('node:assert/strict');
const { generateText, streamText, tool, stepCountIs } = require('ai');
const { MockLanguageModelV4, convertArrayToReadableStream } = require('ai/test');
const { z } = require('zod');
const { createApprovalGrants, createSnapshot } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/ai');

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const TEXT = { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE };
const calls = (...cs) => ({
  content: cs.map(([id, input]) => ({ type: 'tool-call', toolCallId: id, toolName: 'transfer', input })),
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage: USAGE,
});
function model(...responses) {
  let i = 0;
  return new MockLanguageModelV4({ doGenerate: async () => responses[i++] ?? TEXT });
}
const hashOf = (json) => createSnapshot({ agentName: 'payments', toolName: 'transfer', value: JSON.parse(json) }).proposalHash;

test('calls sharing an id in one response are refused (duplicate_call_id), nothing is kept, and approving the request grants nothing the reviewer did not see', async () => {
  const grants = createApprovalGrants();
  const executed = [];
  const tools = {
    transfer: tool({
      inputSchema: z.object({ amount: z.number(), to: z.string() }),
      execute: async (a) => {
        executed.push(JSON.stringify(a));
        return 'ok';
      },
    }),
  };
  const policy = (input) => (input.parsedArguments.amount <= 100 ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large' });
  const gate = createToolGate({ agentName: 'payments', tools, grants, runId: 'chat-1', policy });
  const BOB = '{"amount":150,"to":"bob"}';
  const EVE = '{"amount":900000,"to":"eve"}';
  const first = await generateText({
    model: gate.model(model(calls(['call-1', BOB], ['call-1', EVE]))),
    tools: gate.tools,
    toolApproval: gate.toolApproval,
    stopWhen: stepCountIs(3),
    prompt: 'pay bob',
  });
  const history = first.response.messages.flatMap((m) => m.content);
  const request = history.find((p) => p.type === 'tool-approval-request');
  if (request !== undefined) {
    // What the conversation (and a useChat UI) shows for the call under review.
    const shown = history.filter((p) => p.type === 'tool-call' && p.toolCallId === request.toolCallId).map((p) => JSON.stringify(p.input));
    const kept = await gate.keptProposal(request);
    // The reviewer approves the request; whatever is granted must be something shown.
    await gate.approve(request).catch(() => {});
    const granted = kept === undefined ? undefined : kept.argsCanonicalJson;
    assert.ok(
      granted === undefined || shown.includes(granted),
      `approve granted ${granted} while the history shows ${shown.join(', ')} for ${request.toolCallId}`,
    );
  }
  assert.equal(
    await grants.has({ agentName: 'payments', toolName: 'transfer', proposalHash: hashOf(EVE) }),
    false,
    'no grant for a call that two calls of one response made ambiguous',
  );

  // A later turn: the model proposes eve's transfer again. It must ask for approval, not run.
  const gate2 = createToolGate({ agentName: 'payments', tools, grants, runId: 'chat-1', policy });
  await generateText({
    model: gate2.model(model(calls(['call-9', EVE]))),
    tools: gate2.tools,
    toolApproval: gate2.toolApproval,
    stopWhen: stepCountIs(3),
    prompt: 'again',
  });
  assert.deepEqual(
    executed.filter((e) => e.includes('eve')),
    [],
    "eve's transfer executed without a review of it",
  );
});

function transferTools(executed) {
  return {
    transfer: tool({
      inputSchema: z.object({ amount: z.number(), to: z.string() }),
      execute: async (a) => {
        executed.push(JSON.stringify(a));
        return 'ok';
      },
    }),
  };
}
const reviewLarge = (input) =>
  input.parsedArguments.amount <= 100 ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large' };

test('streamed calls sharing an id are refused too: each is invalid input (duplicate_call_id) and nothing runs', async () => {
  const grants = createApprovalGrants();
  const executed = [];
  const gate = createToolGate({
    agentName: 'payments',
    tools: transferTools(executed),
    grants,
    runId: 'chat-1',
    policy: () => ({ decision: 'allow', reason: 'any' }),
  });
  const streamModel = new MockLanguageModelV4({
    doStream: [
      {
        stream: convertArrayToReadableStream([
          { type: 'stream-start', warnings: [] },
          { type: 'tool-call', toolCallId: 'call-1', toolName: 'transfer', input: '{"amount":5,"to":"bob"}' },
          { type: 'tool-call', toolCallId: 'call-1', toolName: 'transfer', input: '{"amount":7,"to":"eve"}' },
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
  const result = streamText({ model: gate.model(streamModel), tools: gate.tools, toolApproval: gate.toolApproval, stopWhen: stepCountIs(3), prompt: 'pay' });
  assert.equal(await result.text, 'done');
  const steps = await result.steps;
  const errors = steps[0].content.filter((p) => p.type === 'tool-error');
  assert.equal(errors.length, 2);
  // streamText reports a tool error as its message text.
  for (const error of errors) assert.match(String(error.error), /\[duplicate_call_id\]/);
  assert.deepEqual(executed, []);
});

test('a kept proposal is never replaced: a later call reusing its id is denied (duplicate_call_id), and approving the first request grants the first call', async () => {
  const grants = createApprovalGrants();
  const executed = [];
  const tools = transferTools(executed);
  const BOB = '{"amount":150,"to":"bob"}';
  const EVE = '{"amount":900000,"to":"eve"}';
  const gate = createToolGate({ agentName: 'payments', tools, grants, runId: 'chat-1', policy: reviewLarge });
  const first = await generateText({
    model: gate.model(model(calls(['call-1', BOB]))),
    tools: gate.tools,
    toolApproval: gate.toolApproval,
    stopWhen: stepCountIs(3),
    prompt: 'pay bob',
  });
  const request = first.content.find((p) => p.type === 'tool-approval-request');
  assert.equal(request.toolCall.toolCallId, 'call-1');
  // The same conversation, another turn: the model reuses the id for another call.
  const gate2 = createToolGate({ agentName: 'payments', tools, grants, runId: 'chat-1', policy: reviewLarge });
  const second = await generateText({
    model: gate2.model(model(calls(['call-1', EVE]))),
    tools: gate2.tools,
    toolApproval: gate2.toolApproval,
    stopWhen: stepCountIs(3),
    prompt: 'pay eve',
  });
  const denial = second.steps[0].content.find((p) => p.type === 'tool-approval-response');
  assert.equal(denial.approved, false);
  assert.equal(denial.reason, 'duplicate_call_id');
  assert.equal((await gate2.keptProposal(request)).argsCanonicalJson, '{"amount":150,"to":"bob"}');
  await gate2.approve(request);
  assert.equal(await grants.has({ agentName: 'payments', toolName: 'transfer', proposalHash: hashOf(BOB) }), true);
  assert.equal(await grants.has({ agentName: 'payments', toolName: 'transfer', proposalHash: hashOf(EVE) }), false);
  assert.deepEqual(executed, []);
});
