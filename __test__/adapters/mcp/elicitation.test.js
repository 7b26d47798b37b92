'use strict';
// tool-argument-snapshot/mcp, elicitation: an accepted elicitation is a grant for the one
// call that asked. Review finding (failed on 7e7def7): it was an ordinary grant of the hash
// in the call's scope (none unless the app's policyContext set one), found by the call's
// second evaluation; between the grant and that evaluation any identical call (another
// client, another session, a server instance sharing the grants) found it, ran and spent
// it: person A's "yes" executed client B's call. Now the grant's scope is one no other
// evaluation has (`elicitation:<random>`), and only the asking call is evaluated in it.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const z = require('zod');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { ElicitRequestSchema } = require('@modelcontextprotocol/sdk/types.js');
const { createApprovalGrants } = require('../../..');
const { createMemoryStore } = require('../../../lib/stores/memory');
const { gateMcpServer } = require('../../../adapters/mcp/index.js');

function payServer(executed, who) {
  const server = new McpServer({ name: 'payments', version: '1.0.0' });
  server.registerTool('pay', { inputSchema: { to: z.string(), amount: z.number() } }, async (args) => {
    executed.push({ session: who, ...args });
    return { content: [{ type: 'text', text: `paid ${args.amount} to ${args.to}` }] };
  });
  return server;
}

async function session(server, grants, onElicit) {
  const gate = gateMcpServer(server, {
    agentName: 'payments',
    grants,
    elicitation: true,
    policy: (input) => (input.parsedArguments.amount <= 100 ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large' }),
  });
  const [clientTransport, serverTransport] = gate.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'c', version: '1' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, onElicit);
  await client.connect(clientTransport);
  return client;
}

test("an elicitation accepted by one client never executes another client's call", async () => {
  // A memory store whose first `has` after a `put` waits until released (a store round trip).
  const inner = createMemoryStore();
  let afterPut = false;
  let release;
  const held = new Promise((resolve) => {
    release = resolve;
  });
  let granted;
  const grantedP = new Promise((resolve) => {
    granted = resolve;
  });
  const store = {
    put(record, now) {
      const r = inner.put(record, now);
      afterPut = true;
      granted();
      return r;
    },
    has(query, now) {
      if (afterPut) {
        afterPut = false;
        return held.then(() => inner.has(query, now));
      }
      return inner.has(query, now);
    },
    take: (q, n) => inner.take(q, n),
    delete: (q) => inner.delete(q),
    prune: (n) => inner.prune(n),
    putProposal: (k, j, e) => inner.putProposal(k, j, e),
    getProposal: (k, n) => inner.getProposal(k, n),
    deleteProposal: (k) => inner.deleteProposal(k),
  };
  const grants = createApprovalGrants({ store });
  const executed = [];
  const alice = await session(payServer(executed, 'alice'), grants, () => ({ action: 'accept', content: { approve: true } }));
  const bob = await session(payServer(executed, 'bob'), grants, () => ({ action: 'decline' }));

  const aliceCall = alice.callTool({ name: 'pay', arguments: { to: 'landlord', amount: 1200 } });
  await grantedP; // alice said yes; her call's second evaluation is on its way to the store
  const bobResult = await bob.callTool({ name: 'pay', arguments: { to: 'landlord', amount: 1200 } });
  release();
  const aliceResult = await aliceCall;
  assert.deepEqual(
    executed.map((e) => e.session),
    ['alice'],
    `executed: ${JSON.stringify(executed)}; bob's answer: ${JSON.stringify(bobResult.structuredContent ?? bobResult.content)}; alice's: ${JSON.stringify(aliceResult.structuredContent ?? aliceResult.content)}`,
  );
  await alice.close();
  await bob.close();
});
