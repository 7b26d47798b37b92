'use strict';
// Execution receipts at the MCP gate (issue 25, item 5): a client's retry of a tools/call
// arrives with a new JSON-RPC id; with the same idempotency key in the request's `_meta`
// (`tool-argument-snapshot/idempotency-key`) the tool runs once, whatever the transport
// and across server processes that share a store. Real peers only: the SDK's Client (its
// own request timeout) and McpServer, over the linked pair, Streamable HTTP on loopback
// and stdio child processes on one SQLite file.

const { test, describe, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { randomUUID } = require('node:crypto');
const z = require('zod');

const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { McpError, ErrorCode } = require('@modelcontextprotocol/sdk/types.js');

const { createApprovalGrants, createExecutionReceipts, createSqliteGrantStore } = require('../../..');
const { gateMcpServer } = require('../../../adapters/mcp/index.js');

const KEY_NAME = 'tool-argument-snapshot/idempotency-key';
const FIXTURE = path.join(__dirname, 'fixtures', 'receipts-server.js');
const SECRET = 'a-memo-never-in-an-answer-5150';
const allow = () => ({ decision: 'allow', reason: 'test' });

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-mcp-receipts-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A server whose `pay` tool records each run in `runs`, then waits `delayMs` before answering. */
function slowServer(delayMs) {
  const runs = [];
  let finished = 0;
  const server = new McpServer({ name: 'payments', version: '1.0.0' });
  server.registerTool('pay', { inputSchema: { to: z.string(), amount: z.number(), memo: z.string() } }, async ({ to, amount }) => {
    runs.push({ to, amount });
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    finished += 1;
    return { content: [{ type: 'text', text: `paid ${amount} to ${to}` }] };
  });
  return { server, runs, finished: () => finished };
}

const payArgs = (amount = 5) => ({ to: 'bob', amount, memo: SECRET });
const keyed = (key, amount) => ({ name: 'pay', arguments: payArgs(amount), _meta: { [KEY_NAME]: key } });

async function until(predicate, what) {
  for (let i = 0; i < 400 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(predicate(), what);
}

function assertRefused(result, code) {
  assert.equal(result.isError, true);
  assert.deepEqual(result.structuredContent, { decision: 'deny', reason: code, decidedBy: 'runtime' });
  assert.ok(!JSON.stringify(result).includes(SECRET), 'a refusal holds no payload');
}

/** The first attempt times out at the client (the SDK's request timeout), the tool runs on. */
async function timedOut(client, params) {
  await assert.rejects(client.callTool(params, undefined, { timeout: 60 }), (error) => {
    assert.ok(error instanceof McpError);
    assert.equal(error.code, ErrorCode.RequestTimeout);
    return true;
  });
}

async function linkedClient(server, options) {
  const gate = gateMcpServer(server, options);
  const [clientTransport, serverTransport] = gate.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'retrying-client', version: '1.0.0' });
  await client.connect(clientTransport);
  return client;
}

