'use strict';
// The `mcp` bench group (`npm run bench -- --groups mcp`): what a tools/call costs an MCP
// server gated by tool-argument-snapshot/mcp beside the SDK alone, per transport, wall
// and CPU per call. One process holds the SDK's Client and McpServer (so CPU is the
// process's: both sides of each call), with a small payment tool (`{ to, amount, memo }`,
// a zod schema, a policy that allows):
//
//   linked pair   the SDK alone on its InMemoryTransport (objects, no text), gated on the
//                 gate's createLinkedPair (the client sends JSON text, the gate reads it);
//   stdio         the SDK's StdioServerTransport (alone) or gate.stdioTransport() on a pair
//                 of in-process streams, the client writing and reading lines with the
//                 SDK's own ReadBuffer and serializeMessage;
//   HTTP          Streamable HTTP on 127.0.0.1: the SDK's StreamableHTTPServerTransport
//                 (alone) or gate.handleHttp, the SDK's StreamableHTTPClientTransport.
//   HTTP v2       SDK 2.x (@modelcontextprotocol/server and /client, the 2026-07-28
//                 revision): createMcpHandler over a server factory (alone) or the gate's
//                 fetch in front of it, behind a node:http server on 127.0.0.1 that makes
//                 each request a web Request; the 2.x Client pinned to 2026-07-28.
//   web v2        the same without the network: the 2.x Client's transport fetches
//                 in-process (its `fetch` option calls handler.fetch or gate.fetch).
//   stdio v2      the SDK's serveStdio (alone) or gate.serveStdio() on a pair of
//                 in-process streams, the 2.x Client writing and reading lines with the
//                 2.x ReadBuffer and serializeMessage.
//
// Contenders per transport: `SDK alone`, `gated` (no idempotency key: receipts are not
// touched), `gated + key` (a fresh idempotency key per call: the default process-wide
// receipts claim and record each call). Method: every contender connected once and warmed
// up; then N rounds, each timing one batch of sequential calls of every contender in an
// order rotated by the round; per contender the median per-call wall and CPU time
// (process.cpuUsage, user + system) with the p10-p90 spread, and the gated / alone ratio
// as the median of the per-round ratios (each from one round, so load shared by the
// machine's other work shifts both sides of a ratio alike). The load average is printed
// before and after. Nothing about time is asserted; each contender's answers are checked
// before timing (and the keyed one's retry is checked to be refused by its receipt).

const http = require('node:http');
const os = require('node:os');
const { PassThrough } = require('node:stream');
const { randomUUID } = require('node:crypto');

const KEY_NAME = 'tool-argument-snapshot/idempotency-key';
const TRANSPORTS = ['linked pair', 'stdio', 'HTTP', 'HTTP v2', 'web v2', 'stdio v2'];
const CONTENDERS = ['SDK alone', 'gated', 'gated + key'];
/** Calls per timed batch: about 50-100 ms each on a quiet machine. */
const BATCH = { 'linked pair': 2000, stdio: 1000, HTTP: 200, 'HTTP v2': 200, 'web v2': 500, 'stdio v2': 1000 };
const ARGS = { to: 'acct_7f3a', amount: 4200, memo: 'invoice 2026-118' };

function sdk() {
  const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
  const { InMemoryTransport } = require('@modelcontextprotocol/sdk/inMemory.js');
  const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
  const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { ReadBuffer, serializeMessage } = require('@modelcontextprotocol/sdk/shared/stdio.js');
  const z = require('zod');
  return {
    McpServer,
    Client,
    InMemoryTransport,
    StdioServerTransport,
    StreamableHTTPServerTransport,
    StreamableHTTPClientTransport,
    ReadBuffer,
    serializeMessage,
    z,
  };
}

function payServer(m) {
  const server = new m.McpServer({ name: 'payments', version: '1.0.0' });
  server.registerTool('pay', { inputSchema: { to: m.z.string(), amount: m.z.number(), memo: m.z.string() } }, async ({ to, amount }) => ({
    content: [{ type: 'text', text: `paid ${amount} to ${to}` }],
  }));
  return server;
}

/** The client side of a stdio pair of streams: the SDK's ReadBuffer and serializeMessage, as its StdioClientTransport uses them. */
class StreamClientTransport {
  constructor(m, input, output) {
    this.m = m;
    this.input = input;
    this.output = output;
    this.buffer = new m.ReadBuffer();
  }

