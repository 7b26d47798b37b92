'use strict';
// tool-argument-snapshot/openai-agents against the real OpenAI Agents SDK 0.20, with its own
// mock model (ScriptedModel, functionCall from @openai/agents/testing) and no network. Each
// scenario an app relies on, and beside it what the SDK alone does with the same calls.

const test = require('node:test');
const assert = require('node:assert/strict');

const { Agent, run, tool, RunState, setTracingDisabled } = require('@openai/agents');
const { ScriptedModel, functionCall, assistantMessage } = require('@openai/agents/testing');
const { z } = require('zod'); // zod 4: the SDK's peer dependency
const z3 = require('zod3'); // zod 3, for the package's schema step
const { createApprovalGrants, proposalHash } = require('tool-argument-snapshot');
const { createOpenAIAgentsGate } = require('tool-argument-snapshot/openai-agents');

setTracingDisabled(true);

const AGENT = 'Payments';

/** A transfer schema whose refinement counts every run of the schema's own code. */
function transferSchema(zod) {
  const counter = { runs: 0 };
  // The refinement sits on a field: the SDK converts only object schemas of zod 3.
  const cents = zod
    .number()
    .int()
    .refine(() => {
      counter.runs++;
      return true;
    });
  const schema = zod.object({ to: zod.string(), cents, memo: zod.string().optional() });
  return { schema, counter };
}

/** A model that makes the given function calls (one turn each), then answers "done". */
function scripted(...calls) {
  const steps = calls.map(([name, raw, callId]) => [functionCall(name, raw, { callId })]);
  steps.push([assistantMessage('done')], [assistantMessage('done')]);
  return new ScriptedModel(steps);
}

/** The text the SDK sent back to the model for each call id. */
function toolOutputs(result) {
  const out = {};
  for (const item of result.newItems) {
    if (item.type !== 'tool_call_output_item') continue;
    const output = item.rawItem.output;
    out[item.rawItem.callId] = typeof output === 'string' ? output : output.text;
  }
  return out;
}

/**
 * An app on the SDK with the gate: records what policy saw, what the handler received and
 * every decision.
 */
function gatedApp({ policy, grants, zod = z, calls }) {
  const { schema, counter } = transferSchema(zod);
  const seen = { policy: [], executed: [], decisions: [] };
  const gate = createOpenAIAgentsGate({
    agentName: AGENT,
    grants,
    policy:
      policy &&
      ((input) => {
        seen.policy.push(input);
        return policy(input);
      }),
    onDecision: (decision) => {
      seen.decisions.push(decision);
    },
  });
  const transfer = gate.tool({
    name: 'transfer',
    description: 'Send money',
    parameters: schema,
    execute: (args) => {
      seen.executed.push(args);
      return `sent ${args.cents}`;
    },
  });
  const model = scripted(...calls);
  const agent = new Agent({ name: AGENT, model: gate.model(model), tools: [transfer] });
  return { gate, agent, seen, counter, model };
}

/** The same app on the SDK alone: its own tool(), its own zod parse. */
function plainApp({ needsApproval = false, calls }) {
  const executed = [];
  const transfer = tool({
    name: 'transfer',
    description: 'Send money',
    parameters: z.object({ to: z.string(), cents: z.number().int(), memo: z.string().optional() }),
    needsApproval,
    execute: (args) => {
      executed.push(args);
      return `sent ${args.cents}`;
    },
  });
  const agent = new Agent({ name: AGENT, model: scripted(...calls), tools: [transfer] });
  return { agent, executed };
}

const allowSmall = (input) =>
  input.parsedArguments.cents <= 100 ? { decision: 'allow', reason: 'small transfer' } : { decision: 'require_approval', reason: 'large transfer' };

/**
 * Edits a stored RunState the way anyone who can write the store can: the arguments and the
 * SDK's own invocation fingerprint (its 0.20 encoding), so the SDK's check still passes.
 */
function editStoredState(text, fromCents, toCents) {
  const edit = (value) => {
    if (typeof value === 'string') {
      return value.split(`"cents":${fromCents}`).join(`"cents":${toCents}`).split(`number:${fromCents}e0`).join(`number:${toCents}e0`);
    }
    if (Array.isArray(value)) return value.map(edit);
    if (value !== null && typeof value === 'object') {
      const out = {};
      for (const key of Object.keys(value)) out[key] = edit(value[key]);
      return out;
    }
    return value;
  };
  return JSON.stringify(edit(JSON.parse(text)));
}