async function httpClient(server, options) {
  const gate = gateMcpServer(server, options);
  const httpServer = http.createServer((req, res) => {
    gate.handleHttp(req, res).catch((error) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${httpServer.address().port}/mcp`));
  const client = new Client({ name: 'retrying-client', version: '1.0.0' });
  await client.connect(transport);
  const close = async () => {
    await transport.terminateSession().catch(() => {});
    await client.close();
    httpServer.closeAllConnections?.();
    await new Promise((resolve) => httpServer.close(resolve));
  };
  return { client, close };
}

for (const [transportName, connect] of [
  [
    'the linked pair',
    async (server, options) => {
      const client = await linkedClient(server, options);
      return { client, close: () => client.close() };
    },
  ],
  ['Streamable HTTP (handleHttp on 127.0.0.1)', httpClient],
]) {
  describe(`a client that times out and retries with its idempotency key, over ${transportName}`, () => {
    test("keepResults: the tool runs once and the retry gets the first run's result", async () => {
      const { server, runs, finished } = slowServer(250);
      const receipts = createExecutionReceipts({ keepResults: true });
      const { client, close } = await connect(server, { agentName: 'payments', policy: allow, receipts });
      try {
        const key = randomUUID();
        await timedOut(client, keyed(key));
        // Retried while the first run is still going: refused, nothing runs.
        assertRefused(await client.callTool(keyed(key)), 'execution_in_progress');
        await until(() => finished() === 1, 'the first run finished');
        const retried = await client.callTool(keyed(key));
        assert.equal(retried.isError, undefined);
        assert.deepEqual(retried.content, [{ type: 'text', text: 'paid 5 to bob' }]);
        // And again: still the kept result, still one run.
        assert.deepEqual((await client.callTool(keyed(key))).content, [{ type: 'text', text: 'paid 5 to bob' }]);
        assert.equal(runs.length, 1);
        const receipt = await receipts.get({ agentName: 'payments', runId: null, toolCallId: key });
        assert.equal(receipt.status, 'completed');
        assert.equal(receipt.hasResult, true);
      } finally {
        await close();
      }
    });

    test('without keepResults: the retry is answered call_already_executed; the key with other arguments is call_id_conflict', async () => {
      const { server, runs, finished } = slowServer(150);
      const receipts = createExecutionReceipts();
      const { client, close } = await connect(server, { agentName: 'payments', policy: allow, receipts });
      try {
        const key = randomUUID();
        await timedOut(client, keyed(key));
        await until(() => finished() === 1, 'the first run finished');
        assertRefused(await client.callTool(keyed(key)), 'call_already_executed');
        assertRefused(await client.callTool(keyed(key, 9000)), 'call_id_conflict');
        assert.deepEqual(runs, [{ to: 'bob', amount: 5 }]);
        // Another key is another call.
        const other = await client.callTool(keyed(randomUUID(), 7));
        assert.deepEqual(other.content, [{ type: 'text', text: 'paid 7 to bob' }]);
        assert.equal(runs.length, 2);
      } finally {
        await close();
      }
    });
  });
}

describe('the idempotency key', () => {
  test('without a key, a retry is a new call and runs again (only the in-flight id rule holds)', async () => {
    const { server, runs, finished } = slowServer(100);
    const client = await linkedClient(server, { agentName: 'payments', policy: allow });
    try {
      await timedOut(client, { name: 'pay', arguments: payArgs() });
      await until(() => finished() === 1, 'the first run finished');
      assert.equal((await client.callTool({ name: 'pay', arguments: payArgs() })).isError, undefined);
      assert.equal(runs.length, 2);
    } finally {
      await client.close();
    }
  });

  test('the default receipts (no receipts option) are the process-wide memory ones: a retry with the key runs nothing', async () => {
    const { server, runs } = slowServer(0);
    const client = await linkedClient(server, { agentName: `default-${randomUUID()}`, policy: allow });
    try {
      const key = randomUUID();
      assert.equal((await client.callTool(keyed(key))).isError, undefined);
      assertRefused(await client.callTool(keyed(key)), 'call_already_executed');
      assert.equal(runs.length, 1);
    } finally {
      await client.close();
    }
  });

  test('a retry over a new session (a server and gate per session, as for Streamable HTTP) runs nothing: the key is not scoped by session', async () => {
    const agentName = `sessions-${randomUUID()}`;
    const runs = [];
    const perSession = async () => {
      const { server, runs: own } = slowServer(0);
      const client = await linkedClient(server, { agentName, policy: allow });
      return { client, own };
    };
    const first = await perSession();
    const second = await perSession();
    try {
      const key = randomUUID();
      assert.equal((await first.client.callTool(keyed(key))).isError, undefined);
      await first.client.close();
      assertRefused(await second.client.callTool(keyed(key)), 'call_already_executed');
      runs.push(...first.own, ...second.own);
      assert.equal(runs.length, 1);
    } finally {
      await second.client.close();
    }
  });

  test('receipts: false: the key is checked but nothing is kept; a retry runs again', async () => {
    const { server, runs } = slowServer(0);
    const client = await linkedClient(server, { agentName: 'payments', policy: allow, receipts: false });
    try {
      const key = randomUUID();
      assert.equal((await client.callTool(keyed(key))).isError, undefined);
      assert.equal((await client.callTool(keyed(key))).isError, undefined);
      assert.equal(runs.length, 2);
      await assert.rejects(client.callTool(keyed('')), (error) => error instanceof McpError && error.code === ErrorCode.InvalidParams);
      assert.equal(runs.length, 2);
    } finally {
      await client.close();
    }
  });

  test('a key that is not a non-empty, well-formed string of at most 255 characters is invalid params; nothing runs', async () => {
    const { server, runs } = slowServer(0);
    const client = await linkedClient(server, { agentName: 'payments', policy: allow, receipts: createExecutionReceipts() });
    const secretKey = `${SECRET}-${'k'.repeat(300)}`;
    try {
      for (const bad of ['', 42, null, true, { id: SECRET }, [SECRET], secretKey]) {
        await assert.rejects(client.callTool(keyed(bad)), (error) => {
          assert.ok(error instanceof McpError, typeof bad);
          assert.equal(error.code, ErrorCode.InvalidParams);
          assert.match(error.message, /idempotency-key/);
          assert.ok(!error.message.includes(SECRET), 'the key is never quoted');
          return true;
        });
      }
      // A key of exactly 255 characters is fine.
      assert.equal((await client.callTool(keyed('k'.repeat(255)))).isError, undefined);
      assert.equal(runs.length, 1);
    } finally {
      await client.close();
    }
  });

  test('a lone surrogate in the key never reaches the handler: the strict decoder answers -32600', async () => {
    const { server, runs } = slowServer(0);
    const gate = gateMcpServer(server, { agentName: 'payments', policy: allow, receipts: createExecutionReceipts() });
    const [clientTransport, serverTransport] = gate.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: 'retrying-client', version: '1.0.0' });
    await client.connect(clientTransport);
    try {
      const answered = new Promise((resolve) => {
        clientTransport.onmessage = resolve;
      });
      await clientTransport.sendText(
        `{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"pay","arguments":{"to":"bob","amount":5,"memo":"m"},"_meta":{"${KEY_NAME}":"\\ud800"}}}`,
      );
      const answer = await answered;
      assert.equal(answer.error.code, -32600);
      assert.equal(runs.length, 0);
    } finally {
      await client.close();
    }
  });

  test('idempotencyScope: the same key in two scopes is two calls, in one scope one', async () => {
    const { server, runs } = slowServer(0);
    let tenant = 'tenant-a';
    const receipts = createExecutionReceipts();
    const client = await linkedClient(server, { agentName: 'payments', policy: allow, receipts, idempotencyScope: () => tenant });
    try {
      const key = 'order-17';
      assert.equal((await client.callTool(keyed(key))).isError, undefined);
      assertRefused(await client.callTool(keyed(key)), 'call_already_executed');
      tenant = 'tenant-b';
      assert.equal((await client.callTool(keyed(key))).isError, undefined);
      assert.equal(runs.length, 2);
      assert.equal((await receipts.get({ agentName: 'payments', runId: 'tenant-a', toolCallId: key })).status, 'completed');
      assert.equal(await receipts.get({ agentName: 'payments', runId: null, toolCallId: key }), null);
    } finally {
      await client.close();
    }
    assert.throws(() => gateMcpServer(new McpServer({ name: 'x', version: '1' }), { agentName: 'a', idempotencyScope: 'tenant' }), TypeError);
    assert.throws(() => gateMcpServer(new McpServer({ name: 'x', version: '1' }), { agentName: 'a', receipts: {} }), TypeError);
  });

  test('a call approved by a grant: its retry is call_already_executed, not a new approval request', async () => {
    const { server, runs } = slowServer(0);
    const grants = createApprovalGrants();
    const client = await linkedClient(server, {
      agentName: 'payments',
      grants,
      receipts: createExecutionReceipts(),
      policy: () => ({ decision: 'require_approval', reason: 'every_payment' }),
    });
    try {
      const key = randomUUID();
      const asked = await client.callTool(keyed(key));
      assert.equal(asked.structuredContent.decision, 'require_approval');
      await grants.grant(asked.structuredContent.proposal);
      assert.equal((await client.callTool(keyed(key))).isError, undefined);
      assertRefused(await client.callTool(keyed(key)), 'call_already_executed');
      assertRefused(await client.callTool(keyed(key, 6)), 'call_id_conflict');
      assert.equal(runs.length, 1);
    } finally {
      await client.close();
    }
  });

  test('a receipt store that fails at claim: receipt_store_unavailable, nothing runs', async () => {
    const { server, runs } = slowServer(0);
    const store = createSqliteGrantStore({ path: path.join(dir, `closed-${randomUUID()}.db`) });
    const receipts = createExecutionReceipts({ store });
    await store.close();
    const client = await linkedClient(server, { agentName: 'payments', policy: allow, receipts });
    try {
      assertRefused(await client.callTool(keyed(randomUUID())), 'receipt_store_unavailable');
      assert.equal(runs.length, 0);
    } finally {
      await client.close();
    }
    // A keyed call that needs an approval: its receipt cannot be read either, and it says so.
    const asking = slowServer(0);
    const approvals = await linkedClient(asking.server, {
      agentName: 'payments',
      receipts,
      grants: createApprovalGrants(),
      policy: () => ({ decision: 'require_approval', reason: 'every_payment' }),
    });
    try {
      assertRefused(await approvals.callTool(keyed(randomUUID())), 'receipt_store_unavailable');
      // Without a key, receipts are not read: the approval request as usual.
      assert.equal((await approvals.callTool({ name: 'pay', arguments: payArgs() })).structuredContent.decision, 'require_approval');
      assert.equal(asking.runs.length, 0);
    } finally {
      await approvals.close();
    }
  });
});

describe('two server processes sharing a SQLite receipts store', () => {
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

  async function stdioClient(env) {
    const client = new Client({ name: 'retrying-client', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [FIXTURE], env: { ...process.env, ...env }, stderr: 'pipe' }));
    return client;
  }

  for (const keepResults of [false, true]) {
    test(`a retry sent to the other process runs nothing${keepResults ? ' and gets the kept result' : ''}; concurrent attempts run once`, async () => {
      const env = {
        MCP_EXECUTIONS: path.join(dir, `executions-${randomUUID()}.jsonl`),
        MCP_RECEIPTS_DB: path.join(dir, `receipts-${randomUUID()}.db`),
        MCP_KEEP_RESULTS: keepResults ? '1' : '0',
        MCP_DELAY_MS: '100',
      };
      const [a, b] = await Promise.all([stdioClient(env), stdioClient(env)]);
      try {
        // One call, timed out at process A, retried at process B.
        const key = randomUUID();
        await timedOut(a, keyed(key));
        await until(() => executions(env.MCP_EXECUTIONS).length === 1, 'process A ran the call');
        await new Promise((resolve) => setTimeout(resolve, 200));
        const retried = await b.callTool(keyed(key));
        const [ran] = executions(env.MCP_EXECUTIONS);
        if (keepResults) {
          assert.equal(retried.isError, undefined);
          assert.deepEqual(retried.content, [{ type: 'text', text: `paid 5 to bob in ${ran.pid}` }]);
        } else {
          assertRefused(retried, 'call_already_executed');
        }

        // Another call sent to both at once: exactly one runs, the other is refused.
        const both = randomUUID();
        const answers = await Promise.all([a.callTool(keyed(both, 8)), b.callTool(keyed(both, 8))]);
        const runsOfBoth = executions(env.MCP_EXECUTIONS).filter((line) => line.amount === 8);
        assert.equal(runsOfBoth.length, 1, 'one execution across the two processes');
        const ok = answers.filter((answer) => answer.isError === undefined);
        const refused = answers.filter((answer) => answer.isError === true);
        assert.equal(ok.length, 1);
        assert.equal(refused.length, 1);
        assert.ok(['execution_in_progress', 'call_already_executed'].includes(refused[0].structuredContent.reason));
        assertRefused(refused[0], refused[0].structuredContent.reason);
        assert.equal(executions(env.MCP_EXECUTIONS).length, 2);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  }
});

// ---------------------------------------------------------------------------------
// Grants on a durable store and no receipts option (issue 33): the gate keeps its receipts,
// and each approval request, in the grants' store. Server processes one after the other;
// the reviewer is the package's own command line (bin/tool-argument-snapshot.js).

describe('server processes with grants on a durable store and no receipts option', () => {
  const { spawnSync } = require('node:child_process');
  const { KINDS, durableStore, dropDurable } = require('../../helpers/durable-stores');
  const CLI = path.join(__dirname, '..', '..', '..', 'bin', 'tool-argument-snapshot.js');
  const KEY_RING = [{ id: 'k1', secret: 'a-secret-of-at-least-thirty-two-bytes-for-mcp' }];

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

  /** One server process for `fn(client)`, closed after. */
  async function withServer(env, fn) {
    const client = new Client({ name: 'retrying-client', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [FIXTURE], env: { ...process.env, ...env }, stderr: 'pipe' }));
    try {
      return await fn(client);
    } finally {
      await client.close();
    }
  }

  /** The reviewer's command on the store: its exit status and what it printed. */
  function review(spec, keyFile, ...args) {
    const store = ['--store', spec.url, ...(spec.options.table === undefined ? [] : ['--table', spec.options.table])];
    const keys = keyFile === undefined ? [] : ['--key-file', keyFile];
    const result = spawnSync(process.execPath, [CLI, ...args, ...store, ...keys], { encoding: 'utf8', cwd: path.join(__dirname, '..', '..', '..') });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  async function setUp(t, kind, sealed) {
    const folder = fs.mkdtempSync(path.join(dir, 'durable-'));
    const spec = durableStore(t, kind, folder);
    if (spec === null) return null;
    const env = { MCP_EXECUTIONS: path.join(folder, 'executions.jsonl'), MCP_GRANTS_STORE: JSON.stringify(spec) };
    let keyFile;
    if (sealed) {
      env.MCP_KEY_RING = JSON.stringify(KEY_RING);
      keyFile = path.join(folder, 'keys.json');
      fs.writeFileSync(keyFile, JSON.stringify(KEY_RING));
    }
    t.after(() => dropDurable(spec));
    return { spec, env, keyFile };
  }

  for (const kind of KINDS) {
    test(`grants on ${kind}: a retry with the same idempotency key sent to a second server process runs nothing (call_already_executed)`, async (t) => {
      const set = await setUp(t, kind, false);
      if (set === null) return;
      const key = randomUUID();
      const first = await withServer(set.env, (client) => client.callTool(keyed(key)));
      assert.equal(first.isError, undefined);
      const retried = await withServer(set.env, (client) => client.callTool(keyed(key)));
      assertRefused(retried, 'call_already_executed');
      assert.equal(executions(set.env.MCP_EXECUTIONS).length, 1, 'one execution across the two processes');
    });

    for (const sealed of [true, false]) {
      test(`grants on ${kind}${sealed ? ' with a key ring' : ''}: an approval request is kept in the store, listed by \`pending\` under the id the answer names, granted by \`grant --id\`; the retried call runs once, in another process`, async (t) => {
        const set = await setUp(t, kind, sealed);
        if (set === null) return;
        const key = randomUUID();
        const asked = await withServer(set.env, (client) => client.callTool(keyed(key, 5000)));
        assert.equal(asked.isError, true);
        const { decision, pendingId, proposal, proposalHash } = asked.structuredContent;
        assert.equal(decision, 'require_approval');
        assert.equal(typeof pendingId, 'string');
        assert.equal(sealed ? proposal.keyId : undefined, sealed ? 'k1' : undefined);
        assert.ok(asked.content[0].text.includes(pendingId));

        // Asked again (the client retried before anyone reviewed): still one request.
        const again = await withServer(set.env, (client) => client.callTool(keyed(key, 5000)));
        assert.equal(again.structuredContent.pendingId, pendingId);
        if (sealed) assert.equal(again.structuredContent.proposal.nonce, proposal.nonce, 'the same seal');

        const listed = review(set.spec, set.keyFile, 'pending', '--json');
        assert.equal(listed.status, 0, listed.stderr);
        const { proposals } = JSON.parse(listed.stdout);
        assert.deepEqual(
          proposals.map((p) => [
            p.id,
            p.toolCallId,
            p.verified,
            p.proposal.agentName,
            p.proposal.toolName,
            p.proposal.argsCanonicalJson,
            p.proposal.proposalHash,
          ]),
          [[pendingId, key, true, 'payments', 'pay', '{"amount":5000,"to":"bob"}', proposalHash]],
        );
        assert.equal(executions(set.env.MCP_EXECUTIONS).length, 0);

        const granted = review(set.spec, set.keyFile, 'grant', '--id', pendingId, '--json');
        assert.equal(granted.status, 0, granted.stderr);
        assert.equal(JSON.parse(granted.stdout).proposalHash, proposalHash);
        assert.deepEqual(JSON.parse(review(set.spec, set.keyFile, 'pending', '--json').stdout).proposals, [], 'granted, it no longer waits');

        const ran = await withServer(set.env, (client) => client.callTool(keyed(key, 5000)));
        assert.equal(ran.isError, undefined);
        assert.match(ran.content[0].text, /^paid 5000 to bob in \d+$/);
        const replayed = await withServer(set.env, (client) => client.callTool(keyed(key, 5000)));
        assertRefused(replayed, 'call_already_executed');
        assert.deepEqual(
          executions(set.env.MCP_EXECUTIONS).map((line) => line.amount),
          [5000],
          'the approved call ran once',
        );
        assert.equal(review(set.spec, set.keyFile, 'grant', '--id', pendingId).status, 1, 'not_pending: granted once');
      });
    }
  }
});

