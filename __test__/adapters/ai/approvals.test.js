'use strict';
// tool-argument-snapshot/ai: approvals that outlive the gate (issue 16 item 6), typed and
// per-tool policies, calls without an id (issue 17 item 3), and the adapter's contract
// with its peer (issue 17 item 5). The real AI SDK 7 with its MockLanguageModelV4, no
// network. Two real processes: adapters/ai/stateless.test.js.

const test = require('node:test');
const assert = require('node:assert/strict');
const { generateText, tool, stepCountIs, jsonSchema } = require('ai');
const { MockLanguageModelV4 } = require('ai/test');
const { z } = require('zod');
const { createApprovalGrants, isApprovalGrantError, isToolArgumentsValidationError } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/ai');

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const TEXT = { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE };
const PROMPT = [{ role: 'user', content: 'pay bob' }];
const KEYS = [{ id: 'k1', secret: 'a-secret-of-at-least-thirty-two-bytes!!' }];

function toolCalls(...calls) {
  return {
    content: calls.map(([toolCallId, input, toolName = 'transfer']) => ({ type: 'tool-call', toolCallId, toolName, input })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE,
  };
}

/** A mock model answering `responses` in turn and recording every prompt it receives. */
function model(prompts, ...responses) {
  let i = 0;
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      prompts.push(JSON.stringify(options.prompt));
      return responses[i++] ?? TEXT;
    },
  });
}

function limitPolicy(input) {
  const { amount } = input.parsedArguments;
  if (amount <= 1000) return { decision: 'allow', reason: 'small' };
  if (amount > 1_000_000) return { decision: 'deny', reason: 'over_limit' };
  return { decision: 'require_approval', reason: 'large' };
}

/**
 * One server of a stateless app: the tools, a gate made for this request (its runId is the
 * conversation), and a run over stored messages. `executed` is shared across "servers" by
 * the caller so a test can count executions of the whole app.
 */
// Each test is its own conversation: gates share the process-wide execution receipts by
// default, keyed by the chat id (runId) and the call id, and these tests reuse call ids.
let chat = 0;
test.beforeEach(() => {
  chat += 1;
});

function server({ grants, executed, runId = `chat-${chat}`, grantScope, policy = limitPolicy }) {
  // runId null: a gate without one (its own run).
  const tools = {
    transfer: tool({
      inputSchema: z.object({ amount: z.number().int().positive(), to: z.string() }),
      execute: async (args) => {
        executed.push(JSON.stringify(args));
        return `sent ${args.amount} to ${args.to}`;
      },
    }),
  };
  const decisions = [];
  const gate = createToolGate({
    agentName: 'payments',
    tools,
    policy,
    grants,
    grantScope,
    ...(runId === null ? {} : { runId }),
    onDecision: (decision, info) => decisions.push({ decision: decision.decision, reason: decision.reason, ...info }),
  });
  const run = (languageModel, messages) =>
    generateText({
      model: gate.model(languageModel),
      tools: gate.tools,
      toolApproval: gate.toolApproval,
      stopWhen: stepCountIs(3),
      messages,
    });
  return { gate, run, decisions };
}

/** Stored as an app stores them (JSON), as a browser sends them back. */
const stored = (messages) => JSON.parse(JSON.stringify(messages));

function toolOutputs(result) {
  return result.responseMessages
    .filter((m) => m.role === 'tool')
    .flatMap((m) => m.content)
    .filter((p) => p.type === 'tool-result')
    .map((p) => [p.toolCallId, p.output]);
}

/** Collects the TAS_APPROVED_WITHOUT_GRANT warnings emitted while `fn` runs. */
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

