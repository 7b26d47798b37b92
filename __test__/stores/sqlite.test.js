'use strict';
// createSqliteGrantStore: the conformance suite, its options, and what the embedded store
// promises beyond it: a private file, failures that end within timeoutMs and show no
// payload, work that never blocks the event loop, no experimental warning, and the same
// answers under Bun and Deno.

const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFile } = require('node:child_process');

const { conformance, assertStoreError, hash, query, record, receiptCalls, SECRET_RECEIPT_TEXTS } = require('./conformance');
const { bun, deno } = require('../helpers/services');
const { DENO_FLAGS, BUN_FLAGS } = require('../conformance/runtime.cjs');
const { createSqliteGrantStore } = require('../../lib/stores/sqlite');

const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-sqlite-store-'));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));
let files = 0;
const newFile = () => path.join(DIR, `store-${files++}.db`);

conformance('SQLite', async () => {
  const file = newFile();
  const opened = [createSqliteGrantStore({ path: file })];
  return {
    store: opened[0],
    async second() {
      opened.push(createSqliteGrantStore({ path: file }));
      return opened[opened.length - 1];
    },
    async dispose() {
      for (const store of opened) await store.close();
    },
  };
});

test('options are read as own data properties; a Proxy, a bad path, table or timeout is a TypeError', () => {
  let trapped = 0;
  const proxy = new Proxy(
    { path: newFile() },
    {
      get() {
        trapped++;
      },
      getOwnPropertyDescriptor() {
        trapped++;
      },
    },
  );
  assert.throws(() => createSqliteGrantStore(proxy), TypeError);
  assert.equal(trapped, 0);
  for (const bad of [undefined, null, 'file.db', 1]) assert.throws(() => createSqliteGrantStore(bad), TypeError, String(bad));
  assert.throws(() => createSqliteGrantStore(Object.create({ path: newFile() })), TypeError, 'an inherited path does not count');
  for (const p of ['', 'a\u0000b', 'a\ud800b', 1, null]) assert.throws(() => createSqliteGrantStore({ path: p }), TypeError, JSON.stringify(p));
  for (const table of ['', '1grants', 'grants-x', 'a"b', 'a b', 'main.grants', 'é', 'a'.repeat(42), 7]) {
    assert.throws(() => createSqliteGrantStore({ path: newFile(), table }), TypeError, JSON.stringify(table));
  }
  for (const timeoutMs of [0, -1, 1.5, '5', Number.NaN, 2 ** 31, null]) {
    assert.throws(() => createSqliteGrantStore({ path: newFile(), timeoutMs }), TypeError, String(timeoutMs));
  }
  const store = createSqliteGrantStore({ path: newFile(), table: `_${'a'.repeat(40)}`, timeoutMs: 2 ** 31 - 1 });
  return store.close();
});

test('stores with different tables in one file are separate; close is idempotent and later calls reject', async () => {
  const file = newFile();
  const a = createSqliteGrantStore({ path: file });
  const b = createSqliteGrantStore({ path: file, table: 'other_grants' });
  const q = query('agent', 'tool', hash());
  await a.put(record(q), 0);
  assert.equal(await b.has(q, 0), false);
  assert.equal(await a.has(q, 0), true);
  await b.close();
  await b.close();
  const error = await b.has(q, 0).then(
    () => null,
    (e) => e,
  );
  assertStoreError(error, ['store_closed'], [q.proposalHash]);
  assert.match(error.message, /^SQLite grant store \(table "other_grants"\): has refused: the store is closed \[store_closed\]$/);
  assert.equal(await a.take(q, 0), true, 'closing one store leaves the other open');
  await a.close();
});

test('the database file is created readable by its owner only', { skip: process.platform === 'win32' && 'POSIX modes' }, async () => {
  const file = newFile();
  const store = createSqliteGrantStore({ path: file });
  await store.put(record(query('a', 't', hash())), 0);
  for (const name of [file, `${file}-wal`]) {
    assert.equal(fs.statSync(name).mode & 0o777, 0o600, name);
  }
  await store.close();
});