test('grants over a store without proposal methods: the approval request is answered as before (its proposal, no pendingId), and a grant of it runs the call once', async () => {
  const records = [];
  const live = (r, q, now) =>
    r.agentName === q.agentName &&
    r.toolName === q.toolName &&
    r.proposalHash === q.proposalHash &&
    r.scope === q.scope &&
    r.uses > 0 &&
    (r.expiresAt === null || now < r.expiresAt);
  const store = {
    put(record) {
      records.push({ ...record });
      return true;
    },
    has: (q, now) => records.some((r) => live(r, q, now)),
    take(q, now) {
      const found = records.find((r) => live(r, q, now));
      if (found === undefined) return false;
      found.uses -= 1;
      return true;
    },
  };
  const grants = createApprovalGrants({ store });
  const { server, runs } = slowServer(0);
  const client = await linkedClient(server, { agentName: 'payments', grants, policy: () => ({ decision: 'require_approval', reason: 'every_payment' }) });
  try {
    for (let i = 0; i < 2; i++) {
      const asked = await client.callTool({ name: 'pay', arguments: payArgs() });
      assert.equal(asked.structuredContent.decision, 'require_approval');
      assert.equal('pendingId' in asked.structuredContent, false);
      assert.equal(asked.structuredContent.proposal.argsCanonicalJson, '{"amount":5,"memo":"a-memo-never-in-an-answer-5150","to":"bob"}');
    }
    await grants.grant((await client.callTool({ name: 'pay', arguments: payArgs() })).structuredContent.proposal);
    assert.equal((await client.callTool({ name: 'pay', arguments: payArgs() })).isError, undefined);
    assert.equal(runs.length, 1);
  } finally {
    await client.close();
  }
});

