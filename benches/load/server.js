'use strict';
// The load test's server process (started by benches/load.js with an IPC channel):
// Streamable HTTP on loopback, one McpServer per session (as the SDK's examples make one
// per session), either gated (gateMcpServer with grants and receipts on PostgreSQL) or the
// SDK alone (the SDK's StreamableHTTPServerTransport, no gate). The one tool, `pay`,
// appends the call's reference to this process's execution log (one line per run,
// written synchronously before it answers), which the checks count afterwards.
//
// argv[2]: JSON { mode: 'gated' | 'sdk', store: 'postgres' | 'redis', pgUrl (the store's URL), table (or the Redis prefix), logFile, secret, leaseMs, receipts }

const fs = require('node:fs');
const http = require('node:http');
const { randomUUID } = require('node:crypto');
const { z } = require('zod');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');

const config = JSON.parse(process.argv[2]);
const log = fs.openSync(config.logFile, 'a');

/** The tool: records the run, then answers a text naming the call (its own answer). */
function registerPay(server) {
  server.registerTool(
    'pay',
    {
      inputSchema: { ref: z.string(), to: z.string(), amount: z.number().int().positive() },
    },
    async ({ ref, to, amount }) => {
      fs.writeSync(log, `${ref}\n`);
      return { content: [{ type: 'text', text: `paid ${amount} to ${to} ref ${ref}` }] };
    },
  );
}

/** The policy of the gated server: small payments run, large ones need an approval, huge ones never. */
function policy(input) {
  const { amount } = input.parsedArguments;
  if (amount <= 100) return { decision: 'allow', reason: 'small_payment' };
  if (amount > 1000) return { decision: 'deny', reason: 'over_limit' };
  return { decision: 'require_approval', reason: 'large_payment' };
}

// The statements (PostgreSQL) or commands (Redis) the gate's store sent, counted by a
// wrapper around the driver's method (what the store is given), reported at the stop.
let storeCalls = 0;
function counted(target, name) {
  const method = target[name];
  target[name] = function (...args) {
    storeCalls += 1;
    return method.apply(this, args);
  };
}

/** The gate's store: PostgreSQL (a pg Pool), or Redis (--store redis: a node-redis client). */
async function openStore() {
  const { createPostgresGrantStore, createRedisGrantStore } = require('tool-argument-snapshot');
  if (config.store === 'redis') {
    const { createClient } = require('redis');
    // While Redis restarts the client reconnects on its own; commands meanwhile wait in
    // its queue and the store's timeout answers them (the gate refuses them).
    const client = createClient({ url: config.pgUrl });
    client.on('error', () => {});
    await client.connect();
    counted(client, 'sendCommand');
    return createRedisGrantStore({ client, prefix: `${config.table}:`, timeoutMs: 5000 });
  }
  const { Pool } = require('pg');
  // While PostgreSQL restarts, idle connections are closed under the pool: the pool
  // reports it here, and the store calls in flight fail (the gate refuses them).
  const pool = new Pool({ connectionString: config.pgUrl, max: 16, connectionTimeoutMillis: 2000 });
  pool.on('error', () => {});
  counted(pool, 'query');
  const store = createPostgresGrantStore({ pool, table: config.table, timeoutMs: 5000 });
  await store.migrate();
  return store;
}

async function gatedFactory() {
  const { createApprovalGrants, createExecutionReceipts } = require('tool-argument-snapshot');
  const { gateMcpServer } = require('tool-argument-snapshot/mcp');
  const store = await openStore();
  const grants = createApprovalGrants({ store, keys: [{ id: 'load', secret: config.secret }] });
  const receipts = config.receipts ? createExecutionReceipts({ store, keepResults: true, leaseMs: config.leaseMs }) : false;
  return (onSession) => {
    const server = new McpServer({ name: 'load', version: '1.0.0' });
    registerPay(server);
    const gate = gateMcpServer(server, { agentName: 'load', policy, grants, receipts, http: { onsessioninitialized: onSession } });
    return { server, handle: (req, res) => gate.handleHttp(req, res) };
  };
}

function sdkFactory() {
  return (onSession) => {
    const server = new McpServer({ name: 'load', version: '1.0.0' });
    registerPay(server);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: onSession });
    const connected = server.connect(transport);
    return {
      server,
      handle: async (req, res) => {
        await connected;
        return transport.handleRequest(req, res);
      },
    };
  };
}

async function main() {
  const make = config.mode === 'gated' ? await gatedFactory() : sdkFactory();
  const sessions = new Map();
  const httpServer = http.createServer((req, res) => {
    const id = req.headers['mcp-session-id'];
    let entry;
    if (typeof id === 'string') {
      entry = sessions.get(id);
      if (entry === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
        return;
      }
    } else {
      // A request without a session: an initialize, served by a new server of its own.
      entry = make((sessionId) => sessions.set(sessionId, entry));
    }
    entry.handle(req, res).catch((error) => {
      process.send({ type: 'error', message: String(error && error.stack) });
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  httpServer.keepAliveTimeout = 60_000;
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  // The test's process went away (killed, or its output closed): so does this one.
  process.on('disconnect', () => process.exit(1));
  process.on('message', (message) => {
    if (message.type === 'stop') {
      httpServer.close();
      httpServer.closeAllConnections?.();
      fs.closeSync(log);
      process.send({ type: 'stopped', sessions: sessions.size, storeCalls: config.mode === 'gated' ? storeCalls : null }, () => process.exit(0));
    }
  });
  process.send({ type: 'ready', port: httpServer.address().port });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
