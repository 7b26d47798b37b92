'use strict';
// @langchain/core, resolved first so that a missing peer is named (and loaded at its first
// use: `core()`), and the package's public API.

const { peerModule } = require('../../gate/peer');

const core = peerModule(
  'langchain',
  '@langchain/core',
  '@langchain/core 1.x',
  () => {
    require.resolve('@langchain/core/tools');
    require.resolve('@langchain/core/messages');
    require.resolve('@langchain/core/singletons');
  },
  () => ({
    tools: require('@langchain/core/tools'),
    messages: require('@langchain/core/messages'),
    singletons: require('@langchain/core/singletons'),
  }),
);
const api = require('tool-argument-snapshot');

module.exports = { core, api };
