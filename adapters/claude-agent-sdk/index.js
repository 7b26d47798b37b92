'use strict';
// tool-argument-snapshot/claude-agent-sdk: RFC-0016 for the Claude Agent SDK
// (@anthropic-ai/claude-agent-sdk 0.3). createToolGate assembles the gate: a PreToolUse
// hook that decides every tool call on its snapshot (before the SDK's permission modes,
// allow rules and canUseTool), the application's own tools on an in-process MCP server
// whose handlers run only on an allow and get the package's execution view, a canUseTool
// for calls an ask rule sends on, and approve / decline / pending for the reviewer. Built
// on the gate kernel (adapters/gate/): options.js reads the options, hook.js decides,
// handlers.js runs, query.js merges the query options, review.js names calls for the
// reviewer. How it works: docs/adapters/claude-agent-sdk.md.

const { ArrayPrototypePush, ObjectFreeze } = require('../gate/primordials');
const { invalidArgument, setData, readOptions } = require('../gate/read');
const { claudeSdk, zod4 } = require('./framework');
const { wireSchemaOf } = require('./tools');
const { USAGE, readGateOptions } = require('./options');
const { BoundedLists } = require('../gate/texts');
const { createPreToolUse } = require('./hook');
const { canUseToolOf, handlerForOf } = require('./handlers');
const { queryOptionsOf } = require('./query');
const { createReview } = require('./review');

function createToolGate(options) {
  const opts = readOptions(options, USAGE);
  if (opts === null) throw invalidArgument(USAGE);
  // The framework first: a gate made without the SDK names the package to install.
  const sdk = claudeSdk();
  const gate = readGateOptions(opts);
  const { entries, serverName } = gate;
  /** Allowed calls of the gate's own tools, by tool_use id, until their handler takes them. */
  const allowed = new BoundedLists();
  /** The canonical input the gate handed over, by tool_use id (for canUseTool). */
  const handedOver = new BoundedLists();
  const preToolUse = createPreToolUse(gate, allowed, handedOver);
  const canUseTool = canUseToolOf(handedOver);
  const handlerFor = handlerForOf(gate, allowed);

  let server;
  if (entries.length > 0) {
    const z = zod4();
    const sdkTools = [];
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      const extras = entry.annotations === undefined ? undefined : { annotations: entry.annotations };
      ArrayPrototypePush(sdkTools, sdk.tool(entry.toolName, entry.description, wireSchemaOf(z, entry.jsonSchema), handlerFor(entry), extras));
    }
    // Listed in the prompt with their JSON Schema (not deferred behind the SDK's tool search).
    server = sdk.createSdkMcpServer({ name: serverName, tools: sdkTools, alwaysLoad: true });
  }

  const toolNames = [];
  for (let i = 0; i < entries.length; i++) ArrayPrototypePush(toolNames, `mcp__${serverName}__${entries[i].toolName}`);

  const hookMatcher = ObjectFreeze({ hooks: ObjectFreeze([preToolUse]) });
  const hooks = ObjectFreeze({ PreToolUse: ObjectFreeze([hookMatcher]) });
  const mcpServers = {};
  if (server !== undefined) setData(mcpServers, serverName, server);
  ObjectFreeze(mcpServers);

  return ObjectFreeze({
    hooks,
    preToolUse,
    canUseTool,
    mcpServers,
    serverName,
    toolNames: ObjectFreeze(toolNames),
    queryOptions: queryOptionsOf(hooks, server, serverName, canUseTool),
    // keptProposal, pending, approve, decline
    ...createReview(gate),
    grants: gate.grants,
    receipts: gate.receipts,
  });
}

module.exports = { createToolGate };
