'use strict';
// tool-argument-snapshot/mcp: RFC-0016 at an MCP server, on either line of the MCP
// TypeScript SDK: an `McpServer` of @modelcontextprotocol/sdk 1.x (gated in place, its
// transports the gate's), or a server factory of @modelcontextprotocol/server 2.x (each
// server it makes gated, served through createMcpHandler behind the gate's fetch). How the
// gate reads message text, replaces tools/call and answers: docs/mcp-server.md.

const { isProxy } = require('../gate/primordials');
const { invalidArgument } = require('../gate/read');
// Which SDK line resolves (the check made when the subpath loads: entry.js).
const { v1Resolved } = require('./lines');
// The package's randomUUID, captured when the subpath loaded (the gates' session and elicitation ids): node:crypto is never loaded.
require('../gate/ids');

/**
 * Gates an MCP server: `gateMcpServer(mcpServer, options)` for an McpServer of SDK 1.x,
 * `gateMcpServer(serverFactory, options)` for SDK 2.x (a function making a new McpServer
 * for each request, as createMcpHandler takes).
 */
function gateMcpServer(server, options) {
  // The 2.x gate (and the web classes it captures: v2/web.js) loads with the first 2.x gate.
  if (typeof server === 'function' && !isProxy(server)) return require('./v2/gate').gateMcpServerV2(server, options);
  if (server !== null && typeof server === 'object' && !isProxy(server) && typeof server.toolInputSchemaJson === 'function') {
    // An McpServer of 2.x serves one request: the gate needs the factory that makes one per request.
    throw invalidArgument('gateMcpServer: with @modelcontextprotocol/server 2.x, pass the server factory (a function returning a new McpServer), not a server');
  }
  if (!v1Resolved) require('./sdk');
  return require('./gate').gateMcpServer(server, options);
}

module.exports = { gateMcpServer };
