'use strict';
// tool-argument-snapshot/openai-agents: RFC-0016 for the OpenAI Agents SDK. How the gate
// works with the SDK (raw text, runs, approval, the carrier): docs/adapters/openai-agents.md.

const { createOpenAIAgentsGate } = require('./gate');
const { CARRIER_KEY } = require('./schemas');

module.exports = { createOpenAIAgentsGate, CARRIER_KEY };
