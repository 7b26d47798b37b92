'use strict';
// Issue 35, item 1, at the Claude Agent SDK gate: a built-in tool's call (Write) is decided
// and handed its execution view in one step (authorizeToolCall) when no onDecision observer
// waits between the two, so a call relying on a grant makes one store call before it runs
// (the receipt's claim, which takes the use); without a live grant it asks and claims
// nothing. With onDecision, the decision is looked up first, as before.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createApprovalGrants, createSqliteGrantStore, prepareToolCall, canonicalize } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/claude-agent-sdk');
const { createMemoryStore } = require('../../../lib/stores/memory');

const writeHookInput = (sessionId, toolUseId, input) => ({
  hook_event_name: 'PreToolUse',
  session_id: sessionId,
  tool_use_id: toolUseId,
  tool_name: 'Write',
  tool_input: input,
  cwd: '/',
  transcript_path: '/dev/null',
  permission_mode: 'default',
});

function counted(store) {
  const log = [];
  const wrapper = {};
  for (const name of Object.keys(store)) {
    if (typeof store[name] === 'function') {
      wrapper[name] = (...args) => {
        log.push(name);
        return store[name](...args);
      };
    }
  }
  return { wrapper, log };
}

const STORES = {
  memory: () => createMemoryStore(),
  sqlite: (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-claude-trips-'));
    const store = createSqliteGrantStore({ path: path.join(dir, 'grants.db') });
    t.after(async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    return store;
  },
};

for (const [kind, open] of Object.entries(STORES)) {
  test(`${kind}: a built-in tool's call relying on a grant makes one store call before it runs; without a grant it asks and claims nothing`, async (t) => {
    const { wrapper, log } = counted(open(t));
    const grants = createApprovalGrants({ store: wrapper });
    const observed = [];
    const gateOf = (onDecision) =>
      createToolGate({
        agentName: 'ops',
        grants,
        policy: { Write: () => ({ decision: 'require_approval', reason: 'writes' }) },
        ...(onDecision ? { onDecision } : {}),
      });
    const gate = gateOf(undefined);
    const input = { file_path: '/tmp/x.txt', content: 'hi' };
    log.length = 0;
    const asked = await gate.preToolUse(writeHookInput('s-1', 'toolu_1', input), 'toolu_1');
    assert.equal(asked.hookSpecificOutput.permissionDecision, 'deny');
    assert.match(asked.hookSpecificOutput.permissionDecisionReason, /approval/);
    assert.equal(log[0], 'claimReceiptAndTake', 'the claim looks for the grant');
    assert.equal(log.includes('has'), false, 'no separate lookup');
    assert.equal(await grants.executionReceipts().get({ agentName: 'ops', runId: 's-1', toolCallId: 'toolu_1' }), null, 'nothing claimed');
    await grants.grant(prepareToolCall({ agentName: 'ops', toolName: 'Write', rawArguments: canonicalize(input) }), { uses: 2 });
    log.length = 0;
    const allowed = await gate.preToolUse(writeHookInput('s-1', 'toolu_1', input), 'toolu_1');
    assert.equal(allowed.hookSpecificOutput.permissionDecision, 'allow');
    assert.deepEqual(allowed.hookSpecificOutput.updatedInput, input);
    assert.deepEqual(log, ['claimReceiptAndTake', 'completeReceipt'], 'one store call before it runs, then the completion');
    // With an observer of the decision: the lookup at the decision, then the claim and the take.
    log.length = 0;
    const watched = await gateOf((decision) => observed.push(decision.reason)).preToolUse(writeHookInput('s-1', 'toolu_2', input), 'toolu_2');
    assert.equal(watched.hookSpecificOutput.permissionDecision, 'allow');
    assert.deepEqual(observed, ['approval_granted']);
    assert.deepEqual(log, ['has', 'claimReceiptAndTake', 'completeReceipt']);
  });
}