  async start() {
    this.input.on('data', (chunk) => {
      this.buffer.append(chunk);
      for (;;) {
        const message = this.buffer.readMessage();
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
  }

  async send(message) {
    const text = this.m.serializeMessage(message);
    if (!this.output.write(text)) await new Promise((resolve) => this.output.once('drain', resolve));
  }

  async close() {
    this.onclose?.();
  }
}

/** SDK 2.x: the server and client packages, and a factory of pay servers. */
function sdk2() {
  const { McpServer, createMcpHandler } = require('@modelcontextprotocol/server');
  const { Client, StreamableHTTPClientTransport, ReadBuffer, serializeMessage } = require('@modelcontextprotocol/client');
  const { serveStdio, StdioServerTransport } = require('@modelcontextprotocol/server/stdio');
  const { z } = require('zod');
  const factory = () => {
    const server = new McpServer({ name: 'payments', version: '1.0.0' });
    server.registerTool('pay', { inputSchema: z.object({ to: z.string(), amount: z.number(), memo: z.string() }) }, async ({ to, amount }) => ({
      content: [{ type: 'text', text: `paid ${amount} to ${to}` }],
    }));
    return server;
  };
  return { createMcpHandler, Client, StreamableHTTPClientTransport, ReadBuffer, serializeMessage, serveStdio, StdioServerTransport, factory };
}

/** A node:http server on 127.0.0.1 in front of a web handler (`fetch(request)`): `{ url, close }`. */
async function webServer(fetchFace) {
  const httpServer = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const response = await fetchFace(
      new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: req.method === 'POST' ? Buffer.concat(chunks) : undefined }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${httpServer.address().port}/mcp`,
    close: async () => {
      httpServer.closeAllConnections?.();
      await new Promise((resolve) => httpServer.close(resolve));
    },
  };
}

/** A connected contender on SDK 2.x (`HTTP v2`, `web v2`). */
async function connectV2(transport, contender) {
  const m2 = sdk2();
  const gated = contender !== 'SDK alone';
  if (transport === 'stdio v2') {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    let handle;
    if (gated) {
      const { gateMcpServer } = require('../adapters/mcp/index.js');
      const gate = gateMcpServer(m2.factory, { agentName: `bench-${transport}`, policy: () => ({ decision: 'allow', reason: 'bench' }) });
      handle = gate.serveStdio({ stdin: toServer, stdout: toClient });
    } else {
      handle = m2.serveStdio(m2.factory, { transport: new m2.StdioServerTransport(toServer, toClient) });
    }
    const client = new m2.Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamClientTransport(m2, toClient, toServer));
    return {
      client,
      close: async () => {
        await client.close();
        await handle.close();
      },
    };
  }
  let face;
  let closeFace;
  if (gated) {
    const { gateMcpServer } = require('../adapters/mcp/index.js');
    const gate = gateMcpServer(m2.factory, { agentName: `bench-${transport}`, policy: () => ({ decision: 'allow', reason: 'bench' }) });
    face = (request) => gate.fetch(request);
    closeFace = () => gate.close();
  } else {
    const handler = m2.createMcpHandler(m2.factory);
    face = (request) => handler.fetch(request);
    closeFace = () => handler.close();
  }
  let url = 'http://in-process/mcp';
  let options = { fetch: (input, init) => face(new Request(input, init)) };
  let served;
  if (transport === 'HTTP v2') {
    served = await webServer(face);
    url = served.url;
    options = {};
  }
  const client = new m2.Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new m2.StreamableHTTPClientTransport(new URL(url), options));
  return {
    client,
    close: async () => {
      await client.close();
      if (served !== undefined) await served.close();
      await closeFace();
    },
  };
}

/** A connected contender: `{ call(i), close() }`, where call(i) sends one tools/call. */
async function connect(m, transport, contender) {
  if (transport.endsWith('v2')) {
    const { client, close } = await connectV2(transport, contender);
    return keyedCalls(client, contender === 'gated + key', close);
  }
  const gated = contender !== 'SDK alone';
  const keyed = contender === 'gated + key';
  const server = payServer(m);
  let gate;
  if (gated) {
    const { gateMcpServer } = require('../adapters/mcp/index.js');
    gate = gateMcpServer(server, { agentName: `bench-${transport}`, policy: () => ({ decision: 'allow', reason: 'bench' }) });
  }
  const client = new m.Client({ name: 'bench', version: '1.0.0' });
  let close;
  if (transport === 'linked pair') {
    const [clientTransport, serverTransport] = gated ? gate.createLinkedPair() : m.InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    await client.connect(clientTransport);
    close = () => client.close();
  } else if (transport === 'stdio') {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const serverTransport = gated ? gate.stdioTransport({ stdin: toServer, stdout: toClient }) : new m.StdioServerTransport(toServer, toClient);
    await server.connect(serverTransport);
    await client.connect(new StreamClientTransport(m, toClient, toServer));
    close = async () => {
      await client.close();
      await server.close();
    };
  } else {
    let handle;
    if (gated) {
      handle = (req, res) => gate.handleHttp(req, res);
    } else {
      const serverTransport = new m.StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID });
      await server.connect(serverTransport);
      handle = (req, res) => serverTransport.handleRequest(req, res);
    }
    const httpServer = http.createServer((req, res) => {
      handle(req, res).catch((error) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
    await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    const clientTransport = new m.StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${httpServer.address().port}/mcp`));
    await client.connect(clientTransport);
    close = async () => {
      await clientTransport.terminateSession().catch(() => {});
      await client.close();
      httpServer.closeAllConnections?.();
      await new Promise((resolve) => httpServer.close(resolve));
    };
  }
  return keyedCalls(client, keyed, close);
}