test('an allowed call: the handler gets its own object with the same JSON, not the policy view', async () => {
  const { agent, seen, counter } = gatedApp({ policy: allowSmall, calls: [['transfer', '{"to":"bob","cents":5}', 'c1']] });
  const result = await run(agent, 'pay bob');
  assert.equal(result.finalOutput, 'done');
  assert.equal(seen.executed.length, 1);
  assert.equal(seen.policy.length, 1);
  const [args] = seen.executed;
  const view = seen.policy[0].parsedArguments;
  assert.notEqual(args, view, 'handler and policy must not share an object');
  assert.equal(JSON.stringify(args), JSON.stringify(view));
  assert.deepEqual(args, { cents: 5, to: 'bob' });
  assert.equal(seen.policy[0].rawArguments, '{"to":"bob","cents":5}');
  assert.equal(seen.policy[0].callId, 'c1');
  assert.equal(typeof seen.policy[0].runContext.isToolApproved, 'function', 'policy input carries the SDK run context');
  assert.equal(toolOutputs(result).c1, 'sent 5');
  assert.equal(counter.runs, 1);
  assert.equal(seen.decisions.length, 1);
  assert.equal(seen.decisions[0].decision, 'allow');
  assert.equal(seen.decisions[0].proposalHash, proposalHash({ agentName: AGENT, toolName: 'transfer', argsCanonicalJson: '{"cents":5,"to":"bob"}' }));
});

test('a policy deny: nothing executes and the model is told the call was not executed', async () => {
  const { agent, seen, counter } = gatedApp({
    policy: () => ({ decision: 'deny', reason: 'recipient blocked' }),
    calls: [['transfer', '{"to":"mallory","cents":5}', 'c1']],
  });
  const result = await run(agent, 'pay mallory');
  assert.equal(seen.executed.length, 0);
  assert.match(toolOutputs(result).c1, /not executed \(deny: recipient blocked\)/);
  assert.equal(seen.decisions[0].decidedBy, 'policy');
  assert.equal(result.interruptions.length, 0);
  assert.equal(counter.runs, 1);
});

test('a policy that mutates its view is denied by the runtime and nothing executes', async () => {
  const { agent, seen } = gatedApp({
    policy: (input) => {
      input.parsedArguments.cents = 99999999;
      return { decision: 'allow', reason: 'looks fine' };
    },
    calls: [['transfer', '{"to":"bob","cents":5}', 'c1']],
  });
  const result = await run(agent, 'pay bob');
  assert.equal(seen.executed.length, 0);
  assert.equal(seen.decisions[0].decision, 'deny');
  assert.equal(seen.decisions[0].decidedBy, 'runtime');
  assert.equal(seen.decisions[0].reason, 'policy_mutated_arguments');
  assert.match(toolOutputs(result).c1, /not executed \(deny: policy_mutated_arguments\)/);
});

test('a duplicate-key call: the SDK alone executes the last value; the gate rejects it at stage json', async () => {
  const raw = '{"to":"bob","cents":5,"cents":99999999}';
  const plain = plainApp({ calls: [['transfer', raw, 'c1']] });
  await run(plain.agent, 'pay bob');
  assert.deepEqual(plain.executed, [{ to: 'bob', cents: 99999999 }], 'the SDK alone keeps the last duplicate');

  const { agent, seen, counter } = gatedApp({ policy: allowSmall, calls: [['transfer', raw, 'c1']] });
  const result = await run(agent, 'pay bob');
  assert.equal(seen.executed.length, 0);
  assert.equal(seen.policy.length, 0, 'no policy runs for invalid input');
  assert.equal(seen.decisions.length, 0, 'invalid input is not a decision');
  assert.equal(counter.runs, 0, 'the schema never ran');
  const output = toolOutputs(result).c1;
  assert.match(output, /stage json/);
  assert.match(output, /duplicate_key/);
  assert.doesNotMatch(output, /not executed/, 'invalid input must not look like a denial');
  assert.doesNotMatch(output, /99999999/, 'no payload in the error');
});