test('a store whose file cannot be opened rejects every call, without a payload, and recovers when it can', async () => {
  const dir = path.join(DIR, 'later');
  const file = path.join(dir, 'g.db');
  const store = createSqliteGrantStore({ path: file, timeoutMs: 2000 });
  const q = query('secret-agent', 'secret-tool', hash(), 'secret-scope');
  const secrets = ['secret-agent', 'secret-tool', q.proposalHash, 'secret-scope', 'secret-args', file];
  for (const call of [() => store.put(record(q, { args: '{"secret-args":1}' }), 0), () => store.take(q, 0), () => store.getProposal('secret-scope', 0)]) {
    const error = await call().then(
      () => null,
      (e) => e,
    );
    assertStoreError(error, ['store_failed'], secrets);
    assert.equal(error.detail, 'sqlite_14');
    assert.match(error.message, /\(sqlite_14: the file cannot be opened\)/);
  }
  fs.mkdirSync(dir);
  assert.equal(await store.put(record(q), 0), true, 'opened on the next call');
  assert.equal(await store.take(q, 0), true);
  await store.close();
});

test('a path is a file name, never a URI (no ?vfs=unix-none can switch locking off)', async () => {
  const uri = `file:${path.join(DIR, 'uri.db')}?vfs=unix-none`;
  const store = createSqliteGrantStore({ path: uri, timeoutMs: 2000 });
  // Taken literally, the path names a file in a folder "file:" under the working
  // directory, which does not exist.
  const error = await store.prune(0).then(
    () => null,
    (e) => e,
  );
  assertStoreError(error, ['store_failed'], []);
  assert.equal(error.detail, 'sqlite_14');
  assert.equal(fs.existsSync(path.join(DIR, 'uri.db')), false);
  await store.close();
});

/** Holds SQLite's write lock on `file` from another process (Bun's own SQLite) until it exits. */
function holdLock(bunFile, file, ms) {
  const script = `const { Database } = require('bun:sqlite'); const db = new Database(${JSON.stringify(file)});
db.exec('PRAGMA journal_mode = WAL'); db.exec('BEGIN IMMEDIATE'); console.log('locked');
setTimeout(() => { db.exec('ROLLBACK'); db.close(); }, ${ms});`;
  const child = spawn(bunFile, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code}) before locking`)));
  });
}

test('a database locked by another process: calls end with store_timeout within timeoutMs, and the event loop runs meanwhile', async (t) => {
  const found = bun(t);
  if (found === null) return;
  const file = newFile();
  const store = createSqliteGrantStore({ path: file, timeoutMs: 1500 });
  const q = query('agent', 'tool', hash());
  await store.put(record(q), 0);
  const holder = await holdLock(found.file, file, 4000);
  let ticks = 0;
  const interval = setInterval(() => ticks++, 10);
  const started = Date.now();
  try {
    const error = await store.take(q, 0).then(
      () => null,
      (e) => e,
    );
    const waited = Date.now() - started;
    assertStoreError(error, ['store_timeout'], [q.proposalHash]);
    assert.match(error.message, /take timed out after 1500 ms \[store_timeout\]$/);
    assert.ok(waited >= 1000 && waited < 3500, `ended after ${waited} ms (timeoutMs 1500)`);
    assert.ok(ticks >= 20, `the event loop ran while the take waited (${ticks} ticks of 10 ms)`);
    assert.equal(await store.has(q, 0), true, 'a read does not wait for the writer (WAL), and the timed-out take took nothing');
    const claimed = Date.now();
    const [claimCall] = receiptCalls(store);
    const claimError = await claimCall().then(
      () => null,
      (e) => e,
    );
    assertStoreError(claimError, ['store_timeout'], SECRET_RECEIPT_TEXTS);
    assert.match(claimError.message, /claimReceipt timed out after 1500 ms \[store_timeout\]$/);
    assert.ok(Date.now() - claimed >= 1000, 'the claim waited for the lock');
  } finally {
    clearInterval(interval);
  }
  await new Promise((resolve) => holder.once('exit', resolve));
  assert.equal(await store.take(q, 0), true, 'the store works once the lock is gone');
  await store.close();
});

test('receipt operations of a closed store reject with store_closed, naming the operation and no value', async () => {
  const store = createSqliteGrantStore({ path: newFile() });
  await store.close();
  for (const call of receiptCalls(store)) {
    const error = await call().then(
      () => null,
      (e) => e,
    );
    assertStoreError(error, ['store_closed'], SECRET_RECEIPT_TEXTS);
  }
});

/** A script any runtime runs: one grant taken once by a store in a fresh file. */
function runtimeScript(file) {
  return `const { createSqliteGrantStore } = require(${JSON.stringify(path.join(__dirname, '..', '..', 'lib', 'stores', 'sqlite.js'))});
