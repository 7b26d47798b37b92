'use strict';
// tool-argument-snapshot/ai: the reason of a resumed approval the gate denies reaches the UI
// message (issue 33 item 7). The real AI SDK 7: streamText on its MockLanguageModelV4, the
// UI message stream of toUIMessageStream, read as useChat reads it (readUIMessageStream,
// continuing the assistant message the browser holds). The SDK writes the denial of a
// replayed approval as a bare `tool-output-denied` chunk (the part output-denied, its
// approval still approved, no reason); through gate.uiMessageStream the part reads
// `approval: { id, approved: false, reason: <code> }`, as the SDK writes its own denials.

const test = require('node:test');
const assert = require('node:assert/strict');
const { streamText, tool, stepCountIs, convertToModelMessages, isToolUIPart, readUIMessageStream, createUIMessageStream } = require('ai');
const { MockLanguageModelV4, convertArrayToReadableStream } = require('ai/test');
const { z } = require('zod');
const { createApprovalGrants } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/ai');

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const KEYS = [{ id: 'k1', secret: 'a-secret-of-at-least-thirty-two-bytes!!' }];

/** The provider: the call for a new question (its first step), text after that. */
function provider(messages, input) {
  let steps = 0;
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: convertArrayToReadableStream(
        steps++ === 0 && messages.at(-1).role === 'user'
          ? [
              { type: 'tool-call', toolCallId: 'call_1', toolName: 'transfer', input },
              { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: USAGE },
            ]
          : [
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: 'Done.' },
              { type: 'text-end', id: 't' },
              { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE },
            ],
      ),
    }),
  });
}

let chats = 0;

/** A chat app (one gate per request, as a route makes it); `policy` decides each attempt. */
function chatApp({ policy, grants = createApprovalGrants({ keys: KEYS }) }) {
  chats += 1;
  const chatId = `chat-${chats}`;
  const executed = [];
  const tools = {
    transfer: tool({
      inputSchema: z.object({ to: z.string(), cents: z.number().int().positive() }),
      execute: async ({ to, cents }) => {
        executed.push(cents);
        return `sent ${cents} cents to ${to}`;
      },
    }),
  };
  /**
   * One request: the UI messages the browser sends, and what it holds after reading the
   * answer stream (the last assistant message continued, as useChat does). `through` is
   * whether the route passes the stream through gate.uiMessageStream.
   */
  async function post(messages, { through = true, input = '{"to":"bob","cents":250000}' } = {}) {
    const gate = createToolGate({ agentName: 'Payments assistant', tools, policy, grants, runId: chatId });
    for (const part of messages.at(-1).parts) {
      if (isToolUIPart(part) && part.state === 'approval-responded' && part.approval.approved && part.approveThroughGate !== false) {
        await gate.approve(part).catch((error) => {
          if (error.code !== 'TAS_NO_PENDING_PROPOSAL') throw error;
        });
      }
    }
    const result = streamText({
      model: gate.model(provider(await convertToModelMessages(messages), input)),
      tools: gate.tools,
      toolApproval: gate.toolApproval,
      stopWhen: stepCountIs(3),
      messages: await convertToModelMessages(messages),
    });
    const sdkStream = result.toUIMessageStream({ originalMessages: messages });
    const stream = through ? gate.uiMessageStream(sdkStream) : sdkStream;
    const chunks = [];
    const recorded = stream.pipeThrough(
      new TransformStream({
        transform(chunk, c) {
          chunks.push(chunk);
          c.enqueue(chunk);
        },
      }),
    );
    const last = messages.at(-1);
    let message;
    for await (const m of readUIMessageStream({ message: last.role === 'assistant' ? structuredClone(last) : undefined, stream: recorded })) message = m;
    const all = last.role === 'assistant' ? [...messages.slice(0, -1), message] : [...messages, message];
    return { messages: all, chunks, part: message.parts.find(isToolUIPart) };
  }
  return { post, executed };
}

const largeNeedsApproval = ({ parsedArguments }) =>
  parsedArguments.cents <= 1000 ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large transfer' };
