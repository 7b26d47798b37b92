'use strict';
// A Cedar policy behind a grants object (issue 27, item 3): wherever a policy is wrapped by
// `grants.policy(...)` (every gate does it), a Cedar policy made by createCedarPolicy
// decides first and the grants answer only the approval its set asks for, so a forbid wins
// over a live grant. Shown through the package's API, through gateMcpServer with the MCP
// SDK's own Client and McpServer, and through the AI SDK gate with the SDK's mock model;
// the same Cedar policy decides alike in both gates. Expected decisions are Cedar's rules
// (default deny, forbid overrides permit) and issue 27's reasons.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { z } = require('zod');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { generateText, tool, stepCountIs } = require('ai');
const { MockLanguageModelV4 } = require('ai/test');

const { createCedarPolicy, createApprovalGrants, prepareToolCall, evaluateToolCall, authorizeToolCall, executeToolCall } = require('tool-argument-snapshot');
const { gateMcpServer } = require('tool-argument-snapshot/mcp');
const { createToolGate } = require('tool-argument-snapshot/ai');

const AGENT = 'payments';
const POLICIES = [
  '@id("small")',
  'permit(principal, action == Action::"pay", resource) when { context.input.amount < 400 };',
  '@id("big")',
  '@approval("required")',
  'permit(principal, action == Action::"pay", resource) when { context.input.amount >= 400 && context.input.amount < 10000 };',
  '@id("no-mallory")',
  'forbid(principal, action, resource) when { context.input.to == "mallory" };',
  '',
].join('\n');
const paySchema = () => z.object({ to: z.string(), amount: z.number().int().positive() });

function cedarPolicy() {
  return createCedarPolicy({ policies: POLICIES, tools: { pay: paySchema() } });
}

function prepare(args) {
  return prepareToolCall({ agentName: AGENT, toolName: 'pay', rawArguments: JSON.stringify(args) });
}

test("grants.policy(cedarPolicy): a forbid denies over a live grant, which stays unspent; so does a JavaScript policy's deny", async () => {
  const grants = createApprovalGrants();
  const cedar = cedarPolicy();
  const args = { to: 'mallory', amount: 500 };
  await grants.grant(prepare(args));

  const d = await evaluateToolCall({ prepared: prepare(args), policy: grants.policy(cedar) });
  assert.equal(d.decision, 'deny');
  assert.equal(d.reason, 'forbidden');
  assert.deepEqual(d.policyResult.policies, ['no-mallory']);
  assert.equal(await grants.has(prepare(args)), true, 'the grant was not spent');

  const calls = [];
  const outcome = await authorizeToolCall({ prepared: prepare(args), policy: grants.policy(cedar), execute: () => calls.push(1), grants });
  assert.equal(outcome.reason, 'forbidden');
  assert.deepEqual(calls, []);

  // The same forbid written in JavaScript decides first too (issue 33): its deny is final.
  const jsForbid = (input) => (input.parsedArguments.to === 'mallory' ? { decision: 'deny', reason: 'forbidden' } : { decision: 'allow', reason: 'ok' });
  assert.equal((await evaluateToolCall({ prepared: prepare(args), policy: grants.policy(jsForbid) })).reason, 'forbidden');
  // So is a function that only calls the Cedar policy, or one that copies its properties:
  // a Cedar policy is known by its identity, never by a property a caller could set, and
  // called on its own it has no lookup, so its deny is the answer.
  const wrapped = (input) => cedar(input);
  assert.equal((await evaluateToolCall({ prepared: prepare(args), policy: grants.policy(wrapped) })).reason, 'forbidden');
  const lookalike = Object.assign(async (input) => cedar(input), { update: cedar.update, policySetHash: cedar.policySetHash });
  assert.equal((await evaluateToolCall({ prepared: prepare(args), policy: grants.policy(lookalike) })).reason, 'forbidden');
  assert.equal(await grants.has(prepare(args)), true, 'no deny spent the grant');
});

test('grants.policy(cedarPolicy): the grants answer @approval("required") (spent once), never a default deny', async () => {
  const grants = createApprovalGrants();
  const policy = grants.policy(cedarPolicy());
  const big = { to: 'bob', amount: 500 };
  const asked = await evaluateToolCall({ prepared: prepare(big), policy });
  assert.equal(asked.decision, 'require_approval');
  assert.equal(asked.reason, 'approval_required');
  assert.deepEqual(asked.policyResult.policies, ['big']);
  await grants.grant(asked.proposal);
  const allowed = await evaluateToolCall({ prepared: prepare(big), policy });
  assert.equal(allowed.decision, 'allow');
  assert.equal(allowed.reason, 'approval_granted');
  assert.deepEqual(allowed.policyResult.policies, ['big']);
  const ran = [];
  await executeToolCall(allowed, (view) => ran.push(view.amount), { grants });
  assert.deepEqual(ran, [500]);
  assert.equal((await evaluateToolCall({ prepared: prepare(big), policy })).decision, 'require_approval', 'spent by the one execution');

  // A small payment is permitted without touching the grants; one no policy permits stays denied with a live grant.
  const small = await evaluateToolCall({ prepared: prepare({ to: 'bob', amount: 5 }), policy });
  assert.equal(small.reason, 'permitted');
  const huge = { to: 'bob', amount: 20000 };
  await grants.grant(prepare(huge));
  const denied = await evaluateToolCall({ prepared: prepare(huge), policy });
  assert.equal(denied.decision, 'deny');
  assert.equal(denied.reason, 'no_permit');
  assert.equal(await grants.has(prepare(huge)), true);
});