test('a fresh gate (a new request, another server) approves from stored messages and the call executes once; a replayed approval executes nothing', async () => {
  const grants = createApprovalGrants();
  const executed = [];
  const prompts = [];
  const first = server({ grants, executed });
  const asked = await first.run(model(prompts, toolCalls(['call-1', '{"amount":50000,"to":"bob"}'])), PROMPT);
  const history = stored([...PROMPT, ...asked.responseMessages]);
  assert.equal(executed.length, 0);

  // The next request: nothing of the first gate survives but the grants' store.
  const second = server({ grants, executed });
  const request = history[1].content.find((p) => p.type === 'tool-approval-request');
  assert.deepEqual(Object.keys(request).sort(), ['approvalId', 'reason', 'toolCallId', 'type'], 'what the SDK stores of an approval request');
  assert.equal(second.gate.proposalOf(request), undefined, 'no in-process proposal in a fresh gate');
  const kept = await second.gate.keptProposal(request);
  // An unkeyed kept proposal carries its own nonce (granted once) and its expiry (null: the gate
  // kept it without a TTL).
  assert.equal(typeof kept.nonce, 'string');
  assert.ok(kept.nonce.length >= 16, 'a nonce of at least 16 characters');
  assert.equal(kept.expiresAt, null);
  assert.deepEqual(kept, {
    agentName: 'payments',
    toolName: 'transfer',
    argsCanonicalJson: '{"amount":50000,"to":"bob"}',
    proposalHash: kept.proposalHash,
    nonce: kept.nonce,
    expiresAt: kept.expiresAt,
  });
  assert.match(kept.proposalHash, /^[0-9a-f]{64}$/);
  const approval = await second.gate.approve(request);
  assert.deepEqual(approval, { type: 'tool-approval-response', approvalId: request.approvalId, approved: true });
  const resumed = [...history, { role: 'tool', content: [approval] }];
  const done = await second.run(model(prompts), stored(resumed));
  assert.deepEqual(executed, ['{"amount":50000,"to":"bob"}']);
  assert.deepEqual(toolOutputs(done), [['call-1', { type: 'text', value: 'sent 50000 to bob' }]]);
  assert.equal(second.decisions.at(-1).reason, 'approval_granted');
  assert.equal(await second.gate.keptProposal(request), undefined, 'the kept proposal is forgotten once granted');

  // The same approval again, in a third server: nothing waits, nothing is granted, and the
  // replayed resume is denied with its receipt's code (issue 26: a replay is not an approval
  // given the SDK's own way, so no TAS_APPROVED_WITHOUT_GRANT warning).
  const third = server({ grants, executed });
  await assert.rejects(third.gate.approve(request), (error) => error.code === 'TAS_NO_PENDING_PROPOSAL' && !error.message.includes('50000'));
  const replay = await warningsDuring(async () => {
    const again = await third.run(model(prompts), stored(resumed));
    assert.deepEqual(toolOutputs(again), [['call-1', { type: 'execution-denied', reason: 'call_already_executed' }]]);
  });
  assert.equal(replay.length, 0);
  assert.deepEqual(executed, ['{"amount":50000,"to":"bob"}']);
});

