'use strict';
// The OpenAI Agents SDK (loaded first, so a missing peer is named), the package's public API,
// and the adapter's error for a bad argument.

const { requirePeer, invalidArgument: sharedInvalidArgument } = require('../shared');

// The framework first: without it, requiring this subpath names the package to install.
const sdk = requirePeer('openai-agents', '@openai/agents', 'the OpenAI Agents SDK', () => require('@openai/agents'));
const api = require('tool-argument-snapshot');

const ADAPTER = 'openai-agents';

function invalidArgument(message) {
  return sharedInvalidArgument(`tool-argument-snapshot/${ADAPTER}: ${message}`);
}

module.exports = { sdk, api, ADAPTER, invalidArgument };