/** An McpServer with a `pay` tool whose executions land in `executed`. */
function payServer(executed) {
  const server = new McpServer({ name: 'payments', version: '1.0.0' });
  server.registerTool('pay', { inputSchema: paySchema().shape }, async (args) => {
    executed.push(args);
    return { content: [{ type: 'text', text: `paid ${args.amount}` }] };
  });
  return server;
}

async function mcpClient(options) {
  const executed = [];
  const server = payServer(executed);
  const gate = gateMcpServer(server, { agentName: AGENT, ...options });
  const [clientTransport, serverTransport] = gate.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(clientTransport);
  return { client, executed, close: () => client.close() };
}

/** What gateMcpServer decided for one call: [decision, reason], and whether the tool ran. */
async function mcpDecision(mcp, args) {
  const before = mcp.executed.length;
  const result = await mcp.client.callTool({ name: 'pay', arguments: args });
  const ran = mcp.executed.length > before;
  if (result.isError !== true) return { decision: 'allow', ran };
  return { decision: result.structuredContent.decision, reason: result.structuredContent.reason, ran };
}

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const TEXT = { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE };
const toolCall = (args) => ({
  content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'pay', input: JSON.stringify(args) }],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage: USAGE,
});

function aiApp(options) {
  const executed = [];
  const decisions = [];
  const tools = {
    pay: tool({
      description: 'Pay someone',
      inputSchema: paySchema(),
      execute: async (args) => {
        executed.push(args);
        return `paid ${args.amount}`;
      },
    }),
  };
  const gate = createToolGate({ agentName: AGENT, tools, onDecision: (decision) => decisions.push(decision), ...options });
  async function decide(args) {
    const before = executed.length;
    await generateText({
      model: gate.model(new MockLanguageModelV4({ doGenerate: [toolCall(args), TEXT] })),
      tools: gate.tools,
      toolApproval: gate.toolApproval,
      stopWhen: stepCountIs(3),
      messages: [{ role: 'user', content: 'pay' }],
    });
    const last = decisions.at(-1);
    const ran = executed.length > before;
    return last.decision === 'allow' ? { decision: 'allow', ran } : { decision: last.decision, reason: last.reason, ran };
  }
  return { decide, executed };
}

test('gateMcpServer with a Cedar policy and grants: a forbid denies over a live grant and nothing runs', async () => {
  const grants = createApprovalGrants();
  const mcp = await mcpClient({ policy: cedarPolicy(), grants });
  try {
    const args = { to: 'mallory', amount: 500 };
    await grants.grant(prepare(args));
    assert.deepEqual(await mcpDecision(mcp, args), { decision: 'deny', reason: 'forbidden', ran: false });
    assert.equal(await grants.has(prepare(args)), true);
    // The approval the set asks for is what a grant answers.
    const big = { to: 'bob', amount: 500 };
    assert.deepEqual(await mcpDecision(mcp, big), { decision: 'require_approval', reason: 'approval_required', ran: false });
    await grants.grant(prepare(big));
    assert.deepEqual(await mcpDecision(mcp, big), { decision: 'allow', ran: true });
    assert.deepEqual(mcp.executed, [big]);
  } finally {
    await mcp.close();
  }
});

test('the AI SDK gate with a Cedar policy and grants: a forbid denies over a live grant and nothing runs', async () => {
  const grants = createApprovalGrants();
  const app = aiApp({ policy: cedarPolicy(), grants });
  const args = { to: 'mallory', amount: 500 };
  await grants.grant(prepare(args));
  assert.deepEqual(await app.decide(args), { decision: 'deny', reason: 'forbidden', ran: false });
  assert.equal(await grants.has(prepare(args)), true);
  assert.deepEqual(app.executed, []);
});

test('one Cedar policy decides alike in gateMcpServer and in the AI SDK gate', async () => {
  const cases = [
    [
      { to: 'bob', amount: 5 },
      { decision: 'allow', ran: true },
    ],
    [
      { to: 'bob', amount: 500 },
      { decision: 'require_approval', reason: 'approval_required', ran: false },
    ],
    [
      { to: 'mallory', amount: 5 },
      { decision: 'deny', reason: 'forbidden', ran: false },
    ],
    [
      { to: 'bob', amount: 20000 },
      { decision: 'deny', reason: 'no_permit', ran: false },
    ],
  ];
  const policy = cedarPolicy();
  const mcp = await mcpClient({ policy });
  const ai = aiApp({ policy });
  try {
    for (const [args, expected] of cases) {
      const label = JSON.stringify(args);
      assert.deepEqual(await mcpDecision(mcp, args), expected, `gateMcpServer ${label}`);
      assert.deepEqual(await ai.decide(args), expected, `AI SDK gate ${label}`);
    }
  } finally {
    await mcp.close();
  }
});
