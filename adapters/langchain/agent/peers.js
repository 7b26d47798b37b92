'use strict';
// LangGraph and langchain (createAgent), loaded when toolGateMiddleware is first called.

const { requirePeer } = require('../../gate/peer');
require('../gate/core');

// LangGraph first: langchain requires it too, and a missing one is named as itself.
const { interrupt, isGraphInterrupt, isCommand } = requirePeer('langchain', '@langchain/langgraph', '@langchain/langgraph 1.x', () =>
  require('@langchain/langgraph'),
);
const { createMiddleware } = requirePeer('langchain', 'langchain', 'langchain 1.x (createAgent)', () => require('langchain'));
const { AsyncLocalStorageProviderSingleton } = require('@langchain/core/singletons');
const { AIMessage } = require('@langchain/core/messages');

module.exports = { interrupt, isGraphInterrupt, isCommand, createMiddleware, AsyncLocalStorageProviderSingleton, AIMessage };