const ask = [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Pay bob $2,500' }] }];

/** The browser's Approve click on the waiting part (what addToolApprovalResponse does). */
function approved(messages, extra = {}) {
  const copy = structuredClone(messages);
  const part = copy.at(-1).parts.find(isToolUIPart);
  part.state = 'approval-responded';
  part.approval = { ...part.approval, approved: true };
  Object.assign(part, extra);
  return copy;
}

test("a replayed approval (the approved request sent again): the UI part is output-denied with approval { approved: false, reason: call_already_executed }; the SDK's own stream carries no reason", async () => {
  const app = chatApp({ policy: largeNeedsApproval });
  const first = await app.post(ask);
  assert.equal(first.part.state, 'approval-requested');
  const approval = approved(first.messages);
  const ran = await app.post(approval);
  assert.equal(ran.part.state, 'output-available');
  assert.deepEqual(app.executed, [250000]);

  // What the SDK writes by itself: a bare output-denied, the approval as the browser sent it.
  const bare = await app.post(approval, { through: false });
  assert.equal(bare.part.state, 'output-denied');
  assert.deepEqual(bare.part.approval, { id: first.part.approval.id, requestReason: 'large transfer', approved: true });
  assert.deepEqual(
    bare.chunks.filter((c) => c.type.startsWith('tool-')).map((c) => c.type),
    ['tool-output-denied'],
  );

  const replayed = await app.post(approval);
  assert.deepEqual(app.executed, [250000], 'nothing ran again');
  assert.equal(replayed.part.state, 'output-denied');
  assert.deepEqual(replayed.part.approval, { id: first.part.approval.id, requestReason: 'large transfer', approved: false, reason: 'call_already_executed' });
  assert.deepEqual(
    replayed.chunks.filter((c) => c.type.startsWith('tool-')),
    [
      { type: 'tool-approval-response', approvalId: first.part.approval.id, approved: false, reason: 'call_already_executed' },
      { type: 'tool-output-denied', toolCallId: 'call_1' },
    ],
  );

  // Sent back, the UI messages tell the model why (convertToModelMessages reads the reason).
  const model = await convertToModelMessages(replayed.messages);
  const results = model
    .filter((m) => m.role === 'tool')
    .flatMap((m) => m.content)
    .filter((p) => p.type === 'tool-result');
  assert.deepEqual(results.at(-1).output, { type: 'error-text', value: 'call_already_executed' });
});

test("an input edited in the messages after the approval: proposal_changed; approved the SDK's own way only: approved_without_grant; a policy that now denies: its reason (an approval's reason is never a payload)", async () => {
  const edited = chatApp({ policy: largeNeedsApproval });
  const asked = await edited.post(ask);
  const approval = approved(asked.messages);
  approval.at(-1).parts.find(isToolUIPart).input.cents = 99999900;
  const denied = await edited.post(approval);
  assert.deepEqual(denied.part.approval, { id: asked.part.approval.id, requestReason: 'large transfer', approved: false, reason: 'proposal_changed' });
  assert.equal(denied.part.state, 'output-denied');

  const sdkOnly = chatApp({ policy: largeNeedsApproval });
  const waiting = await sdkOnly.post(ask);
  const plain = await sdkOnly.post(approved(waiting.messages, { approveThroughGate: false }));
  assert.deepEqual(plain.part.approval, { id: waiting.part.approval.id, requestReason: 'large transfer', approved: false, reason: 'approved_without_grant' });

  let frozen = false;
  const changing = chatApp({ policy: (input) => (frozen ? { decision: 'deny', reason: 'account_frozen' } : largeNeedsApproval(input)) });
  const before = await changing.post(ask);
  frozen = true;
  // (Approved the SDK's own way: a grant, had the gate granted one, would allow first.)
  const after = await changing.post(approved(before.messages, { approveThroughGate: false }));
  assert.deepEqual(after.part.approval, { id: before.part.approval.id, requestReason: 'large transfer', approved: false, reason: 'account_frozen' });
  for (const app of [edited, sdkOnly, changing]) assert.deepEqual(app.executed, []);
});

test("a new call the policy denies is the SDK's own denial, with its reason, once: the gate adds nothing; other chunks pass unchanged", async () => {
  const app = chatApp({ policy: () => ({ decision: 'deny', reason: 'not_today' }) });
  const denied = await app.post(ask);
  const approvals = denied.chunks.filter((c) => c.type === 'tool-approval-response');
  assert.equal(approvals.length, 1);
  assert.equal(approvals[0].reason, 'not_today');
  assert.equal(denied.part.state, 'output-denied');
  assert.equal(denied.part.approval.reason, 'not_today');
  const bare = await chatApp({ policy: () => ({ decision: 'deny', reason: 'not_today' }) }).post(ask, { through: false });
  assert.deepEqual(
    bare.chunks.map((c) => c.type),
    denied.chunks.map((c) => c.type),
  );
});

test('in createUIMessageStream (writer.merge): the finished messages of onFinish hold the reason; no argument key or value is in what the gate adds', async () => {
  const app = chatApp({ policy: largeNeedsApproval });
  const first = await app.post(ask);
  const approval = approved(first.messages);
  await app.post(approval);
  const gate = createToolGate({
    agentName: 'Payments assistant',
    tools: { transfer: tool({ inputSchema: z.object({ to: z.string(), cents: z.number() }), execute: async () => 'sent' }) },
    policy: largeNeedsApproval,
    grants: createApprovalGrants(),
    runId: 'chat-merge',
  });
  // Another chat's gate: nothing of this chat was denied by it, so nothing is added.
  const messages = await convertToModelMessages(approval);
  let finished;
  const stream = createUIMessageStream({
    originalMessages: approval,
    execute: ({ writer }) => {
      const result = streamText({
        model: gate.model(provider(messages, '{}')),
        tools: gate.tools,
        toolApproval: gate.toolApproval,
        stopWhen: stepCountIs(3),
        messages,
      });
      writer.merge(gate.uiMessageStream(result.toUIMessageStream({ sendStart: false })));
    },
    onFinish: ({ messages: all }) => {
      finished = all;
    },
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  assert.equal(finished.at(-1).parts.find(isToolUIPart).state, 'output-denied');
  assert.deepEqual(finished.at(-1).parts.find(isToolUIPart).approval.reason, 'approved_without_grant');
  const added = chunks.filter((c) => c.type === 'tool-approval-response');
  assert.deepEqual(Object.keys(added[0]).sort(), ['approvalId', 'approved', 'reason', 'type']);
  assert.equal(JSON.stringify(added).includes('bob'), false);
  assert.equal(JSON.stringify(added).includes('250000'), false);
  assert.throws(() => gate.uiMessageStream(new Proxy({}, {})), TypeError);
});
