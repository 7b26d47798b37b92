'use strict';
// createPostgresGrantStore: the conformance suite through a pg Pool and through one pg
// Client, migrate(), the DDL the docs show, options, and dead stores. Needs
// TAS_TEST_PG_URL (skipped visibly without it; failing under TAS_REQUIRE_SERVICES=1),
// except the checks that use a recording stand-in for the pool.

const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const { conformance, assertStoreError, hash, query, record, receiptCalls, receiptClaim, receiptOutcome, SECRET_RECEIPT_TEXTS } = require('./conformance');
const { service, requires } = require('../helpers/services');
const { createPostgresGrantStore } = require('../../lib/stores/postgres');

let tables = 0;
const newTable = () => `tas_test_${process.pid}_${tables++}`;

async function dropTables(url, table) {
  const { Pool } = require('pg');
  const pool = new Pool({ connectionString: url, max: 1 });
  try {
    await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_nonces, ${table}_proposals, ${table}_receipts`);
  } finally {
    await pool.end();
  }
}

/** A store over a fresh table, through a Pool (`client: false`) or one connected Client. */
function opener(client) {
  return async (t) => {
    const url = service(t, 'pg');
    if (url === null) return null;
    const { Pool, Client } = require('pg');
    const table = newTable();
    const connections = [];
    async function connect() {
      if (!client) return connections[connections.push(new Pool({ connectionString: url })) - 1];
      const c = new Client({ connectionString: url });
      await c.connect();
      return connections[connections.push(c) - 1];
    }
    const store = createPostgresGrantStore({ pool: await connect(), table });
    await store.migrate();
    return {
      store,
      async second() {
        // The maker's connection is gone before the other store looks.
        await connections[0].end();
        return createPostgresGrantStore({ pool: await connect(), table });
      },
      async dispose() {
        for (const c of connections) await c.end().catch(() => {});
        await dropTables(url, table);
      },
    };
  };
}

conformance('PostgreSQL through a pg Pool', opener(false), requires('pg'));
conformance('PostgreSQL through one pg Client', opener(true), requires('pg'));

/** A stand-in pool that records what the store sends and answers `rows`. */
function recordingPool(rows = []) {
  const sent = [];
  return {
    sent,
    query(config) {
      sent.push(config);
      return Promise.resolve({ rows: typeof rows === 'function' ? rows(config) : rows });
    },
  };
}

test('every value travels as a parameter, each query carries timeoutMs as query_timeout', async () => {
  const pool = recordingPool([]);
  const store = createPostgresGrantStore({ pool, timeoutMs: 1234 });
  const evil = `x'); DROP TABLE users; --`;
  const q = query(evil, evil, hash(), evil);
  await store.put(record(q, { args: evil, nonce: evil, expiresAt: 5 }), 1);
  await store.has(q, 1);
  await store.take(q, 1);
  await store.delete(q);
  await store.prune(1);
  await store.putProposal(evil, evil, null);
  await store.getProposal(evil, 1);
  await store.deleteProposal(evil);
  assert.equal(pool.sent.length, 8);
  for (const config of pool.sent) {
    assert.ok(!config.text.includes('DROP'), config.text);
    assert.equal(config.query_timeout, 1234);
    assert.ok(Array.isArray(config.values));
  }
  assert.ok(pool.sent[0].values.includes(evil));
});

test('options: a Proxy is refused unread; a pool needs query; the table may be schema-qualified', () => {
  let trapped = 0;
  const proxy = new Proxy(
    { pool: recordingPool() },
    {
      get() {
        trapped++;
      },
      getOwnPropertyDescriptor() {
        trapped++;
      },
    },
  );
  assert.throws(() => createPostgresGrantStore(proxy), TypeError);
  assert.throws(() => createPostgresGrantStore({ pool: new Proxy(recordingPool(), {}) }), TypeError, 'a Proxy pool');
  assert.equal(trapped, 0);
  for (const pool of [undefined, null, {}, { query: 1 }, 'postgres://x']) {
    assert.throws(() => createPostgresGrantStore({ pool }), TypeError, String(pool));
  }
  for (const table of ['', 'a.b.c', '.a', 'a.', 'a-b', 'x.1a', '"a"', 'a'.repeat(42), `${'s'.repeat(64)}.t`]) {
    assert.throws(() => createPostgresGrantStore({ pool: recordingPool(), table }), TypeError, table);
  }
  createPostgresGrantStore({ pool: recordingPool(), table: `${'s'.repeat(63)}.${'t'.repeat(41)}` });
  for (const timeoutMs of [0, 0.5, '1', 2 ** 31]) assert.throws(() => createPostgresGrantStore({ pool: recordingPool(), timeoutMs }), TypeError);
});

