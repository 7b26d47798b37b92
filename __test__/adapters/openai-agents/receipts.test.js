'use strict';
// tool-argument-snapshot/openai-agents: once per tool call (issue 25 item 5) and the
// reviewer's side (issue 26 items 1 and 4). A RunState stored once and resumed twice (in two
// Node processes on a shared SQLite file, or twice in one process) runs its approved call
// once; `receipts: false` shows the two runs it prevents. `gate.pending` on a restored state
// lists only proposals that verify, and reports a tampered one by its code without its
// text; the refusal codes name their causes (the receipt's code, proposal_changed,
// approved_without_grant only for the SDK's own approval). The real SDK with its own
// ScriptedModel, no network.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');

const { Agent, run, RunState, setTracingDisabled } = require('@openai/agents');
const { ScriptedModel, functionCall, assistantMessage } = require('@openai/agents/testing');
const { z } = require('zod');
const { createApprovalGrants, createExecutionReceipts, createSqliteGrantStore, proposalHash } = require('tool-argument-snapshot');
const { createOpenAIAgentsGate } = require('tool-argument-snapshot/openai-agents');
const { KINDS, durableStore, openDurable, dropDurable } = require('../../helpers/durable-stores');

setTracingDisabled(true);

const AGENT = 'Payments';
const KEYS = [{ id: 'k1', secret: 'a secret of at least thirty-two bytes, for tests only' }];
const CHILD = path.join(__dirname, 'receipts-process.cjs');
const CARRIED = 'tool-argument-snapshot';

/** A model that makes the given calls in one turn, then answers "done". */
function scripted(calls) {
  const steps = [];
  if (calls.length > 0) steps.push(calls.map(([raw, callId]) => functionCall('transfer', raw, { callId })));
  steps.push([assistantMessage('done')], [assistantMessage('done')]);
  return new ScriptedModel(steps);
}

function toolOutputs(result) {
  const out = {};
  for (const item of result.newItems) {
    if (item.type !== 'tool_call_output_item') continue;
    const output = item.rawItem.output;
    out[item.rawItem.callId] = typeof output === 'string' ? output : output.text;
  }
  return out;
}

const requireApproval = () => ({ decision: 'require_approval', reason: 'every transfer' });

/** An app: one gate (its options given), a transfer tool that counts its runs, an agent. */
function app(gateOptions, calls = []) {
  const executed = [];
  const gate = createOpenAIAgentsGate({ agentName: AGENT, policy: requireApproval, ...gateOptions });
  const transfer = gate.tool({
    name: 'transfer',
    description: 'Send money',
    parameters: z.object({ to: z.string(), cents: z.number().int() }),
    execute: (args) => {
      executed.push(args);
      return `sent ${args.cents} to ${args.to}`;
    },
  });
  const agent = new Agent({ name: AGENT, model: gate.model(scripted(calls)), tools: [transfer] });
  return { gate, agent, executed };
}

/** The process warnings emitted while `fn` runs (and the turn after it). */
async function warningsDuring(fn) {
  const codes = [];
  const listener = (warning) => codes.push(warning.code);
  process.on('warning', listener);
  try {
    await fn();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listener);
  }
  return codes;
}

// ---------------------------------------------------------------------------------
// Two processes, one SQLite file for grants and receipts.