test('schema and snapshot failures reach the invalid-input answer, not a denial', async () => {
  // A schema error (cents is not an integer), then a transform that returns a Date.
  const dated = z.object({ to: z.string(), cents: z.number(), when: z.string().transform((s) => new Date(s)) });
  const executed = [];
  let policyCalls = 0;
  const gate = createOpenAIAgentsGate({ agentName: AGENT, policy: () => (policyCalls++, { decision: 'allow', reason: 'ok' }) });
  const { schema } = transferSchema(z);
  const agent = new Agent({
    name: AGENT,
    model: gate.model(scripted(['transfer', '{"to":"bob","cents":1.5}', 'c1'], ['later', '{"to":"bob","cents":5,"when":"2026-12-01"}', 'c2'])),
    tools: [
      gate.tool({ name: 'transfer', description: 'Send', parameters: schema, execute: (a) => executed.push(a) }),
      gate.tool({ name: 'later', description: 'Send later', parameters: dated, execute: (a) => executed.push(a) }),
    ],
  });
  const result = await run(agent, 'pay');
  const outputs = toolOutputs(result);
  assert.match(outputs.c1, /stage schema/);
  assert.match(outputs.c1, /schema_error/);
  assert.match(outputs.c2, /stage snapshot/);
  assert.match(outputs.c2, /non_plain_object/);
  assert.equal(executed.length, 0);
  assert.equal(policyCalls, 0);
});

test('a call that needs approval, granted by hash and resumed, executes once', async () => {
  const grants = createApprovalGrants();
  const { gate, agent, seen, counter } = gatedApp({ policy: allowSmall, grants, calls: [['transfer', '{"to":"bob","cents":50000}', 'c1']] });
  let result = await run(agent, 'pay bob');
  assert.equal(seen.executed.length, 0);
  assert.equal(result.interruptions.length, 1);
  const [{ interruption, proposal }] = gate.pending(result.state);
  assert.equal(interruption.rawItem.callId, 'c1');
  // The interruption carries the SuspendedToolProposal the policy evaluated.
  assert.equal(proposal.kind, 'tool');
  assert.equal(proposal.agentName, AGENT);
  assert.equal(proposal.toolName, 'transfer');
  assert.equal(proposal.rawArguments, interruption.rawItem.arguments);
  assert.equal(proposal.argsCanonicalJson, '{"cents":50000,"to":"bob"}');
  assert.equal(proposal.proposalHash, seen.decisions[0].proposalHash);
  assert.equal(proposal.reason, 'large transfer');
  assert.equal(gate.proposal(result.state, interruption), proposal);
  assert.equal(counter.runs, 1);

  await gate.approve(result.state, interruption, proposal);
  assert.equal(await grants.has(proposal), true);
  result = await run(agent, result.state);
  assert.deepEqual(seen.executed, [{ cents: 50000, to: 'bob' }]);
  assert.equal(toolOutputs(result).c1, 'sent 50000');
  assert.equal(result.finalOutput, 'done');
  assert.equal(counter.runs, 2, 'one schema run for each of the two attempts');
  assert.equal(seen.decisions.at(-1).decision, 'allow');
  assert.equal(seen.decisions.at(-1).reason, 'approval_granted');
  assert.equal(await grants.has(proposal), false, 'the grant is spent by the execution');
});

test('the same approval replayed: the SDK alone executes it again; the gate executes nothing', async () => {
  const plain = plainApp({ needsApproval: true, calls: [['transfer', '{"to":"bob","cents":5}', 'c1']] });
  const first = await run(plain.agent, 'pay bob');
  first.state.approve(first.interruptions[0]);
  const storedPlain = first.state.toString();
  await run(plain.agent, await RunState.fromString(plain.agent, storedPlain));
  await run(plain.agent, await RunState.fromString(plain.agent, storedPlain));
  assert.equal(plain.executed.length, 2, 'the SDK alone runs a replayed approval again');

  const grants = createApprovalGrants();
  const { gate, agent, seen } = gatedApp({ policy: allowSmall, grants, calls: [['transfer', '{"to":"bob","cents":50000}', 'c1']] });
  let result = await run(agent, 'pay bob');
  const [{ interruption, proposal }] = gate.pending(result.state);
  await gate.approve(result.state, interruption, proposal);
  const stored = result.state.toString();
  result = await run(agent, await RunState.fromString(agent, stored));
  assert.equal(seen.executed.length, 1);
  // The stored, approved state again: the SDK approves it again; the grant is gone.
  result = await run(agent, await RunState.fromString(agent, stored));
  assert.equal(seen.executed.length, 1, 'a replayed approval must not execute twice');
  // The SDK's approval is replayed, its grant is spent: the call already ran (its receipt's code).
  assert.match(toolOutputs(result).c1, /not executed \(deny: call_already_executed\)/);
});