/** The calls of a contender's client: with a fresh idempotency key per call when `keyed`. */
function keyedCalls(client, keyed, close) {
  // One key per call, made before timing (a client makes its own, once per call).
  const prefix = randomUUID();
  let next = 0;
  const call = keyed
    ? () => client.callTool({ name: 'pay', arguments: ARGS, _meta: { [KEY_NAME]: `${prefix}-${next++}` } })
    : () => client.callTool({ name: 'pay', arguments: ARGS });
  const retryLast = () => client.callTool({ name: 'pay', arguments: ARGS, _meta: { [KEY_NAME]: `${prefix}-${next - 1}` } });
  return { call, retryLast, close };
}

/** Checks a contender's answers before it is timed. */
async function check(label, entry) {
  const result = await entry.call();
  const text = result && result.content && result.content[0] && result.content[0].text;

  if (result.isError || text !== `paid ${ARGS.amount} to ${ARGS.to}`) throw new Error(`${label}: unexpected answer ${JSON.stringify(result)}`);
  if (label.endsWith('gated + key')) {
    const again = await entry.retryLast();
    if (!again.isError || !again.structuredContent || again.structuredContent.reason !== 'call_already_executed') {
      throw new Error(`${label}: a retry with the same key was not refused by its receipt: ${JSON.stringify(again)}`);
    }
  }
}

/** Times `n` sequential calls: per-call wall and CPU in µs. */
async function batch(entry, n) {
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await entry.call();
  const wall = Number(process.hrtime.bigint() - t0) / 1e3 / n;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / n };
}

function quantile(sorted, q) {
  if (sorted.length === 1) return sorted[0];
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), p10: quantile(sorted, 0.1), p90: quantile(sorted, 0.9), min: sorted[0], max: sorted[sorted.length - 1] };
}

const fmt = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const loadAvg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells) => `  ${cells.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  ')}`;
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/**
 * Runs the group: `opts` of bench.js (rounds, quick, warmupMs, transports?). Returns the
 * results by transport and prints them.
 */
