'use strict';
// MCP tools through tool-argument-snapshot/ai (issue 18 item 3): a real MCP server of
// @modelcontextprotocol/sdk (adapters/ai/mcp-server.js) reached through the AI SDK's own MCP
// client, @ai-sdk/mcp, over stdio (a child process, the client's StdioMCPTransport) and
// over the MCP SDK's in-memory transport (the client accepts an SDK transport). The tools
// the client makes carry JSON Schema that it does not validate: the gate validates it with
// fromJsonSchema, once per attempt. @ai-sdk/mcp needs Node >= 22: on older Node these tests
// are skipped (package/node-lines.test.js runs them under the newest Node line).

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { generateText, stepCountIs } = require('ai');
const { MockLanguageModelV4 } = require('ai/test');
const { createApprovalGrants, ToolArgumentsValidationError } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/ai');

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const SKIP =
  NODE_MAJOR < 22 && `@ai-sdk/mcp needs Node >= 22 (this is ${process.versions.node}; package/node-lines.test.js runs this file under the newest Node line)`;
const SERVER = path.join(__dirname, 'mcp-server.js');

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const TEXT = { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE };
const PROMPT = [{ role: 'user', content: 'pay' }];

function calls(...list) {
  return {
    content: list.map(([toolCallId, input]) => ({ type: 'tool-call', toolCallId, toolName: 'transfer', input })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE,
  };
}

function model(...responses) {
  return new MockLanguageModelV4({ doGenerate: [...responses, TEXT, TEXT] });
}

function validationCause(error) {
  for (let e = error, i = 0; e != null && i < 6; e = e.cause, i++) if (e instanceof ToolArgumentsValidationError) return e;
  return undefined;
}

const policy = (input) => {
  const { amount } = input.parsedArguments;
  return amount <= 1000 ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large' };
};

/** The MCP server over stdio (a child process): the AI SDK's MCP client and what the server ran. */
async function stdioServer(t) {
  const { createMCPClient } = await import('@ai-sdk/mcp');
  const { StdioMCPTransport } = await import('@ai-sdk/mcp/mcp-stdio');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-ai-mcp-'));
  const log = path.join(dir, 'transfers.log');
  fs.writeFileSync(log, '');
  const client = await createMCPClient({
    transport: new StdioMCPTransport({ command: process.execPath, args: [SERVER], env: { ...process.env, TAS_AI_MCP_LOG: log } }),
  });
  t.after(async () => {
    await client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { client, ran: () => fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

/** The MCP server in this process over the MCP SDK's linked in-memory transports. */
async function inMemoryServer(t) {
  const { createMCPClient } = await import('@ai-sdk/mcp');
  const { InMemoryTransport } = require('@modelcontextprotocol/sdk/inMemory.js');
  const { createPayServer } = require('./mcp-server.js');
  const transfers = [];
  const server = createPayServer((args) => transfers.push(args));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = await createMCPClient({ transport: clientTransport });
  t.after(async () => {
    await client.close();
    await server.close();
  });
  return { client, ran: () => transfers };
}

for (const [transport, connect] of [
  ['stdio', stdioServer],
  ['in-memory', inMemoryServer],
]) {
  test(`${transport}: the AI SDK alone sends a duplicate key's last value to the MCP server and leaves the schema to it`, { skip: SKIP }, async (t) => {
    const { client, ran } = await connect(t);
    const tools = await client.tools();
    const result = await generateText({
      model: model(calls(['c1', '{"amount":1,"to":"bob","amount":9999900}'], ['c2', '{"amount":"lots","to":"bob"}'])),
      tools,
      stopWhen: stepCountIs(2),
      messages: PROMPT,
    });
    assert.deepEqual(ran(), ['{"amount":9999900,"to":"bob"}']);
    const c2 = result.steps[0].toolResults.find((r) => r.toolCallId === 'c2');
    assert.equal(c2.output.isError, true, 'the server refused what the client sent unchecked');
  });

  test(
    `${transport}: through the gate, an MCP tool's JSON Schema runs in the package: a duplicate key and a schema violation never reach the server; an allowed call runs there once with the validated arguments`,
    { skip: SKIP },
    async (t) => {
      const { client, ran } = await connect(t);
      const tools = await client.tools();
      assert.equal(tools.transfer.type, 'dynamic');
      const seen = [];
      const gate = createToolGate({
        agentName: 'payments',
        tools,
        policy: (input) => {
          seen.push([input.toolCallId, input.argsCanonicalJson]);
          return policy(input);
        },
      });
      const result = await generateText({
        model: gate.model(
          model(calls(['c1', '{"amount":1,"to":"bob","amount":9999900}'], ['c2', '{"amount":"lots","to":"bob"}'], ['c3', ' {"to":"eve","amount":700} '])),
        ),
        tools: gate.tools,
        toolApproval: gate.toolApproval,
        stopWhen: stepCountIs(2),
        messages: PROMPT,
      });
      assert.deepEqual(ran(), ['{"amount":700,"to":"eve"}']);
      assert.deepEqual(seen, [['c3', '{"amount":700,"to":"eve"}']]);
      const invalid = Object.fromEntries(
        result.steps[0].content
          .filter((p) => p.type === 'tool-call' && p.invalid)
          .map((p) => [p.toolCallId, `${validationCause(p.error).stage} ${validationCause(p.error).code}`]),
      );
      assert.deepEqual(invalid, { c1: 'json duplicate_key', c2: 'schema schema_error' });
      const output = result.steps[0].toolResults.find((r) => r.toolCallId === 'c3').output;
      assert.deepEqual(output.content, [{ type: 'text', text: 'sent 700 to eve' }]);
    },
  );

  test(
    `${transport}: an MCP tool call needing approval, approved through another gate, runs on the server once; a replay runs nothing`,
    { skip: SKIP },
    async (t) => {
      const { client, ran } = await connect(t);
      const grants = createApprovalGrants({ keys: [{ id: 'k1', secret: 'a-secret-of-at-least-thirty-two-bytes!!' }] });
      const gateFor = async () =>
        createToolGate({ agentName: 'payments', tools: await client.tools(), policy, grants, runId: `chat-${transport}`, grantScope: 'user:alice' });
      const first = await gateFor();
      const asked = await generateText({
        model: first.model(model(calls(['c1', '{"amount":50000,"to":"bob"}']))),
        tools: first.tools,
        toolApproval: first.toolApproval,
        stopWhen: stepCountIs(2),
        messages: PROMPT,
      });
      assert.deepEqual(ran(), []);
      const history = JSON.parse(JSON.stringify([...PROMPT, ...asked.responseMessages]));
      const request = history[1].content.find((p) => p.type === 'tool-approval-request');

      const second = await gateFor();
      assert.equal((await second.keptProposal(request)).argsCanonicalJson, '{"amount":50000,"to":"bob"}');
      const approval = await second.approve(request);
      const resumed = [...history, { role: 'tool', content: [approval] }];
      await generateText({ model: second.model(model()), tools: second.tools, toolApproval: second.toolApproval, stopWhen: stepCountIs(2), messages: resumed });
      assert.deepEqual(ran(), ['{"amount":50000,"to":"bob"}']);

      const third = await gateFor();
      await generateText({ model: third.model(model()), tools: third.tools, toolApproval: third.toolApproval, stopWhen: stepCountIs(2), messages: resumed });
      assert.deepEqual(ran(), ['{"amount":50000,"to":"bob"}']);
    },
  );
}