test('stored arguments edited after approval: the SDK alone executes them; the gate executes nothing', async () => {
  // The SDK alone, with its per-call approval.
  const plain = plainApp({ needsApproval: true, calls: [['transfer', '{"to":"bob","cents":5}', 'c1']] });
  let result = await run(plain.agent, 'pay bob');
  result.state.approve(result.interruptions[0]);
  const tamperedPlain = editStoredState(result.state.toString(), 5, 99999999);
  await run(plain.agent, await RunState.fromString(plain.agent, tamperedPlain));
  assert.deepEqual(plain.executed, [{ to: 'bob', cents: 99999999 }], 'the SDK alone runs the edited value');

  const grants = createApprovalGrants();
  const { gate, agent, seen } = gatedApp({
    policy: () => ({ decision: 'require_approval', reason: 'every transfer' }),
    grants,
    calls: [['transfer', '{"to":"bob","cents":5}', 'c1']],
  });
  result = await run(agent, 'pay bob');
  const [{ interruption, proposal }] = gate.pending(result.state);
  await gate.approve(result.state, interruption, proposal);
  const tampered = editStoredState(result.state.toString(), 5, 99999999);
  result = await run(agent, await RunState.fromString(agent, tampered));
  assert.equal(seen.executed.length, 0);
  // Approved through the package for other arguments: the proposal changed.
  assert.match(toolOutputs(result).c1, /not executed \(deny: proposal_changed\)/);
  assert.equal(seen.decisions.at(-1).reason, 'every transfer', 'the new attempt was decided by the policy');
  assert.equal(seen.policy.at(-1).parsedArguments.cents, 99999999, 'the new attempt saw the edited value');
  assert.equal(await grants.has(proposal), true, 'the grant for 5 cents is still unspent');
});

test('the same action respelled by the model matches the grant; another value does not', async () => {
  // The SDK alone binds an approval to the call id: the same action in a new call asks again.
  const plain = plainApp({
    needsApproval: true,
    calls: [
      ['transfer', '{"to":"bob","cents":50000}', 'c1'],
      ['transfer', '{"cents":50000,"to":"bob"}', 'c2'],
    ],
  });
  const first = await run(plain.agent, 'pay bob');
  first.state.approve(first.interruptions[0]);
  const resumed = await run(plain.agent, first.state);
  assert.equal(plain.executed.length, 1);
  assert.equal(resumed.interruptions.length, 1, 'the SDK alone asks again for the same action');

  const grants = createApprovalGrants();
  const { gate, agent, seen } = gatedApp({
    policy: allowSmall,
    grants,
    calls: [
      ['transfer', '{"to":"bob","cents":50000}', 'c1'],
      ['transfer', '{"cents":50001,"to":"bob"}', 'c2'],
      ['transfer', '{ "cents" : 5.0E4 , "to" : "\\u0062ob", "memo": null }', 'c3'],
    ],
  });
  let result = await run(agent, 'pay bob');
  const [{ interruption, proposal }] = gate.pending(result.state);
  await gate.approve(result.state, interruption, proposal);
  // New runs (the approved state is left alone), where the model asks for another amount,
  // then spells the approved transfer differently.
  result = await run(agent, 'pay bob again');
  assert.equal(seen.executed.length, 0);
  assert.equal(result.interruptions.length, 1, '50001 was not approved');
  assert.equal(gate.pending(result.state)[0].proposal.argsCanonicalJson, '{"cents":50001,"to":"bob"}');

  result = await run(agent, 'pay bob once more');
  assert.equal(result.interruptions.length, 0);
  assert.deepEqual(seen.executed, [{ cents: 50000, to: 'bob' }]);
  assert.equal(seen.decisions.at(-1).proposalHash, proposal.proposalHash);
  assert.equal(toolOutputs(result).c3, 'sent 50000');
});

test('the SDK alone: a change to the approval copy is ignored, and a Date from a transform fails the whole run', async () => {
  const executed = [];
  const mutating = tool({
    name: 'transfer',
    description: 'Send',
    parameters: z.object({ to: z.string(), cents: z.number() }),
    needsApproval: async (_ctx, args) => {
      args.cents = 1;
      return false;
    },
    execute: (args) => executed.push(args),
  });
  await run(new Agent({ name: AGENT, model: scripted(['transfer', '{"to":"bob","cents":500}', 'c1']), tools: [mutating] }), 'pay');
  assert.deepEqual(executed, [{ to: 'bob', cents: 500 }], 'the approval function changed its copy and the call ran as sent');

  const dated = tool({
    name: 'later',
    description: 'Send later',
    // zod 3: the SDK cannot convert a zod 4 transform to JSON Schema at all.
    parameters: z3.object({ when: z3.string().transform((text) => new Date(text)) }),
    needsApproval: async () => false,
    execute: (args) => executed.push(args),
  });
  await assert.rejects(
    run(new Agent({ name: AGENT, model: scripted(['later', '{"when":"2026-12-01"}', 'c1']), tools: [dated] }), 'pay'),
    (error) => error.name === 'ToolCallError',
  );
  assert.equal(executed.length, 1);
});

