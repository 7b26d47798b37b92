'use strict';
// gateMcpServer on the MCP TypeScript SDK 2.x (issue 38): a server factory of
// @modelcontextprotocol/server gated per request behind createMcpHandler and the gate's
// fetch, exercised with the SDK's own Client (pinned to 2026-07-28) and raw POSTs over a
// real HTTP server on 127.0.0.1. Oracles: what the SDK's Client receives, the tool's own
// record of its runs, and the package's grants (verify, grant, listProposals).

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const { z } = require('zod');
const { McpServer } = require('@modelcontextprotocol/server');

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { createApprovalGrants, createCedarPolicy, createSqliteGrantStore, prepareToolCall } = require('../../..');
const { gateMcpServer } = require('../../../adapters/mcp/index.js');
const {
  AGENT,
  SECRET,
  APPROVAL_META,
  KEY_NAME,
  ENVELOPE,
  payPolicy,
  payFactory,
  serve,
  connect,
  start,
  post,
  toolCallText,
  toolCallHeaders,
} = require('./v2-support');

const KEYS = [{ id: 'k1', secret: 'k'.repeat(32) }];
const sealingGrants = (options = {}) => createApprovalGrants({ keys: KEYS, ...options });

function assertDenied(result, reason, decidedBy = 'runtime') {
  assert.equal(result.isError, true);
  assert.deepEqual(result.structuredContent, { decision: 'deny', reason, decidedBy });
  assert.ok(!JSON.stringify(result).includes(SECRET), 'a refusal holds no payload');
}

/** Asks for an approval of a large payment: the input_required answer. */
async function askLarge(app, args = { to: 'landlord', amount: 1200, memo: SECRET }) {
  const asked = await app.call('pay', args);
  assert.equal(asked.resultType, 'input_required');
  return asked;
}

