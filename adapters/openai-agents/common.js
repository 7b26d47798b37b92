'use strict';
// The OpenAI Agents SDK (resolved first, so a missing peer is named; loaded at its first
// use), the package's public API, the carrier's key and the adapter's error for a bad
// argument.

const { invalidArgument: sharedInvalidArgument } = require('../gate/read');
const { peerModule } = require('../gate/peer');

// The framework first: without it, requiring this subpath names the package to install.
const sdk = peerModule(
  'openai-agents',
  '@openai/agents',
  'the OpenAI Agents SDK',
  () => require.resolve('@openai/agents'),
  () => require('@openai/agents'),
);
const api = require('tool-argument-snapshot');

const ADAPTER = 'openai-agents';

/** The run context's `context` key that carries pending proposals in the serialized state. */
const CARRIER_KEY = 'tool-argument-snapshot';

function invalidArgument(message) {
  return sharedInvalidArgument(`tool-argument-snapshot/${ADAPTER}: ${message}`);
}

module.exports = { sdk, api, ADAPTER, CARRIER_KEY, invalidArgument };
