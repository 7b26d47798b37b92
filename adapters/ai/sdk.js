'use strict';
// The Vercel AI SDK 7 (the `ai` package), an optional peer: loaded once, with an error
// naming the package when it is not installed.

const { requirePeer } = require('../gate/peer');

module.exports = requirePeer('ai', 'ai', 'the Vercel AI SDK 7', () => require('ai'));