test('alwaysApprove is tool-wide in the SDK; a grant approves one hash', async () => {
  const plain = plainApp({
    needsApproval: true,
    calls: [
      ['transfer', '{"to":"bob","cents":5}', 'c1'],
      ['transfer', '{"to":"bob","cents":99999999}', 'c2'],
    ],
  });
  let result = await run(plain.agent, 'pay');
  result.state.approve(result.interruptions[0], { alwaysApprove: true });
  result = await run(plain.agent, result.state);
  assert.deepEqual(
    plain.executed.map((a) => a.cents),
    [5, 99999999],
    'one approval of 5 cents let 99,999,999 through',
  );

  const grants = createApprovalGrants();
  const { gate, agent, seen } = gatedApp({
    policy: () => ({ decision: 'require_approval', reason: 'every transfer' }),
    grants,
    calls: [
      ['transfer', '{"to":"bob","cents":5}', 'c1'],
      ['transfer', '{"to":"bob","cents":99999999}', 'c2'],
    ],
  });
  result = await run(agent, 'pay');
  const [{ interruption, proposal }] = gate.pending(result.state);
  await gate.approve(result.state, interruption, proposal);
  result = await run(agent, result.state);
  assert.deepEqual(
    seen.executed.map((a) => a.cents),
    [5],
  );
  assert.equal(result.interruptions.length, 1, 'the large transfer asks again');
  assert.equal(gate.pending(result.state)[0].proposal.argsCanonicalJson, '{"cents":99999999,"to":"bob"}');
});

test('strict mode: a null for an optional field is removed before the schema; the evidence keeps it', async () => {
  const optionalShapes = z.object({
    to: z.string(),
    cents: z.number(),
    memo: z.string().optional(),
    tag: z.string().nullable(),
    priority: z.number().default(1),
    lines: z.array(z.object({ sku: z.string(), note: z.string().optional() })),
  });
  const sdkSaw = [];
  const plainTool = tool({ name: 'order', description: 'Order', parameters: optionalShapes, execute: (a) => sdkSaw.push(a) });
  // The model is shown every optional field as required and nullable.
  assert.deepEqual(plainTool.parameters.required, ['to', 'cents', 'memo', 'tag', 'priority', 'lines']);

  const raw = '{"to":"bob","cents":5,"memo":null,"tag":null,"priority":null,"lines":[{"sku":"a","note":null}]}';
  const plainResult = await run(new Agent({ name: AGENT, model: scripted(['order', raw, 'c1']), tools: [plainTool] }), 'order');

  const seen = [];
  const executed = [];
  const gate = createOpenAIAgentsGate({ agentName: AGENT, policy: (input) => (seen.push(input), { decision: 'allow', reason: 'ok' }) });
  const gated = gate.tool({ name: 'order', description: 'Order', parameters: optionalShapes, execute: (a) => executed.push(a) });
  assert.deepEqual(gated.parameters, plainTool.parameters, 'the model sees the same JSON schema as without the gate');
  await run(new Agent({ name: AGENT, model: gate.model(scripted(['order', raw, 'c1'])), tools: [gated] }), 'order');

  const expected = { cents: 5, lines: [{ sku: 'a' }], priority: 1, tag: null, to: 'bob' };
  assert.deepEqual(executed, [expected]);
  assert.equal(seen[0].rawArguments, raw);
  assert.equal(seen[0].requestedArguments.memo, null, 'requestedArguments keeps what the model sent');
  assert.equal(seen[0].argsCanonicalJson, '{"cents":5,"lines":[{"sku":"a"}],"priority":1,"tag":null,"to":"bob"}');
  // The SDK alone strips nulls of optional fields but keeps the null of a defaulted one, so
  // its zod rejected this call (and what it validated was never the raw string).
  assert.equal(sdkSaw.length, 0);
  assert.equal(toolOutputs(plainResult).c1, 'An error occurred while running the tool. Please try again.');
});

