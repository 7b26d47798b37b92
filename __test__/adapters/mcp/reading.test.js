'use strict';
// How the MCP gate reads a message text (issue 28, item 1): strict text is decoded once
// and the exact text of `arguments` is found in it without a second parse; text that is
// not strict as a whole is read again to tell where it fails. These cases pin that the
// one reading finds the right member whatever the spelling (escaped keys, `arguments`
// elsewhere in the message, whitespace, key order), and that arguments nested just under
// the limit (strict alone, too deep as part of the message) still run, as before. The
// oracle for each is JSON.parse of the same text (what the arguments are) and the SDK's
// own answer.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const z = require('zod');

const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { LATEST_PROTOCOL_VERSION } = require('@modelcontextprotocol/sdk/types.js');
const { MAX_DEPTH } = require('../../..');
const { gateMcpServer } = require('../../../adapters/mcp/index.js');

async function gated() {
  const executed = [];
  const server = new McpServer({ name: 'reading', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { to: z.string(), amount: z.number(), note: z.any().optional() } }, async (args) => {
    executed.push(args);
    return { content: [{ type: 'text', text: JSON.stringify(args) }] };
  });
  const gate = gateMcpServer(server, { agentName: 'reading', policy: () => ({ decision: 'allow', reason: 'test' }) });
  const [clientTransport, serverTransport] = gate.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'reading-client', version: '1.0.0' });
  await client.connect(clientTransport);
  const answers = new Map();
  const onmessage = clientTransport.onmessage;
  clientTransport.onmessage = (message) => {
    if (typeof message.id === 'string' && message.id.startsWith('raw-')) answers.get(message.id)(message);
    else onmessage(message);
  };
  /** Sends exact text with a string id `raw-...` and resolves its answer. */
  const send = (id, text) =>
    new Promise((resolve) => {
      answers.set(id, resolve);
      clientTransport.sendText(text);
    });
  return { client, send, executed };
}

test("escaped member names, `arguments` elsewhere in the message, whitespace and member order: the arguments executed are JSON.parse's", async () => {
  const { client, send, executed } = await gated();
  try {
    const texts = [
      // Escaped names of params and arguments (JSON.parse decodes them).
      '{"jsonrpc":"2.0","id":"raw-1","method":"tools/call","p\\u0061rams":{"name":"echo","\\u0061rguments":{"to":"a","amount":1}}}',
      // A member named arguments in _meta before the arguments, and in strings.
      '{"jsonrpc":"2.0","id":"raw-2","method":"tools/call","params":{"_meta":{"arguments":{"to":"decoy"}},"name":"echo","note":"\\"arguments\\":{}","arguments":{"to":"b","amount":2,"note":"x\\"arguments\\":1"}}}',
      // Whitespace everywhere, params first, a nested object holding `arguments` inside the arguments.
      ' \n{ "params" :\t{ "arguments" : { "note" : { "arguments" : [ 1 , { "amount" : 9 } ] } , "to" : "c" , "amount" : 3 } , "name" : "echo" } , "method" : "tools/call" , "id" : "raw-3" , "jsonrpc" : "2.0" }\r\n',
      // A key that only looks like arguments (an escape that decodes to something else).
      '{"jsonrpc":"2.0","id":"raw-4","method":"tools/call","params":{"name":"echo","argument\\u0073x":{"to":"decoy","amount":666},"arguments":{"to":"d","amount":4}}}',
    ];
    for (let i = 0; i < texts.length; i++) {
      const answer = await send(`raw-${i + 1}`, texts[i]);
      const expected = JSON.parse(texts[i]).params.arguments;
      assert.equal(answer.result.isError, undefined, texts[i]);
      assert.deepEqual(executed[i], expected);
      assert.deepEqual(JSON.parse(answer.result.content[0].text), expected);
    }
    // Sanity: the SDK's own client still gets its answers through the same pair.
    assert.equal((await client.callTool({ name: 'echo', arguments: { to: 'e', amount: 5 } })).isError, undefined);
  } finally {
    await client.close();
  }
});

test('arguments nested just under the depth limit: strict alone, too deep as part of the message, they still run', async () => {
  const { client, send, executed } = await gated();
  try {
    // `note` holds arrays nested so that the arguments reach MAX_DEPTH levels: the whole
    // message is two levels deeper.
    const depth = MAX_DEPTH - 1;
    const note = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const text = `{"jsonrpc":"2.0","id":"raw-deep","method":"tools/call","params":{"name":"echo","arguments":{"to":"f","amount":6,"note":${note}}}}`;
    const answer = await send('raw-deep', text);
    assert.equal(answer.result.isError, undefined, JSON.stringify(answer.result).slice(0, 300));
    assert.equal(executed.length, 1);
    // One level more inside the arguments: refused as the tool's (stage json), nothing runs.
    const deeper = `{"jsonrpc":"2.0","id":"raw-deeper","method":"tools/call","params":{"name":"echo","arguments":{"to":"f","amount":6,"note":[${note}]}}}`;
    const refused = await send('raw-deeper', deeper);
    assert.equal(refused.result.isError, true);
    assert.equal(refused.result.structuredContent.stage, 'json');
    assert.equal(executed.length, 1);
  } finally {
    await client.close();
  }
});

test("outside the arguments, text that is not strict is still answered -32600 naming the code; inside, the tool's stage json", async () => {
  const { client, send, executed } = await gated();
  try {
    const outside = await send(
      'raw-o',
      '{"jsonrpc":"2.0","id":"raw-o","method":"tools/call","params":{"name":"echo","name":"echo","arguments":{"to":"g","amount":7}}}',
    );
    assert.equal(outside.error.code, -32600);
    assert.equal(outside.error.data.code, 'duplicate_key');
    const inside = await send(
      'raw-i',
      '{"jsonrpc":"2.0","id":"raw-i","method":"tools/call","params":{"name":"echo","arguments":{"to":"g","amount":7,"amount":8}}}',
    );
    assert.deepEqual(inside.result.structuredContent, { toolName: 'echo', stage: 'json', code: 'duplicate_key' });
  } finally {
    await client.close();
  }
  assert.equal(executed.length, 0);
});

test('blank and whitespace-only text is a parse error (the strict decoder reads blank as {}; the gate never does)', async () => {
  const server = new McpServer({ name: 'blank', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { to: z.string() } }, async () => ({ content: [] }));
  const gate = gateMcpServer(server, { agentName: 'blank', policy: () => ({ decision: 'allow', reason: 'test' }) });
  const [clientTransport, serverTransport] = gate.createLinkedPair();
  await server.connect(serverTransport);
  const received = [];
  clientTransport.onmessage = (message) => received.push(message);
  await clientTransport.start();
  for (const text of ['', '   ', '\t\r\n']) await clientTransport.sendText(text);
  await clientTransport.sendText(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    }),
  );
  for (let i = 0; i < 100 && received.length < 4; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(received.length, 4);
  for (const message of received.slice(0, 3)) assert.deepEqual(message, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  assert.equal(received[3].id, 1);
  await clientTransport.close();
});
