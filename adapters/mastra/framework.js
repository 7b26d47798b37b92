'use strict';
// Mastra (@mastra/core 1.x), an optional peer: its tools and schema modules, resolved when
// the adapter loads (an error naming the package when it is not installed) and loaded at
// their first use.

const { requirePeer, peerModule } = require('../gate/peer');

const ADAPTER = 'mastra';
const WHAT = 'Mastra (@mastra/core 1.x)';
// The framework first: without it, requiring this subpath names the package to install.
const mastraTools = peerModule(
  ADAPTER,
  '@mastra/core',
  WHAT,
  () => require.resolve('@mastra/core/tools'),
  () => require('@mastra/core/tools'),
);
const mastraSchema = peerModule(
  ADAPTER,
  '@mastra/core',
  WHAT,
  () => require.resolve('@mastra/core/schema'),
  () => require('@mastra/core/schema'),
);

// Mastra's functions, called as they were taken from its modules (no `this`).
function mastraCreateTool(options) {
  const createTool = mastraTools().createTool;
  return createTool(options);
}

function validateToolOutput(schema, output, toolName) {
  const validate = mastraTools().validateToolOutput;
  return validate(schema, output, toolName);
}

function toStandardSchema(schema) {
  const convert = mastraSchema().toStandardSchema;
  return convert(schema);
}

module.exports = {
  ADAPTER,
  mastraCreateTool,
  validateToolOutput,
  toStandardSchema,
  /** Mastra's model router (a model id such as 'openai/gpt-5'), loaded when first asked for. */
  modelRouter: () => requirePeer(ADAPTER, '@mastra/core', WHAT, () => require('@mastra/core/llm')).ModelRouterLanguageModel,
};
