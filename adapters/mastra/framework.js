'use strict';
// Mastra (@mastra/core 1.x), an optional peer: its tools and schema modules, loaded once,
// with an error naming the package when it is not installed.

const { requirePeer } = require('../gate/peer');

const ADAPTER = 'mastra';
const WHAT = 'Mastra (@mastra/core 1.x)';
// The framework first: without it, requiring this subpath names the package to install.
const mastraTools = requirePeer(ADAPTER, '@mastra/core', WHAT, () => require('@mastra/core/tools'));
const mastraSchema = requirePeer(ADAPTER, '@mastra/core', WHAT, () => require('@mastra/core/schema'));

module.exports = {
  ADAPTER,
  mastraCreateTool: mastraTools.createTool,
  validateToolOutput: mastraTools.validateToolOutput,
  toStandardSchema: mastraSchema.toStandardSchema,
  /** Mastra's model router (a model id such as 'openai/gpt-5'), loaded when first asked for. */
  modelRouter: () => requirePeer(ADAPTER, '@mastra/core', WHAT, () => require('@mastra/core/llm')).ModelRouterLanguageModel,
};
