'use strict';
// tool-argument-snapshot/mcp: RFC-0016 at an MCP server (`McpServer` of
// @modelcontextprotocol/sdk 1.x). How the gate reads message text, replaces tools/call
// and answers: docs/mcp-server.md, "How it works".

require('./sdk');
const { gateMcpServer } = require('./gate');

module.exports = { gateMcpServer };