test("a plain tool-approval-response (the SDK's own approval) executes nothing: approved_without_grant and one warning per gate (none in production); the SDK alone executes it", async () => {
  // The framework alone: its own approval is all it needs.
  const plainExecuted = [];
  const plainTools = {
    transfer: tool({ inputSchema: z.object({ amount: z.number(), to: z.string() }), execute: async (args) => plainExecuted.push(args.amount) }),
  };
  const plainRun = (messages) =>
    generateText({
      model: model([], toolCalls(['call-1', '{"amount":50000,"to":"bob"}'])),
      tools: plainTools,
      toolApproval: () => 'user-approval',
      stopWhen: stepCountIs(3),
      messages,
    });
  const plainAsked = await plainRun(PROMPT);
  const plainRequest = plainAsked.content.find((p) => p.type === 'tool-approval-request');
  await plainRun([
    ...PROMPT,
    ...plainAsked.responseMessages,
    { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: plainRequest.approvalId, approved: true }] },
  ]);
  assert.deepEqual(plainExecuted, [50000]);

  const grants = createApprovalGrants();
  const executed = [];
  const first = server({ grants, executed });
  const asked = await first.run(model([], toolCalls(['call-1', '{"amount":50000,"to":"bob"}'], ['call-2', '{"amount":60000,"to":"eve"}'])), PROMPT);
  const requests = asked.content.filter((p) => p.type === 'tool-approval-request');
  assert.equal(requests.length, 2);
  const plain = requests.map((r) => ({ type: 'tool-approval-response', approvalId: r.approvalId, approved: true }));
  const messages = stored([...PROMPT, ...asked.responseMessages, { role: 'tool', content: plain }]);

  const second = server({ grants, executed });
  const warnings = await warningsDuring(async () => {
    const result = await second.run(model([]), messages);
    assert.deepEqual(toolOutputs(result), [
      ['call-1', { type: 'execution-denied', reason: 'approved_without_grant' }],
      ['call-2', { type: 'execution-denied', reason: 'approved_without_grant' }],
    ]);
  });
  assert.equal(executed.length, 0);
  assert.equal(warnings.length, 1, 'one warning per gate, however many calls');
  assert.match(warnings[0].message, /approved the framework's own way, without a grant/);
  assert.match(warnings[0].message, /gate\.approve\(part\)/);
  assert.doesNotMatch(warnings[0].message, /50000|bob|amount/);

  // Unless NODE_ENV is production.
  const saved = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    const third = server({ grants, executed });
    const quiet = await warningsDuring(() => third.run(model([]), messages));
    assert.equal(quiet.length, 0);
  } finally {
    if (saved === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = saved;
  }
  assert.equal(executed.length, 0);
});

test('partial approval: approving one of two parallel calls grants only it; the other stays pending; each executes once', async () => {
  const grants = createApprovalGrants();
  const executed = [];
  const first = server({ grants, executed });
  const asked = await first.run(model([], toolCalls(['call-a', '{"amount":50000,"to":"bob"}'], ['call-b', '{"amount":60000,"to":"eve"}'])), PROMPT);
  const history = stored([...PROMPT, ...asked.responseMessages]);
  const [requestA, requestB] = history[1].content.filter((p) => p.type === 'tool-approval-request');

  // A reviewer approves call-a only (another request).
  const reviewer = server({ grants, executed });
  const approvalA = await reviewer.gate.approve(requestA);
  const keptB = await reviewer.gate.keptProposal(requestB);
  assert.equal(keptB.argsCanonicalJson, '{"amount":60000,"to":"eve"}', 'call-b still waits');
  assert.equal(await grants.has(keptB), false, 'and is not granted');

  // The app resumes with call-a's answer alone: the SDK runs call-a, then refuses to call
  // the model while call-b has no result (its own MissingToolResultsError). call-b did not run.
  const partial = server({ grants, executed });
  await assert.rejects(partial.run(model([]), stored([...history, { role: 'tool', content: [approvalA] }])), { name: 'AI_MissingToolResultsError' });
  assert.deepEqual(executed, ['{"amount":50000,"to":"bob"}']);

  // call-b approved later; the history still answers call-a (approved, no result kept since
  // the run threw): call-a's grant is spent, so only call-b runs.
  const later = server({ grants, executed });
  const approvalB = await later.gate.approve(requestB);
  const done = await later.run(model([]), stored([...history, { role: 'tool', content: [approvalA, approvalB] }]));
  assert.deepEqual(executed, ['{"amount":50000,"to":"bob"}', '{"amount":60000,"to":"eve"}']);
  assert.deepEqual(toolOutputs(done), [
    ['call-b', { type: 'text', value: 'sent 60000 to eve' }],
    ['call-a', { type: 'execution-denied', reason: 'call_already_executed' }],
  ]);
});

