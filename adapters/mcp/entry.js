'use strict';
// tool-argument-snapshot/mcp as it is required (package.json "exports"): what must run at
// require runs here, the gate itself (index.js and its modules) loads at the first call of
// gateMcpServer. At require, in this order: the SDK line check (lines.js: without either
// MCP SDK, requiring this subpath names the packages to install), the built-ins every gate
// module uses (../gate/primordials.js), and the package itself with its own checks at load
// and its randomUUID (../gate/ids.js), all captured now. The web classes of the 2.x face
// (Response, Request, Headers, the web streams: v2/web.js) are captured now too when only
// the 2.x SDK is installed (every gate it can make is a 2.x gate, and that SDK loads them
// anyway); with the 1.x SDK installed they are captured when the first 2.x gate is made,
// because on Node 22 and later even reading their property descriptors loads Node's fetch
// implementation (about 16 MiB and 15 ms), which a 1.x gate never uses.
// docs/performance.md, "Loading, sixth round"; docs/security.md.

const { v1Resolved } = require('./lines');
require('../gate/primordials');
require('../gate/ids');
if (!v1Resolved) require('./v2/web');

let gate;

/** gateMcpServer of index.js (docs/mcp-server.md), loaded at its first call. */
function gateMcpServer(server, options) {
  if (gate === undefined) gate = require('./index');
  return gate.gateMcpServer(server, options);
}

module.exports = { gateMcpServer };
