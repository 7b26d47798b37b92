'use strict';
// Which line of the MCP TypeScript SDK this project has, found when tool-argument-snapshot/mcp
// is required (names resolved, nothing of either SDK runs): 1.x (@modelcontextprotocol/sdk,
// resolved by ./sdk.js) or 2.x (@modelcontextprotocol/server). With neither, requiring the
// subpath throws an error naming both packages.

const { ObjectDefineProperty, SafeError } = require('../gate/primordials');

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

let v1Resolved = false;
try {
  require('./sdk');
  v1Resolved = true;
} catch (error) {
  if (error === null || typeof error !== 'object' || error.code !== 'MODULE_NOT_FOUND' || resolves('@modelcontextprotocol/sdk')) throw error;
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

module.exports = { v1Resolved };
