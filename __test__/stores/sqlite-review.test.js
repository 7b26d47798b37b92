'use strict';
// Review findings on the SQLite store: table names SQLite folds together, and a path
// behind a dangling symbolic link.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createSqliteGrantStore, createApprovalGrants, prepareToolCall } = require('../..');

function tempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-sqlite-review-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('two table names SQLite compares as one never share a table', async (t) => {
  const file = path.join(tempDir(t), 'grants.db');
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
  const dir = tempDir(t);
  const target = path.join(dir, 'target.db');
  const link = path.join(dir, 'grants.db');
  fs.symlinkSync(target, link);
  const old = process.umask(0o022);
  t.after(() => process.umask(old));
  let failure = null;
  try {
    const store = createSqliteGrantStore({ path: link });
    const { snapshot } = prepareToolCall({ agentName: 'a', toolName: 'pay', rawArguments: '{"cents":5}' });
    await createApprovalGrants({ store }).grant(snapshot).finally(() => store.close());
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
  const dir = tempDir(t);
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
