'use strict';
// MCP tools through tool-argument-snapshot/langchain: a real MCP server of
// @modelcontextprotocol/sdk (McpServer over stdio, this file run as a child process)
// reached through LangChain's own MCP client (@langchain/mcp-adapters'
// MultiServerMCPClient), whose tools are DynamicStructuredTools with JSON Schema schemas.
// The gate runs each schema once through fromJsonSchema. What the server executed is read
// from a log it writes; nothing here trusts the gate's own report of it.

const SERVER = process.env.TAS_LC_MCP_SERVER;

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

if (SERVER) {
  // The MCP server: a bank with one tool, logging every execution.
  const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
  const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
  const { z } = require('zod');
  const server = new McpServer({ name: 'bank', version: '1.0.0' });
  server.registerTool('transfer', { description: 'Send money', inputSchema: { to: z.string(), cents: z.number().int().positive() } }, async (args) => {
    fs.appendFileSync(SERVER, `${JSON.stringify(args)}\n`);
    return { content: [{ type: 'text', text: `sent ${args.cents} cents to ${args.to}` }] };
  });
  server.connect(new StdioServerTransport());
} else {
  const { describe, test, before, after } = require('node:test');
  const assert = require('node:assert/strict');
  const { createHash } = require('node:crypto');
  const { MultiServerMCPClient } = require('@langchain/mcp-adapters');
  const { BaseChatModel } = require('@langchain/core/language_models/chat_models');
  const { AIMessage, HumanMessage, ToolMessage } = require('@langchain/core/messages');
  const { parseToolCall } = require('@langchain/core/output_parsers/openai_tools');
  const { createAgent } = require('langchain');
  const { MemorySaver, Command } = require('@langchain/langgraph');
  const { createApprovalGrants } = require('tool-argument-snapshot');
  const { createToolGate, toolGateMiddleware } = require('tool-argument-snapshot/langchain');

  const AGENT = 'Payments assistant';

  class ScriptedChatOpenAI extends BaseChatModel {
    constructor(turns) {
      super({});
      this.turns = turns;
    }
    _llmType() {
      return 'scripted-openai';
    }
    bindTools() {
      return this;
    }
    async _generate() {
      const turn = this.turns.shift() ?? [];
      const raw = turn.map(([id, name, text]) => ({ id, type: 'function', function: { name, arguments: text } }));
      const message = new AIMessage({
        content: raw.length === 0 ? 'done' : '',
        additional_kwargs: raw.length === 0 ? {} : { tool_calls: raw },
        tool_calls: raw.map((call) => parseToolCall(call, { returnId: true })),
      });
      return { generations: [{ text: '', message }] };
    }
  }

  describe('MCP tools (stdio McpServer, @langchain/mcp-adapters) through the LangChain gate', () => {
    let dir;
    let log;
    let client;
    let tools;

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-lc-mcp-'));
      log = path.join(dir, 'executed.log');
      client = new MultiServerMCPClient({
        mcpServers: { bank: { transport: 'stdio', command: process.execPath, args: [__filename], env: { ...process.env, TAS_LC_MCP_SERVER: log } } },
      });
      tools = await client.getTools();
    });

    after(async () => {
      await client?.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const executed = () =>
      fs.existsSync(log)
        ? fs
            .readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [];
    const reset = () => fs.rmSync(log, { force: true });

    test('the MCP tool is a JSON-schema tool; a duplicate key: LangChain alone makes the server execute the last value, the gate executes nothing', async () => {
      reset();
      const [transfer] = tools;
      assert.equal(transfer.name, 'transfer');
      assert.equal(typeof transfer.schema.parse, 'undefined', 'a JSON Schema, not zod');
      assert.equal(transfer.schema.type, 'object');

      const raw = '{"to":"bob","cents":5,"cents":5000000}';
      const ai = await new ScriptedChatOpenAI([[['call_1', 'transfer', raw]]]).invoke([new HumanMessage('pay')]);
      await transfer.invoke(ai.tool_calls[0]);
      assert.deepEqual(executed(), [{ to: 'bob', cents: 5000000 }], 'LangChain alone: the server ran the last value');

      reset();
      const seen = [];
      const gate = createToolGate({ agentName: AGENT, tools, policy: (input) => (seen.push(input), { decision: 'allow', reason: 'ok' }) });
      const { results } = await gate.run(ai);
      assert.deepEqual(
        results.map((r) => [r.status, r.stage, r.code]),
        [['invalid_input', 'json', 'duplicate_key']],
      );
      assert.equal(seen.length, 0);
      assert.deepEqual(executed(), [], 'the server executed nothing');
    });

    test('allowed: the schema runs once in the package (an invalid call never reaches the server), and the server gets exactly the canonical arguments', async () => {
      reset();
      const seen = [];
      const gate = createToolGate({
        agentName: AGENT,
        tools,
        policy: {
          transfer: (input) => {
            seen.push([input.toolName, input.argsCanonicalJson, input.proposalHash, input.parsedArguments]);
            return { decision: 'allow', reason: 'ok' };
          },
        },
      });
      const ai = await new ScriptedChatOpenAI([
        [
          ['call_1', 'transfer', '{ "cents" : 250.0, "to" : "alice" }'],
          ['call_2', 'transfer', '{"to":"eve","cents":-5}'],
        ],
      ]).invoke([new HumanMessage('pay')]);
      const { results, messages } = await gate.run(ai);
      assert.deepEqual(
        results.map((r) => [r.toolCallId, r.status, r.code]),
        [
          ['call_1', 'executed', undefined],
          ['call_2', 'invalid_input', 'schema_error'],
        ],
      );
      const json = '{"cents":250,"to":"alice"}';
      const hash = createHash('sha256')
        .update(JSON.stringify({ agentName: AGENT, argsCanonicalJson: json, kind: 'tool', toolName: 'transfer' }))
        .digest('hex');
      assert.deepEqual(seen, [['transfer', json, hash, { cents: 250, to: 'alice' }]]);
      assert.deepEqual(executed(), [{ cents: 250, to: 'alice' }]);
      assert.equal(messages[0].tool_call_id, 'call_1');
      assert.match(JSON.stringify(messages[0].content), /sent 250 cents to alice/);
    });

    test('createAgent with toolGateMiddleware: an MCP call over the limit waits for approval and the server runs it once after the approval', async () => {
      reset();
      const grants = createApprovalGrants({ keys: [{ id: 'k1', secret: 'a secret of at least thirty-two bytes' }] });
      const middleware = toolGateMiddleware({
        agentName: AGENT,
        tools,
        grants,
        policy: (input) => {
          const args = input.parsedArguments;
          const cents = args !== null && typeof args === 'object' && !Array.isArray(args) && typeof args.cents === 'number' ? args.cents : Infinity;
          return { decision: cents > 1000 ? 'require_approval' : 'allow', reason: 'amount' };
        },
      });
      const agent = createAgent({
        model: new ScriptedChatOpenAI([
          [
            ['call_1', 'transfer', '{"to":"bob","cents":250000}'],
            ['call_2', 'transfer', '{"to":"carol","cents":300}'],
          ],
          [],
        ]),
        tools,
        middleware: [middleware],
        checkpointer: new MemorySaver(),
      });
      const config = { configurable: { thread_id: `mcp-${Date.now()}` } };
      const first = await agent.invoke({ messages: [{ role: 'user', content: 'pay' }] }, config);
      assert.deepEqual(executed(), [{ to: 'carol', cents: 300 }]);
      assert.deepEqual(
        first.__interrupt__.map((i) => i.value.actionRequests.map((a) => [a.toolCallId, a.args])),
        [[['call_1', { cents: 250000, to: 'bob' }]]],
      );
      const done = await agent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), config);
      assert.deepEqual(executed(), [
        { to: 'carol', cents: 300 },
        { cents: 250000, to: 'bob' },
      ]);
      const answers = done.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, m.status ?? 'success']);
      assert.deepEqual(answers.sort(), [
        ['call_1', 'success'],
        ['call_2', 'success'],
      ]);
    });
  });
}