function child(dir, mode, durable) {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const proc = spawn(process.execPath, durable === undefined ? [CHILD, dir, mode] : [CHILD, dir, mode, JSON.stringify(durable)], { env, cwd: __dirname });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  proc.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Two processes resume the stored state together; resolves their reports and the execution log. */
async function twoProcesses(dir, mode) {
  const running = [child(dir, mode), child(dir, mode)];
  const deadline = Date.now() + 60_000;
  while (fs.readdirSync(dir).filter((name) => name.startsWith('ready.')).length < 2 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  fs.writeFileSync(path.join(dir, 'go'), '');
  const results = await Promise.all(running);
  for (const result of results) assert.equal(result.code, 0, `a process failed:\n${result.stderr}`);
  const log = path.join(dir, 'executions.log');
  const executions = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  return { reports: results.map((result) => JSON.parse(result.stdout)), executions };
}

/**
 * Runs the agent until its transfer waits for approval (approved through the gate when
 * `approve`), stores the state. With `durable` (a helpers/durable-stores.js spec), the grants are
 * on that store and the gate has no receipts option.
 */
async function storeState(dir, approve, durable) {
  const store = durable === undefined ? createSqliteGrantStore({ path: path.join(dir, 'shared.sqlite') }) : await openDurable(durable);
  try {
    const grants = createApprovalGrants({ store });
    const { gate, agent, executed } = app(durable === undefined ? { grants, receipts: createExecutionReceipts({ store }) } : { grants }, [
      ['{"to":"carol","cents":250000}', 'call_2'],
    ]);
    const result = await run(agent, 'pay carol');
    assert.deepEqual(
      result.interruptions.map((i) => i.rawItem.callId),
      ['call_2'],
    );
    if (approve) {
      for (const { interruption, proposal } of gate.pending(result.state)) await gate.approve(result.state, interruption, proposal);
    }
    assert.deepEqual(executed, []);
    fs.writeFileSync(path.join(dir, 'state.json'), result.state.toString());
  } finally {
    await store.close();
  }
}

test('a RunState approved in two processes (each approving the stored state through the gate, then resuming it): receipts on one SQLite file run the transfer once', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-oai-receipts-'));
  try {
    await storeState(dir, false);
    const { reports, executions } = await twoProcesses(dir, 'approve-resume');
    assert.equal(executions.length, 1, `one execution across the two processes, got ${executions.length}`);
    const outputs = reports.map((report) => report.outputs.call_2).sort();
    const refused = outputs.filter((output) => output !== 'sent 250000 to carol');
    assert.equal(refused.length, 1, 'the other process ran nothing');
    assert.match(refused[0], /^The tool call was not executed \(deny: (call_already_executed|execution_in_progress)\)\.$/);
    for (const report of reports) assert.equal(report.final, 'done');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a RunState stored after its approval, resumed in two processes: the transfer runs once, the other process is told the call already ran', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-oai-receipts-'));
  try {
    await storeState(dir, true);
    const { reports, executions } = await twoProcesses(dir, 'resume');
    assert.equal(executions.length, 1);
    const outputs = reports.map((report) => report.outputs.call_2);
    assert.equal(outputs.filter((output) => output === 'sent 250000 to carol').length, 1);
    // Either the loser found the grant spent (a replay: the receipt's code), or it was allowed
    // while the other ran and its claim was refused. Never approved_without_grant.
    const other = outputs.find((output) => output !== 'sent 250000 to carol');
    assert.match(other, /^The tool call was not executed \(deny: (call_already_executed|execution_in_progress)\)\.$/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------------------------
// No receipts option, grants on a durable store (issue 33): the gate keeps its receipts in
// the grants' store. The processes run one after the other: the second always finds the
// first one's receipt.

/** One process restoring the stored state (`mode` as for the child), and its report. */
async function oneProcess(dir, mode, durable) {
  fs.writeFileSync(path.join(dir, 'go'), '');
  const result = await child(dir, mode, durable);
  assert.equal(result.code, 0, `the process failed:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

function executionsIn(dir) {
  const log = path.join(dir, 'executions.log');
  return fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
}

for (const kind of KINDS) {
  for (const [approvedFirst, mode, what] of [
    [true, 'resume', 'stored after its approval, then restored and resumed'],
    [false, 'approve-resume', 'restored, approved through the gate and resumed'],
  ]) {
    test(`no receipts option, grants on ${kind}: a RunState ${what} in two processes runs the transfer once; the second is told call_already_executed, never approved_without_grant`, async (t) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-oai-default-receipts-'));
      const durable = durableStore(t, kind, dir);
      try {
        if (durable === null) return;
        await storeState(dir, approvedFirst, durable);
        const first = await oneProcess(dir, mode, durable);
        assert.equal(first.outputs.call_2, 'sent 250000 to carol');
        const second = await oneProcess(dir, mode, durable);
        assert.deepEqual(executionsIn(dir).length, 1, 'one execution across the two processes');
        assert.equal(second.outputs.call_2, 'The tool call was not executed (deny: call_already_executed).');
        assert.deepEqual(
          second.warnings.filter((code) => code === 'TAS_APPROVED_WITHOUT_GRANT'),
          [],
        );
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
        await dropDurable(durable);
      }
    });
  }
}

// ---------------------------------------------------------------------------------
// One process: the stored state restored twice.

/** A stored state waiting for approval of a 250000-cent transfer, and the gate options of the app. */
async function waitingState(options) {
  const first = app(options, [['{"to":"carol","cents":250000}', 'call_2']]);
  const result = await run(first.agent, 'pay carol');
  return { stored: result.state.toString(), first };
}

/** Restores `stored` in `target`'s agent, approves through its gate, resumes. */
async function approveAndResume(target, stored) {
  const state = await RunState.fromString(target.agent, stored);
  for (const { interruption, proposal } of target.gate.pending(state)) await target.gate.approve(state, interruption, proposal);
  return run(target.agent, state);
}

test('one process, the default receipts: the same stored state approved and resumed twice runs once; receipts: false shows the two runs', async () => {
  const grants = createApprovalGrants();
  const { stored } = await waitingState({ grants });
  const resumed = app({ grants });
  const once = await approveAndResume(resumed, stored);
  const twice = await approveAndResume(resumed, stored);
  assert.deepEqual(resumed.executed, [{ cents: 250000, to: 'carol' }], 'the default receipts run the call once');
  assert.equal(toolOutputs(once).call_2, 'sent 250000 to carol');
  assert.equal(toolOutputs(twice).call_2, 'The tool call was not executed (deny: call_already_executed).');

  // Fresh grants: the second approval above granted a use that no run spent (a refused receipt spends none).
  const freshGrants = createApprovalGrants();
  const off = await waitingState({ grants: freshGrants, receipts: false });
  const without = app({ grants: freshGrants, receipts: false });
  await approveAndResume(without, off.stored);
  await approveAndResume(without, off.stored);
  assert.deepEqual(
    without.executed,
    [
      { cents: 250000, to: 'carol' },
      { cents: 250000, to: 'carol' },
    ],
    'without receipts each approval runs it',
  );
});

test("one process, a state stored after its approval and restored twice: one run, then the receipt's code and no TAS_APPROVED_WITHOUT_GRANT", async () => {
  const grants = createApprovalGrants();
  const first = app({ grants }, [['{"to":"carol","cents":250000}', 'call_2']]);
  const result = await run(first.agent, 'pay carol');
  const [{ interruption, proposal }] = first.gate.pending(result.state);
  await first.gate.approve(result.state, interruption, proposal);
  const stored = result.state.toString();
  const resumed = app({ grants });
  const outputs = [];
  const warnings = await warningsDuring(async () => {
    outputs.push(toolOutputs(await run(resumed.agent, await RunState.fromString(resumed.agent, stored))).call_2);
    outputs.push(toolOutputs(await run(resumed.agent, await RunState.fromString(resumed.agent, stored))).call_2);
  });
  assert.deepEqual(resumed.executed, [{ cents: 250000, to: 'carol' }]);
  assert.deepEqual(outputs, ['sent 250000 to carol', 'The tool call was not executed (deny: call_already_executed).']);
  assert.deepEqual(
    warnings.filter((code) => code === 'TAS_APPROVED_WITHOUT_GRANT'),
    [],
  );
});

test('keepResults: the replay gets the stored result back and runs nothing', async () => {
  const grants = createApprovalGrants();
  const receipts = createExecutionReceipts({ keepResults: true });
  const { stored } = await waitingState({ grants, receipts });
  const resumed = app({ grants, receipts });
  const once = await approveAndResume(resumed, stored);
  const twice = await approveAndResume(resumed, stored);
  assert.equal(resumed.executed.length, 1);
  assert.equal(toolOutputs(once).call_2, 'sent 250000 to carol');
  assert.equal(toolOutputs(twice).call_2, 'sent 250000 to carol', 'the kept result, not a second run');
});

test("the receipt key: the function call's callId, and as runId the gate's own id carried in the state, or the app's runId(runContext)", async () => {
  const grants = createApprovalGrants();
  const receipts = createExecutionReceipts();
  const { stored } = await waitingState({ grants, receipts });
  const runId = JSON.parse(stored).context.context[CARRIED].runs[AGENT];
  assert.match(runId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'a random id, carried with the state');
  await approveAndResume(app({ grants, receipts }), stored);
  const receipt = await receipts.get({ agentName: AGENT, runId, toolCallId: 'call_2' });
  assert.equal(receipt.status, 'completed');
  assert.equal(receipt.proposalHash, proposalHash({ agentName: AGENT, toolName: 'transfer', argsCanonicalJson: '{"cents":250000,"to":"carol"}' }));

  // The app's own id: its thread id from the run's context.
  const threadReceipts = createExecutionReceipts();
  const byThread = app(
    { grants, receipts: threadReceipts, runId: (runContext) => runContext.context.threadId, policy: () => ({ decision: 'allow', reason: 'ok' }) },
    [['{"to":"bob","cents":5}', 'call_1']],
  );
  await run(byThread.agent, 'pay bob', { context: { threadId: 'thread-42' } });
  assert.equal(byThread.executed.length, 1);
  assert.equal((await threadReceipts.get({ agentName: AGENT, runId: 'thread-42', toolCallId: 'call_1' })).status, 'completed');
  assert.throws(() => createOpenAIAgentsGate({ agentName: AGENT, runId: 'thread-42' }), { name: 'TypeError' });
  assert.throws(() => createOpenAIAgentsGate({ agentName: AGENT, runId: new Proxy(() => 'thread-42', {}) }), { name: 'TypeError' });
  const blank = app({ runId: () => '', policy: () => ({ decision: 'allow', reason: 'ok' }) }, [['{"to":"bob","cents":5}', 'call_1']]);
  // The SDK wraps what needsApproval throws: the run fails, the gate's TypeError as its error.
  await assert.rejects(run(blank.agent, 'pay bob'), (error) => {
    assert.equal(error.error.name, 'TypeError');
    assert.match(error.error.message, /runId must return a non-empty well-formed string/);
    return true;
  });
  assert.deepEqual(blank.executed, []);
  assert.throws(() => createOpenAIAgentsGate({ agentName: AGENT, receipts: {} }), { name: 'TypeError' });
});

test("two runs of one gate with the same provider call ids are two calls: each runs (the gate's run ids differ)", async () => {
  const allow = () => ({ decision: 'allow', reason: 'ok' });
  const gateApp = app({ policy: allow });
  const sameContext = { userId: 'alice' };
  for (let i = 0; i < 2; i++) {
    gateApp.agent.model = gateApp.gate.model(scripted([['{"to":"bob","cents":5}', 'call_1']]));
    await run(gateApp.agent, 'pay bob', { context: sameContext }); // one context object, two runs
  }
  assert.equal(gateApp.executed.length, 2);
});

// ---------------------------------------------------------------------------------
// What a reviewer is shown after RunState.fromString.

/** Replaces every occurrence of `from` in the stored state's text (anyone who can write the store can). */
function edit(stored, from, to) {
  assert.ok(stored.includes(from));
  return stored.split(from).join(to);
}

/**
 * 250000 cents edited to 900000 everywhere in the stored state: the arguments, the carrier,
 * and the SDK's own invocation fingerprint (its 0.20 encoding), so the SDK's check passes.
 */
function editCents(stored) {
  return edit(edit(stored, '250000', '900000'), 'number:25e4', 'number:9e5');
}

for (const [label, grantsOptions, invalid] of [
  ['without a key ring (the hash recomputed)', {}, { name: 'SnapshotDomainError', code: 'hash_mismatch' }],
  ["with a key ring (the seal's signature)", { keys: KEYS }, { name: 'ApprovalGrantError', code: 'bad_signature' }],
]) {
  test(`pending after RunState.fromString, ${label}: the carried proposal verifies; one edited in the stored string is reported by its code, never shown`, async () => {
    const grants = createApprovalGrants(grantsOptions);
    const { stored } = await waitingState({ grants });
    const reviewer = app({ grants });

    const intact = reviewer.gate.pending(await RunState.fromString(reviewer.agent, stored));
    assert.equal(intact.length, 1);
    assert.equal(intact[0].proposal.argsCanonicalJson, '{"cents":250000,"to":"carol"}');
    assert.equal(intact[0].invalid, undefined);

    const tampered = edit(stored, '250000', '900000');
    const state = await RunState.fromString(reviewer.agent, tampered);
    const [item] = reviewer.gate.pending(state);
    assert.equal(item.interruption.rawItem.callId, 'call_2');
    assert.equal(item.proposal, undefined, 'an unverified proposal is never shown');
    assert.equal(item.sealed, undefined);
    assert.deepEqual({ ...item.invalid }, invalid);
    const { interruption, ...shown } = item;
    assert.equal(JSON.stringify(shown).includes('900000'), false, 'no text of the record');
    assert.equal(reviewer.gate.proposal(state, interruption), undefined);
    await assert.rejects(reviewer.gate.approve(state, interruption), { code: invalid.code });
    assert.equal(reviewer.executed.length, 0);
  });
}

test("the refusal codes: arguments edited after a package approval are proposal_changed; approved_without_grant and its warning only for the SDK's own approval", async () => {
  // Through the package (gate.approve), then the stored arguments edited: proposal_changed, no warning.
  const grants = createApprovalGrants();
  const first = app({ grants }, [['{"to":"carol","cents":250000}', 'call_2']]);
  let result = await run(first.agent, 'pay carol');
  const [{ interruption, proposal }] = first.gate.pending(result.state);
  await first.gate.approve(result.state, interruption, proposal);
  const edited = editCents(result.state.toString());
  const resumed = app({ grants });
  let warnings = await warningsDuring(async () => {
    result = await run(resumed.agent, await RunState.fromString(resumed.agent, edited));
  });
  assert.equal(toolOutputs(result).call_2, 'The tool call was not executed (deny: proposal_changed).');
  assert.deepEqual(resumed.executed, []);
  assert.deepEqual(
    warnings.filter((code) => code === 'TAS_APPROVED_WITHOUT_GRANT'),
    [],
  );

  // Through the package by granting the carried proposal, then state.approve (the documented
  // alternative), then the arguments edited: proposal_changed as well.
  const other = app({ grants }, [['{"to":"dave","cents":250000}', 'call_3']]);
  result = await run(other.agent, 'pay dave');
  const [waiting] = other.gate.pending(result.state);
  await grants.grant(waiting.proposal);
  result.state.approve(waiting.interruption);
  const editedToo = editCents(result.state.toString());
  const resumedToo = app({ grants });
  result = await run(resumedToo.agent, await RunState.fromString(resumedToo.agent, editedToo));
  assert.equal(toolOutputs(result).call_3, 'The tool call was not executed (deny: proposal_changed).');

  // The SDK's own approval, no grant ever: approved_without_grant and the warning.
  const plain = app({ grants }, [['{"to":"erin","cents":250000}', 'call_4']]);
  result = await run(plain.agent, 'pay erin');
  result.state.approve(result.interruptions[0]);
  warnings = await warningsDuring(async () => {
    result = await run(plain.agent, result.state);
  });
  assert.equal(toolOutputs(result).call_4, 'The tool call was not executed (deny: approved_without_grant).');
  assert.deepEqual(
    warnings.filter((code) => code === 'TAS_APPROVED_WITHOUT_GRANT'),
    ['TAS_APPROVED_WITHOUT_GRANT'],
  );
  assert.deepEqual(plain.executed, []);
});

test('explicit receipts and a call without an id: call_id_required, nothing runs', async () => {
  const receipts = createExecutionReceipts();
  // The SDK always gives a function call an id; the gated tool's execute is called as the SDK would without one.
  const target = app({ receipts, policy: () => ({ decision: 'allow', reason: 'ok' }) });
  const tool = target.agent.tools[0];
  const { RunContext } = require('@openai/agents');
  const output = await tool.invoke(new RunContext({}), '{"to":"bob","cents":5}', {
    toolCall: { type: 'function_call', name: 'transfer', arguments: '{"to":"bob","cents":5}', callId: '' },
  });
  assert.equal(output, 'The tool call was not executed (deny: call_id_required).');
  assert.deepEqual(target.executed, []);
});