test('zod 3 as the schema: the same gate, strict nulls removed, the schema run once per attempt', async () => {
  const grants = createApprovalGrants();
  const { gate, agent, seen, counter } = gatedApp({
    zod: z3,
    policy: allowSmall,
    grants,
    calls: [
      ['transfer', '{"to":"bob","cents":5,"memo":null}', 'c1'],
      ['transfer', '{"to":"bob","cents":700,"memo":"rent"}', 'c2'],
    ],
  });
  let result = await run(agent, 'pay');
  assert.deepEqual(seen.executed, [{ cents: 5, to: 'bob' }]);
  assert.equal(counter.runs, 2);
  const [{ interruption, proposal }] = gate.pending(result.state);
  assert.equal(proposal.argsCanonicalJson, '{"cents":700,"memo":"rent","to":"bob"}');
  await gate.approve(result.state, interruption, proposal);
  result = await run(agent, result.state);
  assert.deepEqual(seen.executed, [
    { cents: 5, to: 'bob' },
    { cents: 700, memo: 'rent', to: 'bob' },
  ]);
  assert.equal(counter.runs, 3);
});

test('the schema runs exactly once per attempt and the SDK never runs it', async () => {
  const grants = createApprovalGrants();
  const { gate, agent, counter, seen } = gatedApp({
    policy: allowSmall,
    grants,
    calls: [
      ['transfer', '{"to":"bob","cents":1}', 'c1'], // allow: one attempt
      ['transfer', '{"to":"bob","cents":2,"to":"eve"}', 'c2'], // json failure: the schema never runs
      ['transfer', '{"to":"bob","cents":3000}', 'c3'], // approval: one attempt, then one on resume
    ],
  });
  let result = await run(agent, 'pay');
  assert.equal(counter.runs, 2);
  const [{ interruption, proposal }] = gate.pending(result.state);
  await gate.approve(result.state, interruption, proposal);
  result = await run(agent, result.state);
  assert.equal(counter.runs, 3);
  assert.equal(seen.executed.length, 2);
  assert.equal(seen.decisions.length, 3, 'three attempts were decided');
  // The app policy decides first on the resume too (issue 33): it asks for approval again,
  // and only then does the grant allow.
  assert.equal(seen.policy.length, 3, 'the app policy was asked at each attempt, the resume included');
});

test('an async refinement runs exactly once per attempt (zod 3 and zod 4)', async () => {
  for (const zod of [z, z3]) {
    let runs = 0;
    const cents = zod.number().refine(async (value) => {
      runs++;
      return value > 0;
    });
    const schema = zod.object({ to: zod.string(), cents });
    const executed = [];
    const gate = createOpenAIAgentsGate({ agentName: AGENT, policy: allowSmall });
    const agent = new Agent({
      name: AGENT,
      model: gate.model(scripted(['transfer', '{"to":"bob","cents":5}', 'c1'], ['transfer', '{"to":"bob","cents":-5}', 'c2'])),
      tools: [
        gate.tool({
          name: 'transfer',
          description: 'Send',
          parameters: schema,
          jsonSchema: {
            type: 'object',
            properties: { to: { type: 'string' }, cents: { type: 'number' } },
            required: ['to', 'cents'],
            additionalProperties: false,
          },
          execute: (a) => (executed.push(a), 'sent'),
        }),
      ],
    });
    const outputs = toolOutputs(await run(agent, 'pay'));
    assert.deepEqual(executed, [{ cents: 5, to: 'bob' }]);
    assert.equal(outputs.c1, 'sent');
    assert.match(outputs.c2, /stage schema/);
    assert.equal(runs, 2, 'one run of the refinement for each of the two attempts');
  }
});

test('arguments the SDK cannot parse at all: its forced approval has no proposal and executes nothing', async () => {
  const grants = createApprovalGrants();
  const { gate, agent, seen } = gatedApp({ policy: allowSmall, grants, calls: [['transfer', '{"to":"bob","cents":', 'c1']] });
  let result = await run(agent, 'pay');
  // The SDK asks for approval of any unparseable call of a tool with an approval function.
  assert.equal(result.interruptions.length, 1);
  const [{ interruption, proposal }] = gate.pending(result.state);
  assert.equal(proposal, undefined);
  await gate.approve(result.state, interruption);
  result = await run(agent, result.state);
  assert.equal(seen.executed.length, 0);
  assert.match(toolOutputs(result).c1, /parsing tool arguments/);
});

test('streamed runs are gated the same way', async () => {
  const { agent, seen } = gatedApp({
    policy: allowSmall,
    calls: [
      ['transfer', '{"to":"bob","cents":5}', 'c1'],
      ['transfer', '{"to":"bob","cents":5,"cents":6}', 'c2'],
    ],
  });
  const stream = await run(agent, 'pay', { stream: true });
  for await (const _event of stream) {
    /* drain */
  }
  await stream.completed;
  assert.deepEqual(seen.executed, [{ cents: 5, to: 'bob' }]);
  assert.match(toolOutputs(stream).c2, /duplicate_key/);
});

