'use strict';
// The MCP TypeScript SDK 1.x, an optional peer: its types when the adapter loads (an
// error naming the package when it is missing), its Streamable HTTP transport on first use.

const { requirePeer } = require('../shared');

const WHAT = 'the MCP TypeScript SDK 1.x';
const types = requirePeer('mcp', '@modelcontextprotocol/sdk', WHAT, () => require('@modelcontextprotocol/sdk/types.js'));

let streamableHttp;
function httpTransportClass() {
  if (streamableHttp === undefined) {
    streamableHttp = requirePeer('mcp', '@modelcontextprotocol/sdk', WHAT, () => require('@modelcontextprotocol/sdk/server/streamableHttp.js')).StreamableHTTPServerTransport;
  }
  return streamableHttp;
}

module.exports = { types, httpTransportClass };
