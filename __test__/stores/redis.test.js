'use strict';
// createRedisGrantStore: the conformance suite through node-redis and through ioredis, the
// key layout docs/stores.md shows, script reloading, options, and dead stores. Needs
// TAS_TEST_REDIS_URL (skipped visibly without it; failing under TAS_REQUIRE_SERVICES=1),
// except the checks that need no server.

const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');

const { conformance, assertStoreError, hash, query, record, receiptCalls, receiptClaim, receiptOutcome, SECRET_RECEIPT_TEXTS } = require('./conformance');
const { service, requires } = require('../helpers/services');
const { createRedisGrantStore } = require('../../lib/stores/redis');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createApprovalGrants, prepareToolCall } = require('../..');

let prefixes = 0;
const newPrefix = () => `tas:test:${process.pid}:${prefixes++}:`;

/** Connected clients of each kind, and a raw command for the test's own looks. */
const CLIENTS = {
  'node-redis': {
    async connect(url) {
      const { createClient } = require('redis');
      const client = createClient({ url });
      client.on('error', () => {});
      await client.connect();
      return client;
    },
    command: (client, args) => client.sendCommand(args),
    close: (client) => client.close(),
  },
  ioredis: {
    async connect(url, options = {}) {
      const Redis = require('ioredis');
      const client = new Redis(url, { lazyConnect: true, ...options });
      client.on('error', () => {});
      await client.connect();
      return client;
    },
    command: (client, args) => client.call(...args),
    close: (client) => client.quit(),
  },
};

/** Deletes every key under `prefix` (the tests share one server). */
async function removeKeys(kind, client, prefix) {
  let cursor = '0';
  do {
    const [next, keys] = await CLIENTS[kind].command(client, ['SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', '1000']);
    cursor = String(next);
    if (keys.length > 0) await CLIENTS[kind].command(client, ['DEL', ...keys]);
  } while (cursor !== '0');
}

function opener(kind) {
  return async (t) => {
    const url = service(t, 'redis');
    if (url === null) return null;
    const prefix = newPrefix();
    const clients = [await CLIENTS[kind].connect(url)];
    return {
      store: createRedisGrantStore({ client: clients[0], prefix }),
      async second() {
        await CLIENTS[kind].close(clients[0]);
        clients.push(await CLIENTS[kind].connect(url));
        return createRedisGrantStore({ client: clients[1], prefix });
      },
      async dispose() {
        const last = clients[clients.length - 1];
        await removeKeys(kind, last, prefix);
        for (const client of clients) await Promise.resolve(CLIENTS[kind].close(client)).catch(() => {});
      },
    };
  };
}

conformance('Redis through node-redis', opener('node-redis'), requires('redis'));
conformance('Redis through ioredis', opener('ioredis'), requires('redis'));

