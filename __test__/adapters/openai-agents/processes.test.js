'use strict';
// tool-argument-snapshot/openai-agents across real processes (issue 16 item 6): an agent
// server runs until a call needs approval and stores the RunState; a reviewer process grants
// the sealed proposal it was sent (a forged one is refused); a fresh worker process restores
// the RunState with a fresh gate, finds the proposal the state carries, resumes, and the
// approved call executes exactly once; a replay of the stored state in another process
// executes nothing. Grants live in a durable store shared by the processes
// (__test__/adapters/openai-agents/process.cjs).

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const CHILD = path.join(__dirname, 'process.cjs');

function step(dir, mode) {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const child = spawnSync(process.execPath, [CHILD, dir, mode], { encoding: 'utf8', env, cwd: __dirname });
  assert.equal(child.status, 0, `${mode} failed:\n${child.stderr}`);
  return { report: JSON.parse(child.stdout), stderr: child.stderr };
}

test('approval in another process through a durable store and sealed proposals: executes once, a replay executes nothing', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-oai-processes-'));
  try {
    const first = step(dir, 'run').report;
    assert.deepEqual(first.executed, [{ cents: 50, to: 'bob' }], 'the small transfer ran in the first process');
    assert.equal(first.outputs.call_1, 'sent 50 to bob');
    assert.deepEqual(first.pending, ['call_2']);
    const [sealed] = first.sealed;
    assert.equal(sealed.argsCanonicalJson, '{"cents":250000,"to":"carol"}');
    assert.equal(sealed.scope, 'user:alice');

    const waiting = step(dir, 'wait').report;
    assert.deepEqual(waiting.executed, []);
    assert.deepEqual(waiting.interruptions, ['call_2'], 'resumed undecided in a fresh process: still pending');
    assert.deepEqual(waiting.pending, [sealed], 'with the same sealed proposal');

    const review = step(dir, 'review').report;
    assert.deepEqual(review, { refused: 'bad_signature', scope: 'user:alice', uses: 1, argsCanonicalJson: '{"cents":250000,"to":"carol"}' });

    const resumed = step(dir, 'resume').report;
    assert.deepEqual(resumed.pending, ['{"cents":250000,"to":"carol"}'], 'the fresh gate found the proposal in the restored state');
    assert.deepEqual(resumed.executed, [{ cents: 250000, to: 'carol' }]);
    assert.equal(resumed.outputs.call_2, 'sent 250000 to carol');
    assert.equal(resumed.final, 'done');

    // The stored state again, in another process: the SDK approves it again; the grant is
    // spent. The gate keeps its receipts in the grants' store (no receipts option), so the
    // replay is named by the receipt the first run left: never an approval without a grant.
    const replay = step(dir, 'resume');
    assert.deepEqual(replay.report.executed, []);
    assert.equal(replay.report.outputs.call_2, 'The tool call was not executed (deny: call_already_executed).');
    assert.doesNotMatch(replay.stderr, /TAS_APPROVED_WITHOUT_GRANT/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
