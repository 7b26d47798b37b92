'use strict';
// tool-argument-snapshot/langchain: RFC-0016 for LangChain.js. createToolGate (gate/) needs
// @langchain/core 1.x only; toolGateMiddleware (agent/) loads `langchain` and
// `@langchain/langgraph` when first called. How it works: docs/adapters/langchain.md.

const { createToolGate } = require('./gate/tool-gate');

let agent;

/**
 * A createAgent middleware that gates the given tools (see agent/middleware.js).
 * Throws an error with `code: 'MODULE_NOT_FOUND'` naming `langchain` or
 * `@langchain/langgraph` when either is not installed.
 */
function toolGateMiddleware(options) {
  if (agent === undefined) agent = require('./agent/middleware');
  return agent.toolGateMiddleware(options);
}

module.exports = { createToolGate, toolGateMiddleware };
