'use strict';
// tool-argument-snapshot/genkit: RFC-0016 for Genkit (the `genkit` package, 1.42).
// createToolGate assembles the gate: Genkit tools whose calls are decided and run by the
// gate's generate middleware (its `tool` hook sees each tool request with its ref), an
// approval that is Genkit's own interrupt carrying the proposal, and approve / decline /
// pending that grant exactly that proposal, so that a restart runs only the approved hash
// (Genkit's `resumed.toolApproved` is a value the caller sets: the gate never reads it as
// an approval). Built on the gate kernel (adapters/gate/): options.js reads the options,
// call.js decides and runs a call, review.js names calls for the reviewer. How:
// docs/adapters/genkit.md.

const { ArrayPrototypePush, MapPrototypeGet, ObjectFreeze, randomUUID } = require('../gate/primordials');
const { invalidArgument, own, setData, readOptions } = require('../gate/read');
const { approvedWithoutGrantNotice } = require('../gate/warnings');
const { ADAPTER, genkitModule } = require('./framework');
// The package's randomUUID, captured now (after the framework check): node:crypto is never loaded.
require('../gate/ids');
const { USAGE, readGateOptions, configString } = require('./options');
const { META_KEY, notExecutedOutput, gatedCallOf } = require('./call');
const { createReview } = require('./review');

const HOW_TO_APPROVE =
  "grant the reviewer's approval with `await gate.approve(interrupt)` before restarting the tool; `resumed: { toolApproved: true }` alone approves nothing.";

function createToolGate(options) {
  const opts = readOptions(options, USAGE);
  if (opts === null) throw invalidArgument(USAGE);
  // The framework first: a gate made without Genkit names the package to install.
  const { dynamicTool, generateMiddleware, ToolInterruptError } = genkitModule();
  const gate = readGateOptions(opts);
  const { agentName, entries, byName, ai } = gate;
  const gatedCall = gatedCallOf(gate, ToolInterruptError, approvedWithoutGrantNotice(ADAPTER, HOW_TO_APPROVE));

  const middleware = generateMiddleware(
    // A name of this gate's own: Genkit keeps the first middleware registered under a name,
    // so two gates of one agent in one Genkit instance must not share it.
    { name: `tool-argument-snapshot/${agentName}/${randomUUID()}`, description: "RFC-0016: every call of the gate's tools decided on its snapshot" },
    ({ config }) => ({
      async tool(req, ctx, next) {
        const name = own(own(req, 'toolRequest'), 'name');
        const entry = typeof name === 'string' ? MapPrototypeGet(byName, name) : undefined;
        // Another tool of the generate: not the gate's to decide.
        if (entry === undefined) return next(req, ctx);
        return gatedCall(entry, req, ctx, config);
      },
    }),
  );

  const tools = [];
  const toolsByName = {};
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    // Genkit lists the JSON Schema; the function runs only when the gate's middleware is
    // not in the generate (the middleware answers every call itself): it runs nothing.
    // Defined in the app's Genkit instance when given (`ai.defineTool`), else a dynamic tool.
    const config = { name: entry.toolName, description: entry.description, inputJsonSchema: entry.jsonSchema };
    const refuse = async () => notExecutedOutput('deny', 'not_decided_by_gate', 'runtime');
    const genkitTool = ai === undefined ? dynamicTool(config, refuse) : ai.defineTool(config, refuse);
    ArrayPrototypePush(tools, genkitTool);
    setData(toolsByName, entry.toolName, genkitTool);
  }

  /** The `use` entry of a generate: the gate's middleware with the run's id (and grant scope). */
  function use(config) {
    const given = readOptions(config, 'use options');
    const passed = {};
    if (given !== null) {
      const runId = configString(given, 'runId');
      const grantScope = configString(given, 'grantScope');
      if (runId !== undefined) setData(passed, 'runId', runId);
      if (grantScope !== undefined) setData(passed, 'grantScope', grantScope);
    }
    return middleware(passed);
  }

  return ObjectFreeze({
    tools: ObjectFreeze(tools),
    toolsByName: ObjectFreeze(toolsByName),
    middleware,
    use,
    // keptProposal, pending, approve, decline
    ...createReview(gate),
    grants: gate.grants,
    receipts: gate.receipts,
  });
}

module.exports = { createToolGate, INTERRUPT_METADATA_KEY: META_KEY };