(async () => {
  const store = createSqliteGrantStore({ path: ${JSON.stringify(file)} });
  const q = { agentName: 'a', toolName: 't', proposalHash: '${'c'.repeat(64)}', scope: null };
  const put = await store.put({ ...q, argsCanonicalJson: '{}', expiresAt: null, uses: 1, nonce: 'n', nonceExpiresAt: null }, 0);
  const takes = [await store.take(q, 0), await store.take(q, 0)];
  const replay = await store.put({ ...q, argsCanonicalJson: '{}', expiresAt: null, uses: 1, nonce: 'n', nonceExpiresAt: null }, 0);
  await store.putProposal('k\\u0000\\ud800', '{"x":"\\u00e9"}', null);
  const proposal = await store.getProposal('k\\u0000\\ud800', 0);
  await store.close();
  console.log(JSON.stringify({ put, takes, replay, proposal }));
})();
`;
}

const EXPECTED = JSON.stringify({ put: true, takes: [true, false], replay: false, proposal: '{"x":"\u00e9"}' });

function runFile(file, args) {
  return new Promise((resolve) => {
    execFile(file, args, { env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' }, timeout: 120000 }, (error, stdout, stderr) => {
      resolve({ status: error ? error.code : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

test('under Node: the same answers, no warning on stderr, and an unclosed store does not keep the process alive', async () => {
  const script = path.join(DIR, 'node-run.cjs');
  fs.writeFileSync(script, runtimeScript(newFile()));
  const run = await runFile(process.execPath, [script]);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), EXPECTED);
  assert.equal(run.stderr, '', 'nothing on stderr (no ExperimentalWarning)');
  const unclosed = path.join(DIR, 'unclosed.cjs');
  fs.writeFileSync(
    unclosed,
    `const { createSqliteGrantStore } = require(${JSON.stringify(path.join(__dirname, '..', '..', 'lib', 'stores', 'sqlite.js'))});