describe('Redis store against a server', requires('redis'), () => {
  for (const kind of Object.keys(CLIENTS)) {
    test(`${kind}: the keys are the documented ones, none has a TTL, and a spent key leaves nothing`, async (t) => {
      const url = service(t, 'redis');
      if (url === null) return;
      const client = await CLIENTS[kind].connect(url);
      const raw = (...args) => CLIENTS[kind].command(client, args);
      const prefix = newPrefix();
      try {
        const store = createRedisGrantStore({ client, prefix });
        const h = hash();
        const q = query('agent', 'tool', h, 'user-1');
        const k = `5:agent4:tool${h}+user-1`;
        await store.put(record(q, { uses: 2, expiresAt: 5000, nonce: 'n1', nonceExpiresAt: 7000, args: '{"amount":5}' }), 0);
        await store.put(record(q, { uses: 1, args: '{"amount":6}' }), 0);
        await store.putProposal('run/call', '{"p":1}', 9000);
        const keys = (await raw('KEYS', `${prefix}*`)).sort();
        assert.deepEqual(keys, [`${prefix}a:${k}`, `${prefix}g:${k}`, `${prefix}index`, `${prefix}n:n1`, `${prefix}p:run/call`, `${prefix}proposals`].sort());
        for (const key of keys) assert.equal(Number(await raw('PTTL', key)), -1, `${key} has no TTL`);
        const meta = await raw('HGETALL', `${prefix}g:${k}`);
        const fields = Array.isArray(meta)
          ? Object.fromEntries(meta.reduce((pairs, v, i) => (i % 2 ? pairs[pairs.length - 1].push(v) : pairs.push([v]), pairs), []))
          : meta;
        assert.deepEqual({ ...fields }, { n: '2', u1: '2', e1: '5000', u2: '1' });
        assert.equal(await raw('HGET', `${prefix}a:${k}`, '1'), '{"amount":5}');
        assert.equal(await raw('GET', `${prefix}n:n1`), '7000');
        assert.equal(Number(await raw('ZSCORE', `${prefix}index`, `${prefix}g:${k}`)), 5000);
        assert.equal(Number(await raw('ZSCORE', `${prefix}index`, `${prefix}p:run/call`)), 9000);
        assert.equal(Number(await raw('ZSCORE', `${prefix}proposals`, 'run/call')), 0, 'the listing holds the proposal key');
        for (let i = 0; i < 3; i++) assert.equal(await store.take(q, 0), true);
        assert.equal(await store.take(q, 0), false);
        await store.deleteProposal('run/call');
        assert.deepEqual((await raw('KEYS', `${prefix}*`)).sort(), [`${prefix}index`, `${prefix}n:n1`].sort(), 'the spent grant left no key');
        assert.equal(await store.prune(7000), 1);
        assert.deepEqual(await raw('KEYS', `${prefix}*`), [], 'prune emptied the index');
      } finally {
        await removeKeys(kind, client, prefix);
        await CLIENTS[kind].close(client);
      }
    });
  }

  for (const kind of Object.keys(CLIENTS)) {
    test(`${kind}: a second claim of a key while this store's first is in flight waits for it (issue 35): it reads a fast handler's outcome, a slow one's claim`, async (t) => {
      const url = service(t, 'redis');
      if (url === null) return;
      const client = await CLIENTS[kind].connect(url);
      const prefix = newPrefix();
      try {
        const store = createRedisGrantStore({ client, prefix });
        const now = 1_000;
        const claimOf = (call, claimId) => ({
          agentName: 'agent',
          runId: 'run-twice',
          toolCallId: call,
          proposalHash: hash(),
          claimId,
          claimedAt: now,
          leaseExpiresAt: now + 10_000,
          expiresAt: now + 60_000,
        });
        const outcomeOf = (call, claimId) => ({
          agentName: 'agent',
          runId: 'run-twice',
          toolCallId: call,
          claimId,
          status: 'completed',
          completedAt: now + 1,
          resultJson: '{"ran":1}',
          expiresAt: now + 60_000,
        });

        // The first claim's handler answers at once: its completion is sent from the claim's answer.
        const first = store.claimReceipt(claimOf('fast', 'claim-a'), now).then(async (answer) => {
          assert.equal(answer, null);
          assert.equal(await store.completeReceipt(outcomeOf('fast', 'claim-a'), now + 1), true);
          return answer;
        });
        const second = store.claimReceipt(claimOf('fast', 'claim-b'), now);
        await first;
        const record = await second;
        assert.equal(record.claimId, 'claim-a');
        assert.equal(record.status, 'completed', "the second claim read the first call's outcome");
        assert.equal(record.resultJson, '{"ran":1}');

        // A handler still running when the key is free again: the second claim reads the first's claim.
        let finish;
        const slow = store.claimReceipt(claimOf('slow', 'claim-c'), now).then(async (answer) => {
          await new Promise((resolve) => (finish = resolve));
          await store.completeReceipt(outcomeOf('slow', 'claim-c'), now + 1);
          return answer;
        });
        const refused = await store.claimReceipt(claimOf('slow', 'claim-d'), now);
        assert.equal(refused.claimId, 'claim-c');
        assert.equal(refused.status, 'in_progress');
        finish();
        assert.equal(await slow, null);

        // Claims of other keys do not wait for each other.
        const others = await Promise.all(['x', 'y', 'z'].map((call) => store.claimReceipt(claimOf(call, `claim-${call}`), now)));
        assert.deepEqual(others, [null, null, null]);
      } finally {
        await removeKeys(kind, client, prefix);
        await CLIENTS[kind].close(client);
      }
    });
  }

  for (const kind of Object.keys(CLIENTS)) {
    test(`${kind}: receipt writes queued in one turn of the event loop go as one script each (issue 35), each answered for its own key`, async (t) => {
      const url = service(t, 'redis');
      if (url === null) return;
      const client = await CLIENTS[kind].connect(url);
      const prefix = newPrefix();
      const method = kind === 'node-redis' ? 'sendCommand' : 'call';
      const sent = [];
      const original = client[method];
      // The client the store is given: the real one, with each command's name and script recorded.
      client[method] = function (...args) {
        const list = kind === 'node-redis' ? args[0] : args;
        sent.push(list.slice(0, 3).map(String));
        return original.apply(this, args);
      };
      try {
        const store = createRedisGrantStore({ client, prefix });
        const now = 1_000;
        const claimOf = (i) => receiptClaim('run-turn', i, now);
        const outcomeOf = (i) => receiptOutcome('run-turn', i, now);
        const ids = Array.from({ length: 12 }, (_, i) => i);
        const evals = () => sent.filter((c) => c[0] === 'EVALSHA' || c[0] === 'EVAL');

        // Every script the counts below meet is cached on the server first (an EVALSHA
        // Redis does not have is sent again as EVAL: two commands).
        await Promise.all([store.claimReceipt(claimOf(900), now), store.claimReceipt(claimOf(901), now)]);
        await Promise.all([store.completeReceipt(outcomeOf(900), now), store.completeReceipt(outcomeOf(901), now)]);
        await store.claimReceipt(claimOf(902), now);
        await store.completeReceipt(outcomeOf(902), now);
        sent.length = 0;
        assert.deepEqual(
          await Promise.all(ids.map((i) => store.claimReceipt(claimOf(i), now))),
          ids.map(() => null),
        );
        assert.equal(evals().length, 1, `12 claims of one turn: ${evals().length} scripts`);
        assert.equal(evals()[0][2], '13', 'the receipts index and the 12 receipts');

        // Six completions, and claims of six new keys and of one claimed key, in one turn: two scripts.
        sent.length = 0;
        const [done, more, again] = await Promise.all([
          Promise.all(ids.slice(0, 6).map((i) => store.completeReceipt(outcomeOf(i), now + 1))),
          Promise.all([100, 101, 102, 103, 104, 105].map((i) => store.claimReceipt(claimOf(i), now + 1))),
          store.claimReceipt({ ...claimOf(7), claimId: 'claim-7-again' }, now + 1),
        ]);
        assert.deepEqual(done, [true, true, true, true, true, true]);
        assert.deepEqual(more, [null, null, null, null, null, null]);
        assert.equal(again.claimId, 'claim-7');
        assert.equal(again.status, 'in_progress');
        assert.equal(evals().length, 2, `completions and claims of one turn: ${evals().length} scripts`);

        // A completion of a key claimed by someone else since, in a batch: only its own row answers false.
        const wrong = await Promise.all([
          store.completeReceipt(outcomeOf(8), now + 2),
          store.completeReceipt({ ...outcomeOf(9), claimId: 'not-the-claim' }, now + 2),
        ]);
        assert.deepEqual(wrong, [true, false]);
        const stored = await store.getReceipt({ agentName: 'agent', runId: 'run-turn', toolCallId: 'call-3' }, now + 2);
        assert.equal(stored.status, 'completed');
        assert.equal(stored.resultJson, '{"n":3}');
        assert.equal((await store.getReceipt({ agentName: 'agent', runId: 'run-turn', toolCallId: 'call-9' }, now + 2)).status, 'in_progress');
      } finally {
        client[method] = original;
        await removeKeys(kind, client, prefix);
        await CLIENTS[kind].close(client);
      }
    });
  }

  test('an unfinished receipt has no TTL, leaves the prune index and is kept; more of them than one prune batch still end the prune', async (t) => {
    const url = service(t, 'redis');
    if (url === null) return;
    const client = await CLIENTS['node-redis'].connect(url);
    const raw = (...args) => client.sendCommand(args);
    const prefix = newPrefix();
    try {
      const store = createRedisGrantStore({ client, prefix });
      const claim = (i, claimedAt) =>
        Object.freeze({
          agentName: 'a',
          runId: null,
          toolCallId: `c${i}`,
          proposalHash: 'b'.repeat(64),
          claimId: `${i}`.padStart(32, '0'),
          claimedAt,
          leaseExpiresAt: claimedAt + 1,
          expiresAt: claimedAt + 10,
        });
      // One more unfinished claim than a prune batch (500), and one outcome, all past retention.
      const count = 501;
      for (let i = 0; i < count; i++) assert.equal(await store.claimReceipt(claim(i, 0), 0), null);
      const done = claim(count, 0);
      assert.equal(await store.claimReceipt(done, 0), null);
      assert.equal(
        await store.completeReceipt(
          Object.freeze({
            agentName: 'a',
            runId: null,
            toolCallId: done.toolCallId,
            claimId: done.claimId,
            status: 'completed',
            completedAt: 5,
            resultJson: null,
            expiresAt: 20,
          }),
          5,
        ),
        true,
      );
      assert.equal(await store.pruneReceipts(1000), 1, 'only the outcome');
      assert.equal(Number(await raw('ZCARD', `${prefix}rindex`)), 0, 'the unfinished claims left the index');
      const keys = await raw('KEYS', `${prefix}r:*`);
      assert.equal(keys.length, count, 'every unfinished claim is kept');
      for (const key of keys.slice(0, 5)) assert.equal(Number(await raw('PTTL', key)), -1, `${key} has no TTL`);
      assert.equal((await store.getReceipt(Object.freeze({ agentName: 'a', runId: null, toolCallId: 'c0' }), 1000)).status, 'in_progress');
      // A late outcome puts its receipt back in the index, with its own retention.
      assert.equal(
        await store.completeReceipt(
          Object.freeze({
            agentName: 'a',
            runId: null,
            toolCallId: 'c0',
            claimId: claim(0, 0).claimId,
            status: 'failed',
            completedAt: 1000,
            resultJson: null,
            expiresAt: 1010,
          }),
          1000,
        ),
        true,
      );
      assert.equal(await store.pruneReceipts(1009), 0);
      assert.equal(await store.pruneReceipts(1010), 1);
    } finally {
      await removeKeys('node-redis', client, prefix);
      await client.close();
    }
  });

  test('scripts the server forgot (SCRIPT FLUSH, a restart) are sent again', async (t) => {
    const url = service(t, 'redis');
    if (url === null) return;
    const client = await CLIENTS['node-redis'].connect(url);
    const prefix = newPrefix();
    try {
      const store = createRedisGrantStore({ client, prefix });
      const q = query('a', 't', hash());
      await store.put(record(q, { uses: 2 }), 0);
      await client.sendCommand(['SCRIPT', 'FLUSH']);
      assert.equal(await store.take(q, 0), true);
      await client.sendCommand(['SCRIPT', 'FLUSH']);
      assert.equal(await store.has(q, 0), true);
      assert.equal(await store.take(q, 0), true);
    } finally {
      await removeKeys('node-redis', client, prefix);
      await client.close();
    }
  });

  test('ioredis keyPrefix is honoured: every key, the index members included, lives under it', async (t) => {
    const url = service(t, 'redis');
    if (url === null) return;
    const keyPrefix = newPrefix();
    const client = await CLIENTS.ioredis.connect(url, { keyPrefix });
    const plain = await CLIENTS.ioredis.connect(url);
    try {
      const store = createRedisGrantStore({ client });
      const q = query('a', 't', hash());
      await store.put(record(q, { expiresAt: 10 }), 0);
      await store.putProposal('p', '{}', 10);
      const keys = await plain.keys(`${keyPrefix}*`);
      assert.equal(keys.length, 5, keys.join(', '));
      assert.deepEqual(await plain.keys('tas:grant:*'), []);
      assert.equal(await store.prune(10), 2);
      assert.deepEqual(await plain.keys(`${keyPrefix}*`), []);
    } finally {
      await removeKeys('ioredis', plain, keyPrefix);
      await client.quit();
      await plain.quit();
    }
  });
});

