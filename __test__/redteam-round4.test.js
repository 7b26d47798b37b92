'use strict';
// Red team round 4: execution receipts in the gates, verified pending listings and the
// CLI's review commands, attacked. Each test reproduces one finding (it failed before
// the fix named beside it).

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {
  createApprovalGrants, createSqliteGrantStore, prepareToolCall, evaluateToolCall, isSnapshotDomainError,
} = require('..');

const BIN = path.join(__dirname, '..', 'bin', 'tool-argument-snapshot.js');

function cli(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

async function proposalOf(rawArguments) {
  const prepared = prepareToolCall({ agentName: 'billing', toolName: 'pay', rawArguments });
  const decision = await evaluateToolCall({ prepared, policy: () => ({ decision: 'require_approval', reason: 'payments' }) });
  return decision.proposal;
}

/** A kept unsealed proposal whose nonce was changed in the store (the arguments untouched). */
async function keptWithTamperedNonce(store) {
  const grants = createApprovalGrants({ store });
  await grants.keepProposal({ runId: 'thread-1', toolCallId: 'call_1' }, await proposalOf('{"cents":987654321}'));
  const storeKey = '8:thread-1call_1';
  const record = JSON.parse(await store.getProposal(storeKey, Date.now()));
  assert.equal(typeof record.nonce, 'string');
  record.nonce = 7;
  await store.putProposal(storeKey, JSON.stringify(record), null);
  return grants;
}

test('a kept record whose nonce was changed is a record that does not verify (SnapshotDomainError), in keptProposal and listProposals', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-rt4-'));
  const store = createSqliteGrantStore({ path: path.join(dir, 'grants.db') });
  try {
    const grants = await keptWithTamperedNonce(store);
    // Before: a TypeError (ERR_INVALID_ARG_TYPE), which every adapter's pending rethrew,
    // so one edited record stopped the whole review listing.
    await assert.rejects(grants.keptProposal({ runId: 'thread-1', toolCallId: 'call_1' }), (error) => isSnapshotDomainError(error) && error.code === 'not_a_snapshot');
    const page = await grants.listProposals();
    assert.equal(page.proposals.length, 1);
    assert.equal(isSnapshotDomainError(page.proposals[0].error), true);
    assert.equal(page.proposals[0].proposal, undefined);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI: a kept record whose nonce was changed is listed by its code and refused by grant --id as input (exit 3), not as a store failure (70)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-rt4-'));
  const file = path.join(dir, 'grants.db');
  const store = createSqliteGrantStore({ path: file });
  try {
    await keptWithTamperedNonce(store);
    const listed = await cli(['pending', '--store', `sqlite:${file}`, '--json']);
    assert.equal(listed.status, 1, listed.stderr);
    const [entry] = JSON.parse(listed.stdout).proposals;
    assert.deepEqual(entry.error, { name: 'SnapshotDomainError', code: 'not_a_snapshot' });
    assert.doesNotMatch(listed.stdout + listed.stderr, /987654321/);
    const granted = await cli(['grant', '--store', `sqlite:${file}`, '--id', entry.id]);
    assert.equal(granted.status, 3, granted.stderr);
    assert.match(granted.stderr, /not_a_snapshot/);
    assert.doesNotMatch(granted.stdout + granted.stderr, /987654321/);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
