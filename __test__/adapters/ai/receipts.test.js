'use strict';
// tool-argument-snapshot/ai with execution receipts (issue 25 item 5) and what a reviewer
// and a refused resume see (issue 26 item 1). The real AI SDK 7 (generateText, streamText)
// with its MockLanguageModelV4; two real Node processes sharing a SQLite file.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { generateText, streamText, tool, stepCountIs } = require('ai');
const { MockLanguageModelV4, convertArrayToReadableStream } = require('ai/test');
const { z } = require('zod');
const { createApprovalGrants, createExecutionReceipts, isToolCallNotAllowedError } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/ai');
const { KINDS, durableStore, openDurable, dropDurable } = require('../../helpers/durable-stores');

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const TEXT = { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE, warnings: [] };
const PROMPT = [{ role: 'user', content: 'pay bob' }];
const KEYS = [{ id: 'k1', secret: 'a-secret-of-at-least-thirty-two-bytes!!' }];
const CHILD = path.join(__dirname, 'receipts-child.js');

// Every test is a conversation of its own: by default gates share one process-wide memory
// receipts object, keyed by the chat id (runId) and the call id.
let chat = 0;
test.beforeEach(() => {
  chat += 1;
});

function toolCalls(...calls) {
  return {
    content: calls.map(([toolCallId, input]) => ({ type: 'tool-call', toolCallId, toolName: 'transfer', input })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE,
    warnings: [],
  };
}

/** A mock provider answering `responses` in turn, then text. */
function model(...responses) {
  let i = 0;
  return new MockLanguageModelV4({ doGenerate: async () => responses[i++] ?? TEXT });
}

/** A streaming mock provider: one tool call, then text. */
function streamingModel(toolCallId, input) {
  return new MockLanguageModelV4({
    doStream: [
      {
        stream: convertArrayToReadableStream([
          { type: 'stream-start', warnings: [] },
          { type: 'tool-call', toolCallId, toolName: 'transfer', input },
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
}

const limitPolicy = (input) =>
  input.parsedArguments.amount <= 1000 ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large' };

/**
 * One request of the chat app: a gate made for it (runId: the chat id, unless null), over
 * a transfer tool whose runs are pushed to `executed` (shared across requests).
 */
function server({ executed, grants, runId = `chat-${chat}`, policy = limitPolicy, ...gateOptions }) {
  const tools = {
    transfer: tool({
      inputSchema: z.object({ amount: z.number().int().positive(), to: z.string() }),
      execute: async (args) => {
        executed.push(JSON.stringify(args));
        return `sent ${args.amount} to ${args.to}`;
      },
    }),
  };
  const gate = createToolGate({ agentName: 'payments', tools, policy, grants, ...(runId === null ? {} : { runId }), ...gateOptions });
  const run = (languageModel, messages) =>
    generateText({
      model: gate.model(languageModel),
      tools: gate.tools,
      toolApproval: gate.toolApproval,
      stopWhen: stepCountIs(3),
      messages,
    });
  return { gate, run };
}

/** What the first step did with each call: `result <output>`, `error <code>` or `denied <reason>`. */
function firstStep(result) {
  return result.steps[0].content
    .filter((p) => p.type === 'tool-result' || p.type === 'tool-error')
    .map((p) =>
      p.type === 'tool-result' ? `${p.toolCallId} result ${p.output}` : `${p.toolCallId} error ${isToolCallNotAllowedError(p.error) ? p.error.code : p.error}`,
    );
}

/** The tool outputs of a run's response messages, by call id (denials included). */
function toolOutputs(result) {
  return result.responseMessages
    .filter((m) => m.role === 'tool')
    .flatMap((m) => m.content)
    .filter((p) => p.type === 'tool-result')
    .map((p) => [p.toolCallId, p.output]);
}

const stored = (messages) => JSON.parse(JSON.stringify(messages));

/** TAS_APPROVED_WITHOUT_GRANT warnings emitted while `fn` runs. */
async function warningsDuring(fn) {
  const seen = [];
  const listener = (warning) => {
    if (warning.code === 'TAS_APPROVED_WITHOUT_GRANT') seen.push(warning);
  };
  process.on('warning', listener);
  try {
    await fn();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

test("the same call id in the same chat, run again (the request retried, the response replayed): the handler runs once; the second run is the SDK's tool error call_already_executed", async () => {
  const executed = [];
  const first = await server({ executed }).run(model(toolCalls(['call-1', '{"amount":500,"to":"bob"}'])), PROMPT);
  assert.deepEqual(firstStep(first), ['call-1 result sent 500 to bob']);
  // A new request of the same chat (another gate, default receipts): the provider's call again.
  const again = await server({ executed }).run(model(toolCalls(['call-1', '{"amount":500,"to":"bob"}'])), PROMPT);
  assert.deepEqual(firstStep(again), ['call-1 error call_already_executed']);
  assert.deepEqual(executed, ['{"amount":500,"to":"bob"}']);

  // The same call id in another chat is another call.
  await server({ executed, runId: `other-${chat}` }).run(model(toolCalls(['call-1', '{"amount":500,"to":"bob"}'])), PROMPT);
  assert.equal(executed.length, 2);
});

test('streamText: the same call id in the same chat runs once', async () => {
  const executed = [];
  for (let i = 0; i < 2; i++) {
    const { gate } = server({ executed });
    const result = streamText({
      model: gate.model(streamingModel('call-7', '{"amount":700,"to":"eve"}')),
      tools: gate.tools,
      toolApproval: gate.toolApproval,
      stopWhen: stepCountIs(3),
      messages: PROMPT,
    });
    assert.equal(await result.text, 'done');
  }
  assert.deepEqual(executed, ['{"amount":700,"to":"eve"}']);
});

test('an approved chat history resubmitted (a double submit, a retried request) runs its call once, even with a grant of two uses; receipts: false runs it twice (per decision)', async () => {
  for (const receipts of [undefined, false]) {
    const grants = createApprovalGrants();
    const executed = [];
    const options = receipts === undefined ? {} : { receipts };
    const runId = `chat-${chat}-${receipts}`;
    const asked = await server({ executed, grants, runId, ...options }).run(model(toolCalls(['call-1', '{"amount":50000,"to":"bob"}'])), PROMPT);
    const request = asked.content.find((p) => p.type === 'tool-approval-request');
    const approval = await server({ executed, grants, runId, ...options }).gate.approve(request, { uses: 2 });
    const history = stored([...PROMPT, ...asked.responseMessages, { role: 'tool', content: [approval] }]);
    const outputs = [];
    for (let i = 0; i < 2; i++) {
      const done = await server({ executed, grants, runId, ...options }).run(model(), stored(history));
      outputs.push(...toolOutputs(done).map(([id, output]) => `${id} ${output.type === 'text' ? output.value : (output.value ?? output.reason)}`));
    }
    if (receipts === false) {
      assert.deepEqual(executed, ['{"amount":50000,"to":"bob"}', '{"amount":50000,"to":"bob"}'], 'per decision: two decisions, two runs');
    } else {
      assert.deepEqual(executed, ['{"amount":50000,"to":"bob"}'], 'per call: once');
      assert.equal(outputs[0], 'call-1 sent 50000 to bob');
      assert.match(outputs[1], /^call-1 .*call_already_executed/);
    }
  }
});

test("keepResults: a replay gets the stored result as the tool's own output; the handler runs once", async () => {
  const receipts = createExecutionReceipts({ keepResults: true });
  const executed = [];
  const outputs = [];
  for (let i = 0; i < 2; i++) {
    const result = await server({ executed, receipts }).run(model(toolCalls(['call-1', '{"amount":500,"to":"bob"}'])), PROMPT);
    outputs.push(...firstStep(result));
  }
  assert.deepEqual(outputs, ['call-1 result sent 500 to bob', 'call-1 result sent 500 to bob']);
  assert.deepEqual(executed, ['{"amount":500,"to":"bob"}']);
  const receipt = await receipts.get({ agentName: 'payments', runId: `chat-${chat}`, toolCallId: 'call-1' });
  assert.equal(receipt.status, 'completed');
  assert.equal(receipt.hasResult, true);
});

test('the same call id with other arguments in the same chat runs nothing (call_id_conflict)', async () => {
  const executed = [];
  await server({ executed }).run(model(toolCalls(['call-1', '{"amount":500,"to":"bob"}'])), PROMPT);
  const other = await server({ executed }).run(model(toolCalls(['call-1', '{"amount":900,"to":"mallory"}'])), PROMPT);
  assert.deepEqual(firstStep(other), ['call-1 error call_id_conflict']);
  assert.deepEqual(executed, ['{"amount":500,"to":"bob"}']);
});

test('without a runId the gate knows no conversation: by default it executes without receipts, as before; receipts given explicitly need the runId', async () => {
  const executed = [];
  for (let i = 0; i < 2; i++) await server({ executed, runId: null }).run(model(toolCalls(['call-1', '{"amount":500,"to":"bob"}'])), PROMPT);
  assert.equal(executed.length, 2, 'two gates without a chat id: two calls, never refused for sharing an id');
  assert.throws(
    () => server({ executed, runId: null, receipts: createExecutionReceipts() }),
    (error) => error instanceof TypeError && /options\.runId/.test(error.message),
  );
  assert.throws(() => server({ executed, receipts: 'yes' }), TypeError);
});

test('two processes sharing a SQLite file run the same call of the same chat: the handler runs once', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-ai-receipts-'));
  try {
    const runChild = () =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [CHILD, dir, 'chat-sqlite'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => {
          out += d;
        });
        child.stderr.on('data', (d) => {
          err += d;
        });
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`child exited ${code}: ${err}`))));
      });
    const answers = await Promise.all([runChild(), runChild()]);
    const log = fs.readFileSync(path.join(dir, 'executed.log'), 'utf8').trim().split('\n');
    assert.equal(log.length, 1, `the handler ran in ${log.length} processes`);
    // One ran; the other found its receipt completed, or still claimed while it ran.
    const [ran, refused] = answers[0].startsWith('result') ? answers : [answers[1], answers[0]];
    assert.equal(ran, 'result sent 500 to bob');
    assert.match(refused, /^error (call_already_executed|execution_in_progress)$/);
    // A third process, later: the stored receipt refuses it.
    assert.equal(await runChild(), 'error call_already_executed');
    assert.equal(fs.readFileSync(path.join(dir, 'executed.log'), 'utf8').trim().split('\n').length, 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// No receipts option, grants on a durable store (issue 33): the gate keeps its receipts in
// the grants' store, so a chat history resubmitted to another process runs nothing again.

/** One process running the stored history of `chatId` with grants on `durable`; its report. */
function resubmitIn(dir, chatId, durable) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dir, chatId, JSON.stringify(durable)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

for (const [kind, uses] of KINDS.flatMap((k) => [
  [k, 1],
  [k, 2],
])) {
  const refusal =
    uses === 1
      ? "the SDK's denial of the resumed approval, reason call_already_executed"
      : "the tool's error call_already_executed (the grant's second use allowed it, its receipt refused it)";
  test(`no receipts option, grants on ${kind}: an approved history (a grant of ${uses} use${uses === 1 ? '' : 's'}) resubmitted to a second process runs its call once; the second gets ${refusal}, never approved_without_grant`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-ai-default-receipts-'));
    const durable = durableStore(t, kind, dir);
    try {
      if (durable === null) return;
      const chatId = `chat-default-${kind}-${process.pid}`;
      const store = await openDurable(durable);
      try {
        const grants = createApprovalGrants({ store });
        const executed = [];
        const requireApproval = () => ({ decision: 'require_approval', reason: 'large' });
        const asked = await server({ executed, grants, runId: chatId, policy: requireApproval }).run(
          model(toolCalls(['call-1', '{"amount":50000,"to":"bob"}'])),
          PROMPT,
        );
        const request = asked.content.find((p) => p.type === 'tool-approval-request');
        const approval = await server({ executed, grants, runId: chatId, policy: requireApproval }).gate.approve(request, { uses });
        fs.writeFileSync(path.join(dir, 'history.json'), JSON.stringify([...PROMPT, ...asked.responseMessages, { role: 'tool', content: [approval] }]));
        assert.deepEqual(executed, []);
      } finally {
        await store.close();
      }
      const first = await resubmitIn(dir, chatId, durable);
      assert.deepEqual(first.outputs, [['call-1', { type: 'text', value: 'sent 50000 to bob' }]]);
      const second = await resubmitIn(dir, chatId, durable);
      assert.equal(fs.readFileSync(path.join(dir, 'executed.log'), 'utf8').trim().split('\n').length, 1, 'the handler ran in one process');
      if (uses === 1) assert.deepEqual(second.outputs, [['call-1', { type: 'execution-denied', reason: 'call_already_executed' }]]);
      else
        assert.deepEqual(
          second.outputs.map(([id, output]) => [id, output.type, /\[call_already_executed\]$/.test(output.value)]),
          [['call-1', 'error-text', true]],
        );
      assert.deepEqual(
        second.warnings.filter((code) => code === 'TAS_APPROVED_WITHOUT_GRANT'),
        [],
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await dropDurable(durable);
    }
  });
}

// ---------------------------------------------------------------------------------
// What a reviewer and a refused resume see (issue 26 item 1).

/** The in-memory grants store with its kept proposals in `memory` (to tamper with). */
function tamperableStore(memory) {
  const grantsList = [];
  const nonces = new Set();
  const live = (r, q, now) =>
    r.agentName === q.agentName &&
    r.toolName === q.toolName &&
    r.proposalHash === q.proposalHash &&
    r.scope === q.scope &&
    r.uses > 0 &&
    (r.expiresAt === null || now < r.expiresAt);
  return {
    put(record) {
      if (record.nonce !== null) {
        if (nonces.has(record.nonce)) return false;
        nonces.add(record.nonce);
      }
      grantsList.push({ ...record });
      return true;
    },
    has: (q, now) => grantsList.some((r) => live(r, q, now)),
    take(q, now) {
      const r = grantsList.find((g) => live(g, q, now));
      if (r === undefined) return false;
      r.uses--;
      return true;
    },
    delete(q) {
      for (let i = grantsList.length - 1; i >= 0; i--) if (live(grantsList[i], q, -Infinity)) grantsList.splice(i, 1);
    },
    prune: () => 0,
    putProposal(key, json, expiresAt) {
      memory.set(key, { json, expiresAt });
    },
    getProposal(key, now) {
      const found = memory.get(key);
      return found === undefined || (found.expiresAt !== null && now >= found.expiresAt) ? null : found.json;
    },
    deleteProposal(key) {
      memory.delete(key);
    },
  };
}

for (const keyed of [true, false]) {
  test(`gate.pending lists the waiting proposals that verify; one changed in the store is listed by its code only (${keyed ? 'sealed: bad_signature' : 'no key ring: its hash'})`, async () => {
    const memory = new Map();
    const grants = createApprovalGrants({ store: tamperableStore(memory), ...(keyed ? { keys: KEYS } : {}) });
    const executed = [];
    const app = server({ executed, grants });
    const asked = await app.run(
      model(toolCalls(['call-1', '{"amount":50000,"to":"bob"}'], ['call-2', '{"amount":70000,"to":"eve"}'], ['call-3', '{"amount":80000,"to":"al"}'])),
      PROMPT,
    );
    const history = stored([...PROMPT, ...asked.responseMessages]);

    // Whoever can write the store rewrites call-2's arguments (and, without a key ring,
    // leaves its hash: the hash no longer matches).
    const key = [...memory.keys()].find((k) => k.endsWith('call-2'));
    const record = JSON.parse(memory.get(key).json);
    record.argsCanonicalJson = '{"amount":7,"to":"mallory"}';
    memory.set(key, { json: JSON.stringify(record), expiresAt: null });
    // call-3 is declined: not pending any more.
    const request3 = asked.content.find((p) => p.type === 'tool-approval-request' && p.toolCall.toolCallId === 'call-3');
    await app.gate.decline(request3);

    const reviewer = server({ executed, grants });
    for (const source of [asked.content, history, history[1]]) {
      const listed = await reviewer.gate.pending(source);
      assert.deepEqual(
        listed.map((e) => [e.toolCallId, e.proposal?.argsCanonicalJson ?? e.error.code]),
        [
          ['call-1', '{"amount":50000,"to":"bob"}'],
          ['call-2', keyed ? 'bad_signature' : 'hash_mismatch'],
        ],
      );
      assert.equal(listed[0].toolName, 'transfer');
      assert.equal(typeof listed[0].approvalId, 'string');
      assert.deepEqual(Object.keys(listed[1]).sort(), ['approvalId', 'error', 'toolCallId']);
      assert.deepEqual(listed[1].error, { name: keyed ? 'ApprovalGrantError' : 'SnapshotDomainError', code: keyed ? 'bad_signature' : 'hash_mismatch' });
      const shown = JSON.stringify(listed[1]);
      for (const text of ['mallory', 'eve', '70000', record.proposalHash]) assert.equal(shown.includes(text), false, 'no text of the changed record');
    }
    // The UI messages a useChat app keeps: parts with approval-requested state.
    const ui = [
      { id: 'm1', role: 'assistant', parts: [{ type: 'tool-transfer', toolCallId: 'call-1', state: 'approval-requested', input: {}, approval: { id: 'a1' } }] },
    ];
    // Proxies are refused unread.
    const trap = new Proxy(
      {},
      {
        get() {
          throw new Error('read');
        },
        getOwnPropertyDescriptor() {
          throw new Error('read');
        },
        ownKeys() {
          throw new Error('read');
        },
      },
    );
    await assert.rejects(reviewer.gate.pending(trap), TypeError);
    await assert.rejects(reviewer.gate.pending([trap]), TypeError);
    const fromUi = await reviewer.gate.pending(ui);
    assert.deepEqual(
      fromUi.map((e) => [e.approvalId, e.toolCallId, e.proposal.argsCanonicalJson]),
      [['a1', 'call-1', '{"amount":50000,"to":"bob"}']],
    );
    assert.equal(executed.length, 0);
  });
}

test("a resume refused: edited after an approval through the gate is proposal_changed; a replay is the receipt's code; neither warns; only the SDK's own approval is approved_without_grant, with its warning", async () => {
  const grants = createApprovalGrants({ keys: KEYS });
  const executed = [];
  const asked = await server({ executed, grants }).run(model(toolCalls(['call-1', '{"amount":50000,"to":"bob"}'])), PROMPT);
  const request = asked.content.find((p) => p.type === 'tool-approval-request');
  const approval = await server({ executed, grants }).gate.approve(request);

  const edited = stored([...PROMPT, ...asked.responseMessages, { role: 'tool', content: [approval] }]);
  edited[1].content.find((p) => p.type === 'tool-call').input.amount = 99999900;
  const editWarnings = await warningsDuring(async () => {
    const denied = await server({ executed, grants }).run(model(), edited);
    assert.deepEqual(toolOutputs(denied), [['call-1', { type: 'execution-denied', reason: 'proposal_changed' }]]);
  });
  assert.deepEqual(editWarnings, []);
  assert.equal(executed.length, 0);

  const history = stored([...PROMPT, ...asked.responseMessages, { role: 'tool', content: [approval] }]);
  await server({ executed, grants }).run(model(), history);
  assert.deepEqual(executed, ['{"amount":50000,"to":"bob"}']);
  const replayWarnings = await warningsDuring(async () => {
    const replay = await server({ executed, grants }).run(model(), stored(history));
    assert.deepEqual(toolOutputs(replay), [['call-1', { type: 'execution-denied', reason: 'call_already_executed' }]]);
  });
  assert.deepEqual(replayWarnings, []);

  // Another conversation: approved the SDK's own way only (a plain response, no grant).
  const runId = `chat-${chat}-sdk`;
  const other = await server({ executed, grants, runId }).run(model(toolCalls(['call-2', '{"amount":60000,"to":"eve"}'])), PROMPT);
  const plain = { type: 'tool-approval-response', approvalId: other.content.find((p) => p.type === 'tool-approval-request').approvalId, approved: true };
  const sdkWarnings = await warningsDuring(async () => {
    const denied = await server({ executed, grants, runId }).run(model(), stored([...PROMPT, ...other.responseMessages, { role: 'tool', content: [plain] }]));
    assert.deepEqual(toolOutputs(denied), [['call-2', { type: 'execution-denied', reason: 'approved_without_grant' }]]);
  });
  assert.equal(sdkWarnings.length, 1);
  assert.deepEqual(executed, ['{"amount":50000,"to":"bob"}']);
});