test('without gate.model the run fails loudly instead of deciding on the SDK copy', async () => {
  const gate = createOpenAIAgentsGate({ agentName: AGENT, policy: allowSmall });
  const executed = [];
  const agent = new Agent({
    name: AGENT,
    model: scripted(['transfer', '{"to":"bob","cents":5}', 'c1']),
    tools: [gate.tool({ name: 'transfer', description: 'Send', parameters: transferSchema(z).schema, execute: (a) => executed.push(a) })],
  });
  await assert.rejects(run(agent, 'pay'), /gate\.model/);
  assert.equal(executed.length, 0);
});

test("the answers for a call not executed and for invalid input are the app's to choose", async () => {
  const gate = createOpenAIAgentsGate({
    agentName: AGENT,
    policy: () => ({ decision: 'deny', reason: 'blocked' }),
    notExecutedOutput: (decision) => `NO ${decision.decidedBy} ${decision.reason}`,
    invalidInputOutput: (error) => `BAD ${error.stage} ${error.code}`,
  });
  const executed = [];
  const agent = new Agent({
    name: AGENT,
    model: gate.model(scripted(['transfer', '{"to":"bob","cents":5}', 'c1'], ['transfer', '{"to":"bob","cents":-0}', 'c2'])),
    tools: [gate.tool({ name: 'transfer', description: 'Send', parameters: transferSchema(z).schema, execute: (a) => executed.push(a) })],
  });
  const outputs = toolOutputs(await run(agent, 'pay'));
  assert.equal(outputs.c1, 'NO policy blocked');
  assert.equal(outputs.c2, 'BAD snapshot negative_zero', '-0 decodes, and the snapshot refuses it');
  assert.equal(executed.length, 0);
});

test('the gate refuses needsApproval on a tool and checks its options', () => {
  const gate = createOpenAIAgentsGate({ agentName: AGENT, policy: allowSmall });
  assert.throws(() => gate.tool({ name: 't', description: 'd', parameters: z.object({}), needsApproval: true, execute: () => 1 }), /needsApproval/);
  assert.throws(() => gate.tool({ description: 'd', parameters: z.object({}), execute: () => 1 }), /name/);
  assert.throws(() => createOpenAIAgentsGate({ policy: allowSmall }), TypeError);
  assert.throws(() => gate.model({}), TypeError);
});