/** The SQL block of docs/stores.md that follows the marker comment `<!-- ddl: NAME -->`. */
function docBlock(name) {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'stores.md'), 'utf8');
  const match = doc.match(new RegExp(`<!-- ddl: ${name} -->\\n\`\`\`sql\\n([\\s\\S]*?)\`\`\`\\n`));
  assert.ok(match, `docs/stores.md has a sql block after <!-- ddl: ${name} -->`);
  return match[1];
}

test('the DDL in docs/stores.md is exactly what migrate() runs', async () => {
  const pool = recordingPool();
  await createPostgresGrantStore({ pool }).migrate();
  assert.equal(pool.sent.length, 1);
  assert.equal(pool.sent[0].values, undefined, 'no parameters: several statements in one round trip');
  assert.equal(pool.sent[0].text, docBlock('postgres'));
  const qualified = recordingPool();
  await createPostgresGrantStore({ pool: qualified, table: 'approvals.grants' }).migrate();
  assert.match(qualified.sent[0].text, /CREATE TABLE IF NOT EXISTS "approvals"\."grants_nonces"/);
  assert.match(qualified.sent[0].text, /CREATE INDEX IF NOT EXISTS "grants_key" ON "approvals"\."grants"/);
});

describe('PostgreSQL store against a server', requires('pg'), () => {
  test('migrate() is idempotent, also when 8 pools run it at once on a new table', async (t) => {
    const url = service(t, 'pg');
    if (url === null) return;
    const { Pool } = require('pg');
    const table = newTable();
    const pools = Array.from({ length: 8 }, () => new Pool({ connectionString: url, max: 1 }));
    try {
      await Promise.all(pools.map((pool) => createPostgresGrantStore({ pool, table }).migrate()));
      const store = createPostgresGrantStore({ pool: pools[0], table });
      await store.migrate();
      const q = query('a', 't', hash());
      await store.put(record(q), 0);
      await store.migrate();
      assert.equal(await store.take(q, 0), true, 'migrate keeps what is stored');
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
      await dropTables(url, table);
    }
  });

  test('a schema-qualified table', async (t) => {
    const url = service(t, 'pg');
    if (url === null) return;
    const { Pool } = require('pg');
    const pool = new Pool({ connectionString: url });
    const schema = `tas_schema_${process.pid}`;
    try {
      const missing = createPostgresGrantStore({ pool, table: `${schema}.grants` });
      const error = await missing.migrate().then(
        () => null,
        (e) => e,
      );
      assertStoreError(error, ['store_failed'], []);
      assert.equal(error.detail, '3F000');
      await pool.query(`CREATE SCHEMA ${schema}`);
      const store = createPostgresGrantStore({ pool, table: `${schema}.grants` });
      await store.migrate();
      const q = query('a', 't', hash());
      await store.put(record(q), 0);
      assert.equal(
        await createPostgresGrantStore({ pool, table: 'grants' })
          .has(q, 0)
          .catch(() => false),
        false,
      );
      assert.equal(await store.take(q, 0), true);
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await pool.end();
    }
  });

  test('before migrate(), calls fail with a hint and no payload', async (t) => {
    const url = service(t, 'pg');
    if (url === null) return;
    const { Pool } = require('pg');
    const pool = new Pool({ connectionString: url });
    try {
      const store = createPostgresGrantStore({ pool, table: newTable() });
      const q = query('secret-agent', 'secret-tool', hash(), 'secret-scope');
      const error = await store.put(record(q, { args: '{"secret":1}' }), 0).then(
        () => null,
        (e) => e,
      );
      assertStoreError(error, ['store_failed'], ['secret', q.proposalHash]);
      assert.equal(error.detail, '42P01');
      assert.match(error.message, /put failed \(42P01: run store\.migrate\(\) first\) \[store_failed\]$/);
    } finally {
      await pool.end();
    }
  });

  test('receipt writes queued in one turn of the event loop go as one statement (issue 35), each answered for its own key', async (t) => {
    const url = service(t, 'pg');
    if (url === null) return;
    const { Pool } = require('pg');
    const table = newTable();
    const real = new Pool({ connectionString: url });
    const texts = [];
    // The pool the store is given: PostgreSQL's, with each statement's text recorded.
    const pool = {
      totalCount: 0,
      query(config) {
        texts.push(config.text);
        return real.query(config);
      },
    };
    try {
      const store = createPostgresGrantStore({ pool, table });
      await store.migrate();
      const now = 1_000;
      const claimOf = (i) => receiptClaim('run-turn', i, now);
      const outcomeOf = (i) => receiptOutcome('run-turn', i, now);
      const ids = Array.from({ length: 12 }, (_, i) => i);

      texts.length = 0;
      const claims = await Promise.all(ids.map((i) => store.claimReceipt(claimOf(i), now)));
      assert.deepEqual(
        claims,
        ids.map(() => null),
        'each claim is its own',
      );
      assert.equal(texts.length, 1, `12 claims of one turn: ${texts.length} statements`);

      // Completions of six keys and claims of six new ones, queued in one turn: one statement.
      texts.length = 0;
      const [done, more] = await Promise.all([
        Promise.all(ids.slice(0, 6).map((i) => store.completeReceipt(outcomeOf(i), now + 1))),
        Promise.all(
          ids
            .map((i) => i + 100)
            .slice(0, 6)
            .map((i) => store.claimReceipt(claimOf(i), now + 1)),
        ),
      ]);
      assert.deepEqual(done, [true, true, true, true, true, true]);
      assert.deepEqual(more, [null, null, null, null, null, null]);
      assert.equal(texts.length, 1, `6 completions and 6 claims of one turn: ${texts.length} statements`);

      // A second claim of a key claimed in the same turn goes in the next statement and reads the first's record.
      texts.length = 0;
      const [first, second] = await Promise.all([
        store.claimReceipt(claimOf(200), now + 2),
        store.claimReceipt({ ...claimOf(200), claimId: 'claim-200-again' }, now + 2),
      ]);
      assert.equal(first, null);
      assert.equal(second.claimId, 'claim-200');
      assert.equal(second.status, 'in_progress');
      assert.equal(texts.length, 2);

      const stored = await store.getReceipt({ agentName: 'agent', runId: 'run-turn', toolCallId: 'call-3' }, now + 2);
      assert.equal(stored.status, 'completed');
      assert.equal(stored.resultJson, '{"n":3}');
      assert.equal((await store.getReceipt({ agentName: 'agent', runId: 'run-turn', toolCallId: 'call-7' }, now + 2)).status, 'in_progress');
    } finally {
      await real.end();
      await dropTables(url, table);
    }
  });

  test("a take blocked by another transaction's row lock ends with store_timeout, and the pool recovers", async (t) => {
    const url = service(t, 'pg');
    if (url === null) return;
    const { Pool, Client } = require('pg');
    const table = newTable();
    const pool = new Pool({ connectionString: url, max: 2 });
    const holder = new Client({ connectionString: url });
    await holder.connect();
    try {
      const store = createPostgresGrantStore({ pool, table, timeoutMs: 800 });
      await store.migrate();
      const q = query('a', 't', hash());
      await store.put(record(q, { uses: 2 }), 0);
      await holder.query('BEGIN');
      await holder.query(`SELECT id FROM ${table} FOR UPDATE`);
      const started = Date.now();
      const error = await store.take(q, 0).then(
        () => null,
        (e) => e,
      );
      const waited = Date.now() - started;
      assertStoreError(error, ['store_timeout'], [q.proposalHash]);
      assert.ok(waited >= 600 && waited < 3000, `ended after ${waited} ms (timeoutMs 800)`);
      assert.equal(await store.has(q, 0), true, 'reads do not wait for row locks');
      await holder.query('ROLLBACK');
      // The timed-out statement may still have run once the lock went: at most once, never twice.
      const left = (await store.take(q, 0)) + (await store.take(q, 0)) + (await store.take(q, 0));
      assert.ok(left === 1 || left === 2, `${left} uses left of 2`);
    } finally {
      await holder.end();
      await pool.end();
      await dropTables(url, table);
    }
  });
});

