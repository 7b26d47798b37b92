'use strict';
// tool-argument-snapshot/openai-agents: what the gate knows belongs to one run (issue 16,
// findings 2 and 5, item 6). Concurrent runs of one gate, partial approvals, a RunState
// restored in a fresh gate, the framework's own approval without a grant, the carrier of
// pending proposals (never sent to the model), parallel and streamed runs. The real SDK
// with its own mock model (ScriptedModel), no network.

const test = require('node:test');
const assert = require('node:assert/strict');

const { Agent, run, RunState, setTracingDisabled, defineToolInputGuardrail, ToolGuardrailFunctionOutputFactory } = require('@openai/agents');
const { ScriptedModel, functionCall, assistantMessage } = require('@openai/agents/testing');
const { z } = require('zod');
const { createApprovalGrants, proposalHash } = require('tool-argument-snapshot');
const { createOpenAIAgentsGate } = require('tool-argument-snapshot/openai-agents');

setTracingDisabled(true);

const AGENT = 'Payments';
const Transfer = z.object({ to: z.string(), cents: z.number().int(), memo: z.string().optional() });
const KEYS = [{ id: 'k1', secret: 'a secret of at least thirty-two bytes, for tests only' }];

/** A model whose steps are the given turns (each a list of [name, raw, callId]), then "done". */
function scripted(...turns) {
  const steps = turns.map((calls) => calls.map(([name, raw, callId]) => functionCall(name, raw, { callId })));
  steps.push([assistantMessage('done')], [assistantMessage('done')], [assistantMessage('done')]);
  return new ScriptedModel(steps);
}