test('examples/openai-agents-agent.js runs as written', () => {
  const { spawnSync } = require('node:child_process');
  const { join } = require('node:path');
  const result = spawnSync(process.execPath, [join(__dirname, '..', '..', '..', 'examples', 'openai-agents-agent.js')], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(
    result.stdout,
    'call_1: sent 500 cents to bob\ncall_2: sent 250000 cents to carol\n' + 'reviewed: {"cents":250000,"memo":"rent","to":"carol"}\nBoth transfers are done.\n',
  );
});

test('installing the package pulls no framework: @openai/agents is an optional peer', () => {
  const { spawnSync } = require('node:child_process');
  const { join } = require('node:path');
  const fs = require('node:fs');
  const os = require('node:os');
  const manifest = require('../../../package.json');
  assert.equal(manifest.peerDependencies['@openai/agents'], '^0.20.0');
  assert.deepEqual(manifest.peerDependenciesMeta['@openai/agents'], { optional: true });
  assert.ok(manifest.files.includes('adapters/'));
  assert.deepEqual(manifest.exports['./openai-agents'], { types: './adapters/openai-agents/index.d.ts', default: './adapters/openai-agents/entry.js' });

  const dir = fs.mkdtempSync(join(os.tmpdir(), 'tas-openai-agents-'));
  try {
    const npm = (args, cwd) => spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, encoding: 'utf8' });
    const packed = npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], join(__dirname, '..', '..', '..'));
    assert.equal(packed.status, 0, packed.stderr);
    const tarball = join(dir, JSON.parse(packed.stdout)[0].filename);
    const app = join(dir, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
    const installed = npm(['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball], app);
    assert.equal(installed.status, 0, installed.stderr);
    assert.ok(fs.existsSync(join(app, 'node_modules', 'tool-argument-snapshot', 'adapters', 'openai-agents', 'index.js')));
    assert.equal(fs.existsSync(join(app, 'node_modules', '@openai')), false, 'no framework was installed');
    assert.equal(fs.existsSync(join(app, 'node_modules', 'zod')), false);
    // Requiring the subpath without the framework names the package to install.
    const loaded = spawnSync(
      process.execPath,
      [
        '-e',
        `
      try { require('tool-argument-snapshot/openai-agents'); console.log('loaded'); }
      catch (error) { console.log(JSON.stringify({ code: error.code, packageName: error.packageName, message: error.message })); }
    `,
      ],
      { cwd: app, encoding: 'utf8' },
    );
    assert.equal(loaded.status, 0, loaded.stderr);
    const refused = JSON.parse(loaded.stdout);
    assert.equal(refused.code, 'MODULE_NOT_FOUND');
    assert.equal(refused.packageName, '@openai/agents');
    assert.match(refused.message, /npm install @openai\/agents/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the declarations accept ordinary usage and reject misuse under tsc --strict (CommonJS and ESM)', () => {
  const { spawnSync } = require('node:child_process');
  const { join } = require('node:path');
  const tsc = require.resolve('typescript/bin/tsc');
  // skipLibCheck: the SDK's own declarations do not check against @types/node's EventEmitter.
  const result = spawnSync(process.execPath, [tsc, '-p', join(__dirname, '..', '..', 'package', 'types', 'openai-agents', 'tsconfig.json')], {
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
});

test('tool options are read as own data: needsApproval and execute inherited from Object.prototype change nothing', async () => {
  // A plain JSON-style pollution (no setter), set only while the gate reads the options.
  Object.prototype.needsApproval = true;
  let gate;
  let made;
  try {
    gate = createOpenAIAgentsGate({ agentName: AGENT, policy: () => ({ decision: 'allow', reason: 'ok' }) });
    made = gate.tool({ name: 'transfer', description: 'Send money', parameters: transferSchema(z).schema, execute: () => 'sent' });
    // An execute inherited from the options' prototype is no execute.
    assert.throws(
      () => gate.tool({ __proto__: { execute: () => 'x' }, name: 'other', description: 'No handler', parameters: transferSchema(z).schema }),
      /execute function/,
    );
  } finally {
    delete Object.prototype.needsApproval;
  }
  const agent = new Agent({ name: AGENT, model: gate.model(scripted(['transfer', '{"to":"bob","cents":5}', 'c1'])), tools: [made] });
  const result = await run(agent, 'pay bob');
  assert.equal(result.interruptions.length, 0);
  assert.equal(toolOutputs(result).c1, 'sent');
});

test("approving one interruption twice grants one use: the second approve rejects with TAS_NO_PENDING_PROPOSAL (as every adapter's approve does)", async () => {
  // Without a key ring nothing else stops a second grant (a double click, two reviewers):
  // the resumed call would spend one use and leave the other live for the next identical call.
  const grants = createApprovalGrants();
  const { gate, agent, seen } = gatedApp({
    policy: allowSmall,
    grants,
    calls: [
      ['transfer', '{"to":"bob","cents":50000}', 'c1'],
      ['transfer', '{"to":"bob","cents":50000}', 'c2'],
    ],
  });
  let result = await run(agent, 'pay bob');
  const [{ interruption, proposal }] = gate.pending(result.state);
  await gate.approve(result.state, interruption, proposal);
  await assert.rejects(gate.approve(result.state, interruption, proposal), { code: 'TAS_NO_PENDING_PROPOSAL' });
  await assert.rejects(gate.approve(result.state, interruption), { code: 'TAS_NO_PENDING_PROPOSAL' });
  result = await run(agent, result.state);
  assert.deepEqual(seen.executed, [{ cents: 50000, to: 'bob' }]);
  assert.equal(await grants.has(proposal), false, 'no use is left for a later identical call');
  // The model's next turn proposes the same transfer: it waits for a review.
  assert.equal(result.interruptions.length, 1);
  assert.equal(seen.executed.length, 1);
});

test("a proposal that is not the interruption's own is refused by approve (nothing is granted)", async () => {
  const grants = createApprovalGrants();
  const { gate, agent } = gatedApp({ policy: allowSmall, grants, calls: [['transfer', '{"to":"bob","cents":50000}', 'c1']] });
  const result = await run(agent, 'pay bob');
  const [{ interruption, proposal }] = gate.pending(result.state);
  const other = {
    ...proposal,
    argsCanonicalJson: '{"cents":90000,"to":"eve"}',
    proposalHash: proposalHash({ agentName: AGENT, toolName: 'transfer', argsCanonicalJson: '{"cents":90000,"to":"eve"}' }),
  };
  await assert.rejects(gate.approve(result.state, interruption, other), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.equal(await grants.has(other), false);
  assert.equal(await grants.has(proposal), false);
});
