'use strict';
// tool-argument-snapshot/openai-agents against the package's own standard: inputs read as
// own data properties, a Proxy refused unread, no live lookup on a prototype the
// application can reach. From a security review; each test failed on 7e7def7.

const test = require('node:test');
const assert = require('node:assert/strict');
const { Agent, run, tool, setTracingDisabled } = require('@openai/agents');
const { ScriptedModel, functionCall, assistantMessage } = require('@openai/agents/testing');
const { z } = require('zod');
const { createApprovalGrants } = require('tool-argument-snapshot');
const { createOpenAIAgentsGate } = require('tool-argument-snapshot/openai-agents');

setTracingDisabled(true);

function scripted(name, raw, callId) {
  return new ScriptedModel([[functionCall(name, raw, { callId })], [assistantMessage('done')], [assistantMessage('done')]]);
}

test('gate.tools() hands an SDK (MCP) tool the arguments the policy allowed, whatever Object.prototype.toJSON says', async () => {
  // The gate invoked the original tool with JSON.stringify(args), which looks up `toJSON`
  // on the execution view and its prototype at call time; now the package's canonicalize.
  const received = [];
  const sdkTool = tool({
    name: 'transfer',
    description: 'Send money',
    strict: false,
    parameters: { type: 'object', properties: { to: { type: 'string' }, cents: { type: 'integer' } }, required: ['to', 'cents'], additionalProperties: false },
    execute: async (input) => {
      received.push({ to: input.to, cents: input.cents }); // no JSON.stringify while toJSON is planted
      return 'ok';
    },
  });
  const seen = [];
  const gate = createOpenAIAgentsGate({
    agentName: 'Payments',
    policy: (input) => {
      seen.push(input.argsCanonicalJson);
      return input.parsedArguments.cents <= 10 ? { decision: 'allow', reason: 'small' } : { decision: 'deny', reason: 'large' };
    },
  });
  const tools = gate.tools([sdkTool]);
  const agent = new Agent({ name: 'Payments', model: gate.model(scripted('transfer', '{"to":"bob","cents":5}', 'c1')), tools });
  // Planted after load (prototype pollution elsewhere in the app), only for this shape.
  Object.defineProperty(Object.prototype, 'toJSON', {
    configurable: true,
    writable: true,
    value: function toJSON() {
      return this !== null && typeof this === 'object' && this.to === 'bob' && this.cents === 5 ? { to: 'mallory', cents: 5000000 } : this;
    },
  });
  try {
    await run(agent, 'pay bob');
  } finally {
    delete Object.prototype.toJSON;
  }
  assert.deepEqual(seen, ['{"cents":5,"to":"bob"}']);
  assert.deepEqual(received, [{ to: 'bob', cents: 5 }], 'the MCP tool received other arguments than the policy allowed');
});

test('gate.approve refuses a Proxy as grant options unread', async () => {
  // An object spread of the options ran the Proxy's traps (ownKeys,
  // getOwnPropertyDescriptor, get) before grants.grant saw it.
  const grants = createApprovalGrants();
  const gate = createOpenAIAgentsGate({
    agentName: 'Payments',
    grants,
    grantScope: () => 'user:1',
    policy: () => ({ decision: 'require_approval', reason: 'review' }),
  });
  const transfer = gate.tool({
    name: 'transfer',
    description: 'Send money',
    parameters: z.object({ to: z.string(), cents: z.number() }),
    execute: () => 'sent',
  });
  const agent = new Agent({ name: 'Payments', model: gate.model(scripted('transfer', '{"to":"bob","cents":5}', 'c1')), tools: [transfer] });
  const result = await run(agent, 'pay bob');
  const [pending] = gate.pending(result.state);
  assert.ok(pending && pending.proposal, 'the call is pending');
  const traps = [];
  const options = new Proxy(
    { uses: 1 },
    {
      ownKeys(target) {
        traps.push('ownKeys');
        return Reflect.ownKeys(target);
      },
      getOwnPropertyDescriptor(target, key) {
        traps.push(`gopd ${String(key)}`);
        return Reflect.getOwnPropertyDescriptor(target, key);
      },
      get(target, key, receiver) {
        traps.push(`get ${String(key)}`);
        return Reflect.get(target, key, receiver);
      },
    },
  );
  await assert.rejects(gate.approve(result.state, pending.interruption, undefined, options), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.deepEqual(traps, [], 'the Proxy given as grant options was read through its traps');
  assert.equal(await grants.has({ ...pending.proposal, scope: 'user:1' }), false, 'nothing was granted');
  // Plain options are read as own data: uses 2 (and the run's scope, not one of the caller's).
  await gate.approve(result.state, pending.interruption, undefined, { uses: 2, scope: 'user:mallory' });
  assert.equal(await grants.has({ ...pending.proposal, scope: 'user:1' }), true);
  assert.equal(await grants.has({ ...pending.proposal, scope: 'user:mallory' }), false);
});

test('gate.tool reads its options as own data properties (no getter runs)', () => {
  // A spread of the options called every own enumerable getter.
  const gate = createOpenAIAgentsGate({ agentName: 'Payments', policy: () => ({ decision: 'allow', reason: 'ok' }) });
  let ran = 0;
  const options = {
    name: 'transfer',
    description: 'Send money',
    parameters: z.object({ to: z.string() }),
    get execute() {
      ran++;
      return () => 'sent';
    },
  };
  assert.throws(() => gate.tool(options), { code: 'ERR_INVALID_ARG_TYPE' }, 'an accessor execute is no own data execute');
  assert.equal(ran, 0, 'a getter of the tool options ran');
});

test("the run's grant scope reaches the evaluation whatever setter Object.prototype has", async () => {
  // `policyContext.grantScope = scope` was an assignment: a setter planted on
  // Object.prototype after load swallowed it, the evaluation ran unscoped, and an unscoped
  // grant of the same hash allowed bob's run. (The Mastra gate: adapters/mastra/mastra.test.js.)
  const { authorizeToolCall, prepareToolCall } = require('tool-argument-snapshot');
  const grants = createApprovalGrants();
  // An approval granted without a scope (another path of the app, an admin console).
  const asked = await authorizeToolCall({
    prepared: prepareToolCall({ agentName: 'Payments', toolName: 'transfer', rawArguments: '{"cents":900000,"to":"mallory"}' }),
    policy: grants.policy(),
    execute: () => {},
  });
  await grants.grant(asked.proposal);
  const executed = [];
  const gate = createOpenAIAgentsGate({
    agentName: 'Payments',
    grants,
    grantScope: (runContext) => `user:${runContext.context.user}`,
    policy: () => ({ decision: 'require_approval', reason: 'review' }),
  });
  const transfer = gate.tool({
    name: 'transfer',
    description: 'Send money',
    parameters: z.object({ to: z.string(), cents: z.number() }),
    execute: (args) => {
      executed.push(args);
      return 'sent';
    },
  });
  const agent = new Agent({ name: 'Payments', model: gate.model(scripted('transfer', '{"cents":900000,"to":"mallory"}', 'c1')), tools: [transfer] });
  Object.defineProperty(Object.prototype, 'grantScope', {
    configurable: true,
    set() {},
    get() {
      return undefined;
    },
  });
  try {
    await run(agent, 'pay', { context: { user: 'bob' } });
  } finally {
    delete Object.prototype.grantScope;
  }
  assert.deepEqual(executed, [], "bob's run (scope user:bob) spent an unscoped grant");
});