describe('gateMcpServer with @modelcontextprotocol/server 2.x', () => {
  test("an allowed call runs once, with the tool's input schema run once (the SDK's own validation does not run); a denied one runs nothing", async () => {
    const app = await start({});
    try {
      const result = await app.call('pay', { to: 'bob', amount: 20, memo: SECRET });
      assert.equal(result.isError, undefined);
      assert.equal(result.content[0].text, 'paid 20 to bob');
      assert.deepEqual(app.state.runs, [{ tool: 'pay', to: 'bob', amount: 20, hasContext: true }]);
      assert.equal(app.state.schemaRuns, 1, 'one schema run');
      assertDenied(await app.call('pay', { to: 'mallory', amount: 5 }), 'blocked_payee', 'policy');
      assert.equal(app.state.runs.length, 1);
    } finally {
      await app.close();
    }
  });

  test('require_approval: input_required with a requestState sealed by the key ring; the retry runs once after the grant, however respelled', async () => {
    const grants = sealingGrants();
    const app = await start({ grants });
    try {
      const asked = await askLarge(app);
      assert.match(asked.requestState, /^tas1\.[A-Za-z0-9_-]+$/);
      const approval = asked._meta[APPROVAL_META];
      const expected = prepareToolCall({ agentName: AGENT, toolName: 'pay', rawArguments: JSON.stringify({ to: 'landlord', amount: 1200, memo: SECRET }) });
      assert.equal(approval.decision, 'require_approval');
      assert.equal(approval.reason, 'large_payment');
      assert.equal(approval.proposalHash, expected.proposalHash);
      assert.equal(grants.verify(approval.proposal).proposalHash, expected.proposalHash, 'the proposal verifies with the key ring');
      assert.equal(typeof approval.pendingId, 'string', 'the id of the kept proposal');
      // Before the grant the retry is answered again, with the same state; nothing runs.
      const pending = await app.call('pay', { to: 'landlord', amount: 1200, memo: SECRET }, { requestState: asked.requestState });
      assert.equal(pending.resultType, 'input_required');
      assert.equal(pending.requestState, asked.requestState);
      assert.equal(app.state.runs.length, 0);

      await grants.grant(approval.proposal);
      const ran = await app.call('pay', { memo: SECRET, amount: 1200.0, to: 'landlord' }, { requestState: asked.requestState });
      assert.equal(ran.content[0].text, 'paid 1200 to landlord');
      assert.equal(app.state.runs.length, 1);
      // The same call without the state needs a new approval: the grant was the state's alone.
      assert.equal((await app.call('pay', { to: 'landlord', amount: 1200, memo: SECRET })).resultType, 'input_required');
      assert.equal(app.state.runs.length, 1);
    } finally {
      await app.close();
    }
  });

  test("edited arguments, a replayed state, another principal's state, another tool, a tampered or expired state: each refused with its code, nothing runs", async () => {
    let now = 1_000_000;
    const grants = sealingGrants({ now: () => now });
    const app = await start({ grants, proposalTtlMs: 60_000 }, { clientId: 'alice' });
    const other = await connect(app.url, { clientId: 'mallory' });
    try {
      const args = { to: 'landlord', amount: 1200, memo: SECRET };
      const asked = await askLarge(app, args);
      await grants.grant(asked._meta[APPROVAL_META].proposal);
      const retry = (client, name, callArgs, requestState) => client.callTool({ name, arguments: callArgs, requestState }, { allowInputRequired: true });

      assertDenied(await retry(app.client, 'pay', { ...args, amount: 12000 }, asked.requestState), 'request_state_arguments_changed');
      assertDenied(await retry(other, 'pay', args, asked.requestState), 'request_state_principal_mismatch');
      assertDenied(await retry(app.client, 'refund', { to: 'landlord', amount: 1200 }, asked.requestState), 'request_state_tool_mismatch');
      const word = asked.requestState.slice(5);
      const flipped = `tas1.${word.slice(0, 40)}${word[40] === 'A' ? 'B' : 'A'}${word.slice(41)}`;
      assertDenied(await retry(app.client, 'pay', args, flipped), 'request_state_invalid');
      assert.equal(app.state.runs.length, 0, 'none of those ran, and none spent the grant');

      assert.equal((await retry(app.client, 'pay', args, asked.requestState)).content[0].text, 'paid 1200 to landlord');
      assertDenied(await retry(app.client, 'pay', args, asked.requestState), 'request_state_used');
      assert.equal(app.state.runs.length, 1);

      const late = await askLarge(app, args);
      await grants.grant(late._meta[APPROVAL_META].proposal);
      now += 60_001;
      assertDenied(await retry(app.client, 'pay', args, late.requestState), 'request_state_expired');
      assert.equal(app.state.runs.length, 1);
    } finally {
      await other.close();
      await app.close();
    }
  });

  test('a Client that fulfils input_required by itself retries a pending approval up to its rounds and gives up with the state; nothing runs', async () => {
    const grants = sealingGrants();
    const app = await start({ grants }, { autoFulfill: true });
    try {
      await assert.rejects(app.client.callTool({ name: 'pay', arguments: { to: 'landlord', amount: 1200 } }), (error) => {
        assert.equal(error.code, 'INPUT_REQUIRED_ROUNDS_EXCEEDED');
        assert.match(error.data.lastResult.requestState, /^tas1\./);
        return true;
      });
      assert.equal(app.state.runs.length, 0);
      assert.equal((await grants.listProposals()).proposals.length, 1, 'one state, asked again and again');
    } finally {
      await app.close();
    }
  });

  test('two retries of one granted state at once: one runs, the other is refused', async () => {
    const grants = sealingGrants();
    const app = await start({ grants });
    try {
      const args = { to: 'landlord', amount: 1200 };
      const asked = await askLarge(app, args);
      await grants.grant(asked._meta[APPROVAL_META].proposal);
      const results = await Promise.all([1, 2, 3].map(() => app.call('pay', args, { requestState: asked.requestState })));
      const ran = results.filter((result) => result.isError !== true);
      assert.equal(ran.length, 1);
      assert.equal(app.state.runs.length, 1);
      for (const result of results.filter((r) => r.isError === true)) {
        assert.ok(
          ['request_state_used', 'execution_in_progress', 'grant_unavailable'].includes(result.structuredContent.reason),
          result.structuredContent.reason,
        );
      }
    } finally {
      await app.close();
    }
  });

  test('without a key ring no requestState is answered: require_approval is the approval result of SDK 1.x, and its grant lets the next identical call run', async () => {
    const grants = createApprovalGrants();
    const app = await start({ grants });
    try {
      const args = { to: 'landlord', amount: 1200 };
      const asked = await app.call('pay', args);
      assert.equal(asked.resultType, undefined);
      assert.equal(asked.isError, true);
      assert.equal(asked.structuredContent.decision, 'require_approval');
      assert.equal(asked.structuredContent.proposal.argsCanonicalJson, '{"amount":1200,"to":"landlord"}');
      // A requestState in the gate's form cannot be checked without keys: refused.
      assertDenied(await app.call('pay', args, { requestState: 'tas1.e30' }), 'request_state_invalid');
      // Kept for a reviewer as on 1.x (adapters/mcp/proposals.js), under the answer's pendingId.
      const { proposals } = await grants.listProposals();
      assert.equal(proposals.length, 1);
      const kept = proposals[0];
      assert.equal(Buffer.from(`${kept.runId.length}:${kept.runId}${kept.toolCallId}`).toString('base64url'), asked.structuredContent.pendingId);
      await grants.grant(asked.structuredContent.proposal);
      assert.equal((await app.call('pay', args)).content[0].text, 'paid 1200 to landlord');
      assert.equal(app.state.runs.length, 1);
      assert.deepEqual((await grants.listProposals()).proposals, [], 'a call run on its grant no longer waits');
    } finally {
      await app.close();
    }
  });

  test('gate.handleHttp(req, res) on node:http: the Node request read by the gate, req.auth the principal, the approval and its retry', async () => {
    const http = require('node:http');
    const grants = sealingGrants();
    const state = payFactory();
    const gate = gateMcpServer(state.factory, { agentName: AGENT, policy: payPolicy, grants });
    const server = http.createServer((req, res) => {
      const clientId = req.headers['x-test-client'];
      if (typeof clientId === 'string') req.auth = { token: 't', clientId, scopes: [] };
      gate.handleHttp(req, res).catch((error) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${server.address().port}/mcp`;
    const alice = await connect(url, { clientId: 'alice' });
    const mallory = await connect(url, { clientId: 'mallory' });
    try {
      const call = (client, args, extra = {}) => client.callTool({ name: 'pay', arguments: args, ...extra }, { allowInputRequired: true });
      assert.equal((await call(alice, { to: 'bob', amount: 20 })).content[0].text, 'paid 20 to bob');
      const asked = await call(alice, { to: 'landlord', amount: 1200 });
      await grants.grant(asked._meta[APPROVAL_META].proposal);
      assertDenied(await call(mallory, { to: 'landlord', amount: 1200 }, { requestState: asked.requestState }), 'request_state_principal_mismatch');
      assert.equal((await call(alice, { to: 'landlord', amount: 1200 }, { requestState: asked.requestState })).content[0].text, 'paid 1200 to landlord');
      const duplicate = await post(url, toolCallText(1, 'pay', '{"to":"bob","amount":5,"amount":5000}'), toolCallHeaders('pay'));
      assert.deepEqual(duplicate.body.result.structuredContent, { toolName: 'pay', stage: 'json', code: 'duplicate_key' });
      assert.equal(state.runs.length, 2);
    } finally {
      await alice.close();
      await mallory.close();
      await new Promise((resolve) => server.close(resolve));
      await gate.close();
    }
  });

  test("the reviewer's path: the state's proposal is kept in the grants' store, listed, and granted from the kept record", async () => {
    const grants = sealingGrants();
    const app = await start({ grants });
    try {
      const asked = await askLarge(app);
      const { proposals } = await grants.listProposals();
      assert.equal(proposals.length, 1);
      const kept = proposals[0];
      assert.equal(kept.proposal.nonce, asked._meta[APPROVAL_META].proposal.nonce, "the kept record is the state's seal");
      assert.equal(
        Buffer.from(`${kept.runId.length}:${kept.runId}${kept.toolCallId}`).toString('base64url'),
        asked._meta[APPROVAL_META].pendingId,
        'the id pending prints',
      );
      await grants.grant(await grants.keptProposal({ runId: kept.runId, toolCallId: kept.toolCallId }));
      await assert.rejects(grants.grant(asked._meta[APPROVAL_META].proposal), { code: 'seal_used' }, 'one seal, granted once');
      assert.equal(
        (await app.call('pay', { to: 'landlord', amount: 1200, memo: SECRET }, { requestState: asked.requestState })).content[0].text,
        'paid 1200 to landlord',
      );
      // A state granted directly (grants.grant of its seal) leaves the pending ones once it ran.
      const second = await askLarge(app, { to: 'landlord', amount: 1300 });
      await grants.grant(second._meta[APPROVAL_META].proposal);
      assert.equal((await grants.listProposals()).proposals.length, 1);
      await app.call('pay', { to: 'landlord', amount: 1300 }, { requestState: second.requestState });
      assert.deepEqual((await grants.listProposals()).proposals, []);
    } finally {
      await app.close();
    }
  });

  test("grants in a SQLite store: the CLI's pending lists the state's proposal and grant --id approves it; the retry runs once, its receipt in that store stops a replay from another gate", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-mcp-v2-'));
    const file = path.join(dir, 'grants.db');
    const store = createSqliteGrantStore({ path: file });
    const grants = sealingGrants({ store });
    const app = await start({ grants });
    const cli = (args) =>
      spawnSync(process.execPath, [path.join(__dirname, '..', '..', '..', 'bin', 'tool-argument-snapshot.js'), ...args], {
        encoding: 'utf8',
        env: { ...process.env, REVIEW_KEYS: JSON.stringify(KEYS) },
      });
    try {
      const args = { to: 'landlord', amount: 1200, memo: SECRET };
      const asked = await askLarge(app, args);
      const id = asked._meta[APPROVAL_META].pendingId;
      const pending = cli(['pending', '--store', `sqlite:${file}`, '--key-env', 'REVIEW_KEYS', '--json']);
      assert.equal(pending.status, 0, pending.stderr);
      const listed = JSON.parse(pending.stdout).proposals;
      assert.deepEqual(
        listed.map((entry) => entry.id),
        [id],
      );
      const granted = cli(['grant', '--store', `sqlite:${file}`, '--key-env', 'REVIEW_KEYS', '--id', id]);
      assert.equal(granted.status, 0, granted.stderr);
      assert.equal((await app.call('pay', args, { requestState: asked.requestState })).content[0].text, 'paid 1200 to landlord');
      // Another gate (another process would do the same) on the same store: the state's receipt refuses the replay.
      const second = await start({ grants: sealingGrants({ store }) });
      try {
        assertDenied(await second.call('pay', args, { requestState: asked.requestState }), 'request_state_used');
        assert.equal(second.state.runs.length, 0);
      } finally {
        await second.close();
      }
      assert.equal(app.state.runs.length, 1);
    } finally {
      await app.close();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('elicitation: true asks the client in-band (form elicitation in input_required); an accepted answer runs the call once, a declined one denies', async () => {
    const grants = sealingGrants();
    let answer = 'accept';
    const asks = [];
    const elicit = async (request) => {
      asks.push(request.params.message);
      return answer === 'accept' ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
    };
    const app = await start({ grants, elicitation: true }, { capabilities: { elicitation: { form: {} } }, elicit });
    try {
      const result = await app.client.callTool({ name: 'pay', arguments: { to: 'landlord', amount: 1200 } });
      assert.equal(result.content[0].text, 'paid 1200 to landlord');
      assert.equal(app.state.runs.length, 1);
      assert.match(asks[0], /\{"amount":1200,"to":"landlord"\}/);
      answer = 'decline';
      assertDenied(await app.client.callTool({ name: 'pay', arguments: { to: 'landlord', amount: 1300 } }), 'approval_declined', 'elicitation');
      assert.equal(app.state.runs.length, 1);
    } finally {
      await app.close();
    }
  });

  test('idempotency keys: a retry under a new request id runs nothing (the default receipts)', async () => {
    const app = await start({});
    try {
      const extra = { _meta: { [KEY_NAME]: 'pay-bob-20-once' } };
      assert.equal((await app.call('pay', { to: 'bob', amount: 20 }, extra)).content[0].text, 'paid 20 to bob');
      assertDenied(await app.call('pay', { to: 'bob', amount: 20 }, extra), 'call_already_executed');
      assertDenied(await app.call('pay', { to: 'bob', amount: 21 }, extra), 'call_id_conflict');
      assert.equal(app.state.runs.length, 1);
      const bad = await post(
        app.url,
        toolCallText(7, 'pay', '{"to":"bob","amount":1}').replace('"_meta":{', `"_meta":{"${KEY_NAME}":"",`),
        toolCallHeaders('pay'),
      );
      assert.equal(bad.body.error.code, -32602);
      assert.equal(app.state.runs.length, 1);
    } finally {
      await app.close();
    }
  });

  test("a 2025-era client through the same gate (the SDK's stateless fallback): gated alike, approvals as on SDK 1.x", async () => {
    const grants = sealingGrants();
    const app = await start({ grants }, { legacy: true });
    try {
      assert.equal((await app.call('pay', { to: 'bob', amount: 20 })).content[0].text, 'paid 20 to bob');
      const asked = await app.call('pay', { to: 'landlord', amount: 1200 });
      assert.equal(asked.structuredContent.decision, 'require_approval');
      assert.ok(grants.verify(asked.structuredContent.proposal), 'sealed');
      assert.equal(app.state.runs.length, 1);
    } finally {
      await app.close();
    }
  });

  test('a Cedar policy behind the grants: a forbid denies over a live grant', async () => {
    const policies =
      'permit(principal, action == Action::"pay", resource) when { context.input.amount < 400 };\n' +
      'forbid(principal, action, resource) when { context.input.to == "mallory" };\n';
    const grants = sealingGrants();
    const policy = createCedarPolicy({ policies, tools: { pay: z.object({ to: z.string(), amount: z.number().int() }) } });
    const app = await start({ grants, policy: { pay: policy } });
    try {
      assert.equal((await app.call('pay', { to: 'bob', amount: 20 })).content[0].text, 'paid 20 to bob');
      const sealed = grants.seal(prepareToolCall({ agentName: AGENT, toolName: 'pay', rawArguments: '{"to":"mallory","amount":5}' }));
      await grants.grant(sealed);
      assert.equal((await app.call('pay', { to: 'mallory', amount: 5 })).structuredContent.decision, 'deny');
      assert.equal(app.state.runs.length, 1);
    } finally {
      await app.close();
    }
  });
});

describe('the raw body, read once, strictly', () => {
  test("a duplicate key outside arguments is -32600 and reaches no server; inside arguments it is the tool's stage error; nothing runs", async () => {
    const app = await start({});
    try {
      const servers = app.state.servers;
      const outside = toolCallText(1, 'pay', '{"to":"bob","amount":5}').replace('"name":"pay"', '"name":"pay","name":"pay"');
      const refused = await post(app.url, outside, toolCallHeaders('pay'));
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body.error, { code: -32600, message: 'Invalid Request', data: { stage: 'json', code: 'duplicate_key' } });
      assert.equal(app.state.servers, servers, 'no server was made for it');
      const inside = await post(app.url, toolCallText(2, 'pay', '{"to":"bob","amount":5,"amount":5000}'), toolCallHeaders('pay'));
      assert.deepEqual(inside.body.result.structuredContent, { toolName: 'pay', stage: 'json', code: 'duplicate_key' });
      assert.deepEqual(app.state.runs, []);
      // The exact text is what is snapshotted: 5.0 and 5 are one canonical number.
      const spelled = await post(app.url, toolCallText(3, 'pay', '{ "amount" : 5.0, "to" : "bob" }'), toolCallHeaders('pay'));
      assert.equal(spelled.body.result.content[0].text, 'paid 5 to bob');
    } finally {
      await app.close();
    }
  });

  test('headers that disagree with the decoded body (Mcp-Method, Mcp-Name, Base64 Mcp-Name) are -32020 before any policy; nothing runs', async () => {
    let policyRuns = 0;
    const app = await start({
      policy: (input) => {
        policyRuns += 1;
        return payPolicy(input);
      },
    });
    try {
      const text = toolCallText(1, 'pay', '{"to":"bob","amount":5}');
      for (const headers of [
        { 'mcp-method': 'tools/call', 'mcp-name': 'refund' },
        { 'mcp-method': 'tools/list', 'mcp-name': 'pay' },
        { 'mcp-method': 'tools/call', 'mcp-name': `=?base64?${Buffer.from('refund').toString('base64')}?=` },
        { 'mcp-method': 'tools/call', 'mcp-name': '=?base64?%%%?=' },
      ]) {
        const refused = await post(app.url, text, headers);
        assert.equal(refused.status, 400, JSON.stringify(headers));
        assert.deepEqual(refused.body, {
          jsonrpc: '2.0',
          id: 1,
          error: { code: -32020, message: 'Bad Request: the request headers and body disagree', data: { code: 'header_mismatch' } },
        });
      }
      assert.equal(policyRuns, 0);
      assert.deepEqual(app.state.runs, []);
      const agreed = await post(app.url, text, { 'mcp-method': 'tools/call', 'mcp-name': `=?base64?${Buffer.from('pay').toString('base64')}?=` });
      assert.equal(agreed.body.result.content[0].text, 'paid 5 to bob');
      assert.equal(policyRuns, 1);
    } finally {
      await app.close();
    }
  });

  test('an Mcp-Param-* header is checked by the SDK against the arguments the gate decoded; its -32020 answer is made payload-free; nothing runs', async () => {
    const runs = [];
    const factory = () => {
      const server = new McpServer({ name: 'regions', version: '1.0.0' });
      server.registerTool('pay', { inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }), amount: z.number() }) }, async (args) => {
        runs.push(args.region);
        return { content: [{ type: 'text', text: `paid in ${args.region}` }] };
      });
      return server;
    };
    const gate = gateMcpServer(factory, { agentName: AGENT, policy: () => ({ decision: 'allow', reason: 'test' }) });
    const served = await serve(gate);
    try {
      const text = toolCallText(1, 'pay', `{"region":"${SECRET}","amount":1}`);
      const refused = await post(served.url, text, { ...toolCallHeaders('pay'), 'mcp-param-region': 'elsewhere' });
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body.error, { code: -32020, message: 'Bad Request: the request headers and body disagree', data: { code: 'header_mismatch' } });
      assert.ok(!JSON.stringify(refused.body).includes(SECRET), 'the answer quotes no argument');
      // The decoded arguments are what the header is checked against: one "region" of the text.
      const agreed = await post(served.url, text, { ...toolCallHeaders('pay'), 'mcp-param-region': SECRET });
      assert.equal(agreed.body.result.content[0].text, `paid in ${SECRET}`);
      assert.deepEqual(runs, [SECRET]);
    } finally {
      await served.close();
      await gate.close();
    }
  });

  test("a body given parsed, a body read before the gate and a batch are refused; the SDK's handler never reads for the gate", async () => {
    const state = payFactory();
    const gate = gateMcpServer(state.factory, { agentName: AGENT, policy: payPolicy });
    try {
      const text = toolCallText(1, 'pay', '{"to":"bob","amount":5}');
      const request = () =>
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', ...toolCallHeaders('pay') },
          body: text,
        });
      assert.equal((await gate.fetch(request(), { parsedBody: JSON.parse(text) })).status, 500);
      const read = request();
      await read.text();
      assert.equal((await gate.fetch(read)).status, 500);
      const batch = await gate.fetch(
        new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: `[${text}]` }),
      );
      assert.equal(batch.status, 400);
      assert.equal((await batch.json()).error.data.code, 'batch_not_supported');
      // The SDK's own fetch bypasses the gate's reading: its tools/call runs nothing.
      const bypass = await gate.handler.fetch(request());
      assert.equal(JSON.parse(await bypass.text()).error.code, -32603);
      assert.deepEqual(state.runs, []);
    } finally {
      await gate.close();
    }
  });

  test('a request id in flight for one principal: a second request with it runs nothing (-32600 request_id_in_flight)', async () => {
    let release;
    const held = new Promise((resolve) => {
      release = resolve;
    });
    let started;
    const running = new Promise((resolve) => {
      started = resolve;
    });
    let runs = 0;
    const factory = () => {
      const server = new McpServer({ name: 'slow', version: '1.0.0' });
      server.registerTool('pay', { inputSchema: z.object({ to: z.string(), amount: z.number() }) }, async () => {
        runs += 1;
        started();
        await held;
        return { content: [{ type: 'text', text: 'paid' }] };
      });
      return server;
    };
    const gate = gateMcpServer(factory, { agentName: AGENT, policy: () => ({ decision: 'allow', reason: 'test' }) });
    const served = await serve(gate);
    try {
      const text = toolCallText(9, 'pay', '{"to":"bob","amount":5}');
      const headers = { ...toolCallHeaders('pay'), 'x-test-client': 'alice' };
      const first = post(served.url, text, headers);
      await running;
      const second = await post(served.url, text, headers);
      assert.deepEqual(second.body.error, { code: -32600, message: 'Invalid Request', data: { code: 'request_id_in_flight' } });
      // Another principal's request with the same id is its own.
      const otherRelease = post(served.url, text, { ...toolCallHeaders('pay'), 'x-test-client': 'bob' });
      release();
      assert.equal((await first).body.result.content[0].text, 'paid');
      assert.equal((await otherRelease).body.result.content[0].text, 'paid');
      assert.equal(runs, 2);
    } finally {
      await served.close();
      await gate.close();
    }
  });
});

describe('what gateMcpServer takes on 2.x', () => {
  test('a 2.x McpServer itself is refused (it serves one request); a factory returning one server twice fails the second request', async () => {
    const server = new McpServer({ name: 'one', version: '1.0.0' });
    assert.throws(() => gateMcpServer(server, { agentName: AGENT }), { code: 'ERR_INVALID_ARG_TYPE', message: /server factory/ });
    const gate = gateMcpServer(() => server, { agentName: AGENT, policy: () => ({ decision: 'allow', reason: 'test' }) });
    server.registerTool('ping', { inputSchema: z.object({}) }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
    try {
      const text = (id) => toolCallText(id, 'ping', '{}');
      const request = (id) =>
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            ...toolCallHeaders('ping'),
          },
          body: text(id),
        });
      assert.equal((await (await gate.fetch(request(1))).json()).result.content[0].text, 'pong');
      assert.equal((await gate.fetch(request(2))).status, 500);
    } finally {
      await gate.close();
    }
    assert.throws(() => gateMcpServer(() => server, { agentName: AGENT, elicitation: true, grants: createApprovalGrants() }), /key ring/);
    assert.throws(() => gateMcpServer(() => server, { agentName: AGENT, proposalTtlMs: 0 }), /proposalTtlMs/);
  });

  test("an ES module application: its McpServers are served by its build's createMcpHandler, given or found by the gate; nothing runs twice", async () => {
    const esm = await import('@modelcontextprotocol/server');
    let runs = 0;
    let made = 0;
    const factory = () => {
      made += 1;
      const server = new esm.McpServer({ name: 'esm', version: '1.0.0' });
      server.registerTool('ping', { inputSchema: z.object({}) }, async () => {
        runs += 1;
        return { content: [{ type: 'text', text: 'pong' }] };
      });
      return server;
    };
    const request = (id) =>
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          ...toolCallHeaders('ping'),
        },
        body: toolCallText(id, 'ping', '{}'),
      });
    const errors = [];
    // Not given: the first request finds the server's build and is served again by its handler.
    const found = gateMcpServer(factory, {
      agentName: AGENT,
      policy: () => ({ decision: 'allow', reason: 'test' }),
      http: { onerror: (error) => errors.push(error.message) },
    });
    assert.equal((await (await found.fetch(request(1))).json()).result.content[0].text, 'pong');
    assert.equal((await (await found.fetch(request(2))).json()).result.content[0].text, 'pong');
    assert.deepEqual([runs, made], [2, 3], 'the first request made one server of each build; each call ran once');
    assert.deepEqual(errors, [], "the application's onerror never sees the gate's own finding");
    await found.close();
    const given = gateMcpServer(factory, {
      agentName: AGENT,
      policy: () => ({ decision: 'allow', reason: 'test' }),
      http: { createMcpHandler: esm.createMcpHandler },
    });
    assert.equal((await (await given.fetch(request(3))).json()).result.content[0].text, 'pong');
    await given.close();
    assert.deepEqual([runs, made], [3, 4]);
  });

  test("receipts default to the grants' store; memory receipts beside durable grants warn once (TAS_MEMORY_RECEIPTS)", async () => {
    const { createExecutionReceipts } = require('../../..');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-mcp-v2-warn-'));
    const store = createSqliteGrantStore({ path: path.join(dir, 'grants.db') });
    try {
      const warned = new Promise((resolve) => process.once('warning', resolve));
      gateMcpServer(payFactory().factory, { agentName: AGENT, grants: createApprovalGrants({ store }), receipts: createExecutionReceipts() });
      const warning = await warned;
      assert.equal(warning.code, 'TAS_MEMORY_RECEIPTS');
      assert.match(warning.message, /tool-argument-snapshot\/mcp/);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('options are own data: a Proxy factory, a getter for agentName or receipts, a Proxy policy are refused, and no getter runs', () => {
    const factory = payFactory().factory;
    let ran = 0;
    const getter = (value) => ({
      get() {
        ran += 1;
        return value;
      },
      enumerable: true,
    });
    assert.throws(() => gateMcpServer(new Proxy(factory, {}), { agentName: AGENT }), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.throws(() => gateMcpServer(factory, Object.defineProperty({}, 'agentName', getter(AGENT))), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.throws(() => gateMcpServer(factory, Object.defineProperty({ agentName: AGENT }, 'receipts', getter(false))), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.throws(() => gateMcpServer(factory, { agentName: AGENT, policy: new Proxy(() => ({ decision: 'allow', reason: 'x' }), {}) }), {
      code: 'ERR_INVALID_ARG_TYPE',
    });
    assert.throws(() => gateMcpServer(factory, { agentName: AGENT, grants: new Proxy(createApprovalGrants(), {}) }), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.equal(ran, 0);
    const gate = gateMcpServer(factory, { agentName: AGENT });
    const real = new Request('http://127.0.0.1/mcp', { method: 'POST', body: '{}' });
    return Promise.all([
      assert.rejects(gate.fetch(new Proxy(real, {})), { code: 'ERR_INVALID_ARG_TYPE' }),
      assert.rejects(gate.fetch(real, new Proxy({}, {})), { code: 'ERR_INVALID_ARG_TYPE' }),
    ]).finally(() => gate.close());
  });

  test('the idempotency key sits outside the prefixes MCP reserves for _meta', () => {
    const { IDEMPOTENCY_KEY } = require('../../../adapters/mcp/keys.js');
    assert.equal(IDEMPOTENCY_KEY, KEY_NAME);
    const prefix = IDEMPOTENCY_KEY.slice(0, IDEMPOTENCY_KEY.indexOf('/'));
    const labels = prefix.split('.');
    assert.ok(labels.length < 2 || !['modelcontextprotocol', 'mcp'].includes(labels[1]), 'not a reserved prefix');
    assert.ok(!Object.keys(ENVELOPE).some((key) => key.startsWith(`${prefix}/`)));
  });
});