/** Records every request a model receives (what would reach the provider). */
function recording(model) {
  const requests = [];
  return {
    requests,
    model: {
      async getResponse(request) {
        requests.push(JSON.stringify(request));
        return model.getResponse(request);
      },
      async *getStreamedResponse(request) {
        requests.push(JSON.stringify(request));
        yield* model.getStreamedResponse(request);
      },
    },
  };
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

const byCents = (limit) => (input) =>
  input.parsedArguments.cents <= limit ? { decision: 'allow', reason: 'small transfer' } : { decision: 'require_approval', reason: 'large transfer' };

/** A gate, its transfer tool, and a factory of agents (each with its own scripted model). */
function app({ policy, grants, grantScope, tool: extra = {} } = {}) {
  const seen = { policy: [], executed: [], decisions: [] };
  const gate = createOpenAIAgentsGate({
    agentName: AGENT,
    grants,
    grantScope,
    policy:
      policy &&
      ((input) => {
        seen.policy.push({ role: input.runContext.context.role, rawArguments: input.rawArguments, callId: input.callId });
        return policy(input);
      }),
    onDecision: (decision, call) => {
      seen.decisions.push({ role: call.runContext.context.role, decision: decision.decision, reason: decision.reason, callId: call.callId });
    },
  });
  const transfer = gate.tool({
    name: 'transfer',
    description: 'Send money',
    parameters: Transfer,
    execute: (args, runContext) => {
      seen.executed.push({ role: runContext.context.role, ...args });
      return `sent ${args.cents} to ${args.to}`;
    },
    ...extra,
  });
  const agent = (model) => new Agent({ name: AGENT, model: gate.model(model), tools: [transfer] });
  return { gate, transfer, agent, seen };
}

// ---------------------------------------------------------------------------------
// Finding 2: state shared between runs.

test("two concurrent runs, same call id and arguments: the guest's denied call never executes under the admin's allow", async () => {
  let adminDecided;
  const adminDecidedP = new Promise((resolve) => {
    adminDecided = resolve;
  });
  let guestDecided;
  const guestDecidedP = new Promise((resolve) => {
    guestDecided = resolve;
  });
  let guestDone;
  const guestDoneP = new Promise((resolve) => {
    guestDone = resolve;
  });
  // Holds each run between its decision and its execution, so the two interleave: the
  // guest decides, the admin decides, then the guest executes, then the admin.
  const hold = defineToolInputGuardrail({
    name: 'interleave',
    run: async ({ context }) => {
      if (context.context.role === 'guest') {
        await adminDecidedP;
        await new Promise((resolve) => setImmediate(resolve));
      } else {
        await guestDoneP;
      }
      return ToolGuardrailFunctionOutputFactory.allow();
    },
  });
  const { agent, seen } = app({
    policy: (input) => (input.runContext.context.role === 'admin' ? { decision: 'allow', reason: 'admin' } : { decision: 'deny', reason: 'guests cannot pay' }),
    tool: { inputGuardrails: [hold] },
  });
  const raw = '{"to":"mallory","cents":99999}';
  const guest = run(agent(scripted([['transfer', raw, 'call_1']])), 'pay', { context: { role: 'guest' } });
  // The admin's run starts once the guest's call is decided.
  const watch = setInterval(() => {
    if (seen.decisions.some((d) => d.role === 'guest')) guestDecided();
    if (seen.decisions.some((d) => d.role === 'admin')) adminDecided();
  }, 1);
  try {
    await guestDecidedP;
    const admin = run(agent(scripted([['transfer', raw, 'call_1']])), 'pay', { context: { role: 'admin' } });
    const guestResult = await guest;
    guestDone();
    const adminResult = await admin;
    assert.match(toolOutputs(guestResult).call_1, /not executed \(deny: guests cannot pay\)/);
    assert.equal(toolOutputs(adminResult).call_1, 'sent 99999 to mallory');
  } finally {
    clearInterval(watch);
  }
  assert.deepEqual(
    seen.executed.map((e) => e.role),
    ['admin'],
    "only the admin's call executed",
  );
});

test("two concurrent runs, same call id, different arguments: each run's policy and onDecision see only its own", async () => {
  const { agent, seen } = app({ policy: byCents(1_000_000) });
  const texts = { guest: '{"to":"bob","cents":5}', admin: '{"to":"eve","cents":700}' };
  const results = await Promise.all(
    ['guest', 'admin'].map((role) => run(agent(scripted([['transfer', texts[role], 'call_1']])), 'pay', { context: { role } })),
  );
  assert.equal(toolOutputs(results[0]).call_1, 'sent 5 to bob');
  assert.equal(toolOutputs(results[1]).call_1, 'sent 700 to eve');
  for (const role of ['guest', 'admin']) {
    const mine = seen.policy.filter((p) => p.role === role);
    assert.equal(mine.length, 1, `${role}: one policy call`);
    assert.equal(mine[0].rawArguments, texts[role], `${role}'s policy saw ${role}'s arguments`);
  }
  assert.deepEqual(seen.executed.map((e) => `${e.role}:${e.to}`).sort(), ['admin:eve', 'guest:bob']);
});

// ---------------------------------------------------------------------------------
// Finding 5: partial approvals and resumes.

test('approve one of two interruptions and resume: the approved call executes, the other stays pending', async () => {
  const grants = createApprovalGrants();
  const { gate, agent, seen } = app({ policy: byCents(100), grants });
  const a = agent(
    scripted([
      ['transfer', '{"to":"bob","cents":5000}', 'call_1'],
      ['transfer', '{"to":"eve","cents":7000}', 'call_2'],
    ]),
  );
  let result = await run(a, 'pay');
  assert.deepEqual(
    result.interruptions.map((i) => i.rawItem.callId),
    ['call_1', 'call_2'],
  );
  const [first, second] = gate.pending(result.state);
  assert.equal(first.proposal.argsCanonicalJson, '{"cents":5000,"to":"bob"}');
  assert.equal(second.proposal.argsCanonicalJson, '{"cents":7000,"to":"eve"}');
  await gate.approve(result.state, first.interruption, first.proposal);

  result = await run(a, result.state);
  assert.deepEqual(
    seen.executed.map((e) => e.to),
    ['bob'],
  );
  assert.equal(toolOutputs(result).call_1, 'sent 5000 to bob');
  assert.deepEqual(
    result.interruptions.map((i) => i.rawItem.callId),
    ['call_2'],
    'the undecided call is still pending',
  );
  const [still] = gate.pending(result.state);
  assert.equal(still.proposal.proposalHash, second.proposal.proposalHash);
  assert.equal(seen.decisions.filter((d) => d.callId === 'call_2').length, 1, 'the pending call was not decided again');

  await gate.approve(result.state, still.interruption);
  result = await run(a, result.state);
  assert.deepEqual(
    seen.executed.map((e) => e.to),
    ['bob', 'eve'],
  );
  assert.equal(result.finalOutput, 'done');
});

test('a RunState restored in a fresh gate: gate.pending shows the proposal, an undecided call stays pending, an approved one executes once', async () => {
  const grants = createApprovalGrants(); // one store for both gates (a durable one across processes)
  const first = app({ policy: byCents(100), grants });
  const calls = [
    ['transfer', '{"to":"bob","cents":5000}', 'call_1'],
    ['transfer', '{"to":"eve","cents":7000}', 'call_2'],
  ];
  const result = await run(first.agent(scripted(calls)), 'pay', { context: { role: 'alice' } });
  const stored = result.state.toString();
  const hashes = first.gate.pending(result.state).map((p) => p.proposal.proposalHash);

  // A restart: a new gate, new tools, a new agent; the state from storage.
  const fresh = app({ policy: byCents(100), grants });
  const agent = fresh.agent(scripted());
  let state = await RunState.fromString(agent, stored);
  const pending = fresh.gate.pending(state);
  assert.equal(pending.length, 2);
  assert.deepEqual(
    pending.map((p) => p.proposal && p.proposal.proposalHash),
    hashes,
    'the proposals came back with the state',
  );
  assert.equal(pending[0].proposal.argsCanonicalJson, '{"cents":5000,"to":"bob"}');
  assert.equal(pending[0].proposal.proposalHash, proposalHash({ agentName: AGENT, toolName: 'transfer', argsCanonicalJson: '{"cents":5000,"to":"bob"}' }));
  assert.equal(fresh.gate.proposal(state, pending[1].interruption), pending[1].proposal);

  // Resumed with nothing decided: both stay pending, nothing throws, nothing runs.
  let resumed = await run(agent, state);
  assert.deepEqual(
    resumed.interruptions.map((i) => i.rawItem.callId),
    ['call_1', 'call_2'],
  );
  assert.equal(fresh.seen.executed.length, 0);

  // Stored again, restored again, one approved.
  state = await RunState.fromString(agent, resumed.state.toString());
  const [one] = fresh.gate.pending(state);
  await fresh.gate.approve(state, one.interruption);
  resumed = await run(agent, state);
  assert.deepEqual(
    fresh.seen.executed.map((e) => e.to),
    ['bob'],
  );
  assert.deepEqual(
    resumed.interruptions.map((i) => i.rawItem.callId),
    ['call_2'],
  );
  assert.equal(fresh.gate.pending(resumed.state)[0].proposal.proposalHash, hashes[1]);
});

test('sealed proposals: the carried proposal is the seal, granted as it is after a restart', async () => {
  const grants = createApprovalGrants({ keys: KEYS });
  const first = app({ policy: byCents(100), grants, grantScope: (runContext) => `user:${runContext.context.role}` });
  const result = await run(first.agent(scripted([['transfer', '{"to":"bob","cents":5000}', 'call_1']])), 'pay', { context: { role: 'alice' } });
  const [live] = first.gate.pending(result.state);
  assert.equal(live.sealed.scope, 'user:alice');
  assert.equal(typeof live.sealed.signature, 'string');

  const fresh = app({ policy: byCents(100), grants, grantScope: (runContext) => `user:${runContext.context.role}` });
  const agent = fresh.agent(scripted());
  const state = await RunState.fromString(agent, result.state.toString());
  const [restored] = fresh.gate.pending(state);
  assert.deepEqual(restored.sealed, live.sealed, 'the seal came back with the state');
  assert.equal(restored.proposal, restored.sealed);
  await fresh.gate.approve(state, restored.interruption);
  await assert.rejects(grants.grant(restored.sealed), (error) => error.code === 'seal_used');
  const resumed = await run(agent, state);
  assert.equal(toolOutputs(resumed).call_1, 'sent 5000 to bob');
  assert.equal(await grants.has({ ...live.sealed, scope: 'user:alice' }), false, 'the grant was spent');
});

test("a grant is bound to the run's scope: bob's identical call cannot spend alice's approval", async () => {
  const grants = createApprovalGrants();
  const { gate, agent, seen } = app({ policy: byCents(100), grants, grantScope: (runContext) => `user:${runContext.context.role}` });
  const raw = '{"to":"carol","cents":5000}';
  const alice = await run(agent(scripted([['transfer', raw, 'call_1']])), 'pay', { context: { role: 'alice' } });
  const [pendingAlice] = gate.pending(alice.state);
  await grants.grant(pendingAlice.proposal, { scope: 'user:alice' });
  const bob = await run(agent(scripted([['transfer', raw, 'call_9']])), 'pay', { context: { role: 'bob' } });
  assert.equal(bob.interruptions.length, 1, "bob is asked, alice's grant does not apply");
  assert.equal(seen.executed.length, 0);
  alice.state.approve(pendingAlice.interruption);
  const resumed = await run(agent(scripted()), alice.state);
  assert.equal(toolOutputs(resumed).call_1, 'sent 5000 to carol');
});

// ---------------------------------------------------------------------------------
// Issue 16 item 6: approving the framework's own way.

test('state.approve without a grant: approved_without_grant, nothing executes, one warning per gate', async () => {
  const warnings = [];
  const onWarning = (warning) => warnings.push(warning);
  process.on('warning', onWarning);
  try {
    for (let round = 0; round < 2; round++) {
      const { agent, seen } = app({ policy: byCents(100), grants: createApprovalGrants() });
      const a = agent(
        scripted([
          ['transfer', '{"to":"bob","cents":5000}', 'call_1'],
          ['transfer', '{"to":"eve","cents":6000}', 'call_2'],
        ]),
      );
      let result = await run(a, 'pay');
      for (const interruption of result.interruptions) result.state.approve(interruption); // the SDK's own way
      result = await run(a, result.state);
      assert.equal(seen.executed.length, 0);
      assert.equal(toolOutputs(result).call_1, 'The tool call was not executed (deny: approved_without_grant).');
      assert.equal(toolOutputs(result).call_2, 'The tool call was not executed (deny: approved_without_grant).');
    }
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', onWarning);
  }
  const ours = warnings.filter((w) => w.code === 'TAS_APPROVED_WITHOUT_GRANT');
  assert.equal(ours.length, 2, 'one warning for each of the two gates');
  for (const warning of ours) {
    assert.doesNotMatch(warning.message, /5000|6000|bob|eve/, 'no payload in the warning');
    assert.match(warning.message, /openai-agents/);
  }
});

test('NODE_ENV=production: approved_without_grant without a warning', () => {
  const { spawnSync } = require('node:child_process');
  const script = `
    const { Agent, run, setTracingDisabled } = require('@openai/agents');
    const { ScriptedModel, functionCall, assistantMessage } = require('@openai/agents/testing');
    const { z } = require('zod');
    const { createApprovalGrants } = require('tool-argument-snapshot');
    const { createOpenAIAgentsGate } = require('tool-argument-snapshot/openai-agents');
    setTracingDisabled(true);
    let warned = 0;
    process.on('warning', (w) => { if (w.code === 'TAS_APPROVED_WITHOUT_GRANT') warned++; });
    const gate = createOpenAIAgentsGate({ agentName: 'P', grants: createApprovalGrants() });
    const t = gate.tool({ name: 'transfer', description: 'd', parameters: z.object({ cents: z.number() }), execute: () => 'ran' });
    const agent = new Agent({ name: 'P', model: gate.model(new ScriptedModel([[functionCall('transfer', '{"cents":1}', { callId: 'c1' })], [assistantMessage('done')]])), tools: [t] });
    (async () => {
      let r = await run(agent, 'go');
      r.state.approve(r.interruptions[0]);
      r = await run(agent, r.state);
      const out = r.newItems.find((i) => i.type === 'tool_call_output_item').rawItem.output;
      await new Promise((resolve) => setImmediate(resolve));
      console.log(JSON.stringify({ out: typeof out === 'string' ? out : out.text, warned }));
    })();
  `;
  const child = spawnSync(process.execPath, ['-e', script], {
    cwd: __dirname,
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(JSON.parse(child.stdout), { out: 'The tool call was not executed (deny: approved_without_grant).', warned: 0 });
});

// ---------------------------------------------------------------------------------
// The carrier.

test('the carried proposal is in the serialized RunState and never in what the model receives', async () => {
  const grants = createApprovalGrants({ keys: KEYS });
  const { gate, agent } = app({ policy: byCents(100), grants });
  const { model, requests } = recording(scripted([['transfer', '{"to":"bob","cents":5000}', 'call_1']]));
  const a = agent(model);
  let result = await run(a, 'pay', { context: { role: 'alice' } });
  const [{ sealed }] = gate.pending(result.state);
  const stored = result.state.toString();
  // Where it lives: the run context's own context object, under one key.
  const json = JSON.parse(stored);
  assert.deepEqual(json.context.context['tool-argument-snapshot'].pending[AGENT].call_1.proposal, sealed);
  assert.equal(json.context.context.role, 'alice', "the app's context is kept as it was");

  const state = await RunState.fromString(a, stored);
  const [restored] = gate.pending(state);
  await gate.approve(state, restored.interruption);
  result = await run(a, state);
  assert.equal(toolOutputs(result).call_1, 'sent 5000 to bob');
  assert.ok(requests.length >= 2, 'the model was called before and after the approval');
  for (const request of requests) {
    for (const secret of ['tool-argument-snapshot', sealed.signature, sealed.nonce, sealed.proposalHash]) {
      assert.equal(request.includes(secret), false, 'the model never receives the carrier');
    }
  }
  // Once the call ran, the state no longer carries it.
  assert.deepEqual(JSON.parse(result.state.toString()).context.context['tool-argument-snapshot'].pending[AGENT], {});
});

// ---------------------------------------------------------------------------------
// Parallel calls and streaming.

test('parallel calls in one response: allow, deny, invalid input and approval each as decided', async () => {
  const grants = createApprovalGrants();
  const { gate, agent, seen } = app({
    grants,
    policy: (input) => (input.parsedArguments.to === 'mallory' ? { decision: 'deny', reason: 'blocked' } : byCents(100)(input)),
  });
  const a = agent(
    scripted([
      ['transfer', '{"to":"bob","cents":5}', 'call_1'],
      ['transfer', '{"to":"mallory","cents":5}', 'call_2'],
      ['transfer', '{"to":"bob","cents":5,"cents":500000}', 'call_3'],
      ['transfer', '{"to":"carol","cents":500}', 'call_4'],
    ]),
  );
  let result = await run(a, 'pay');
  let outputs = toolOutputs(result);
  assert.equal(outputs.call_1, 'sent 5 to bob');
  assert.match(outputs.call_2, /not executed \(deny: blocked\)/);
  assert.match(outputs.call_3, /stage json.*duplicate_key/);
  assert.deepEqual(
    result.interruptions.map((i) => i.rawItem.callId),
    ['call_4'],
  );
  const [pending] = gate.pending(result.state);
  await gate.approve(result.state, pending.interruption, pending.proposal);
  result = await run(a, result.state);
  outputs = toolOutputs(result);
  assert.equal(outputs.call_4, 'sent 500 to carol');
  assert.deepEqual(
    seen.executed.map((e) => `${e.to}:${e.cents}`),
    ['bob:5', 'carol:500'],
  );
});

test('streamed runs: an approval interrupts the stream and a streamed resume executes it once', async () => {
  const grants = createApprovalGrants();
  const { gate, agent, seen } = app({ policy: byCents(100), grants });
  const a = agent(
    scripted([
      ['transfer', '{"to":"bob","cents":5}', 'call_1'],
      ['transfer', '{"to":"eve","cents":9000}', 'call_2'],
    ]),
  );
  let stream = await run(a, 'pay', { stream: true });
  for await (const _event of stream) {
    /* drain */
  }
  await stream.completed;
  assert.deepEqual(
    seen.executed.map((e) => e.to),
    ['bob'],
  );
  assert.deepEqual(
    stream.interruptions.map((i) => i.rawItem.callId),
    ['call_2'],
  );
  const [pending] = gate.pending(stream.state);
  await gate.approve(stream.state, pending.interruption, pending.proposal);
  stream = await run(a, stream.state, { stream: true });
  for await (const _event of stream) {
    /* drain */
  }
  await stream.completed;
  assert.deepEqual(
    seen.executed.map((e) => e.to),
    ['bob', 'eve'],
  );
  assert.equal(toolOutputs(stream).call_2, 'sent 9000 to eve');
});

// ---------------------------------------------------------------------------------
// Policies per tool.

test('a policy map decides each tool by its own policy; a tool without one is not allowed', async () => {
  const executed = [];
  for (const grants of [undefined, createApprovalGrants()]) {
    const gate = createOpenAIAgentsGate({
      agentName: AGENT,
      grants,
      policy: {
        transfer: (input) => (input.parsedArguments.cents < 10 ? { decision: 'allow', reason: 'small' } : { decision: 'deny', reason: 'large' }),
      },
    });
    const transfer = gate.tool({ name: 'transfer', description: 'd', parameters: Transfer, execute: (a) => (executed.push(a.cents), 'sent') });
    const lookup = gate.tool({ name: 'lookup', description: 'd', parameters: z.object({ q: z.string() }), execute: () => (executed.push('lookup'), 'found') });
    const agent = new Agent({
      name: AGENT,
      model: gate.model(
        scripted([
          ['transfer', '{"to":"a","cents":5}', 'c1'],
          ['transfer', '{"to":"a","cents":50}', 'c2'],
          ['lookup', '{"q":"x"}', 'c3'],
        ]),
      ),
      tools: [transfer, lookup],
    });
    const result = await run(agent, 'go');
    const outputs = toolOutputs(result);
    assert.equal(outputs.c1, 'sent');
    assert.match(outputs.c2, /not executed \(deny: large\)/);
    if (grants === undefined) assert.match(outputs.c3, /not executed \(deny: policy_not_configured\)/);
    else
      assert.deepEqual(
        result.interruptions.map((i) => i.rawItem.callId),
        ['c3'],
        'with grants: approval required',
      );
  }
  assert.deepEqual(executed, [5, 5]);
  assert.throws(() => createOpenAIAgentsGate({ agentName: AGENT, policy: { transfer: 'allow' } }), TypeError);
});

test('a rejected call: the SDK answers it, and its carried proposal is dropped at the next interruption of the run', async () => {
  const { gate, agent, seen } = app({ policy: byCents(100), grants: createApprovalGrants() });
  const a = agent(scripted([['transfer', '{"to":"bob","cents":5000}', 'call_1']], [['transfer', '{"to":"eve","cents":7000}', 'call_2']]));
  let result = await run(a, 'pay');
  result.state.reject(result.interruptions[0]);
  result = await run(a, result.state);
  assert.equal(seen.executed.length, 0);
  assert.equal(toolOutputs(result).call_1, 'Tool execution was not approved.');
  assert.deepEqual(
    gate.pending(result.state).map((p) => p.interruption.rawItem.callId),
    ['call_2'],
  );
  const carried = JSON.parse(result.state.toString()).context.context['tool-argument-snapshot'].pending[AGENT];
  assert.deepEqual(Object.keys(carried), ['call_2']);
});
