'use strict';
// Genkit (the `genkit` package, 1.42), an optional peer: loaded when a gate is first made,
// not when this subpath is required, so that requiring it never fails; a gate made without
// Genkit names the package to install.

const { requirePeer } = require('../gate/peer');

const ADAPTER = 'genkit';
const PACKAGE = 'genkit';

let genkit;

/** Genkit's exports (`dynamicTool`, `generateMiddleware`, `ToolInterruptError`), loaded once. */
function genkitModule() {
  if (genkit === undefined) genkit = requirePeer(ADAPTER, PACKAGE, 'Genkit (genkit 1.42)', () => require(PACKAGE));
  return genkit;
}

/** Genkit's own JSON Schema conversion (zod 3, Genkit's `z`), loaded once. */
function genkitToJsonSchema() {
  return requirePeer(ADAPTER, PACKAGE, 'Genkit (genkit 1.42)', () => require('genkit/schema')).toJsonSchema;
}

module.exports = { ADAPTER, PACKAGE, genkitModule, genkitToJsonSchema };
