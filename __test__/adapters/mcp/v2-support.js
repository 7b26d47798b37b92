'use strict';
// What the tests of gateMcpServer on the MCP TypeScript SDK 2.x share: a gate served on a
// real HTTP server on 127.0.0.1 (each Node request made a web Request, its Response written
// back), the SDK's own Client pinned to the 2026-07-28 revision (input_required answers
// handed back, not auto-fulfilled), and raw POSTs of exact text with the headers a
// 2026-07-28 client sends. The principal of a request is the `x-test-client` header, passed
// as the SDK's `authInfo.clientId` (the gate's default principal).

const http = require('node:http');
const { McpServer } = require('@modelcontextprotocol/server');
const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');
const { z } = require('zod');
const { gateMcpServer } = require('../../../adapters/mcp/index.js');

const AGENT = 'payments';
const VERSION = '2026-07-28';
const SECRET = 'memo-never-in-an-answer-7781';
const APPROVAL_META = 'tool-argument-snapshot/approval';
const KEY_NAME = 'tool-argument-snapshot/idempotency-key';

/** The payment policy: small payments run, large ones need an approval, to mallory never. */
function payPolicy(input) {
  if (input.parsedArguments.to === 'mallory') return { decision: 'deny', reason: 'blocked_payee' };
  return input.parsedArguments.amount <= 100 ? { decision: 'allow', reason: 'small_payment' } : { decision: 'require_approval', reason: 'large_payment' };
}

/**
 * A factory of McpServers with `pay` and `refund` tools. `runs` records each execution;
 * `schemaRuns` counts the runs of pay's input schema (a refinement that counts itself).
 */
function payFactory() {
  const state = { runs: [], schemaRuns: 0, servers: 0 };
  state.factory = () => {
    state.servers += 1;
    const server = new McpServer({ name: 'payments', version: '1.0.0' });
    const amount = z
      .number()
      .positive()
      .refine(() => {
        state.schemaRuns += 1;
        return true;
      });
    server.registerTool('pay', { inputSchema: z.object({ to: z.string(), amount, memo: z.string().optional() }) }, async (args, ctx) => {
      state.runs.push({ tool: 'pay', to: args.to, amount: args.amount, hasContext: typeof ctx.mcpReq === 'object' });
      return { content: [{ type: 'text', text: `paid ${args.amount} to ${args.to}` }] };
    });
    server.registerTool('refund', { inputSchema: z.object({ to: z.string(), amount: z.number() }) }, async (args) => {
      state.runs.push({ tool: 'refund', to: args.to, amount: args.amount });
      return { content: [{ type: 'text', text: `refunded ${args.amount} to ${args.to}` }] };
    });
    return server;
  };
  return state;
}

/** Serves `gate.fetch` on 127.0.0.1: `{ url, close }`. */
async function serve(gate) {
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: req.method === 'POST' ? Buffer.concat(chunks) : undefined });
    const clientId = req.headers['x-test-client'];
    const response = await gate.fetch(request, typeof clientId === 'string' ? { authInfo: { token: 't', clientId, scopes: [] } } : undefined);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/mcp`;
  return { url, close: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * The SDK's Client over Streamable HTTP to `url`, 2026-07-28 unless `legacy`, as principal
 * `clientId` when given; input_required answers handed back unless `elicit` (a handler) or `autoFulfill`.
 */
async function connect(url, { clientId, legacy = false, capabilities, elicit, autoFulfill = elicit !== undefined } = {}) {
  const client = new Client(
    { name: 'agent', version: '1.0.0' },
    {
      ...(capabilities === undefined ? {} : { capabilities }),
      ...(legacy ? {} : { versionNegotiation: { mode: { pin: VERSION } } }),
      inputRequired: { autoFulfill },
    },
  );
  if (elicit !== undefined) client.setRequestHandler('elicitation/create', elicit);
  const transport = new StreamableHTTPClientTransport(new URL(url), clientId === undefined ? {} : { requestInit: { headers: { 'x-test-client': clientId } } });
  await client.connect(transport);
  return client;
}

/** A gate over a pay factory, served, with a connected client: `{ state, gate, url, client, call, close }`. */
async function start(options, clientOptions) {
  const state = payFactory();
  const gate = gateMcpServer(state.factory, { agentName: AGENT, policy: payPolicy, ...options });
  const served = await serve(gate);
  const client = await connect(served.url, clientOptions);
  const call = (name, args, extra = {}) => client.callTool({ name, arguments: args, ...extra }, { allowInputRequired: true });
  return {
    state,
    gate,
    url: served.url,
    client,
    call,
    async close() {
      await client.close();
      await served.close();
      await gate.close();
    },
  };
}

/** The envelope a 2026-07-28 client puts in each request's `_meta`. */
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** POSTs exact `text` to `url` with a 2026-07-28 client's headers (and `headers`): `{ status, body }`. */
async function post(url, text, headers = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': VERSION, ...headers },
    body: text,
  });
  const body = await response.text();
  let parsed;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = body;
  }
  return { status: response.status, body: parsed };
}

/** The text of a tools/call with the envelope, `argumentsText` spliced in as it is. */
function toolCallText(id, name, argumentsText, extraParams = '') {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${argumentsText}${extraParams},"_meta":${JSON.stringify(ENVELOPE)}}}`;
}

function toolCallHeaders(name) {
  return { 'mcp-method': 'tools/call', 'mcp-name': name };
}

module.exports = {
  AGENT,
  VERSION,
  SECRET,
  APPROVAL_META,
  KEY_NAME,
  ENVELOPE,
  payPolicy,
  payFactory,
  serve,
  connect,
  start,
  post,
  toolCallText,
  toolCallHeaders,
};
