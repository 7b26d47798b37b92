'use strict';
// The ids the gates mint (a run without a runId, an MCP session, an elicitation): the
// package's randomUUID (RFC 9562 version 4 from the addon's OS randomness), so that
// node:crypto's module graph is never loaded for them. Each subpath requires this file when
// it loads, after its framework check (a missing framework is named before anything of the
// package loads), so the function is captured then; primordials.js hands it on.

const { randomUUID } = require('tool-argument-snapshot');

module.exports = { randomUUID };
