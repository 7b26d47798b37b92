'use strict';
// tool-argument-snapshot/mcp (issue 18, items 4 and 5): an McpServer of
// @modelcontextprotocol/sdk 1.x gated, tested with real peers only: the SDK's own Client
// and McpServer, over a stdio child process, Streamable HTTP on loopback, and the gate's
// linked in-memory pair. Each scenario that the SDK alone gets wrong is shown both ways:
// the ungated server of the same SDK beside the gated one.

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const z = require('zod');

const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { InMemoryTransport } = require('@modelcontextprotocol/sdk/inMemory.js');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { McpError, ElicitRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

const { createApprovalGrants, verifySnapshot } = require('../../..');
const { gateMcpServer } = require('../../../adapters/mcp/index.js');

const FIXTURE = path.join(__dirname, 'fixtures', 'pay-server.js');
const KEY = 'an approval key of at least thirty-two bytes, for tests';
const SMALL_OR_APPROVAL = (input) =>
  input.parsedArguments.amount <= 100 ? { decision: 'allow', reason: 'small_payment' } : { decision: 'require_approval', reason: 'large_payment' };

/** A fresh McpServer with a `pay` tool whose executions land in `executed` (and whose zod refine counts its runs). */
function payServer(executed, counts = { refine: 0 }) {
  const server = new McpServer({ name: 'payments', version: '1.0.0' });
  server.registerTool(
    'pay',
    {
      inputSchema: {
        to: z.string().min(1),
        amount: z
          .number()
          .positive()
          .refine((amount) => {
            counts.refine += 1;
            return amount < 1e9;
          }),
      },
    },
    async (args) => {
      executed.push(args);
      return { content: [{ type: 'text', text: `paid ${args.amount} to ${args.to}` }] };
    },
  );
  return server;
}

/** A client transport whose next tools/call is sent as `rewrite(text)` (a client with its own JSON writer). */
function rewriting(transport, write) {
  const send = transport.send.bind(transport);
  const state = { rewrite: undefined };
  transport.send = (message, options) => {
    if (state.rewrite !== undefined && message.method === 'tools/call') {
      const text = state.rewrite(JSON.stringify(message));
      state.rewrite = undefined;
      return write(text);
    }
    return send(message, options);
  };
  return state;
}

async function connectedPair(server, options, clientOptions) {
  const gate = gateMcpServer(server, options);
  const [clientTransport, serverTransport] = gate.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'test-client', version: '1.0.0' }, clientOptions);
  const wire = rewriting(clientTransport, (text) => clientTransport.sendText(text));
  await client.connect(clientTransport);
  return { gate, client, wire, clientTransport };
}

/** Whether a result or error holds any of the payload strings (it must hold none). */
function assertNoPayload(value, payload) {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  for (const secret of payload) assert.ok(!text.includes(secret), `${JSON.stringify(secret)} leaked: ${text}`);
}

