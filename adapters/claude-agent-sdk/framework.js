'use strict';
// The Claude Agent SDK (@anthropic-ai/claude-agent-sdk 0.3), an optional peer, and zod 4 (a
// peer of the SDK): loaded when a gate is first made, not when this subpath is required, so
// that requiring it never fails; a gate made without the SDK names the package to install.
// The SDK is an ES module: it is loaded with require(), which Node supports from 20.19.

const { requirePeer } = require('../gate/peer');

const ADAPTER = 'claude-agent-sdk';
const PACKAGE = '@anthropic-ai/claude-agent-sdk';

let sdk;
let zod;

/** The SDK's exports (`tool`, `createSdkMcpServer`), loaded once. */
function claudeSdk() {
  if (sdk === undefined) sdk = requirePeer(ADAPTER, PACKAGE, 'the Claude Agent SDK (@anthropic-ai/claude-agent-sdk 0.3)', () => require(PACKAGE));
  return sdk;
}

/** zod 4 (the SDK's own peer), for the in-process tools' wire schemas. */
function zod4() {
  if (zod === undefined) zod = requirePeer(ADAPTER, 'zod', 'zod 4 (a peer dependency of the Claude Agent SDK)', () => require('zod'));
  return zod;
}

module.exports = { ADAPTER, PACKAGE, claudeSdk, zod4 };