test("proposalTtlMs: a kept approval request (and its seal) expires; listProposals shows the request under the answer's pendingId; a bad value is a TypeError", async () => {
  const keys = [{ id: 'k1', secret: 'a-secret-of-at-least-thirty-two-bytes-for-mcp' }];
  const grants = createApprovalGrants({ keys });
  const { server } = slowServer(0);
  const before = Date.now();
  const client = await linkedClient(server, {
    agentName: 'payments',
    grants,
    proposalTtlMs: 60_000,
    policy: () => ({ decision: 'require_approval', reason: 'every_payment' }),
  });
  try {
    const asked = (await client.callTool({ name: 'pay', arguments: payArgs() })).structuredContent;
    assert.ok(asked.proposal.expiresAt >= before + 60_000 && asked.proposal.expiresAt <= Date.now() + 60_000);
    const { proposals } = await grants.listProposals();
    assert.equal(proposals.length, 1);
    const { runId, toolCallId } = proposals[0];
    assert.equal(Buffer.from(`${runId.length}:${runId}${toolCallId}`, 'utf8').toString('base64url'), asked.pendingId);
    assert.equal(toolCallId, asked.proposalHash, 'without an idempotency key, one request per proposal');
    assert.deepEqual(proposals[0].proposal, asked.proposal);
  } finally {
    await client.close();
  }
  for (const bad of [0, -1, Infinity, '60000']) {
    assert.throws(() => gateMcpServer(new McpServer({ name: 'x', version: '1' }), { agentName: 'a', grants, proposalTtlMs: bad }), TypeError);
  }
});