async function runMcpGroup(opts) {
  const m = sdk();
  const rounds = opts.rounds;
  const scale = opts.quick ? 0.1 : 1;
  const transports = opts.mcpTransports && opts.mcpTransports.length > 0 ? opts.mcpTransports : TRANSPORTS;
  const results = { loadAvgBefore: loadAvg(), transports: {} };
  console.log(`\n== mcp: one tools/call of a small payment tool ({ to, amount, memo }, zod, a policy that allows), SDK's Client and McpServer in one process`);
  console.log(
    `   per-call wall and CPU (user + system of the process: client and server) in µs; ${rounds} interleaved rounds; load avg ${results.loadAvgBefore}`,
  );
  for (const transport of transports) {
    const n = Math.max(10, Math.round(BATCH[transport] * scale));
    const entries = [];
    for (const contender of CONTENDERS) {
      const entry = await connect(m, transport, contender);
      await check(`${transport}: ${contender}`, entry);
      entries.push({ contender, entry, wall: [], cpu: [] });
    }
    // Warm-up: each contender for --warmup ms (at least one batch).
    for (const e of entries) {
      const until = process.hrtime.bigint() + BigInt(Math.round(opts.warmupMs * 1e6));
      do await batch(e.entry, n);
      while (process.hrtime.bigint() < until);
    }
    const ratios = { wall: {}, cpu: {} };
    for (const e of entries) {
      ratios.wall[e.contender] = [];
      ratios.cpu[e.contender] = [];
    }
    for (let r = 0; r < rounds; r++) {
      const order = entries.map((_, i) => entries[(i + r) % entries.length]);
      if (r % 2 === 1) order.reverse();
      const timed = new Map();
      for (const e of order) timed.set(e, await batch(e.entry, n));
      const alone = timed.get(entries[0]);
      for (const e of entries) {
        const t = timed.get(e);
        e.wall.push(t.wall);
        e.cpu.push(t.cpu);
        ratios.wall[e.contender].push(t.wall / alone.wall);
        ratios.cpu[e.contender].push(t.cpu / alone.cpu);
      }
    }
    for (const e of entries) await e.entry.close();
    const rows = entries.map((e) => {
      const wall = stats(e.wall);
      const cpu = stats(e.cpu);
      const rw = stats(ratios.wall[e.contender]);
      const rc = stats(ratios.cpu[e.contender]);
      return { contender: e.contender, wall, cpu, ratioWall: rw, ratioCpu: rc };
    });
    results.transports[transport] = { callsPerBatch: n, rows };
    console.log(`\n${transport}: ${n} calls per batch`);
    console.log(
      table(
        ['', 'wall µs', 'p10-p90', 'CPU µs', 'p10-p90', 'wall / alone', 'CPU / alone', 'CPU ratio p10-p90'],
        rows.map((row) => [
          row.contender,
          fmt(row.wall.median),
          `${fmt(row.wall.p10)}-${fmt(row.wall.p90)}`,
          fmt(row.cpu.median),
          `${fmt(row.cpu.p10)}-${fmt(row.cpu.p90)}`,
          `${row.ratioWall.median.toFixed(2)}x`,
          `${row.ratioCpu.median.toFixed(2)}x`,
          `${row.ratioCpu.p10.toFixed(2)}-${row.ratioCpu.p90.toFixed(2)}`,
        ]),
      ),
    );
  }
  results.loadAvgAfter = loadAvg();
  console.log(`\n   load avg after: ${results.loadAvgAfter}`);
  return results;
}

/**
 * The split of a gated call (`node benches/mcp.js --split`): in one process, interleaved
 * rounds of the SDK alone and gated on the linked pair (CPU per call), beside each step the
 * gated call takes, timed on its own on the same message and tool (CPU per call of a loop
 * of it): the client's JSON text, the gate's strict reading of it, the SDK's JSON-RPC check
 * (which its InMemoryTransport skips), the package's prepare, evaluate (with the gate's
 * policy context) and execute, and execute with the default memory receipts and a fresh
 * key. What the steps leave of the difference is the glue on both sides and the garbage
 * collector's share of a process that allocates more.
 */
