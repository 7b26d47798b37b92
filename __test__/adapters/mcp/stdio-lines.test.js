'use strict';
// The gated stdio transport's line reading: each line is one message whatever the chunks
// it arrives in (two lines in one chunk, one line over several chunks, a chunk cut inside
// a multi-byte UTF-8 character, CRLF endings). The oracle is the SDK's own ReadBuffer on
// the transport's output and JSON.parse of each line sent: every tools/call is answered
// once, with its own id, and the tool received exactly the arguments of its line.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { PassThrough } = require('node:stream');
const z = require('zod');

const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { ReadBuffer } = require('@modelcontextprotocol/sdk/shared/stdio.js');
const { LATEST_PROTOCOL_VERSION } = require('@modelcontextprotocol/sdk/types.js');
const { gateMcpServer } = require('../../../adapters/mcp/index.js');

test('gated stdio: messages split and joined across chunks are each read once, exactly', async () => {
  const executed = [];
  const server = new McpServer({ name: 'lines', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { note: z.string() } }, async (args) => {
    executed.push(args);
    return { content: [{ type: 'text', text: 'ok' }] };
  });
  const gate = gateMcpServer(server, { agentName: 'lines', policy: () => ({ decision: 'allow', reason: 'test' }) });
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  await server.connect(gate.stdioTransport({ stdin, stdout }));
  const answers = [];
  const reader = new ReadBuffer();
  stdout.on('data', (chunk) => {
    reader.append(chunk);
    for (let message = reader.readMessage(); message !== null; message = reader.readMessage()) answers.push(message);
  });
  const line = (value) => JSON.stringify(value);
  const init = line({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  const initialized = line({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const notes = ['plain', 'caf\u00e9 \u20ac', 'emoji \u{1f600}', 'last'];
  const calls = notes.map((note, i) => line({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'echo', arguments: { note } } }));
  // Init and initialized in one chunk; then call 1 and half of call 2 in one chunk, the
  // rest of call 2 cut inside its UTF-8 '€', call 3 with CRLF in three chunks, call 4 alone.
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  stdin.write(Buffer.from(`${init}\n${initialized}\n`));
  await tick();
  const second = Buffer.from(`${calls[1]}\n`);
  const euro = second.indexOf(Buffer.from('\u20ac')) + 1;
  stdin.write(Buffer.concat([Buffer.from(`${calls[0]}\n`), second.subarray(0, 10)]));
  stdin.write(second.subarray(10, euro));
  stdin.write(second.subarray(euro));
  const third = Buffer.from(`${calls[2]}\r\n`);
  stdin.write(third.subarray(0, 5));
  stdin.write(third.subarray(5, third.length - 1));
  stdin.write(third.subarray(third.length - 1));
  stdin.write(`${calls[3]}\n`);
  for (let i = 0; i < 50 && answers.length < 5; i++) await tick();
  assert.deepEqual(
    answers.map((a) => a.id),
    [0, 1, 2, 3, 4],
  );
  for (const answer of answers.slice(1)) assert.equal(answer.result.isError, undefined, JSON.stringify(answer));
  assert.deepEqual(
    executed,
    calls.map((c) => JSON.parse(c).params.arguments),
  );
  await server.close();
});