test('with a key ring the kept proposal is sealed: approve grants the seal once; a forged seal and a record changed in the store grant nothing', async () => {
  // A store whose kept proposals the test can reach, as a database administrator could.
  const memory = new Map();
  const grantsStore = wrapMemoryStore(memory);
  const grants = createApprovalGrants({ keys: KEYS, store: grantsStore });
  const executed = [];
  const first = server({ grants, executed, grantScope: 'user:alice' });
  const asked = await first.run(model([], toolCalls(['call-1', '{"amount":50000,"to":"bob"}'], ['call-2', '{"amount":70000,"to":"bob"}'])), PROMPT);
  const history = stored([...PROMPT, ...asked.responseMessages]);
  const [request, other] = history[1].content.filter((p) => p.type === 'tool-approval-request');

  const second = server({ grants, executed, grantScope: 'user:alice' });
  const sealed = await second.gate.keptProposal(request);
  assert.equal(sealed.v, 1);
  assert.equal(sealed.scope, 'user:alice');
  assert.equal(sealed.argsCanonicalJson, '{"amount":50000,"to":"bob"}');
  assert.match(sealed.signature, /^[0-9a-f]{64}$/);

  // A reviewer UI that received the seal and sends back another amount: refused.
  const forged = { ...sealed, argsCanonicalJson: '{"amount":5000000,"to":"bob"}' };
  await assert.rejects(grants.grant(forged), (error) => isApprovalGrantError(error) && error.code === 'bad_signature');

  // The other call's record edited in the store (another amount, a recomputed hash): the
  // gate refuses to grant it.
  const key = [...memory.keys()].find((k) => k.includes('call-2'));
  const edited = JSON.parse(memory.get(key).json);
  edited.argsCanonicalJson = '{"amount":7,"to":"bob"}';
  memory.set(key, { json: JSON.stringify(edited), expiresAt: null });
  await assert.rejects(second.gate.approve(other));

  const approval = await second.gate.approve(request);
  const declined = await second.gate.decline(other, 'the record was changed');
  await second.run(model([]), stored([...history, { role: 'tool', content: [approval, declined] }]));
  assert.deepEqual(executed, ['{"amount":50000,"to":"bob"}']);
  // The seal is spent: granting it again (a replayed approval) is refused by the grants.
  await assert.rejects(grants.grant(sealed), (error) => error.code === 'seal_used');
});

