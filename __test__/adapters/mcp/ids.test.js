'use strict';
// MCP request ids (issue 25 item 6): a request whose JSON-RPC id is still in flight in
// the same session runs nothing and is answered -32600 with that id; the first request
// keeps its own result. Over handleHttp each HTTP request gets exactly one answer.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const z = require('zod');

const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { LATEST_PROTOCOL_VERSION } = require('@modelcontextprotocol/sdk/types.js');
const { gateMcpServer } = require('../../../adapters/mcp/index.js');

const SECRET = 'never-in-an-error-4711';

/** A server whose `hold` tool records its run and waits until `release()` (or 1.5 s, so broken code cannot hang). */
function holdingServer() {
  const runs = [];
  let release;
  const released = new Promise((resolve) => {
    release = resolve;
  });
  const timer = setTimeout(release, 1500);
  const server = new McpServer({ name: 'ids', version: '1.0.0' });
  server.registerTool('hold', { inputSchema: { n: z.number(), note: z.string() } }, async (args) => {
    runs.push(args.n);
    await released;
    return { content: [{ type: 'text', text: `ran ${args.n}` }] };
  });
  return {
    server,
    runs,
    release: () => {
      clearTimeout(timer);
      release();
    },
  };
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'ids-client', version: '1.0.0' } },
};
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
const call = (id, n) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'hold', arguments: { n, note: SECRET } } });
const policy = () => ({ decision: 'allow', reason: 'test' });

function assertDuplicateAnswer(message, id) {
  assert.deepEqual(message.id, id);
  assert.equal(message.error.code, -32600);
  assert.equal(message.error.message, 'Invalid Request');
  assert.equal(message.result, undefined);
  assert.ok(!JSON.stringify(message).includes(SECRET), 'the error holds no payload');
  assert.ok(!JSON.stringify(message.error).includes('hold'), 'nor the tool name');
}

async function until(predicate) {
  for (let i = 0; i < 200 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(predicate(), 'the first call started');
}

describe('MCP ids: a request whose id is still in flight', () => {
  for (const enableJsonResponse of [true, false]) {
    test(`Streamable HTTP on 127.0.0.1 (${enableJsonResponse ? 'JSON' : 'SSE'} responses): one answer per HTTP request, its own`, async () => {
      const { server, runs, release } = holdingServer();
      const gate = gateMcpServer(server, { agentName: 'ids', policy, http: { enableJsonResponse } });
      const httpServer = http.createServer((req, res) => {
        gate.handleHttp(req, res).catch((error) => {
          res.statusCode = 500;
          res.end(String(error));
        });
      });
      await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${httpServer.address().port}/mcp`;
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const post = async (body) => {
        const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
        const text = await response.text();
        const type = response.headers.get('content-type') ?? '';
        // Every JSON-RPC message of the answer (a JSON body, or the data lines of an SSE stream).
        const messages = type.includes('text/event-stream')
          ? text
              .split('\n')
              .filter((line) => line.startsWith('data: '))
              .map((line) => JSON.parse(line.slice(6)))
          : text === ''
            ? []
            : [JSON.parse(text)].flat();
        return { response, messages };
      };
      try {
        const init = await post(initialize);
        assert.equal(init.response.status, 200);
        headers['mcp-session-id'] = init.response.headers.get('mcp-session-id');
        headers['mcp-protocol-version'] = LATEST_PROTOCOL_VERSION;
        assert.equal((await post(initialized)).response.status, 202);

        const first = post(call(7, 1));
        await until(() => runs.length === 1);
        const second = await post(call(7, 2)).catch((error) => ({ error }));
        release();
        const firstAnswer = await first.catch((error) => ({ error }));
        assert.deepEqual(runs, [1], 'the duplicate ran nothing');
        assert.equal(second.error, undefined, 'the duplicate got an answer');
        assert.equal(second.messages.length, 1);
        assertDuplicateAnswer(second.messages[0], 7);
        assert.equal(firstAnswer.error, undefined, 'the first request got an answer');
        assert.equal(firstAnswer.messages.length, 1);
        assert.equal(firstAnswer.messages[0].id, 7);
        assert.deepEqual(firstAnswer.messages[0].result.content, [{ type: 'text', text: 'ran 1' }]);

        // Once answered, the id is free again in this gate, and other ids were never blocked.
        const again = await post(call(8, 3));
        assert.equal(again.messages[0].id, 8);
        assert.deepEqual(again.messages[0].result.content, [{ type: 'text', text: 'ran 3' }]);
      } finally {
        release();
        httpServer.closeAllConnections?.();
        await new Promise((resolve) => httpServer.close(resolve));
      }
    });
  }

  test("linked pair (the stdio reader): the duplicate's error and the first call's result are both sent", async () => {
    const { server, runs, release } = holdingServer();
    const gate = gateMcpServer(server, { agentName: 'ids', policy });
    const [client, serverTransport] = gate.createLinkedPair();
    await server.connect(serverTransport);
    const received = [];
    client.onmessage = (message) => received.push(message);
    await client.sendText(JSON.stringify(initialize));
    await until(() => received.length === 1);
    await client.sendText(JSON.stringify(initialized));

    await client.sendText(JSON.stringify(call(7, 1)));
    await until(() => runs.length === 1);
    await client.sendText(JSON.stringify(call('7', 4))); // another id: "7" is not 7
    await until(() => runs.length === 2);
    await client.sendText(JSON.stringify(call(7, 2)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await until(() => received.length === 4);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await client.close();

    assert.deepEqual(runs, [1, 4], 'the duplicate ran nothing');
    const answers = received.slice(1);
    assert.equal(answers.length, 3);
    const errors = answers.filter((message) => message.error !== undefined);
    assert.equal(errors.length, 1);
    assertDuplicateAnswer(errors[0], 7);
    const results = answers.filter((message) => message.result !== undefined).map((message) => JSON.stringify([message.id, message.result.content[0].text]));
    assert.deepEqual(results.sort(), ['["7","ran 4"]', '[7,"ran 1"]']);
  });
});
