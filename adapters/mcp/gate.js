'use strict';
// gateMcpServer on SDK 1.x: reads its options (options.js), replaces the server's
// tools/call handler with one that prepares, decides and executes each call through the
// package's API (call.js), and returns the gated transports.

const { invalidArgument, own } = require('../gate/read');
const { ObjectFreeze, isProxy } = require('../gate/primordials');
const { types } = require('./sdk');
const { isRecord } = require('./messages');
const { stdioTransport, createLinkedPair } = require('./stdio');
const { httpHandler } = require('./http');
const { readGateOptions } = require('./options');
const { callToolOf } = require('./call');

const GATE_USAGE =
  'gateMcpServer expects (mcpServer, { agentName, policy?, grants?, receipts?, idempotencyScope?, elicitation?, policyContext?, proposalTtlMs?, http? })';

/**
 * Gates an McpServer: replaces its tools/call handling and gives transports that keep
 * the message text. Call it before connecting the server.
 */
function gateMcpServer(mcpServer, options) {
  if (mcpServer === null || typeof mcpServer !== 'object' || isProxy(mcpServer)) throw invalidArgument(GATE_USAGE);
  const server = own(mcpServer, 'server');
  const registry = own(mcpServer, '_registeredTools');
  if (server === undefined || server === null || typeof server !== 'object' || typeof server.setRequestHandler !== 'function' || !isRecord(registry)) {
    throw invalidArgument('gateMcpServer expects an McpServer of @modelcontextprotocol/sdk 1.x');
  }
  if (server.transport !== undefined) throw invalidArgument('gateMcpServer: gate the server before connecting it to a transport');
  const gate = readGateOptions(options, GATE_USAGE, 'extra');
  if (gate.elicitation && gate.grants === undefined)
    throw invalidArgument('options.elicitation needs options.grants (an accepted elicitation becomes a grant)');

  // The SDK sets up tools/list, tools/call and the tools capability on the first tool;
  // let it (so registering later never collides with the gate's handler), then replace
  // tools/call. Tools registered afterwards are looked up at call time: gated too.
  if (mcpServer._toolHandlersInitialized !== true && typeof mcpServer.setToolRequestHandlers === 'function') mcpServer.setToolRequestHandlers();
  server.setRequestHandler(types().CallToolRequestSchema, callToolOf(gate, mcpServer, server, registry));

  const handleHttp = httpHandler(mcpServer, gate.httpOptions);

  return ObjectFreeze({
    agentName: gate.agentName,
    /** A stdio transport (process.stdin and process.stdout unless given) that keeps each message's text. */
    stdioTransport,
    /** A linked [client, server] pair in memory: the client's messages reach the server as text. */
    createLinkedPair,
    handleHttp,
  });
}

module.exports = { gateMcpServer };