describe('a duplicate key: the SDK alone executes the last value; gated, nothing executes', () => {
  let dir;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-mcp-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function stdioClient(mode, log) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [FIXTURE, mode],
      env: { ...process.env, MCP_EXECUTIONS: log },
      stderr: 'pipe',
    });
    const wire = rewriting(transport, (text) => new Promise((resolve) => transport._process.stdin.write(`${text}\n`, resolve)));
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(transport);
    return { client, wire };
  }

  function executions(log) {
    return fs.existsSync(log)
      ? fs
          .readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];
  }

  const DUPLICATE = (text) => text.replace('"amount":5', '"amount":5,"amount":5000');

  test('stdio child processes: the plain server pays 5000, the gated one answers duplicate_key and pays nothing', async () => {
    const plainLog = path.join(dir, 'plain.jsonl');
    const plain = await stdioClient('plain', plainLog);
    plain.wire.rewrite = DUPLICATE;
    const plainResult = await plain.client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 5 } });
    await plain.client.close();
    assert.equal(plainResult.isError, undefined);
    assert.equal(plainResult.content[0].text, 'paid 5000 to bob');
    assert.deepEqual(executions(plainLog), [{ to: 'bob', amount: 5000 }], 'JSON.parse kept the last value');

    const gatedLog = path.join(dir, 'gated.jsonl');
    const gated = await stdioClient('gated', gatedLog);
    gated.wire.rewrite = DUPLICATE;
    const gatedResult = await gated.client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 5 } });
    assert.equal(gatedResult.isError, true);
    assert.deepEqual(gatedResult.structuredContent, { toolName: 'pay', stage: 'json', code: 'duplicate_key' });
    assertNoPayload(gatedResult, ['bob', '5000']);
    // The same call as the client meant it executes.
    const honest = await gated.client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 5 } });
    await gated.client.close();
    assert.equal(honest.content[0].text, 'paid 5 to bob');
    assert.deepEqual(executions(gatedLog), [{ to: 'bob', amount: 5 }]);
  });

  test('a duplicate key outside arguments is a JSON-RPC -32600 answer (plain: the last name wins)', async () => {
    const plainLog = path.join(dir, 'plain-name.jsonl');
    const plain = await stdioClient('plain', plainLog);
    plain.wire.rewrite = (text) => text.replace('"name":"pay"', '"name":"nothing","name":"pay"');
    const plainResult = await plain.client.callTool({ name: 'pay', arguments: { to: 'eve', amount: 7 } });
    await plain.client.close();
    assert.equal(plainResult.content[0].text, 'paid 7 to eve');

    const gatedLog = path.join(dir, 'gated-name.jsonl');
    const gated = await stdioClient('gated', gatedLog);
    gated.wire.rewrite = (text) => text.replace('"name":"pay"', '"name":"nothing","name":"pay"');
    const error = await gated.client.callTool({ name: 'pay', arguments: { to: 'eve', amount: 7 } }).catch((e) => e);
    await gated.client.close();
    assert.ok(error instanceof McpError, String(error));
    assert.equal(error.code, -32600);
    assert.deepEqual(error.data, { stage: 'json', code: 'duplicate_key' });
    assert.deepEqual(executions(gatedLog), []);
  });

  test("Streamable HTTP on loopback: the SDK's transport pays 5000; handleHttp answers duplicate_key", async () => {
    const plainExecuted = [];
    const plainServer = payServer(plainExecuted);
    const plainTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID });
    await plainServer.connect(plainTransport);
    const gatedExecuted = [];
    const gatedServer = payServer(gatedExecuted);
    const gate = gateMcpServer(gatedServer, { agentName: 'payments', policy: SMALL_OR_APPROVAL });

    for (const [label, handle, executed, expectGated] of [
      ['plain', (req, res) => plainTransport.handleRequest(req, res), plainExecuted, false],
      ['gated', (req, res) => gate.handleHttp(req, res), gatedExecuted, true],
    ]) {
      const httpServer = http.createServer((req, res) => {
        handle(req, res).catch((error) => {
          res.statusCode = 500;
          res.end(String(error));
        });
      });
      await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
      const url = new URL(`http://127.0.0.1:${httpServer.address().port}/mcp`);
      const state = { rewrite: undefined };
      const rewritingFetch = (input, init) => {
        if (state.rewrite !== undefined && init && typeof init.body === 'string' && init.body.includes('"tools/call"')) {
          init = { ...init, body: state.rewrite(init.body) };
          state.rewrite = undefined;
        }
        return fetch(input, init);
      };
      const client = new Client({ name: 'test-client', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(url, { fetch: rewritingFetch });
      await client.connect(transport);
      state.rewrite = DUPLICATE;
      const result = await client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 5 } });
      const honest = await client.callTool({ name: 'pay', arguments: { to: 'carol', amount: 6 } });
      await transport.terminateSession().catch(() => {});
      await client.close();
      await new Promise((resolve) => httpServer.close(resolve));
      if (expectGated) {
        assert.deepEqual(result.structuredContent, { toolName: 'pay', stage: 'json', code: 'duplicate_key' }, label);
        assert.deepEqual(executed, [{ to: 'carol', amount: 6 }], label);
      } else {
        assert.equal(result.content[0].text, 'paid 5000 to bob', label);
        assert.deepEqual(
          executed,
          [
            { to: 'bob', amount: 5000 },
            { to: 'carol', amount: 6 },
          ],
          label,
        );
      }
      assert.equal(honest.content[0].text, 'paid 6 to carol', label);
    }
  });

  test('Streamable HTTP: a duplicate key outside arguments is HTTP 400 with -32600; text that is not JSON is -32700', async () => {
    const executed = [];
    const server = payServer(executed);
    const gate = gateMcpServer(server, { agentName: 'payments', policy: SMALL_OR_APPROVAL });
    const httpServer = http.createServer((req, res) => gate.handleHttp(req, res));
    await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${httpServer.address().port}/mcp`;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    try {
      const duplicate = await fetch(url, { method: 'POST', headers, body: '{"jsonrpc":"2.0","id":1,"id":2,"method":"initialize","params":{}}' });
      assert.equal(duplicate.status, 400);
      assert.deepEqual(await duplicate.json(), {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request', data: { stage: 'json', code: 'duplicate_key' } },
      });
      const surrogate = await fetch(url, {
        method: 'POST',
        headers,
        body: '{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"clientInfo":{"name":"\\udc00"}}}',
      });
      assert.deepEqual((await surrogate.json()).error, { code: -32600, message: 'Invalid Request', data: { stage: 'json', code: 'lone_surrogate' } });
      const broken = await fetch(url, { method: 'POST', headers, body: '{"jsonrpc":' });
      assert.equal(broken.status, 400);
      assert.equal((await broken.json()).error.code, -32700);
      const batch = await fetch(url, {
        method: 'POST',
        headers,
        body: '[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":4,"method":"ping","params":{},"params":{}}]',
      });
      assert.deepEqual(
        await batch.json(),
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request', data: { stage: 'json', code: 'duplicate_key' } } },
        'a batch fails whole',
      );
      const latin1 = await fetch(url, { method: 'POST', headers, body: Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]) });
      assert.equal((await latin1.json()).error.code, -32700, 'bytes that are not UTF-8 are not replaced by U+FFFD');
    } finally {
      await new Promise((resolve) => httpServer.close(resolve));
    }
    assert.deepEqual(executed, []);
  });
});

describe('an approval granted in another process (stdio server, SQLite grants, sealed proposal)', () => {
  test('the server process answers with a seal; the approver process grants it; the identical call executes once, also in a fresh server process', async (t) => {
    const api = require('../../..');
    if (typeof api.createSqliteGrantStore !== 'function') {
      t.skip('createSqliteGrantStore is not exported on this branch yet (the stores branch brings it)');
      return;
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-mcp-approval-'));
    const env = { ...process.env, MCP_EXECUTIONS: path.join(dir, 'executions.jsonl'), MCP_GRANTS_DB: path.join(dir, 'grants.db'), MCP_GRANT_KEY: KEY };
    const connect = async () => {
      const client = new Client({ name: 'agent', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [FIXTURE, 'gated'], env, stderr: 'pipe' }));
      return client;
    };
    try {
      const first = await connect();
      const asked = await first.callTool({ name: 'pay', arguments: { to: 'landlord', amount: 1200 } });
      assert.equal(asked.structuredContent.decision, 'require_approval');
      const sealed = asked.structuredContent.proposal;
      // The approver: another process, with the same key ring and store.
      const approve = spawnSync(
        process.execPath,
        [
          '-e',
          `
        const api = require('tool-argument-snapshot');
        const grants = api.createApprovalGrants({ keys: [{ id: 'k1', secret: process.env.MCP_GRANT_KEY }], store: api.createSqliteGrantStore({ path: process.env.MCP_GRANTS_DB }) });
        grants.grant(JSON.parse(process.argv[1])).then((record) => console.log(record.uses), (e) => { console.error(e.code); process.exit(1); });
      `,
          JSON.stringify(sealed),
        ],
        { cwd: path.join(__dirname, '..', '..', '..'), env, encoding: 'utf8' },
      );
      assert.equal(approve.status, 0, approve.stderr);
      await first.close();
      // A fresh server process (a restart) executes the approved call once.
      const second = await connect();
      assert.equal((await second.callTool({ name: 'pay', arguments: { to: 'landlord', amount: 1200 } })).content[0].text, 'paid 1200 to landlord');
      assert.equal((await second.callTool({ name: 'pay', arguments: { to: 'landlord', amount: 1200 } })).structuredContent.decision, 'require_approval');
      await second.close();
      assert.deepEqual(
        fs
          .readFileSync(env.MCP_EXECUTIONS, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
        [{ to: 'landlord', amount: 1200 }],
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("gated McpServer over the linked in-memory pair (the SDK's Client)", () => {
  test("allow executes once with a fresh view; the policy sees the exact arguments text; the SDK's zod runs once", async () => {
    const executed = [];
    const counts = { refine: 0 };
    const seen = [];
    const { client, wire } = await connectedPair(payServer(executed, counts), {
      agentName: 'payments',
      policy: (input) => {
        seen.push({ rawArguments: input.rawArguments, argumentsSource: input.argumentsSource, toolCallId: input.toolCallId, parsed: input.parsedArguments });
        return { decision: 'allow', reason: 'ok' };
      },
    });
    wire.rewrite = (text) => text.replace('{"to":"bob","amount":7}', '{ "amount" : 7.0 , "to" : "bob" }');
    const result = await client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 7 } });
    assert.equal(result.content[0].text, 'paid 7 to bob');
    assert.deepEqual(executed, [{ amount: 7, to: 'bob' }]);
    assert.equal(counts.refine, 1, "the tool schema ran once: the SDK's own validation did not run again");
    assert.equal(seen.length, 1);
    assert.equal(seen[0].rawArguments, '{ "amount" : 7.0 , "to" : "bob" }', 'rawArguments is the exact text inside the message');
    assert.equal(seen[0].argumentsSource, 'message_text');
    assert.equal(typeof seen[0].toolCallId, 'string');
    assert.notEqual(seen[0].parsed, executed[0], 'policy and handler never share an object');
    await client.close();
  });

  test('the SDK alone: its zod runs once too, and its handler gets the object the transport parsed (baseline)', async () => {
    const executed = [];
    const counts = { refine: 0 };
    const server = payServer(executed, counts);
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(clientTransport);
    await client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 7 } });
    assert.equal(counts.refine, 1);
    assert.deepEqual(executed, [{ to: 'bob', amount: 7 }]);
    await client.close();
  });

  test('deny and a policy that mutates its view: isError with { decision, reason, decidedBy } and nothing executes', async () => {
    const executed = [];
    const { client } = await connectedPair(payServer(executed), {
      agentName: 'payments',
      policy: (input) => {
        if (input.parsedArguments.to === 'mallory') return { decision: 'deny', reason: 'blocked_payee' };
        input.parsedArguments.amount = 1;
        return { decision: 'allow', reason: 'lowered' };
      },
    });
    const denied = await client.callTool({ name: 'pay', arguments: { to: 'mallory', amount: 7 } });
    assert.equal(denied.isError, true);
    assert.deepEqual(denied.structuredContent, { decision: 'deny', reason: 'blocked_payee', decidedBy: 'policy' });
    const mutated = await client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 9000 } });
    assert.deepEqual(mutated.structuredContent, { decision: 'deny', reason: 'policy_mutated_arguments', decidedBy: 'runtime' });
    assertNoPayload([denied, mutated], ['mallory', '9000', 'bob']);
    assert.deepEqual(executed, []);
    await client.close();
  });

  test('stage json, schema and snapshot failures are payload-free CallToolResults', async () => {
    const executed = [];
    const server = payServer(executed);
    server.registerTool('remind', { inputSchema: { at: z.string().transform((s) => new Date(s)) } }, async (args) => {
      executed.push(args);
      return { content: [] };
    });
    const { client, wire } = await connectedPair(server, { agentName: 'payments', policy: () => ({ decision: 'allow', reason: 'ok' }) });
    const results = [];
    for (const [rewrite, name, args] of [
      [(t) => t.replace('"amount":5', '"amount":1e400'), 'pay', { to: 'secret-payee', amount: 5 }],
      [(t) => t.replace('"to":"secret-payee"', '"to":"\\ud800"'), 'pay', { to: 'secret-payee', amount: 5 }],
      [undefined, 'pay', { to: 'secret-payee', amount: -5 }],
      [undefined, 'remind', { at: '2026-07-17' }],
    ]) {
      wire.rewrite = rewrite;
      results.push(await client.callTool({ name, arguments: args }));
    }
    assert.deepEqual(
      results.map((r) => r.structuredContent),
      [
        { toolName: 'pay', stage: 'json', code: 'non_finite_number' },
        { toolName: 'pay', stage: 'json', code: 'lone_surrogate' },
        { toolName: 'pay', stage: 'schema', code: 'schema_error' },
        { toolName: 'remind', stage: 'snapshot', code: 'non_plain_object' },
      ],
    );
    for (const result of results) assert.equal(result.isError, true);
    assertNoPayload(results, ['secret-payee', '-5', '2026']);
    assert.deepEqual(executed, []);
    await client.close();
  });

  test('require_approval returns the sealed proposal; granted out of band, the identical call executes once (a respelling too)', async () => {
    const executed = [];
    const grants = createApprovalGrants({ keys: [{ id: 'k1', secret: KEY }] });
    const { client, wire } = await connectedPair(payServer(executed), { agentName: 'payments', policy: SMALL_OR_APPROVAL, grants });
    const first = await client.callTool({ name: 'pay', arguments: { to: 'landlord', amount: 1200 } });
    assert.equal(first.isError, true);
    const { structuredContent } = first;
    assert.equal(structuredContent.decision, 'require_approval');
    assert.equal(structuredContent.reason, 'large_payment');
    const sealed = structuredContent.proposal;
    assert.equal(sealed.argsCanonicalJson, '{"amount":1200,"to":"landlord"}');
    assert.equal(sealed.proposalHash, structuredContent.proposalHash);
    assert.equal(typeof sealed.signature, 'string');
    verifySnapshot(sealed);
    assert.deepEqual(executed, []);

    // The client cannot approve itself: a tampered seal is refused by the approver's grants.
    await assert.rejects(
      grants.grant({ ...sealed, argsCanonicalJson: '{"amount":99999,"to":"landlord"}' }),
      (e) => e.code === 'hash_mismatch' || e.code === 'bad_signature',
    );
    await grants.grant(sealed);
    wire.rewrite = (text) => text.replace('{"to":"landlord","amount":1200}', '{"amount":1.2e3,  "to":"landlord"}');
    const second = await client.callTool({ name: 'pay', arguments: { to: 'landlord', amount: 1200 } });
    assert.equal(second.content[0].text, 'paid 1200 to landlord');
    const third = await client.callTool({ name: 'pay', arguments: { to: 'landlord', amount: 1200 } });
    assert.equal(third.structuredContent.decision, 'require_approval', 'a single-use grant executes once');
    const other = await client.callTool({ name: 'pay', arguments: { to: 'landlord', amount: 1201 } });
    assert.equal(other.structuredContent.decision, 'require_approval');
    assert.deepEqual(executed, [{ amount: 1200, to: 'landlord' }]);
    await client.close();
  });

  test('without keys the proposal carries its four fields, which grants.grant verifies by hash', async () => {
    const executed = [];
    const grants = createApprovalGrants();
    const { client } = await connectedPair(payServer(executed), { agentName: 'payments', policy: SMALL_OR_APPROVAL, grants });
    const first = await client.callTool({ name: 'pay', arguments: { to: 'x', amount: 500 } });
    assert.deepEqual(Object.keys(first.structuredContent.proposal).sort(), ['agentName', 'argsCanonicalJson', 'proposalHash', 'toolName']);
    await grants.grant(first.structuredContent.proposal);
    assert.equal((await client.callTool({ name: 'pay', arguments: { to: 'x', amount: 500 } })).content[0].text, 'paid 500 to x');
    await client.close();
  });

  test('elicitation (opt-in): accepted executes once through a grant; declined denies; a client that cannot elicit gets the proposal', async () => {
    for (const [label, answer, capabilities, expected] of [
      ['accept', { action: 'accept', content: { approve: true } }, { elicitation: {} }, 'executed'],
      ['decline', { action: 'decline' }, { elicitation: {} }, 'approval_declined'],
      ['accept without approve', { action: 'accept', content: { approve: false } }, { elicitation: {} }, 'approval_declined'],
      ['no capability', undefined, {}, 'require_approval'],
    ]) {
      const executed = [];
      const grants = createApprovalGrants({ keys: [{ id: 'k1', secret: KEY }] });
      const asked = [];
      const { client } = await connectedPair(
        payServer(executed),
        { agentName: 'payments', policy: SMALL_OR_APPROVAL, grants, elicitation: true },
        { capabilities },
      );
      if (answer !== undefined) {
        client.setRequestHandler(ElicitRequestSchema, (request) => {
          asked.push(request.params.message);
          return answer;
        });
      }
      const result = await client.callTool({ name: 'pay', arguments: { to: 'landlord', amount: 1200 } });
      if (expected === 'executed') {
        assert.equal(result.content[0].text, 'paid 1200 to landlord', label);
        assert.deepEqual(executed, [{ amount: 1200, to: 'landlord' }]);
        assert.match(asked[0], /\{"amount":1200,"to":"landlord"\}/, 'the person sees the exact canonical arguments');
        const again = await client.callTool({ name: 'pay', arguments: { to: 'landlord', amount: 1200 } });
        assert.equal(asked.length, 2, 'the grant was spent: the next identical call asks again');
        assert.equal(again.content[0].text, 'paid 1200 to landlord');
      } else if (expected === 'require_approval') {
        assert.equal(result.structuredContent.decision, 'require_approval', label);
        assert.deepEqual(executed, []);
      } else {
        assert.deepEqual(result.structuredContent, { decision: 'deny', reason: 'approval_declined', decidedBy: 'elicitation' }, label);
        assert.deepEqual(executed, []);
      }
      await client.close();
    }
  });

  test('one request id: a duplicate in flight runs nothing (-32600); reused after its answer, each call executes its own text (nothing is keyed by id)', async () => {
    const executed = [];
    const seen = [];
    const { client, clientTransport } = await connectedPair(payServer(executed), {
      agentName: 'payments',
      policy: async (input) => {
        seen.push(input.rawArguments);
        await new Promise((resolve) => setImmediate(resolve));
        return { decision: input.parsedArguments.to === 'guest' ? 'deny' : 'allow', reason: 'by_payee' };
      },
    });
    const answers = [];
    const onmessage = clientTransport.onmessage;
    clientTransport.onmessage = (message) => {
      if (message.id === 77) answers.push(message);
      else onmessage(message);
    };
    const call = (args) => `{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"pay","arguments":${args}}}`;
    await clientTransport.sendText(call('{"to":"admin","amount":10}'));
    await clientTransport.sendText(call('{"to":"guest","amount":99}'));
    for (let i = 0; i < 500 && answers.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(seen, ['{"to":"admin","amount":10}'], 'the duplicate reached no policy');
    assert.deepEqual(
      answers.map((m) => m.error?.code ?? m.result.content[0].text),
      [-32600, 'paid 10 to admin'],
    );
    await clientTransport.sendText(call('{"to":"guest","amount":99}'));
    for (let i = 0; i < 500 && answers.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(seen, ['{"to":"admin","amount":10}', '{"to":"guest","amount":99}']);
    assert.equal(answers[2].result.structuredContent.reason, 'by_payee');
    assert.deepEqual(executed, [{ amount: 10, to: 'admin' }], 'the guest call, denied by its own policy run, never ran');
    await client.close();
  });

  test('a policy map by tool name; a tool without an entry is denied (policy_not_configured)', async () => {
    const executed = [];
    const server = payServer(executed);
    server.registerTool('balance', { inputSchema: {} }, async () => {
      executed.push('balance');
      return { content: [{ type: 'text', text: '42' }] };
    });
    server.registerTool('close_account', { inputSchema: {} }, async () => {
      executed.push('close');
      return { content: [] };
    });
    const { client } = await connectedPair(server, {
      agentName: 'payments',
      policy: { pay: SMALL_OR_APPROVAL, balance: () => ({ decision: 'allow', reason: 'read_only' }) },
    });
    assert.equal((await client.callTool({ name: 'balance', arguments: {} })).content[0].text, '42');
    assert.deepEqual((await client.callTool({ name: 'close_account', arguments: {} })).structuredContent, {
      decision: 'deny',
      reason: 'policy_not_configured',
      decidedBy: 'runtime',
    });
    assert.equal((await client.callTool({ name: 'pay', arguments: { to: 'a', amount: 1 } })).content[0].text, 'paid 1 to a');
    assert.deepEqual(executed, ['balance', { amount: 1, to: 'a' }]);
    await client.close();

    // With grants, a tool without an entry needs an approval instead.
    const withGrants = await connectedPair(payServer([]), {
      agentName: 'payments',
      grants: createApprovalGrants(),
      policy: { other: () => ({ decision: 'allow', reason: 'x' }) },
    });
    const pending = await withGrants.client.callTool({ name: 'pay', arguments: { to: 'a', amount: 1 } });
    assert.equal(pending.structuredContent.decision, 'require_approval');
    assert.equal(pending.structuredContent.scope, null);
    await withGrants.client.close();
  });

  test('policyContext(extra) adds fields (a grant scope): a grant for one scope does not serve another', async () => {
    const executed = [];
    const grants = createApprovalGrants({ keys: [{ id: 'k1', secret: KEY }] });
    let user = 'alice';
    const seen = [];
    const { client } = await connectedPair(payServer(executed), {
      agentName: 'payments',
      grants,
      policy: (input) => {
        seen.push(input.user);
        return SMALL_OR_APPROVAL(input);
      },
      policyContext: () => ({ grantScope: `user:${user}`, user, toolCallId: 'cannot override' }),
    });
    const first = await client.callTool({ name: 'pay', arguments: { to: 'x', amount: 500 } });
    assert.equal(first.structuredContent.proposal.scope, 'user:alice');
    assert.notEqual(first.structuredContent.toolCallId, 'cannot override');
    await grants.grant(first.structuredContent.proposal);
    user = 'bob';
    assert.equal((await client.callTool({ name: 'pay', arguments: { to: 'x', amount: 500 } })).structuredContent.decision, 'require_approval');
    user = 'alice';
    assert.equal((await client.callTool({ name: 'pay', arguments: { to: 'x', amount: 500 } })).content[0].text, 'paid 500 to x');
    // The policy decides first at every call (issue 33): alice's granted call asked it too.
    assert.deepEqual(seen, ['alice', 'bob', 'alice']);
    assert.equal(executed.length, 1);
    await client.close();
  });

  test('a tool registered after gating is gated; an unknown tool and a throwing handler answer as the SDK does', async () => {
    const executed = [];
    const server = payServer(executed);
    const gate = gateMcpServer(server, { agentName: 'payments', policy: () => ({ decision: 'deny', reason: 'closed' }) });
    server.registerTool('late', { inputSchema: { n: z.number() } }, async (args) => {
      executed.push(args);
      return { content: [] };
    });
    server.registerTool('boom', { inputSchema: {} }, async () => {
      throw new Error('the handler failed');
    });
    const [clientTransport, serverTransport] = gate.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(clientTransport);
    assert.deepEqual((await client.callTool({ name: 'late', arguments: { n: 1 } })).structuredContent, {
      decision: 'deny',
      reason: 'closed',
      decidedBy: 'policy',
    });
    const unknown = await client.callTool({ name: 'missing', arguments: {} }).catch((e) => e);
    assert.equal(unknown.code, -32602);
    assert.deepEqual(executed, []);
    await client.close();

    const allowing = payServer([]);
    allowing.registerTool('boom', { inputSchema: {} }, async () => {
      throw new Error('the handler failed');
    });
    const allowed = await connectedPair(allowing, { agentName: 'payments', policy: () => ({ decision: 'allow', reason: 'ok' }) });
    assert.deepEqual(await allowed.client.callTool({ name: 'boom', arguments: {} }), {
      content: [{ type: 'text', text: 'the handler failed' }],
      isError: true,
    });
    await allowed.client.close();
  });

  test("a gated server reached through the SDK's own transport: argumentsSource object, the object snapshotted strictly", async () => {
    const executed = [];
    const seen = [];
    const server = payServer(executed);
    gateMcpServer(server, {
      agentName: 'payments',
      policy: (input) => {
        seen.push(input.argumentsSource);
        return { decision: 'allow', reason: 'ok' };
      },
    });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(clientTransport);
    assert.equal((await client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 3 } })).content[0].text, 'paid 3 to bob');
    assert.deepEqual(seen, ['object']);
    await client.close();
  });

  test('misuse: gating a connected server, no agentName, a Proxy, elicitation without grants', async () => {
    const server = payServer([]);
    assert.throws(() => gateMcpServer(server, {}), TypeError);
    assert.throws(() => gateMcpServer(server, new Proxy({ agentName: 'a' }, {})), TypeError);
    assert.throws(() => gateMcpServer(new Proxy(server, {}), { agentName: 'a' }), TypeError);
    assert.throws(() => gateMcpServer(server, { agentName: 'a', elicitation: true }), /needs options.grants/);
    // A Proxy policy is refused unread, as on 2.x (the two gates read their options in one place).
    assert.throws(() => gateMcpServer(server, { agentName: 'a', policy: new Proxy(() => ({ decision: 'allow', reason: 'x' }), {}) }), {
      code: 'ERR_INVALID_ARG_TYPE',
    });
    assert.throws(() => gateMcpServer({}, { agentName: 'a' }), /McpServer/);
    const [, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    assert.throws(() => gateMcpServer(server, { agentName: 'a' }), /before connecting/);
    await server.close();
  });
});

describe('the subpath names its peers', () => {
  // Both lines of the SDK are optional peers: the adapter loads with either, and names both without them.
  function requireWithout(prefix, after = '') {
    const script = `
      const Module = require('node:module');
      const original = Module._resolveFilename;
      Module._resolveFilename = function (request, ...rest) {
        if (${JSON.stringify(prefix)}.split(' ').some((p) => request.startsWith(p))) { const e = new Error('Cannot find module ' + request); e.code = 'MODULE_NOT_FOUND'; throw e; }
        return original.call(this, request, ...rest);
      };
      try { const mcp = require('tool-argument-snapshot/mcp'); console.log(JSON.stringify({ loaded: true, ...(${after || '() => ({})'})(mcp) })); } catch (e) { console.log(JSON.stringify({ code: e.code, packageName: e.packageName, message: e.message })); }
    `;
    const result = spawnSync(process.execPath, ['-e', script], { cwd: path.join(__dirname, '..', '..', '..'), encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    return JSON.parse(result.stdout);
  }

  test('without @modelcontextprotocol/sdk and @modelcontextprotocol/server: MODULE_NOT_FOUND naming both', () => {
    const out = requireWithout('@modelcontextprotocol/sdk @modelcontextprotocol/server');
    assert.equal(out.code, 'MODULE_NOT_FOUND');
    assert.equal(out.packageName, '@modelcontextprotocol/server');
    assert.match(out.message, /npm install @modelcontextprotocol\/server/);
    assert.match(out.message, /npm install @modelcontextprotocol\/sdk/);
  });

  test('with 2.x alone it loads; gating a 1.x server then names @modelcontextprotocol/sdk', () => {
    const out = requireWithout(
      '@modelcontextprotocol/sdk',
      `(mcp) => { try { mcp.gateMcpServer({ server: {} }, { agentName: 'a' }); return {}; } catch (e) { return { code: e.code, packageName: e.packageName }; } }`,
    );
    assert.deepEqual(out, { loaded: true, code: 'MODULE_NOT_FOUND', packageName: '@modelcontextprotocol/sdk' });
  });
});

test("the declarations: options, transports as the SDK's Transport, typed policies, ESM and CommonJS consumers (tsc --strict)", () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(__dirname, '..', '..', 'package', 'types', 'mcp', 'tsconfig.json')], { encoding: 'utf8' });
  assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
});
