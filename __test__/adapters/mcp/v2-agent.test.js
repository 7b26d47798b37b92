'use strict';
// The agent side on the MCP TypeScript SDK 2.x (issue 38, item 4): a 2.x server
// (createMcpHandler over a real HTTP server on 127.0.0.1) lists its zod tools as JSON
// Schema draft 2020-12; the 2.x Client's listing compiles with fromJsonSchema and gates a
// call through the package's core API, and the AI SDK's MCP client (@ai-sdk/mcp, Node >= 22:
// skipped visibly before, package/node-lines.test.js runs this file under the newest Node line) on
// the same server is gated by tool-argument-snapshot/ai with those schemas.

const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { z } = require('zod');
const { McpServer, createMcpHandler } = require('@modelcontextprotocol/server');
const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');
const { fromJsonSchema, prepareToolCall, evaluateToolCall, executeToolCall } = require('tool-argument-snapshot');

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const SKIP_AI =
  NODE_MAJOR < 22 && `@ai-sdk/mcp needs Node >= 22 (this is ${process.versions.node}; package/node-lines.test.js runs this file under the newest Node line)`;

/** A 2.x server with a `scale` tool (zod), served by the SDK's createMcpHandler: `{ url, ran, close }`. */
async function scaleServer(t) {
  const ran = [];
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'ops', version: '1.0.0' });
    server.registerTool(
      'scale',
      { description: 'Scale a service', inputSchema: z.object({ service: z.string().min(1), replicas: z.number().int().min(1) }) },
      async ({ service, replicas }) => {
        ran.push({ service, replicas });
        return { content: [{ type: 'text', text: `${service} runs ${replicas}` }] };
      },
    );
    return server;
  });
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const response = await handler.fetch(
      new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: req.method === 'POST' ? Buffer.concat(chunks) : undefined }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await handler.close();
  });
  return { url: `http://127.0.0.1:${server.address().port}/mcp`, ran };
}

const policy = (input) => ({ decision: input.parsedArguments.replicas <= 10 ? 'allow' : 'deny', reason: 'replica_limit' });

for (const mode of ['2026-07-28', 'legacy']) {
  test(`the 2.x Client (${mode}): its tool listing compiles with fromJsonSchema (draft 2020-12) and gates a call through the core API`, async (t) => {
    const { url, ran } = await scaleServer(t);
    const client = new Client({ name: 'agent', version: '1.0.0' }, mode === 'legacy' ? {} : { versionNegotiation: { mode: { pin: mode } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    t.after(() => client.close());
    const { tools } = await client.listTools();
    assert.equal(tools[0].inputSchema.$schema, 'https://json-schema.org/draft/2020-12/schema', 'what the 2.x server lists');
    const schema = fromJsonSchema(tools[0].inputSchema);
    assert.equal(schema.dialect, 'draft-2020-12');
    const run = async (rawArguments) => {
      const prepared = prepareToolCall({ agentName: 'ops', toolName: 'scale', rawArguments, schema });
      const decision = await evaluateToolCall({ prepared, policy });
      if (decision.decision !== 'allow') return `${decision.decision}: ${decision.reason}`;
      return (await executeToolCall(decision, (args) => client.callTool({ name: 'scale', arguments: args }))).content[0].text;
    };
    assert.equal(await run('{"service":"api","replicas":3}'), 'api runs 3');
    assert.equal(await run('{"service":"api","replicas":30}'), 'deny: replica_limit');
    await assert.rejects(run('{"service":"api","replicas":3,"replicas":300}'), { stage: 'json', code: 'duplicate_key' });
    await assert.rejects(run('{"service":"","replicas":3}'), { stage: 'schema', code: 'schema_error' });
    await assert.rejects(run('{"service":"api","replicas":2.5}'), { stage: 'schema', code: 'schema_error' });
    assert.deepEqual(ran, [{ service: 'api', replicas: 3 }]);
  });
}

test(
  "the AI SDK's MCP client on a 2.x server: tool-argument-snapshot/ai validates the listed JSON Schema once; a duplicate key and a schema violation never reach the server",
  { skip: SKIP_AI },
  async (t) => {
    const { generateText, stepCountIs } = require('ai');
    const { MockLanguageModelV4 } = require('ai/test');
    const { createToolGate } = require('tool-argument-snapshot/ai');
    const { createMCPClient } = await import('@ai-sdk/mcp');
    const { url, ran } = await scaleServer(t);
    const client = await createMCPClient({ transport: { type: 'http', url } });
    t.after(() => client.close());
    const tools = await client.tools();
    const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
    const TEXT = { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE };
    const calls = (...list) => ({
      content: list.map(([toolCallId, input]) => ({ type: 'tool-call', toolCallId, toolName: 'scale', input })),
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: USAGE,
    });
    const seen = [];
    const gate = createToolGate({
      agentName: 'ops',
      tools,
      policy: (input) => {
        seen.push(input.argsCanonicalJson);
        return policy(input);
      },
    });
    const result = await generateText({
      model: gate.model(
        new MockLanguageModelV4({
          doGenerate: [
            calls(['c1', '{"service":"api","replicas":1,"replicas":9}'], ['c2', '{"service":"","replicas":2}'], ['c3', ' {"replicas":4.0,"service":"api"} ']),
            TEXT,
            TEXT,
          ],
        }),
      ),
      tools: gate.tools,
      toolApproval: gate.toolApproval,
      stopWhen: stepCountIs(2),
      messages: [{ role: 'user', content: 'scale' }],
    });
    assert.deepEqual(ran, [{ service: 'api', replicas: 4 }]);
    assert.deepEqual(seen, ['{"replicas":4,"service":"api"}']);
    const output = result.steps[0].toolResults.find((r) => r.toolCallId === 'c3').output;
    assert.deepEqual(output.content, [{ type: 'text', text: 'api runs 4' }]);
  },
);
