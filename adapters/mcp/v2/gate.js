'use strict';
// gateMcpServer on the MCP TypeScript SDK 2.x (`@modelcontextprotocol/server`, the
// 2026-07-28 specification): the application's server factory, wrapped so that each
// McpServer made for a request gets the gate's tools/call handler (call.js), behind
// createMcpHandler and the gate's fetch (serve.js, http.js) or the SDK's serveStdio
// (stdio.js). The steps are the gate kernel's, as on SDK 1.x: prepareToolCallAsync (one
// schema run on the arguments decoded with the message), the policy (grants first),
// executeToolCall (a fresh view, at most once, receipts).

const { ObjectFreeze, isProxy } = require('../../gate/primordials');
const { invalidArgument, own } = require('../../gate/read');
const { readGateOptions } = require('../options');
const { DEFAULT_STATE_TTL_MS } = require('./state');
const { nodeHandler } = require('./http');
const { serveGatedStdio } = require('./stdio');
const { callToolOf } = require('./call');
const { gatedFactoryMaker, serveHttp } = require('./serve');

const USAGE =
  'gateMcpServer expects (serverFactory, { agentName, policy?, grants?, receipts?, idempotencyScope?, elicitation?, policyContext?, proposalTtlMs?, http? }) with @modelcontextprotocol/server 2.x';

function gateMcpServerV2(factory, options) {
  if (typeof factory !== 'function' || isProxy(factory)) throw invalidArgument(USAGE);
  const gate = readGateOptions(options, USAGE, 'context');
  gate.sealing = gate.grants !== undefined && own(gate.grants, 'sealing') === true;
  if (gate.elicitation && !gate.sealing) {
    throw invalidArgument(
      'options.elicitation needs options.grants with a key ring on @modelcontextprotocol/server 2.x (an accepted elicitation grants the sealed requestState)',
    );
  }
  // How long an approval's requestState (and the proposal kept with it) lives: a state always expires.
  gate.stateTtlMs = gate.proposalTtlMs ?? DEFAULT_STATE_TTL_MS;

  const makeGatedFactory = gatedFactoryMaker(factory, callToolOf(gate));
  const { fetch, handlers } = serveHttp(makeGatedFactory, gate.httpOptions);
  return ObjectFreeze({
    agentName: gate.agentName,
    /** The web face: a Request to a Response, each POST read and checked by the gate first. */
    fetch,
    /** A Node.js `(req, res)` handler: the request made a web Request for `fetch`, the Response written back. */
    handleHttp: nodeHandler(fetch),
    /** Closes the handlers' exchanges in flight (the SDK handler's close). */
    close: async () => {
      for (let i = 0; i < handlers.length; i++) await handlers[i].close();
    },
    /** The SDK's handler (its `notify` and `bus`); serve through `fetch`, never its own. */
    get handler() {
      return handlers[0];
    },
    /**
     * Serves stdio with the SDK's serveStdio (one connection; a server from the factory for
     * it), each line read and decoded strictly by the gate: `{ stdin?, stdout?, legacy?,
     * onerror?, serveStdio? }` (serveStdio of the build the factory's servers are of).
     */
    serveStdio: (stdioOptions) => serveGatedStdio(makeGatedFactory, stdioOptions),
  });
}

module.exports = { gateMcpServerV2 };