async function runMcpSplit(opts) {
  const m = sdk();
  const tas = require('..');
  const { JSONRPCMessageSchema } = require('@modelcontextprotocol/sdk/types.js');
  const { readOneMessage } = require('../adapters/mcp/messages.js');
  const n = 4000;
  const entries = [];
  for (const contender of ['SDK alone', 'gated']) {
    const entry = await connect(m, 'linked pair', contender);
    await check(`linked pair: ${contender}`, entry);
    entries.push({ contender, entry, cpu: [] });
  }
  const message = { method: 'tools/call', params: { name: 'pay', arguments: ARGS }, jsonrpc: '2.0', id: 7 };
  const text = JSON.stringify(message);
  const schema = m.z.object({ to: m.z.string(), amount: m.z.number(), memo: m.z.string() });
  const policy = () => ({ decision: 'allow', reason: 'bench' });
  const receipts = tas.createExecutionReceipts({ retentionMs: 60 * 60 * 1000 });
  const handler = (args) => ({ content: [{ type: 'text', text: `paid ${args.amount} to ${args.to}` }] });
  // The arguments as the gate's reading leaves them (an ArgumentsText: text and value decoded
  // with the message), taken by prepare; each step below runs on a reading of its own.
  const prepare = (i) =>
    tas.prepareToolCallAsync({ agentName: 'bench', toolName: 'pay', rawArguments: readOneMessage(text).rawArguments, schema, toolCallId: `${i}` });
  const evaluate = (prepared, i) =>
    tas.evaluateToolCall({ prepared, policy, policyContext: { toolCallId: `${i}`, argumentsSource: 'message_text' }, toolCallId: `${i}` });
  let key = 0;
  const prefix = randomUUID();
  const steps = [
    ['client: JSON text of the message', async () => JSON.stringify(message)],
    ['gate: strict reading of the text, arguments set aside', async () => readOneMessage(text)],
    ["SDK's JSON-RPC message check", async () => JSONRPCMessageSchema.parse(readOneMessage(text).message)],
    ['prepare (the arguments of the reading: zod, RFC 8785, SHA-256)', async (i) => prepare(i)],
    ['evaluate (gate policy context)', async (i) => evaluate(await prepare(i), i)],
    ['execute', async (i) => tas.executeToolCall(await evaluate(await prepare(i), i), handler)],
    [
      'execute with memory receipts, a fresh key',
      async (i) =>
        tas.executeToolCall(
          await tas.evaluateToolCall({
            prepared: await tas.prepareToolCallAsync({
              agentName: 'bench',
              toolName: 'pay',
              rawArguments: readOneMessage(text).rawArguments,
              schema,
              toolCallId: `${prefix}-${key++}`,
            }),
            policy,
          }),
          handler,
          { receipts },
        ),
    ],
  ];
  const stepTimes = steps.map(() => []);
  const time = async (fn) => {
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < n; i++) await fn(i);
    const cpu = process.cpuUsage(cpu0);
    return (cpu.user + cpu.system) / n;
  };
  for (let w = 0; w < 2; w++) {
    for (const e of entries) await batch(e.entry, n);
    for (const [, fn] of steps) await time(fn);
  }
  for (let r = 0; r < opts.rounds; r++) {
    for (const e of r % 2 === 0 ? entries : [...entries].reverse()) e.cpu.push((await batch(e.entry, n)).cpu);
    for (let s = 0; s < steps.length; s++) stepTimes[s].push(await time(steps[s][1]));
  }
  for (const e of entries) await e.entry.close();
  const alone = stats(entries[0].cpu).median;
  const gated = stats(entries[1].cpu).median;
  // Each cumulative step (prepare; prepare + evaluate; ...) minus the one before it.
  const med = stepTimes.map((t) => stats(t).median);
  // Steps two to seven each read the message first: the reading (step two) is taken off.
  const own = [med[0], med[1], med[2] - med[1], med[3] - med[1], med[4] - med[3], med[5] - med[4], med[6] - med[4]];
  console.log(`\nsplit of a gated call, linked pair, CPU µs per call, ${opts.rounds} rounds, load avg ${loadAvg()}`);
  console.log(
    table(
      ['', 'µs'],
      [['SDK alone', fmt(alone)], ['gated', fmt(gated)], ['difference', fmt(gated - alone)], ...steps.map(([label], s) => [`  ${label}`, fmt(own[s])])],
    ),
  );
  return { alone, gated, steps: steps.map(([label], s) => ({ label, us: own[s] })) };
}

module.exports = { runMcpGroup, runMcpSplit, TRANSPORTS };

// Alone: node benches/mcp.js [--quick] [--rounds N] [--transport NAME] [--split]
if (require.main === module) {
  const argv = process.argv.slice(2);
  const opts = { rounds: 7, quick: false, warmupMs: 500, mcpTransports: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--quick') Object.assign(opts, { quick: true, rounds: 3, warmupMs: 20 });
    else if (argv[i] === '--rounds') opts.rounds = Number(argv[++i]);
    else if (argv[i] === '--transport') opts.mcpTransports.push(argv[++i]);
    else if (argv[i] === '--split') opts.split = true;
    else {
      console.error(`usage: node benches/mcp.js [--quick] [--rounds N] [--transport "linked pair"|stdio|HTTP|"HTTP v2"|"web v2"] [--split]`);
      process.exit(2);
    }
  }
  console.log(`Node ${process.version}, V8 ${process.versions.v8}`);
  (opts.split ? runMcpSplit(opts) : runMcpGroup(opts)).catch((error) => {
    console.error(error && error.stack ? error.stack : error);
    process.exitCode = 1;
  });
}
