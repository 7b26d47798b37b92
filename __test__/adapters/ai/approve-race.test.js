'use strict';
// tool-argument-snapshot/ai, grants without a key ring: two approvals of one request that
// arrive together (a double submit, a retried request on another worker). gate.approve
// reads the kept proposal, grants it, then forgets it; both read it before either forgets
// it. Review finding (failed on 7e7def7): both granted, two uses for one approval; the
// resumed call spends one and the other lets a later identical call run without review.
// The kept record carries a nonce that grants.grant records atomically with the grant (the
// core's part), so only one grants; the gate answers the other as approving again does
// (TAS_NO_PENDING_PROPOSAL).

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { generateText, tool, stepCountIs } = require('ai');
const { MockLanguageModelV4 } = require('ai/test');
const { z } = require('zod');
const { createApprovalGrants, createSqliteGrantStore } = require('tool-argument-snapshot');
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

test('one approval request approved twice at once grants one use, and the other approve rejects with TAS_NO_PENDING_PROPOSAL', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-review-'));
  const store = createSqliteGrantStore({ path: path.join(dir, 'grants.db') });
  t.after(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const grants = createApprovalGrants({ store });
  const tools = { transfer: tool({ inputSchema: z.object({ amount: z.number(), to: z.string() }), execute: async () => 'ok' }) };
  const gateFor = () =>
    createToolGate({ agentName: 'payments', tools, grants, runId: 'chat-1', policy: () => ({ decision: 'require_approval', reason: 'large' }) });
  const gate = gateFor();
  const asked = await generateText({
    model: gate.model(model(calls(['call-1', '{"amount":50000,"to":"bob"}']))),
    tools: gate.tools,
    toolApproval: gate.toolApproval,
    stopWhen: stepCountIs(3),
    prompt: 'pay bob',
  });
  const request = asked.content.find((p) => p.type === 'tool-approval-request');
  const kept = await gate.keptProposal(request);
  assert.equal(typeof kept.nonce, 'string', 'an unkeyed kept proposal carries the nonce grants.grant records');
  // Two requests carrying the same approval, handled by two workers at once.
  const answers = await Promise.allSettled([gateFor().approve(request), gateFor().approve(request)]);
  let uses = 0;
  while (await store.take({ agentName: kept.agentName, toolName: kept.toolName, proposalHash: kept.proposalHash, scope: null }, Date.now())) uses++;
  assert.equal(uses, 1, `one approval granted ${uses} uses`);
  assert.deepEqual(answers.map((a) => a.status).sort(), ['fulfilled', 'rejected']);
  assert.equal(answers.find((a) => a.status === 'rejected').reason.code, 'TAS_NO_PENDING_PROPOSAL');
});

test("with a key ring, the same race grants one use (the seal's nonce) and the other approve rejects with TAS_NO_PENDING_PROPOSAL, not seal_used", async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-race-'));
  const store = createSqliteGrantStore({ path: path.join(dir, 'grants.db') });
  t.after(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const grants = createApprovalGrants({ store, keys: [{ id: 'k1', secret: 'a-secret-of-at-least-thirty-two-bytes!!' }] });
  const tools = { transfer: tool({ inputSchema: z.object({ amount: z.number(), to: z.string() }), execute: async () => 'ok' }) };
  const gateFor = () =>
    createToolGate({ agentName: 'payments', tools, grants, runId: 'chat-1', policy: () => ({ decision: 'require_approval', reason: 'large' }) });
  const gate = gateFor();
  const asked = await generateText({
    model: gate.model(model(calls(['call-1', '{"amount":50000,"to":"bob"}']))),
    tools: gate.tools,
    toolApproval: gate.toolApproval,
    stopWhen: stepCountIs(3),
    prompt: 'pay bob',
  });
  const request = asked.content.find((p) => p.type === 'tool-approval-request');
  const kept = await gate.keptProposal(request);
  const answers = await Promise.allSettled([gateFor().approve(request), gateFor().approve(request)]);
  let uses = 0;
  while (await store.take({ agentName: kept.agentName, toolName: kept.toolName, proposalHash: kept.proposalHash, scope: null }, Date.now())) uses++;
  assert.equal(uses, 1);
  assert.deepEqual(answers.map((a) => a.status).sort(), ['fulfilled', 'rejected']);
  assert.equal(answers.find((a) => a.status === 'rejected').reason.code, 'TAS_NO_PENDING_PROPOSAL');
});