/** The in-memory grants store with its kept proposals in `memory` (to tamper with). */
function wrapMemoryStore(memory) {
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
    put(record, now) {
      void now;
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

test('kept proposals belong to their run and scope: another conversation or another user cannot approve them', async () => {
  const grants = createApprovalGrants({ keys: KEYS });
  const executed = [];
  const alice = server({ grants, executed, runId: 'chat-alice', grantScope: 'user:alice' });
  const asked = await alice.run(model([], toolCalls(['call-1', '{"amount":50000,"to":"bob"}'])), PROMPT);
  const request = asked.content.find((p) => p.type === 'tool-approval-request');

  // Same call id, another chat; same chat, another user.
  const otherChat = server({ grants, executed, runId: 'chat-mallory', grantScope: 'user:alice' });
  await assert.rejects(otherChat.gate.approve(request), { code: 'TAS_NO_PENDING_PROPOSAL' });
  const otherUser = server({ grants, executed, runId: 'chat-alice', grantScope: 'user:mallory' });
  await assert.rejects(otherUser.gate.approve(request), { code: 'TAS_NO_PENDING_PROPOSAL' });
  // A gate without a runId is its own run: only it can approve its requests.
  const anonymous = server({ grants, executed, runId: null, grantScope: 'user:alice' });
  await assert.rejects(anonymous.gate.approve(request), { code: 'TAS_NO_PENDING_PROPOSAL' });
  assert.match(anonymous.gate.runId, /^[0-9a-f-]{36}$/);

  const same = server({ grants, executed, runId: 'chat-alice', grantScope: 'user:alice' });
  assert.equal((await same.gate.approve(request)).approved, true);
  // The grant is alice's: the same action by mallory needs its own approval.
  const mallory = server({ grants, executed, runId: 'chat-m2', grantScope: 'user:mallory' });
  const malloryTurn = await mallory.run(model([], toolCalls(['call-9', '{"amount":50000,"to":"bob"}'])), PROMPT);
  assert.ok(malloryTurn.content.some((p) => p.type === 'tool-approval-request'));
  assert.equal(executed.length, 0);
});

test('the approval never rides in the messages: the model provider receives no proposal, seal or approval request', async () => {
  const grants = createApprovalGrants({ keys: KEYS });
  const executed = [];
  const prompts = [];
  const first = server({ grants, executed });
  const asked = await first.run(model(prompts, toolCalls(['call-1', '{"amount":50000,"to":"bob"}'])), PROMPT);
  const history = stored([...PROMPT, ...asked.responseMessages]);
  const request = history[1].content.find((p) => p.type === 'tool-approval-request');
  const second = server({ grants, executed });
  const sealed = await second.gate.keptProposal(request);
  const approval = await second.gate.approve(request);
  await second.run(model(prompts), stored([...history, { role: 'tool', content: [approval] }]));
  assert.deepEqual(executed, ['{"amount":50000,"to":"bob"}']);
  assert.equal(prompts.length, 2);
  const resumedPrompt = prompts[1];
  for (const secret of [sealed.signature, sealed.nonce, sealed.proposalHash, request.approvalId, 'tool-approval']) {
    assert.equal(resumedPrompt.includes(secret), false, `the provider does not receive ${secret.slice(0, 12)}`);
  }
  assert.equal(JSON.stringify(history).includes(sealed.nonce), false, 'nor do the stored messages hold the seal');
});

test("decline forgets the kept proposal and answers the SDK's denial; a later approve finds nothing", async () => {
  const grants = createApprovalGrants();
  const executed = [];
  const first = server({ grants, executed });
  const asked = await first.run(model([], toolCalls(['call-1', '{"amount":50000,"to":"bob"}'])), PROMPT);
  const history = stored([...PROMPT, ...asked.responseMessages]);
  const request = history[1].content.find((p) => p.type === 'tool-approval-request');
  const second = server({ grants, executed });
  const declined = await second.gate.decline(request, 'not today');
  assert.deepEqual(declined, { type: 'tool-approval-response', approvalId: request.approvalId, approved: false, reason: 'not today' });
  const result = await second.run(model([]), stored([...history, { role: 'tool', content: [declined] }]));
  assert.deepEqual(toolOutputs(result), [['call-1', { type: 'execution-denied', reason: 'not today' }]]);
  await assert.rejects(second.gate.approve(request), { code: 'TAS_NO_PENDING_PROPOSAL' });
  assert.equal(executed.length, 0);
});

test('a grants store without kept proposals: approve works in the gate that asked, once', async () => {
  const base = createApprovalGrants();
  void base;
  const memory = new Map();
  const { putProposal, getProposal, deleteProposal, ...store } = wrapMemoryStore(memory);
  void putProposal;
  void getProposal;
  void deleteProposal;
  const grants = createApprovalGrants({ store });
  const executed = [];
  const app = server({ grants, executed });
  const asked = await app.run(model([], toolCalls(['call-1', '{"amount":50000,"to":"bob"}'])), PROMPT);
  const part = asked.content.find((p) => p.type === 'tool-approval-request');
  assert.equal(app.gate.proposalOf(part).argsCanonicalJson, '{"amount":50000,"to":"bob"}');
  const approval = await app.gate.approve(part);
  await assert.rejects(app.gate.approve(part), { code: 'TAS_NO_PENDING_PROPOSAL' });
  await app.run(model([]), [...PROMPT, ...asked.responseMessages, { role: 'tool', content: [approval] }]);
  assert.deepEqual(executed, ['{"amount":50000,"to":"bob"}']);
});

test('a provider tool call without an id is invalid input (missing_call_id): no policy, nothing executes', async () => {
  let policyRan = 0;
  const executed = [];
  const app = server({
    grants: createApprovalGrants(),
    executed,
    policy: () => {
      policyRan++;
      return { decision: 'allow', reason: 'any' };
    },
  });
  const result = await app.run(model([], toolCalls(['', '{"amount":5,"to":"bob"}'])), PROMPT);
  const call = result.steps[0].content.find((p) => p.type === 'tool-call');
  assert.equal(call.invalid, true);
  let cause = call.error;
  while (cause != null && !isToolArgumentsValidationError(cause)) cause = cause.cause;
  assert.deepEqual([cause?.stage, cause?.code], ['json', 'missing_call_id']);
  assert.doesNotMatch(cause.message, /bob|amount/);
  assert.equal(policyRan, 0);
  assert.equal(executed.length, 0);
});

test("a policy per tool: each tool's calls reach its own policy; a tool without one needs a grant (or is denied without grants); an unknown tool name is refused", async () => {
  const seen = [];
  const executed = [];
  const tools = {
    transfer: tool({ inputSchema: z.object({ amount: z.number() }), execute: async (args) => executed.push(`transfer ${args.amount}`) }),
    note: tool({ inputSchema: z.object({ text: z.string() }), execute: async (args) => executed.push(`note ${args.text}`) }),
    audit: tool({ inputSchema: z.object({}), execute: async () => executed.push('audit') }),
  };
  const policy = {
    transfer: (input) => {
      seen.push(['transfer', input.toolName, input.parsedArguments.amount]);
      return { decision: 'allow', reason: 'ok' };
    },
    note: (input) => {
      seen.push(['note', input.toolName, input.parsedArguments.text]);
      return { decision: 'deny', reason: 'no notes' };
    },
  };
  const response = toolCalls(['c1', '{"amount":3}', 'transfer'], ['c2', '{"text":"hi"}', 'note'], ['c3', '{}', 'audit']);
  const bare = createToolGate({ agentName: 'ops', tools, policy });
  const result = await generateText({
    model: bare.model(model([], response)),
    tools: bare.tools,
    toolApproval: bare.toolApproval,
    stopWhen: stepCountIs(2),
    messages: PROMPT,
  });
  assert.deepEqual(seen, [
    ['transfer', 'transfer', 3],
    ['note', 'note', 'hi'],
  ]);
  assert.deepEqual(executed, ['transfer 3']);
  const reasons = Object.fromEntries(result.steps[0].content.filter((p) => p.type === 'tool-approval-response').map((p) => [p.toolCall.toolCallId, p.reason]));
  assert.deepEqual(reasons, { c2: 'no notes', c3: 'policy_not_configured' });

  const withGrants = createToolGate({ agentName: 'ops', tools, policy, grants: createApprovalGrants() });
  const asked = await generateText({
    model: withGrants.model(model([], response)),
    tools: withGrants.tools,
    toolApproval: withGrants.toolApproval,
    stopWhen: stepCountIs(2),
    messages: PROMPT,
  });
  assert.deepEqual(
    asked.content.filter((p) => p.type === 'tool-approval-request' && !p.isAutomatic).map((p) => [p.toolCall.toolCallId, p.reason]),
    [['c3', 'approval_required']],
  );

  assert.throws(() => createToolGate({ agentName: 'ops', tools, policy: { refund: () => ({ decision: 'allow', reason: 'x' }) } }), TypeError);
  assert.throws(() => createToolGate({ agentName: 'ops', tools, policy: { note: 'allow' } }), TypeError);
});

test('Proxy inputs are refused unread: options, tools, a tool, a policy map, an approval request', async () => {
  const traps = [];
  const spy = (target) =>
    new Proxy(target, {
      get(t, k, r) {
        traps.push(String(k));
        return Reflect.get(t, k, r);
      },
      getOwnPropertyDescriptor(t, k) {
        traps.push(String(k));
        return Reflect.getOwnPropertyDescriptor(t, k);
      },
      ownKeys(t) {
        traps.push('ownKeys');
        return Reflect.ownKeys(t);
      },
      has(t, k) {
        traps.push(String(k));
        return Reflect.has(t, k);
      },
    });
  const tools = { transfer: tool({ inputSchema: z.object({ amount: z.number() }), execute: async () => 'ok' }) };
  const allow = () => ({ decision: 'allow', reason: 'ok' });
  assert.throws(() => createToolGate(spy({ agentName: 'a', tools, policy: allow })), TypeError);
  assert.throws(() => createToolGate({ agentName: 'a', tools: spy(tools), policy: allow }), TypeError);
  assert.throws(() => createToolGate({ agentName: 'a', tools: { transfer: spy(tools.transfer) }, policy: allow }), TypeError);
  assert.throws(() => createToolGate({ agentName: 'a', tools, policy: spy({ transfer: allow }) }), TypeError);
  const gate = createToolGate({ agentName: 'a', tools, policy: allow, runId: 'chat-1' });
  await assert.rejects(gate.approve(spy({ approvalId: 'a1', toolCallId: 'c1' })), TypeError);
  await assert.rejects(gate.approve({ approvalId: 'a1', toolCallId: 'c1' }, spy({ uses: 2 })), TypeError);
  assert.deepEqual(traps, []);
});

test('without the ai package the adapter says which optional peer to install', () => {
  const { spawnSync } = require('node:child_process');
  const script = `
    const Module = require('node:module');
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      if (request === 'ai' || request.startsWith('ai/')) {
        const error = new Error("Cannot find module '" + request + "'");
        error.code = 'MODULE_NOT_FOUND';
        throw error;
      }
      return resolve.call(this, request, ...rest);
    };
    try { require('tool-argument-snapshot/ai'); } catch (error) { console.log(error.code + ' ' + error.packageName + ' ' + error.message); }
    console.log(typeof require('tool-argument-snapshot').prepareToolCall);
  `;
  const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', cwd: __dirname });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(
    result.stdout,
    'MODULE_NOT_FOUND ai tool-argument-snapshot/ai needs the Vercel AI SDK 7 (an optional peer dependency): npm install ai\nfunction\n',
  );
});

test('typed policies: parsedArguments typed per tool, policy maps, no TS2589 (tsc --strict)', () => {
  const { spawnSync } = require('node:child_process');
  const { join } = require('node:path');
  const tsc = require.resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(__dirname, '..', '..', 'package', 'types', 'ai-policies', 'tsconfig.json')], {
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
});

test('a jsonSchema tool with its own validate keeps it as the one parse', async () => {
  let validations = 0;
  const executed = [];
  const tools = {
    note: tool({
      inputSchema: jsonSchema(
        { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        {
          validate: (value) => {
            validations++;
            return typeof value.text === 'string' ? { success: true, value: { text: value.text.trim() } } : { success: false, error: new Error('text') };
          },
        },
      ),
      execute: async (args) => executed.push(JSON.stringify(args)),
    }),
  };
  const gate = createToolGate({ agentName: 'ops', tools, policy: () => ({ decision: 'allow', reason: 'any' }) });
  await generateText({
    model: gate.model(model([], toolCalls(['n', '{"text":"  hi  "}', 'note']))),
    tools: gate.tools,
    toolApproval: gate.toolApproval,
    stopWhen: stepCountIs(2),
    messages: PROMPT,
  });
  assert.deepEqual(executed, ['{"text":"hi"}']);
  assert.equal(validations, 1);
});

test('a store that fails while the proposal is kept: the call is denied (grant_store_unavailable), never asked of a reviewer who could not grant it', async () => {
  const store = wrapMemoryStore(new Map());
  store.putProposal = () => {
    throw new Error('disk full');
  };
  const executed = [];
  const app = server({ grants: createApprovalGrants({ store }), executed });
  const result = await app.run(model([], toolCalls(['call-1', '{"amount":50000,"to":"bob"}'])), PROMPT);
  assert.equal(
    result.content.some((p) => p.type === 'tool-approval-request' && !p.isAutomatic),
    false,
  );
  assert.deepEqual(toolOutputs(result), [['call-1', { type: 'execution-denied', reason: 'grant_store_unavailable' }]]);
  assert.equal(executed.length, 0);
});
