'use strict';
// tool-argument-snapshot/langchain: RFC-0016 for LangChain.js.
//
// - createToolGate (adapters/langchain-gate.js) needs @langchain/core 1.x only: a gate for
//   an agent loop of your own, run on each model message.
// - toolGateMiddleware (adapters/langchain-agent.js) is a middleware for LangChain v1's
//   createAgent; it loads `langchain` and `@langchain/langgraph` when it is first called,
//   so createToolGate keeps working where they are not installed.

const { createToolGate } = require('./langchain-gate');

let agent;

/**
 * A createAgent middleware that gates the given tools (see adapters/langchain-agent.js).
 * Throws an error with `code: 'MODULE_NOT_FOUND'` naming `langchain` or
 * `@langchain/langgraph` when either is not installed.
 */
function toolGateMiddleware(options) {
  if (agent === undefined) agent = require('./langchain-agent');
  return agent.toolGateMiddleware(options);
}

module.exports = { createToolGate, toolGateMiddleware };
