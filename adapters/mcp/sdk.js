'use strict';
// The MCP TypeScript SDK 1.x, an optional peer: resolved when the adapter loads (an error
// naming the package when it is missing), its types at their first use, its Streamable
// HTTP transport at its first use.

const { requirePeer, peerModule } = require('../gate/peer');

const WHAT = 'the MCP TypeScript SDK 1.x';
const types = peerModule(
  'mcp',
  '@modelcontextprotocol/sdk',
  WHAT,
  () => require.resolve('@modelcontextprotocol/sdk/types.js'),
  () => require('@modelcontextprotocol/sdk/types.js'),
);

let streamableHttp;
function httpTransportClass() {
  if (streamableHttp === undefined) {
    streamableHttp = requirePeer('mcp', '@modelcontextprotocol/sdk', WHAT, () =>
      require('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    ).StreamableHTTPServerTransport;
  }
  return streamableHttp;
}

/** An McpError of the SDK with the code of that name (ErrorCode.InvalidParams, ...). */
function mcpError(codeName, message) {
  const { McpError, ErrorCode } = types();
  return new McpError(ErrorCode[codeName], message);
}

module.exports = { types, httpTransportClass, mcpError };