describe('dead PostgreSQL stores reject within timeoutMs, without a payload', () => {
  const q = query('secret-agent', 'secret-tool', hash(), 'secret-scope');
  const secrets = [...SECRET_RECEIPT_TEXTS, 'secret-agent', 'secret-tool', q.proposalHash, 'secret-scope', 'secret-args'];
  const calls = (store) => [
    () => store.put(record(q, { args: '{"secret-args":1}', nonce: 'secret-nonce' }), 0),
    () => store.has(q, 0),
    () => store.take(q, 0),
    () => store.delete(q),
    () => store.prune(0),
    () => store.getProposal('secret-scope', 0),
    () => store.migrate(),
    ...receiptCalls(store),
  ];

  async function expectAll(store, codes, within) {
    for (const call of calls(store)) {
      const started = Date.now();
      const error = await call().then(
        () => null,
        (e) => e,
      );
      assertStoreError(error, codes, [...secrets, 'secret-nonce']);
      assert.ok(Date.now() - started < within, `${call}: ${Date.now() - started} ms`);
    }
  }

  test('a pool that was ended', async (t) => {
    const url = service(t, 'pg');
    if (url === null) return;
    const { Pool } = require('pg');
    const pool = new Pool({ connectionString: url });
    await pool.end();
    await expectAll(createPostgresGrantStore({ pool, timeoutMs: 1000 }), ['store_failed'], 2000);
  });

  test('connections the server ended under a pool (a server restart)', async (t) => {
    const url = service(t, 'pg');
    if (url === null) return;
    const { Pool } = require('pg');
    const name = `tas-dead-${process.pid}`;
    const pool = new Pool({ connectionString: url, application_name: name, max: 1 });
    pool.on('error', () => {});
    const admin = new Pool({ connectionString: url, max: 1 });
    try {
      const table = newTable();
      const store = createPostgresGrantStore({ pool, table, timeoutMs: 1000 });
      await store.migrate();
      await store.put(record(q), 0);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [name]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const error = await store.take(q, 0).then(
        () => null,
        (e) => e,
      );
      // The pool may have noticed the ended connection and opened a new one already.
      if (error !== null) assertStoreError(error, ['store_failed', 'store_timeout'], [...secrets, 'secret-nonce']);
      assert.equal(await store.has(q, 0), error !== null, 'a failed take took nothing; a new connection works');
      await dropTables(url, table);
    } finally {
      await pool.end();
      await admin.end();
    }
  });

  test('a port where nothing listens (a stopped server)', async () => {
    const { Pool } = require('pg');
    const server = net.createServer();
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address();
    await new Promise((resolve) => server.close(resolve));
    const pool = new Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/x` });
    const store = createPostgresGrantStore({ pool, timeoutMs: 1000 });
    await expectAll(store, ['store_failed'], 2000);
    const error = await store.has(q, 0).then(
      () => null,
      (e) => e,
    );
    assert.equal(error.detail, 'ECONNREFUSED');
    await pool.end();
  });

  test('a server that accepts and never answers', async () => {
    const { Pool } = require('pg');
    const sockets = [];
    const server = net.createServer((socket) => sockets.push(socket));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const pool = new Pool({ connectionString: `postgres://postgres@127.0.0.1:${server.address().port}/x` });
    try {
      await expectAll(createPostgresGrantStore({ pool, timeoutMs: 300 }), ['store_timeout'], 1500);
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
      pool.end().catch(() => {});
    }
  });

  test('a pool whose query throws or answers garbage', async () => {
    const throwing = {
      query() {
        throw new Error('secret-args in a driver message');
      },
    };
    await expectAll(createPostgresGrantStore({ pool: throwing }), ['store_failed'], 1000);
    const garbage = { query: async () => ({ rows: 'secret-args' }) };
    const error = await createPostgresGrantStore({ pool: garbage })
      .has(q, 0)
      .then(
        () => null,
        (e) => e,
      );
    assertStoreError(error, ['store_failed'], secrets);
    assert.equal(error.detail, 'bad_result');
  });

  test('a store after close()', async () => {
    const pool = recordingPool();
    const store = createPostgresGrantStore({ pool });
    await store.close();
    await expectAll(store, ['store_closed'], 1000);
    assert.equal(pool.sent.length, 0, 'nothing was sent');
  });
});
