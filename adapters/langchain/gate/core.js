'use strict';
// @langchain/core, loaded first so that a missing peer is named, and the package's public API.

const { requirePeer } = require('../../shared');

const core = requirePeer('langchain', '@langchain/core', '@langchain/core 1.x', () => ({
  tools: require('@langchain/core/tools'),
  messages: require('@langchain/core/messages'),
}));
const api = require('tool-argument-snapshot');

module.exports = { core, api };
