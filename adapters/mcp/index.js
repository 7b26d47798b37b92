'use strict';
// tool-argument-snapshot/mcp: RFC-0016 at an MCP server, on either line of the MCP
// TypeScript SDK: an `McpServer` of @modelcontextprotocol/sdk 1.x (gated in place, its
// transports the gate's), or a server factory of @modelcontextprotocol/server 2.x (each
// server it makes gated, served through createMcpHandler behind the gate's fetch). How the
// gate reads message text, replaces tools/call and answers: docs/mcp-server.md.

const { isProxy, ObjectDefineProperty, SafeError } = require('../gate/primordials');
const { invalidArgument } = require('../gate/read');
// The 2.x gate loads with the adapter (its built-ins captured now, never at a first use);
// the SDK 2.x itself loads when a gate is served.
const { gateMcpServerV2 } = require('./v2/gate');

/** Whether a package resolves from here (nothing of it runs). */
function resolves(name) {
  try {
    require.resolve(name);
    return true;
  } catch (error) {
    if (error !== null && typeof error === 'object' && error.code === 'MODULE_NOT_FOUND') return false;
    throw error;
  }
}

// SDK 1.x loads with the adapter, as it always has; a project with 2.x alone loads it on
// first use. With neither, requiring the adapter names both packages.
let v1Loaded = false;
try {
  require('./sdk');
  v1Loaded = true;
} catch (error) {
  if (error === null || typeof error !== 'object' || error.code !== 'MODULE_NOT_FOUND' || !resolvesNot('@modelcontextprotocol/sdk')) throw error;
  if (!resolves('@modelcontextprotocol/server')) {
    const missing = new SafeError(
      'tool-argument-snapshot/mcp needs the MCP TypeScript SDK (an optional peer dependency): npm install @modelcontextprotocol/server (2.x), or npm install @modelcontextprotocol/sdk (1.x)',
    );
    ObjectDefineProperty(missing, 'code', { __proto__: null, value: 'MODULE_NOT_FOUND', enumerable: true, writable: false, configurable: true });
    ObjectDefineProperty(missing, 'packageName', {
      __proto__: null,
      value: '@modelcontextprotocol/server',
      enumerable: true,
      writable: false,
      configurable: true,
    });
    throw missing;
  }
}

// The package's randomUUID, captured now (the gates' session and elicitation ids): node:crypto is never loaded.
require('../gate/ids');

function resolvesNot(name) {
  return !resolves(name);
}

/**
 * Gates an MCP server: `gateMcpServer(mcpServer, options)` for an McpServer of SDK 1.x,
 * `gateMcpServer(serverFactory, options)` for SDK 2.x (a function making a new McpServer
 * for each request, as createMcpHandler takes).
 */
function gateMcpServer(server, options) {
  if (typeof server === 'function' && !isProxy(server)) return gateMcpServerV2(server, options);
  if (server !== null && typeof server === 'object' && !isProxy(server) && typeof server.toolInputSchemaJson === 'function') {
    // An McpServer of 2.x serves one request: the gate needs the factory that makes one per request.
    throw invalidArgument('gateMcpServer: with @modelcontextprotocol/server 2.x, pass the server factory (a function returning a new McpServer), not a server');
  }
  if (!v1Loaded) require('./sdk');
  return require('./gate').gateMcpServer(server, options);
}

module.exports = { gateMcpServer };