// ---- A keyed approval request retried with other arguments before the review (red team round 5)

function reviewSqlite(file, ...args) {
  const { spawnSync } = require('node:child_process');
  const result = spawnSync(
    process.execPath,
    [path.join(__dirname, '..', '..', '..', 'bin', 'tool-argument-snapshot.js'), ...args, '--store', `sqlite:${file}`],
    { encoding: 'utf8' },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A gated payments server over grants in the SQLite file, linked to an SDK client. */
async function sqlitePaymentsServer(file, options = {}) {
  const runs = [];
  const server = new McpServer({ name: 'payments', version: '1.0.0' });
  server.registerTool('pay', { inputSchema: { to: z.string(), amount: z.number() } }, async ({ to, amount }) => {
    runs.push({ to, amount });
    return { content: [{ type: 'text', text: `paid ${amount} to ${to}` }] };
  });
  const store = createSqliteGrantStore({ path: file });
  const gate = gateMcpServer(server, {
    agentName: 'payments',
    grants: createApprovalGrants({ store }),
    policy: () => ({ decision: 'require_approval', reason: 'every_payment' }),
    ...options,
  });
  const [clientTransport, serverTransport] = gate.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(clientTransport);
  return {
    client,
    runs,
    close: async () => {
      await client.close();
      await store.close();
    },
  };
}

const keyedArgs = (key, args) => ({ name: 'pay', arguments: args, _meta: { [KEY_NAME]: key } });

test('MCP: a retry of a keyed approval request with other arguments does not change what the listed id grants (the reviewer saw 5 to bob under the id; grant --id then granted 5000 to mallory, which ran)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-rt5-'));
  const file = path.join(dir, 'grants.db');
  const app = await sqlitePaymentsServer(file);
  try {
    const asked = await app.client.callTool(keyedArgs('k1', { to: 'bob', amount: 5 }));
    const { pendingId } = asked.structuredContent;
    const listed = reviewSqlite(file, 'pending', '--json');
    assert.equal(listed.status, 0, listed.stderr);
    const seen = JSON.parse(listed.stdout).proposals.find((p) => p.id === pendingId);
    assert.equal(seen.proposal.argsCanonicalJson, '{"amount":5,"to":"bob"}');

    // The client (or the model behind it) retries the same key with other arguments before the review.
    const swapped = await app.client.callTool(keyedArgs('k1', { to: 'mallory', amount: 5000 }));
    assert.equal(swapped.structuredContent.decision, 'require_approval');

    // The reviewer grants the id they reviewed: what is granted is what they saw.
    const granted = reviewSqlite(file, 'grant', '--id', pendingId, '--json');
    assert.equal(granted.status, 0, granted.stderr);
    assert.equal(JSON.parse(granted.stdout).argsCanonicalJson, '{"amount":5,"to":"bob"}');
    const other = await app.client.callTool(keyedArgs('k1', { to: 'mallory', amount: 5000 }));
    assert.equal(other.isError, true);
    assert.equal(other.structuredContent.decision, 'require_approval', 'the swapped arguments were never granted');
    assert.deepEqual(app.runs, []);
    // The reviewed call runs once, under its key.
    assert.equal((await app.client.callTool(keyedArgs('k1', { to: 'bob', amount: 5 }))).isError, undefined);
    assert.deepEqual(app.runs, [{ to: 'bob', amount: 5 }]);
  } finally {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