const store = createSqliteGrantStore({ path: ${JSON.stringify(newFile())} });
store.prune(0).then((n) => console.log('pruned', n));`,
  );
  const exited = await runFile(process.execPath, [unclosed]);
  assert.equal(exited.status, 0, exited.stderr);
  assert.equal(exited.stdout.trim(), 'pruned 0');
});

test('under Bun: the same answers', async (t) => {
  const found = bun(t);
  if (found === null) return;
  const script = path.join(DIR, 'bun-run.cjs');
  fs.writeFileSync(script, runtimeScript(newFile()));
  const run = await runFile(found.file, [...BUN_FLAGS, script]);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), EXPECTED, run.stderr);
});

test('under Deno: the same answers, with no permission beyond reading and loading the addon', async (t) => {
  const found = deno(t);
  if (found === null) return;
  const script = path.join(DIR, 'deno-run.cjs');
  fs.writeFileSync(script, runtimeScript(newFile()));
  const run = await runFile(found.file, ['run', ...DENO_FLAGS, script]);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), EXPECTED, run.stderr);
});

// ---- Table names SQLite folds together, paths behind symbolic links (review findings) ----
// Review findings on the SQLite store: table names SQLite folds together, and a path
// behind a dangling symbolic link.

const { createApprovalGrants, prepareToolCall } = require('../..');

function reviewTempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-sqlite-review-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('two table names SQLite compares as one never share a table', async (t) => {
  const file = path.join(reviewTempDir(t), 'grants.db');
  // The documented choice: table names with upper-case letters are refused, so no two
  // accepted names fold together (SQLite compares identifiers without ASCII case).
  let opened = null;
  let refused = null;
  try {
    opened = createSqliteGrantStore({ path: file, table: 'Approvals' });
  } catch (error) {
    refused = error;
  }
  if (opened !== null) {
    // Were it accepted, a grant given on "Approvals" must not run through "approvals".
    const lower = createSqliteGrantStore({ path: file, table: 'approvals' });
    t.after(() => Promise.all([opened.close(), lower.close()]));
    const { snapshot } = prepareToolCall({ agentName: 'a', toolName: 'pay', rawArguments: '{"cents":5}' });
    await createApprovalGrants({ store: opened }).grant(snapshot);
    const other = createApprovalGrants({ store: lower });
    assert.equal(await other.has(snapshot), false, 'a grant on table "Approvals" is visible on table "approvals"');
    return;
  }
  assert.equal(refused.code, 'ERR_INVALID_ARG_TYPE');
  assert.match(refused.message, /lower-case/);
  assert.ok(!refused.message.includes('Approvals'), 'the refusal does not echo the name');
  // The lower-case name still opens.
  const store = createSqliteGrantStore({ path: file, table: 'approvals' });
  await store.close();
});

test('a path behind a dangling symbolic link is refused, nothing is created at its target', async (t) => {
  const dir = reviewTempDir(t);
  const target = path.join(dir, 'target.db');
  const link = path.join(dir, 'grants.db');
  fs.symlinkSync(target, link);
  const old = process.umask(0o022);
  t.after(() => process.umask(old));
  let failure = null;
  try {
    const store = createSqliteGrantStore({ path: link });
    const { snapshot } = prepareToolCall({ agentName: 'a', toolName: 'pay', rawArguments: '{"cents":5}' });
    await createApprovalGrants({ store })
      .grant(snapshot)
      .finally(() => store.close());
  } catch (error) {
    failure = error;
  }
  if (fs.existsSync(target)) {
    // Whatever was created must be the owner's only.
    assert.equal(fs.statSync(target).mode & 0o777, 0o600, `the file behind the link is ${(fs.statSync(target).mode & 0o777).toString(8)}`);
    for (const side of ['-wal', '-shm']) {
      if (fs.existsSync(target + side)) assert.equal(fs.statSync(target + side).mode & 0o777, 0o600, side);
    }
    assert.fail('the link was followed and a file created at its target');
  }
  assert.notEqual(failure, null, 'the store reports the refusal');
  assert.equal(failure.code, 'store_failed');
  assert.equal(failure.detail, 'sqlite_1550', 'the detail docs/stores.md names (SQLITE_CANTOPEN_SYMLINK)');
  assert.ok(!failure.message.includes('cents'));
});

test('a path that is a symbolic link to an existing database still opens', async (t) => {
  const dir = reviewTempDir(t);
  const target = path.join(dir, 'target.db');
  const first = createSqliteGrantStore({ path: target });
  const { snapshot } = prepareToolCall({ agentName: 'a', toolName: 'pay', rawArguments: '{"cents":5}' });
  await createApprovalGrants({ store: first }).grant(snapshot);
  await first.close();
  const link = path.join(dir, 'grants.db');
  fs.symlinkSync(target, link);
  const second = createSqliteGrantStore({ path: link });
  t.after(() => second.close());
  assert.equal(await createApprovalGrants({ store: second }).has(snapshot), true);
});
