'use strict';
// A useChat app on a stateless server, across real processes (issue 16 item 6): the browser
// is the AI SDK's own chat client (AbstractChat, with addToolApprovalResponse and
// sendAutomaticallyWhen as useChat uses them); every request it sends is answered by a
// fresh Node process (adapters/ai/stateless-server.js) that shares nothing with the others
// but the grants' store (SQLite once the package has it; a file-backed stand-in until then).
// Everything streams (streamText, the gate's wrapStream).

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { AbstractChat, lastAssistantMessageIsCompleteWithApprovalResponses, isToolUIPart } = require('ai');

const SERVER = path.join(__dirname, 'stateless-server.js');
const KEY = 'a-secret-of-at-least-thirty-two-bytes, from the env';

/** The state a chat client keeps in the browser (what useChat keeps in React state). */
class BrowserChatState {
  constructor() {
    this.status = 'ready';
    this.error = undefined;
    this.messages = [];
  }

  pushMessage(message) {
    this.messages = [...this.messages, message];
  }

  popMessage() {
    this.messages = this.messages.slice(0, -1);
  }

  replaceMessage(index, message) {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  }

  snapshot(value) {
    return structuredClone(value);
  }
}

class BrowserChat extends AbstractChat {
  constructor(init) {
    super({ ...init, state: new BrowserChatState() });
  }

  /** What a tampering browser (or anyone holding the messages) does to them. */
  editMessages(edit) {
    const messages = structuredClone(this.state.messages);
    edit(messages);
    this.state.messages = messages;
  }
}

/** Runs one request in a new server process; resolves with the JSON lines it printed. */
function serve(request, { keyed }) {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    if (keyed) env.TAS_AI_TEST_KEY = KEY;
    else delete env.TAS_AI_TEST_KEY;
    const child = spawn(process.execPath, [SERVER], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`server exited ${code}: ${stderr}`));
      else
        resolve(
          stdout
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line)),
        );
    });
    child.stdin.end(JSON.stringify(request));
  });
}

/**
 * The browser's transport: each request goes to a new server process, whose UI message
 * chunks stream back. Keeps every request body (to replay one) and every server's pid.
 */
class ProcessTransport {
  constructor(dir, options = {}) {
    this.dir = dir;
    this.keyed = options.keyed ?? true;
    this.scripts = [];
    this.sent = [];
    this.inflight = 0;
    this.approveThroughGate = options.approveThroughGate ?? true;
    this.ungated = options.ungated ?? false;
  }

  async sendMessages({ chatId, messages }) {
    const request = {
      dir: this.dir,
      chatId,
      messages: structuredClone(messages),
      script: this.scripts.shift() ?? [],
      approveThroughGate: this.approveThroughGate,
      ungated: this.ungated,
    };
    this.sent.push(request);
    return this.stream(request);
  }

  async stream(request) {
    this.inflight++;
    try {
      const chunks = await serve(request, { keyed: this.keyed });
      return new ReadableStream({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk);
          controller.close();
        },
      });
    } finally {
      this.inflight--;
    }
  }

  async reconnectToStream() {
    return null;
  }
}