test('options: a Proxy is refused unread; a client needs call or sendCommand; prefix and timeout are checked', () => {
  const fake = { sendCommand: async () => 1 };
  let trapped = 0;
  const proxy = new Proxy(
    { client: fake },
    {
      get() {
        trapped++;
      },
      getOwnPropertyDescriptor() {
        trapped++;
      },
    },
  );
  assert.throws(() => createRedisGrantStore(proxy), TypeError);
  assert.throws(
    () =>
      createRedisGrantStore({
        client: new Proxy(fake, {
          get() {
            trapped++;
          },
        }),
      }),
    TypeError,
  );
  assert.equal(trapped, 0);
  for (const client of [undefined, null, {}, { sendCommand: 1 }, 'redis://x'])
    assert.throws(() => createRedisGrantStore({ client }), TypeError, String(client));
  for (const prefix of ['', 1, null, 'a\ud800']) assert.throws(() => createRedisGrantStore({ client: fake, prefix }), TypeError, String(prefix));
  for (const timeoutMs of [0, 0.5, '1', 2 ** 31]) assert.throws(() => createRedisGrantStore({ client: fake, timeoutMs }), TypeError);
  createRedisGrantStore({ client: fake, prefix: '{tenant-1}:grants:' });
});

/** Resolves once a Redis server on `port` answers PING (a client that failed to connect would keep retrying). */
async function untilRedisAnswers(port) {
  for (let i = 0; i < 100; i++) {
    const answered = await new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
      socket.setTimeout(500, () => socket.destroy());
      socket.once('data', (data) => {
        socket.destroy();
        resolve(String(data).startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
      socket.once('close', () => resolve(false));
    });
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`no Redis server answered on port ${port}`);
}

describe('dead Redis stores reject within timeoutMs, without a payload', () => {
  const q = query('secret-agent', 'secret-tool', hash(), 'secret-scope');
  const secrets = [...SECRET_RECEIPT_TEXTS, 'secret-agent', 'secret-tool', q.proposalHash, 'secret-scope', 'secret-args', 'secret-nonce'];
  const calls = (store) => [
    () => store.put(record(q, { args: '{"secret-args":1}', nonce: 'secret-nonce' }), 0),
    () => store.has(q, 0),
    () => store.take(q, 0),
    () => store.delete(q),
    () => store.prune(0),
    () => store.putProposal('secret-scope', '{"secret-args":1}', null),
    () => store.getProposal('secret-scope', 0),
    () => store.deleteProposal('secret-scope'),
    ...receiptCalls(store),
  ];

  async function expectAll(store, codes, within) {
    for (const call of calls(store)) {
      const started = Date.now();
      const error = await call().then(
        () => null,
        (e) => e,
      );
      assertStoreError(error, codes, secrets);
      assert.ok(Date.now() - started < within, `${call}: ${Date.now() - started} ms`);
    }
  }

  for (const kind of Object.keys(CLIENTS)) {
    test(`${kind}: a client that was closed`, async (t) => {
      const url = service(t, 'redis');
      if (url === null) return;
      const client = await CLIENTS[kind].connect(url);
      await CLIENTS[kind].close(client);
      await expectAll(createRedisGrantStore({ client, timeoutMs: 500 }), ['store_failed', 'store_timeout'], 1500);
    });

    test(`${kind}: a server that stopped answering`, async () => {
      const sockets = [];
      const server = net.createServer((socket) => sockets.push(socket));
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `redis://127.0.0.1:${server.address().port}`;
      let client;
      if (kind === 'node-redis') {
        const { createClient } = require('redis');
        client = createClient({ url, socket: { connectTimeout: 60000 } });
        client.on('error', () => {});
        client.connect().catch(() => {});
      } else {
        const Redis = require('ioredis');
        client = new Redis(url, { connectTimeout: 60000 });
        client.on('error', () => {});
      }
      try {
        await expectAll(createRedisGrantStore({ client, timeoutMs: 300 }), ['store_timeout'], 1500);
      } finally {
        client.disconnect();
        for (const socket of sockets) socket.destroy();
        server.close();
      }
    });

    test(`${kind}: a port where nothing listens (a stopped server)`, async () => {
      const server = net.createServer();
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address();
      await new Promise((resolve) => server.close(resolve));
      let client;
      if (kind === 'node-redis') {
        const { createClient } = require('redis');
        client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: 50 } });
        client.on('error', () => {});
        client.connect().catch(() => {});
      } else {
        const Redis = require('ioredis');
        client = new Redis(port, '127.0.0.1', { retryStrategy: () => 50 });
        client.on('error', () => {});
      }
      try {
        await expectAll(createRedisGrantStore({ client, timeoutMs: 300 }), ['store_timeout', 'store_failed'], 1500);
      } finally {
        client.disconnect();
      }
    });
  }

  for (const kind of Object.keys(CLIENTS)) {
    test(`${kind}: the server stops under a connected client`, async (t) => {
      const which = require('node:child_process').spawnSync('redis-server', ['--version']);
      if (which.error) {
        if (require('../helpers/services').required()) assert.fail('TAS_REQUIRE_SERVICES=1 and redis-server is not on PATH');
        t.skip('redis-server is not on PATH (apt-get install redis-server; .ci/run installs it)');
        return;
      }
      const probe = net.createServer();
      await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const { port } = probe.address();
      await new Promise((resolve) => probe.close(resolve));
      const server = require('node:child_process').spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      try {
        await untilRedisAnswers(port);
        const client = await CLIENTS[kind].connect(`redis://127.0.0.1:${port}`);
        const store = createRedisGrantStore({ client, timeoutMs: 400 });
        await store.put(record(q), 0);
        assert.equal(await store.has(q, 0), true);
        server.kill('SIGKILL');
        await new Promise((resolve) => server.once('exit', resolve));
        await expectAll(store, ['store_timeout', 'store_failed'], 1500);
        client.disconnect();
      } finally {
        server.kill('SIGKILL');
      }
    });
  }

  test('a client whose command throws, answers an error reply or garbage', async () => {
    const throwing = {
      sendCommand() {
        throw new Error('secret-args in a client message');
      },
    };
    await expectAll(createRedisGrantStore({ client: throwing }), ['store_failed'], 1000);
    const wrongType = {
      call: async () => {
        throw Object.assign(new Error('WRONGTYPE Operation against a key holding the wrong kind of value secret-args'), {});
      },
    };
    const error = await createRedisGrantStore({ client: wrongType })
      .take(q, 0)
      .then(
        () => null,
        (e) => e,
      );
    assertStoreError(error, ['store_failed'], secrets);
    assert.equal(error.detail, 'WRONGTYPE');
    const garbage = { sendCommand: async () => 'secret-args' };
    await expectAll(createRedisGrantStore({ client: garbage }), ['store_failed'], 1000);
  });

  test('a store after close() sends nothing', async () => {
    let sent = 0;
    const store = createRedisGrantStore({
      client: {
        sendCommand: async () => {
          sent++;
          return 1;
        },
      },
    });
    await store.close();
    await expectAll(store, ['store_closed'], 1000);
    assert.equal(sent, 0);
  });
});

