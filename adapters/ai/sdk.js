'use strict';
// The Vercel AI SDK 7 (the `ai` package), an optional peer: resolved when the adapter
// loads (an error naming the package when it is not installed), loaded at its first use.

const { peerModule } = require('../gate/peer');

module.exports = peerModule(
  'ai',
  'ai',
  'the Vercel AI SDK 7',
  () => require.resolve('ai'),
  () => require('ai'),
);