/** A chat whose every request is a new process, and the files those processes write. */
function app(t, options = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-ai-stateless-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const transport = new ProcessTransport(dir, options);
  const chat = new BrowserChat({
    id: options.chatId ?? 'chat-1',
    transport,
    sendAutomaticallyWhen: options.automatic === false ? undefined : lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const lines = (name) => {
    const file = path.join(dir, name);
    return fs.existsSync(file)
      ? fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];
  };
  const executed = () => lines('executed.log').map((e) => e.args);
  const tasWarnings = () =>
    lines('warnings.log')
      .map((w) => w.code)
      .filter((code) => typeof code === 'string' && code.startsWith('TAS_'));
  /** Waits until no request is in flight and the chat is not streaming. */
  const settled = async () => {
    for (let i = 0; i < 2000; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (transport.inflight === 0 && chat.status !== 'submitted' && chat.status !== 'streaming') return;
    }
    throw new Error('the chat did not settle');
  };
  const toolParts = () => chat.messages.flatMap((m) => m.parts.filter(isToolUIPart));
  const part = (toolCallId) => toolParts().find((p) => p.toolCallId === toolCallId);
  /** The server side, asked directly (a reviewer's page, a reviewer service, a check). */
  const ask = async (request) => (await serve({ dir, chatId: chat.id, ...request }, { keyed: transport.keyed }))[0];
  return { dir, chat, transport, lines, executed, tasWarnings, settled, toolParts, part, ask };
}

const ASK_TWO = [
  [
    ['call-a', 'transfer', '{"amount":50000,"to":"bob"}'],
    ['call-b', 'transfer', '{"amount":60000,"to":"eve"}'],
  ],
];

test('the SDK alone, same stateless flow: the input edited after approval executes, a replayed approval executes again, a duplicate key runs its last value', async (t) => {
  const { chat, transport, executed, settled, part } = app(t, { ungated: true });
  transport.scripts.push(
    [
      [
        ['call-1', 'transfer', '{"amount":50000,"to":"bob"}'],
        ['call-2', 'transfer', '{"amount":1,"to":"eve","amount":999}'],
      ],
    ],
    ['Sent.'],
    ['Sent again.'],
  );
  await chat.sendMessage({ text: 'pay bob, and eve a little' });
  await settled();
  assert.deepEqual(executed(), ['{"amount":999,"to":"eve"}']);
  chat.editMessages((messages) => {
    messages.at(-1).parts.find((p) => p.toolCallId === 'call-1').input.to = 'mallory';
  });
  await chat.addToolApprovalResponse({ id: part('call-1').approval.id, approved: true });
  await settled();
  assert.deepEqual(executed(), ['{"amount":999,"to":"eve"}', '{"amount":50000,"to":"mallory"}']);
  for await (const chunk of await transport.stream(transport.sent[1])) void chunk;
  assert.deepEqual(executed(), ['{"amount":999,"to":"eve"}', '{"amount":50000,"to":"mallory"}', '{"amount":50000,"to":"mallory"}']);
});

test('approved in the browser, granted in another process: executes once; a replay of that request executes nothing; the provider never sees the proposal', async (t) => {
  const { chat, transport, executed, settled, part, lines, ask } = app(t);
  transport.scripts.push([[['call-1', 'transfer', '{"amount":50000,"to":"bob"}']]], ['Sent.']);
  await chat.sendMessage({ text: 'pay bob 50000' });
  await settled();
  const asked = part('call-1');
  assert.equal(asked.state, 'approval-requested');
  assert.equal(asked.approval.requestReason, 'large transfer');
  assert.equal(executed().length, 0);

  // A reviewer page in yet another process shows the sealed proposal it would grant.
  const review = await ask({ mode: 'review', approvalId: asked.approval.id, toolCallId: 'call-1' });
  t.diagnostic(`grants store: ${review.kind}`);
  assert.equal(review.kept.argsCanonicalJson, '{"amount":50000,"to":"bob"}');
  assert.equal(review.kept.scope, 'user:alice');

  await chat.addToolApprovalResponse({ id: asked.approval.id, approved: true });
  await settled();
  assert.deepEqual(executed(), ['{"amount":50000,"to":"bob"}']);
  assert.equal(part('call-1').state, 'output-available');
  assert.equal(part('call-1').output, 'sent 50000 to bob');
  const pids = new Set(lines('executed.log').map((e) => e.pid));
  assert.equal(pids.size, 1);

  // The same approval request sent again (a retry, a replay): a third process.
  const replay = transport.sent[1];
  const chunks = await (await transport.stream(replay)).getReader();
  const replayed = [];
  for (let r = await chunks.read(); !r.done; r = await chunks.read()) replayed.push(r.value);
  assert.deepEqual(
    replayed.filter((c) => c.type === 'tool-output-denied').map((c) => c.toolCallId),
    ['call-1'],
  );
  assert.deepEqual(executed(), ['{"amount":50000,"to":"bob"}']);
  assert.deepEqual(
    lines('approve.log').map((a) => [a.ok, a.code]),
    [
      [true, undefined],
      [false, 'TAS_NO_PENDING_PROPOSAL'],
    ],
  );

  // What the model provider received, over all requests: no seal, no proposal hash, no
  // approval parts (they never ride in the messages).
  const prompts = lines('prompts.log').map((p) => JSON.stringify(p));
  assert.ok(prompts.length >= 2);
  for (const prompt of prompts) {
    for (const secret of [review.kept.signature, review.kept.nonce, review.kept.proposalHash, asked.approval.id, 'tool-approval']) {
      assert.equal(prompt.includes(secret), false);
    }
  }
  // Nor does the browser ever hold it.
  assert.equal(JSON.stringify(chat.messages).includes(review.kept.nonce), false);
});

test('a plain approval (the app forgot gate.approve) executes nothing: approved_without_grant and the warning', async (t) => {
  const { chat, transport, executed, settled, part, tasWarnings } = app(t, { approveThroughGate: false });
  transport.scripts.push([[['call-1', 'transfer', '{"amount":50000,"to":"bob"}']]], ['Sent.']);
  await chat.sendMessage({ text: 'pay bob 50000' });
  await settled();
  await chat.addToolApprovalResponse({ id: part('call-1').approval.id, approved: true });
  await settled();
  assert.equal(executed().length, 0);
  assert.equal(part('call-1').state, 'output-denied');
  const denied = transport.sent.length;
  assert.equal(denied, 2);
  assert.deepEqual(tasWarnings(), ['TAS_APPROVED_WITHOUT_GRANT']);
});

test('partial approval of two parallel calls: the approved one executes once, the other stays pending until approved, then executes once', async (t) => {
  const { chat, transport, executed, settled, part } = app(t);
  transport.scripts.push(ASK_TWO, [], ['Both sent.']);
  await chat.sendMessage({ text: 'pay bob and eve' });
  await settled();
  assert.deepEqual([part('call-a').state, part('call-b').state], ['approval-requested', 'approval-requested']);

  // Only call-a answered, and sent without waiting for call-b (useChat itself waits:
  // sendAutomaticallyWhen is false while call-b is unanswered).
  await chat.addToolApprovalResponse({ id: part('call-a').approval.id, approved: true });
  await settled();
  assert.equal(transport.sent.length, 1, 'useChat does not send a partly answered message');
  await chat.sendMessage();
  await settled();
  assert.deepEqual(executed(), ['{"amount":50000,"to":"bob"}']);
  assert.equal(part('call-a').state, 'output-available');
  // The SDK then refuses to call the model while call-b has no result (its own
  // MissingToolResultsError, streamed as an error): call-b waits, unexecuted.
  assert.equal(part('call-b').state, 'approval-requested');
  assert.equal(chat.status, 'error');

  await chat.addToolApprovalResponse({ id: part('call-b').approval.id, approved: true });
  await settled();
  assert.deepEqual(executed(), ['{"amount":50000,"to":"bob"}', '{"amount":60000,"to":"eve"}']);
  assert.equal(part('call-b').output, 'sent 60000 to eve');
  assert.equal(transport.sent.length, 3);
});

test('a tampered approval request executes nothing: the browser edits the approved input, or a reviewer posts back an edited seal', async (t) => {
  const { chat, transport, executed, settled, part, ask } = app(t);
  transport.scripts.push(ASK_TWO, ['ok']);
  await chat.sendMessage({ text: 'pay bob and eve' });
  await settled();

  // call-a: the browser approves it and rewrites its input (50000 -> 5000000) before sending.
  // call-b: a reviewer UI got the sealed proposal and posts back another amount, then the
  // browser approves it.
  const sealed = (await ask({ mode: 'review', approvalId: part('call-b').approval.id, toolCallId: 'call-b' })).kept;
  const edited = { ...sealed, argsCanonicalJson: '{"amount":6000000,"to":"eve"}' };
  assert.deepEqual(await ask({ mode: 'grant-sealed', sealed: edited }), { granted: false, code: 'bad_signature' });

  chat.editMessages((messages) => {
    const a = messages.at(-1).parts.find((p) => p.toolCallId === 'call-a');
    a.input.amount = 5000000;
  });
  transport.approveThroughGate = true;
  await chat.addToolApprovalResponse({ id: part('call-a').approval.id, approved: true });
  // call-b approved the browser's way only (the reviewer's edited seal was refused): the
  // server grants it through the gate, but the browser also edited its input.
  chat.editMessages((messages) => {
    const b = messages.at(-1).parts.find((p) => p.toolCallId === 'call-b');
    b.input = { amount: 6000000, to: 'eve' };
  });
  await chat.addToolApprovalResponse({ id: part('call-b').approval.id, approved: true });
  await settled();
  assert.equal(executed().length, 0);
  assert.deepEqual([part('call-a').state, part('call-b').state], ['output-denied', 'output-denied']);
  // The grants made for what was proposed stay unspent (an edit does not burn them).
  assert.deepEqual(await ask({ mode: 'has', query: { agentName: 'payments', toolName: 'transfer', proposalHash: sealed.proposalHash, scope: 'user:alice' } }), {
    has: true,
  });
});

test('history edited after approval never executes under the old grant; the duplicate-key call is invalid input and never asked', async (t) => {
  const { chat, transport, executed, settled, part, lines, tasWarnings } = app(t);
  transport.scripts.push(
    [
      [
        ['call-1', 'transfer', '{"amount":50000,"to":"bob"}'],
        ['call-2', 'transfer', '{"amount":1,"to":"eve","amount":9999900}'],
      ],
    ],
    ['Sent.'],
  );
  await chat.sendMessage({ text: 'pay bob, and eve a little' });
  await settled();
  // The duplicate key: the SDK alone would run the last value; here it is invalid input.
  assert.equal(part('call-2').state, 'output-error');
  assert.match(part('call-2').errorText, /duplicate_key/);
  assert.equal(part('call-1').state, 'approval-requested');

  // Approved: the server (another process) grants exactly what was proposed. The browser
  // edits the approved call's input in the stored history in the same request.
  chat.editMessages((messages) => {
    messages.at(-1).parts.find((p) => p.toolCallId === 'call-1').input.to = 'mallory';
  });
  await chat.addToolApprovalResponse({ id: part('call-1').approval.id, approved: true });
  await settled();
  assert.deepEqual(
    lines('approve.log').map((a) => a.ok),
    [true],
  );
  assert.equal(executed().length, 0);
  assert.equal(part('call-1').state, 'output-denied');
  // Approved through the gate, then edited (denied proposal_changed): no warning about an
  // approval given the SDK's own way (issue 26; this asserted that warning before).
  assert.deepEqual(tasWarnings(), []);
});

test('without a key ring the same flow holds: kept proposals are verified by hash and forgotten once granted', async (t) => {
  const { chat, transport, executed, settled, part } = app(t, { keyed: false });
  transport.scripts.push([[['call-1', 'transfer', '{"amount":50000,"to":"bob"}']]], ['Sent.']);
  await chat.sendMessage({ text: 'pay bob 50000' });
  await settled();
  await chat.addToolApprovalResponse({ id: part('call-1').approval.id, approved: true });
  await settled();
  assert.deepEqual(executed(), ['{"amount":50000,"to":"bob"}']);
  const replay = await transport.stream(transport.sent[1]);
  for await (const chunk of replay) void chunk;
  assert.deepEqual(executed(), ['{"amount":50000,"to":"bob"}']);
});