describe('a Redis server that does not keep what it acknowledged is named once (review finding)', () => {
  const { spawn, spawnSync } = require('node:child_process');
  const freePort = () =>
    new Promise((resolve) => {
      const s = net.createServer();
      s.listen(0, '127.0.0.1', () => {
        const { port } = s.address();
        s.close(() => resolve(port));
      });
    });
  const pings = (port) =>
    new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
      socket.on('data', (d) => {
        socket.destroy();
        resolve(String(d).startsWith('+PONG'));
      });
      socket.on('error', () => resolve(false));
    });

  for (const [label, args, warned] of [
    ['appendonly no: one TAS_REDIS_NOT_DURABLE warning per store', ['--appendonly', 'no'], 1],
    ['maxmemory-policy allkeys-lru: one warning', ['--appendonly', 'yes', '--maxmemory-policy', 'allkeys-lru'], 1],
    ['appendonly yes, appendfsync always, noeviction: no warning', ['--appendonly', 'yes', '--appendfsync', 'always', '--maxmemory-policy', 'noeviction'], 0],
    [
      'appendonly yes, appendfsync everysec (the default): one warning',
      ['--appendonly', 'yes', '--appendfsync', 'everysec', '--maxmemory-policy', 'noeviction'],
      1,
    ],
    ['appendonly yes, appendfsync no: one warning', ['--appendonly', 'yes', '--appendfsync', 'no', '--maxmemory-policy', 'noeviction'], 1],
  ]) {
    test(label, async (t) => {
      if (spawnSync('redis-server', ['--version']).status !== 0) {
        if (process.env.TAS_REQUIRE_SERVICES === '1') assert.fail('TAS_REQUIRE_SERVICES=1 and redis-server is not on PATH');
        t.skip('redis-server is not on PATH (.ci/run installs it)');
        return;
      }
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-redis-durable-'));
      const port = await freePort();
      const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', ...args], { stdio: 'ignore' });
      for (let i = 0; i < 200 && !(await pings(port)); i++) await new Promise((r) => setTimeout(r, 25));
      const { createClient } = require('redis');
      const client = createClient({ url: `redis://127.0.0.1:${port}` });
      client.on('error', () => {});
      await client.connect();
      t.after(async () => {
        await client.quit().catch(() => {});
        server.kill('SIGKILL');
        fs.rmSync(dir, { recursive: true, force: true });
      });
      const warnings = [];
      const onWarning = (w) => {
        if (w.code === 'TAS_REDIS_NOT_DURABLE') warnings.push(w.message);
      };
      process.on('warning', onWarning);
      t.after(() => process.off('warning', onWarning));
      const store = createRedisGrantStore({ client });
      const grants = createApprovalGrants({ store });
      const { snapshot } = prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{"amount":5}' });
      await grants.grant(snapshot);
      await grants.grant(snapshot);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(warnings.length, warned, warnings.join('\n'));
      for (const message of warnings) assert.ok(!message.includes('amount'), 'no payload in the warning');
    });
  }
});
