'use strict';
// Red team round 4: execution receipts in the gates, verified pending listings and the
// CLI's review commands, attacked. Each test reproduces one finding (it failed before
// the fix named beside it).

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {
  createApprovalGrants, createSqliteGrantStore, prepareToolCall, evaluateToolCall, isSnapshotDomainError,
} = require('../..');

const BIN = path.join(__dirname, '..', '..', 'bin', 'tool-argument-snapshot.js');

function cli(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

async function proposalOf(rawArguments) {
  const prepared = prepareToolCall({ agentName: 'billing', toolName: 'pay', rawArguments });
  const decision = await evaluateToolCall({ prepared, policy: () => ({ decision: 'require_approval', reason: 'payments' }) });
  return decision.proposal;
}

/** A kept unsealed proposal whose nonce was changed in the store (the arguments untouched). */
async function keptWithTamperedNonce(store) {
  const grants = createApprovalGrants({ store });
  await grants.keepProposal({ runId: 'thread-1', toolCallId: 'call_1' }, await proposalOf('{"cents":987654321}'));
  const storeKey = '8:thread-1call_1';
  const record = JSON.parse(await store.getProposal(storeKey, Date.now()));
  assert.equal(typeof record.nonce, 'string');
  record.nonce = 7;
  await store.putProposal(storeKey, JSON.stringify(record), null);
  return grants;
}

test('a kept record whose nonce was changed is a record that does not verify (SnapshotDomainError), in keptProposal and listProposals', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-rt4-'));
  const store = createSqliteGrantStore({ path: path.join(dir, 'grants.db') });
  try {
    const grants = await keptWithTamperedNonce(store);
    // Before: a TypeError (ERR_INVALID_ARG_TYPE), which every adapter's pending rethrew,
    // so one edited record stopped the whole review listing.
    await assert.rejects(grants.keptProposal({ runId: 'thread-1', toolCallId: 'call_1' }), (error) => isSnapshotDomainError(error) && error.code === 'not_a_snapshot');
    const page = await grants.listProposals();
    assert.equal(page.proposals.length, 1);
    assert.equal(isSnapshotDomainError(page.proposals[0].error), true);
    assert.equal(page.proposals[0].proposal, undefined);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI: a kept record whose nonce was changed is listed by its code and refused by grant --id as input (exit 3), not as a store failure (70)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-rt4-'));
  const file = path.join(dir, 'grants.db');
  const store = createSqliteGrantStore({ path: file });
  try {
    await keptWithTamperedNonce(store);
    const listed = await cli(['pending', '--store', `sqlite:${file}`, '--json']);
    assert.equal(listed.status, 1, listed.stderr);
    const [entry] = JSON.parse(listed.stdout).proposals;
    assert.deepEqual(entry.error, { name: 'SnapshotDomainError', code: 'not_a_snapshot' });
    assert.doesNotMatch(listed.stdout + listed.stderr, /987654321/);
    const granted = await cli(['grant', '--store', `sqlite:${file}`, '--id', entry.id]);
    assert.equal(granted.status, 3, granted.stderr);
    assert.match(granted.stderr, /not_a_snapshot/);
    assert.doesNotMatch(granted.stdout + granted.stderr, /987654321/);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('gates: a `receipts` or `runId` option defined by a getter is refused unread (it was read as absent: durable receipts silently replaced by the shared memory ones, or the AI SDK gate\'s receipts silently off)', () => {
  const { z } = require('zod');
  const { createExecutionReceipts } = require('../..');
  const durable = createExecutionReceipts();
  let ran = 0;
  const getter = (value) => () => { ran += 1; return value; };
  const withGetter = (options, name, value) => Object.defineProperty(options, name, { get: getter(value), enumerable: true, configurable: true });

  const ai = require('tool-argument-snapshot/ai');
  const { tool } = require('ai');
  const aiTools = () => ({ pay: tool({ inputSchema: z.object({ cents: z.number() }), execute: async () => 'paid' }) });
  assert.throws(() => ai.createToolGate(withGetter({ agentName: 'billing', tools: aiTools(), runId: 'chat-1' }, 'receipts', durable)), TypeError);
  assert.throws(() => ai.createToolGate(withGetter({ agentName: 'billing', tools: aiTools() }, 'runId', 'chat-1')), TypeError);

  const oa = require('tool-argument-snapshot/openai-agents');
  assert.throws(() => oa.createOpenAIAgentsGate(withGetter({ agentName: 'billing' }, 'receipts', durable)), TypeError);
  assert.throws(() => oa.createOpenAIAgentsGate(withGetter({ agentName: 'billing' }, 'runId', () => 'thread-1')), TypeError);

  const lc = require('tool-argument-snapshot/langchain');
  const { tool: lcTool } = require('@langchain/core/tools');
  const lcTools = () => [lcTool(async () => 'paid', { name: 'pay', schema: z.object({ cents: z.number() }) })];
  assert.throws(() => lc.createToolGate(withGetter({ agentName: 'billing', tools: lcTools() }, 'receipts', durable)), TypeError);
  assert.throws(() => lc.toolGateMiddleware(withGetter({ agentName: 'billing', tools: lcTools() }, 'receipts', durable)), TypeError);
  // Data properties still work, and `false` still turns receipts off.
  assert.doesNotThrow(() => ai.createToolGate({ agentName: 'billing', tools: aiTools(), runId: 'chat-1', receipts: durable }));
  assert.doesNotThrow(() => oa.createOpenAIAgentsGate({ agentName: 'billing', receipts: false }));
  assert.doesNotThrow(() => lc.createToolGate({ agentName: 'billing', tools: lcTools(), receipts: durable }));
  assert.equal(ran, 0);
});

test('LangChain createToolGate: a per-run `runId` defined by a getter is refused unread (it was read as absent: with the receipts given, calls of every run then shared the key runId null)', async () => {
  const { z } = require('zod');
  const { createExecutionReceipts } = require('../..');
  const lc = require('tool-argument-snapshot/langchain');
  const { tool: lcTool } = require('@langchain/core/tools');
  const { AIMessage } = require('@langchain/core/messages');
  let paid = 0;
  const gate = lc.createToolGate({
    agentName: 'billing',
    tools: [lcTool(async () => { paid += 1; return 'paid'; }, { name: 'pay', schema: z.object({ cents: z.number() }) })],
    grants: createApprovalGrants(),
    receipts: createExecutionReceipts(),
    policy: () => ({ decision: 'allow', reason: 'small' }),
  });
  const message = new AIMessage({ content: '', tool_calls: [{ id: 'call_1', name: 'pay', args: { cents: 5 } }] });
  let ran = 0;
  const options = Object.defineProperty({}, 'runId', { get() { ran += 1; return 'thread-1'; }, enumerable: true });
  await assert.rejects(gate.run(message, options), TypeError);
  assert.equal(ran, 0);
  assert.equal(paid, 0);
});

test('CLI: grant --id warns, as pending does, when the granted canonical JSON holds characters a terminal hides or reorders (it printed them with no warning)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-rt4-'));
  const file = path.join(dir, 'grants.db');
  const store = createSqliteGrantStore({ path: file });
  try {
    const grants = createApprovalGrants({ store });
    // A right-to-left override: a terminal shows the digits after it reversed.
    await grants.keepProposal({ runId: 'thread-1', toolCallId: 'call_1' }, await proposalOf('{"memo":"\\u202e0001","cents":100}'));
    const listed = await cli(['pending', '--store', `sqlite:${file}`]);
    assert.match(listed.stderr, /warning: the canonical JSON contains 1 invisible or bidirectional control character\(s\) \(U\+202E\)/);
    const id = /^id: +(\S+)$/m.exec(listed.stdout)[1];
    const granted = await cli(['grant', '--store', `sqlite:${file}`, '--id', id]);
    assert.equal(granted.status, 0, granted.stderr);
    assert.match(granted.stdout, /^granted$/m);
    assert.match(granted.stderr, /warning: the canonical JSON contains 1 invisible or bidirectional control character\(s\) \(U\+202E\)/);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI: a call approved through the AI SDK gate is no longer pending: pending does not list the gate\'s evidence of the approval, and grant/decline --id refuse it (not_pending); it was listed as waiting for 24 hours and granted a second time', async () => {
  const { generateText, tool, stepCountIs } = require('ai');
  const { MockLanguageModelV4 } = require('ai/test');
  const { z } = require('zod');
  const { createToolGate } = require('tool-argument-snapshot/ai');
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-rt4-'));
  const file = path.join(dir, 'grants.db');
  const store = createSqliteGrantStore({ path: file });
  try {
    const grants = createApprovalGrants({ store });
    const tools = { transfer: tool({ inputSchema: z.object({ cents: z.number() }), execute: async () => 'sent' }) };
    const gate = createToolGate({ agentName: 'payments', tools, grants, runId: 'chat-1', policy: () => ({ decision: 'require_approval', reason: 'every transfer' }) });
    const model = new MockLanguageModelV4({
      doGenerate: async () => ({ content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'transfer', input: '{"cents":500}' }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] }),
    });
    const asked = await generateText({ model: gate.model(model), tools: gate.tools, toolApproval: gate.toolApproval, stopWhen: stepCountIs(1), prompt: 'pay' });
    const request = asked.content.find((p) => p.type === 'tool-approval-request');
    const before = await cli(['pending', '--store', `sqlite:${file}`, '--json']);
    assert.equal(JSON.parse(before.stdout).proposals.length, 1);
    await gate.approve(request);
    // What the gate keeps after approve (its evidence, under the AI SDK gate's approved run).
    const kept = await grants.listProposals();
    assert.equal(kept.proposals.length, 1);
    assert.match(kept.proposals[0].runId, /^ai-approved /);
    const evidenceId = Buffer.from(`${kept.proposals[0].runId.length}:${kept.proposals[0].runId}call-1`, 'utf8').toString('base64url');

    const after = await cli(['pending', '--store', `sqlite:${file}`, '--json']);
    assert.equal(after.status, 0, after.stderr);
    assert.deepEqual(JSON.parse(after.stdout).proposals, []);
    const granted = await cli(['grant', '--store', `sqlite:${file}`, '--id', evidenceId]);
    assert.equal(granted.status, 1, granted.stderr);
    assert.match(granted.stderr, /not_pending/);
    const declined = await cli(['decline', '--store', `sqlite:${file}`, '--id', evidenceId]);
    assert.equal(declined.status, 1, declined.stderr);
    // The one grant the gate's approve made is the only one: one identical call runs on
    // it, the next needs a reviewer again.
    const { executeToolCall } = require('../..');
    const attempt = async () => {
      const prepared = prepareToolCall({ agentName: 'payments', toolName: 'transfer', rawArguments: '{"cents":500}' });
      const decision = await evaluateToolCall({ prepared, policy: grants.policy(() => ({ decision: 'require_approval', reason: 'every transfer' })) });
      if (decision.decision !== 'allow') return decision.decision;
      return executeToolCall(decision, () => 'ran', { receipts: undefined });
    };
    assert.equal(await attempt(), 'ran');
    assert.equal(await attempt(), 'require_approval');
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('listProposals: a custom store\'s cursor that is not a well-formed string is refused (it was handed on, and the next page\'s listProposals then refused it as input)', async () => {
  const { createMemoryStore } = require('../../lib/stores/memory');
  const memory = createMemoryStore();
  const store = {};
  for (const name of Object.getOwnPropertyNames(memory)) if (typeof memory[name] === 'function') store[name] = memory[name].bind(memory);
  store.listProposals = () => ({ proposals: [], next: 'page-\ud800' });
  const grants = createApprovalGrants({ store });
  await assert.rejects(grants.listProposals(), (error) => error instanceof TypeError && /listProposals must answer/.test(error.message));
  store.listProposals = () => ({ proposals: [], next: 'page-2' });
  assert.deepEqual(await createApprovalGrants({ store }).listProposals(), { proposals: [], cursor: 'page-2' });
});

test('CLI: an expiry a Date cannot hold is printed as its number, never an exit 70 after the work is done (grant --ttl at its documented maximum granted, then reported "the store failed"; one record\'s expiresAt stopped the whole pending listing; verify-snapshot of a long seal was an internal error)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-rt4-'));
  const file = path.join(dir, 'grants.db');
  const store = createSqliteGrantStore({ path: file });
  try {
    const grants = createApprovalGrants({ store });
    const proposal = await proposalOf('{"cents":5}');
    await grants.keepProposal({ runId: 'thread-1', toolCallId: 'call_1' }, proposal);
    const listed = await cli(['pending', '--store', `sqlite:${file}`]);
    const id = /^id: +(\S+)$/m.exec(listed.stdout)[1];
    const granted = await cli(['grant', '--store', `sqlite:${file}`, '--id', id, '--ttl', '8640000000000000']);
    assert.equal(granted.status, 0, granted.stderr);
    assert.match(granted.stdout, /^grant expires: +\d{16} ms since 1970-01-01T00:00:00\.000Z$/m);

    // An unsealed record is trusted with its expiry (no signature covers it): printed as it is.
    await grants.keepProposal({ runId: 'thread-2', toolCallId: 'call_1' }, proposal);
    const storeKey = '8:thread-2call_1';
    const record = JSON.parse(await store.getProposal(storeKey, Date.now()));
    record.expiresAt = 1e20;
    await store.putProposal(storeKey, JSON.stringify(record), null);
    const after = await cli(['pending', '--store', `sqlite:${file}`]);
    assert.equal(after.status, 0, after.stderr);
    assert.match(after.stdout, /^kept until: +100000000000000000000 ms since 1970-01-01T00:00:00\.000Z$/m);

    const keys = [{ id: 'k1', secret: 'a-secret-of-at-least-thirty-two-bytes!!' }];
    const sealed = createApprovalGrants({ keys }).seal(proposal, { ttlMs: 8.64e15 });
    const keyFile = path.join(dir, 'keys.json');
    const sealedFile = path.join(dir, 'sealed.json');
    fs.writeFileSync(keyFile, JSON.stringify(keys));
    fs.writeFileSync(sealedFile, JSON.stringify(sealed));
    const verified = await cli(['verify-snapshot', '--key-file', keyFile, sealedFile]);
    assert.equal(verified.status, 0, verified.stderr);
    assert.match(verified.stdout, /^seal expires: +\d{16} ms since 1970-01-01T00:00:00\.000Z$/m);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
