'use strict';
// createCedarPolicy (lib/cedar, src/cedar/): Cedar policy sets as policies of the run
// loop. Expected decisions come from Cedar's semantics as its language reference states
// them (default deny, forbid overrides permit), reasons from issue 27, hashes from
// node:crypto over the text as given.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const diagnostics = require('node:diagnostics_channel');
const { z } = require('zod');
const {
  createCedarPolicy,
  isCedarPolicyError,
  CedarPolicyError,
  prepareToolCall,
  evaluateToolCall,
  executeToolCall,
  createApprovalGrants,
  fromJsonSchema,
} = require('../..');

const AGENT = 'payments-agent';
const transferSchema = z.object({ to: z.string(), amount: z.number().int(), note: z.string().optional() });
const tools = { transfer: transferSchema };
const sha256 = (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

function prepare(rawArguments, toolName = 'transfer') {
  return prepareToolCall({ agentName: AGENT, toolName, rawArguments });
}

async function decide(policy, rawArguments, toolName = 'transfer', policyContext) {
  return evaluateToolCall({ prepared: prepare(rawArguments, toolName), policy, policyContext });
}

const PERMIT_SMALL = '@id("small-transfers")\npermit(principal, action == Action::"transfer", resource) when { context.input.amount < 400 };\n';

test('default deny: no permit applies, deny no_permit', async () => {
  const policy = createCedarPolicy({ policies: PERMIT_SMALL, tools });
  const big = await decide(policy, '{"to":"bob","amount":500}');
  assert.equal(big.decision, 'deny');
  assert.equal(big.reason, 'no_permit');
  assert.deepEqual(big.policyResult.policies, []);
  const small = await decide(policy, '{"to":"bob","amount":5}');
  assert.equal(small.decision, 'allow');
  assert.equal(small.reason, 'permitted');
  assert.deepEqual(small.policyResult.policies, ['small-transfers']);
  const empty = createCedarPolicy({ policies: '' });
  assert.equal((await decide(empty, '{"to":"bob","amount":5}')).reason, 'no_permit');
});

test('forbid wins over a permit', async () => {
  const policies = PERMIT_SMALL + '@id("no-mallory")\nforbid(principal, action, resource) when { context.input has to && context.input.to == "mallory" };\n';
  const policy = createCedarPolicy({ policies, tools });
  const d = await decide(policy, '{"to":"mallory","amount":5}');
  assert.equal(d.decision, 'deny');
  assert.equal(d.reason, 'forbidden');
  assert.deepEqual(d.policyResult.policies, ['no-mallory']);
  assert.equal((await decide(policy, '{"to":"bob","amount":5}')).decision, 'allow');
});

const APPROVAL =
  '@id("big-transfers")\n@approval("required")\npermit(principal, action == Action::"transfer", resource) when { context.input.amount >= 400 };\n' +
  '@id("no-mallory")\nforbid(principal, action, resource) when { context.input.to == "mallory" };\n';

test('@approval("required") without a live grant asks; with one allows once (spent), then asks again', async () => {
  const grants = createApprovalGrants();
  const policy = createCedarPolicy({ policies: APPROVAL, tools, grants });
  const first = await decide(policy, '{"to":"bob","amount":500}');
  assert.equal(first.decision, 'require_approval');
  assert.equal(first.reason, 'approval_required');
  assert.deepEqual(first.policyResult.policies, ['big-transfers']);
  await grants.grant(first.proposal);
  const second = await decide(policy, '{"to":"bob","amount":500}');
  assert.equal(second.decision, 'allow');
  assert.equal(second.reason, 'approval_granted');
  const calls = [];
  await executeToolCall(second, (args) => calls.push(args.amount), { grants });
  assert.deepEqual(calls, [500]);
  const third = await decide(policy, '{"to":"bob","amount":500}');
  assert.equal(third.decision, 'require_approval', 'the grant was spent by the one execution');
  const noGrants = createCedarPolicy({ policies: APPROVAL, tools });
  assert.equal((await decide(noGrants, '{"to":"bob","amount":500}')).reason, 'approval_required');
});

test('forbid wins over a live grant, and the grant stays unspent', async () => {
  const grants = createApprovalGrants();
  const open = createCedarPolicy({ policies: APPROVAL.replace('context.input.to == "mallory"', 'context.input.to == "nobody"'), tools, grants });
  const asked = await decide(open, '{"to":"mallory","amount":500}');
  assert.equal(asked.decision, 'require_approval');
  await grants.grant(asked.proposal);
  const policy = createCedarPolicy({ policies: APPROVAL, tools, grants });
  const d = await decide(policy, '{"to":"mallory","amount":500}');
  assert.equal(d.decision, 'deny');
  assert.equal(d.reason, 'forbidden');
  assert.equal(await grants.has(asked.proposal), true);
});

test('an argument key __entity or __extn stays a plain record attribute, never an entity or extension value', async () => {
  const policies =
    '@id("admins")\npermit(principal, action == Action::"lookup", resource) when { context.input.who == User::"admin" };\n' +
    '@id("records")\npermit(principal, action == Action::"lookup", resource) when { context.input.who has __entity && context.input.who.__entity.id == "admin" };\n' +
    '@id("extn")\npermit(principal, action == Action::"lookup", resource) when { context.input has x && context.input.x has __extn };\n';
  const policy = createCedarPolicy({ policies });
  const d = await decide(policy, '{"who":{"__entity":{"type":"User","id":"admin"}},"x":{"__extn":{"fn":"decimal","arg":"1.0"}}}', 'lookup');
  assert.equal(d.decision, 'allow');
  // Were `who` an entity, "admins" would be determining and "records" an error (an entity has no __entity attribute).
  assert.deepEqual(d.policyResult.policies, ['extn', 'records']);
});

test('numbers: integers are Long, other numbers decimal; an unrepresentable value denies', async () => {
  const policies =
    '@id("long")\npermit(principal, action == Action::"n", resource) when { context.input has i && context.input.i == 9007199254740991 };\n' +
    '@id("decimal")\npermit(principal, action == Action::"n", resource) when { context.input has d && context.input.d.greaterThan(decimal("1.2345")) };\n';
  const policy = createCedarPolicy({ policies });
  assert.deepEqual((await decide(policy, '{"i":9007199254740991}', 'n')).policyResult.policies, ['long']);
  assert.deepEqual((await decide(policy, '{"d":1.2346}', 'n')).policyResult.policies, ['decimal']);
  assert.equal((await decide(policy, '{"d":1.2345}', 'n')).reason, 'no_permit');
  for (const raw of ['{"d":1.23456}', '{"i":1e21}', '{"d":1e-7}']) {
    const d = await decide(policy, raw, 'n');
    assert.equal(d.decision, 'deny', raw);
    assert.equal(d.reason, 'cedar_unrepresentable_value', raw);
  }
  // With a schema, a number type is decimal even when the value is integral.
  const typed = createCedarPolicy({
    policies: '@id("price")\npermit(principal, action == Action::"buy", resource) when { context.input.price.lessThan(decimal("10.5")) };\n',
    tools: { buy: fromJsonSchema({ type: 'object', properties: { price: { type: 'number' } }, required: ['price'] }) },
  });
  assert.equal((await decide(typed, '{"price":10}', 'buy')).reason, 'permitted');
  assert.equal((await decide(typed, '{"price":11}', 'buy')).reason, 'no_permit');
});

test('null is an absent attribute; arrays are sets', async () => {
  const policies =
    '@id("no-note")\npermit(principal, action == Action::"t", resource) when { !(context.input has note) && context.input.tags.contains("ok") };\n';
  const policy = createCedarPolicy({ policies });
  assert.equal((await decide(policy, '{"note":null,"tags":["a","ok","a"]}', 't')).reason, 'permitted');
  assert.equal((await decide(policy, '{"note":"x","tags":["ok"]}', 't')).reason, 'no_permit');
});

test('an evaluation error denies (cedar_evaluation_error), even when a permit applies', async () => {
  const policies =
    '@id("all")\npermit(principal, action, resource);\n@id("breaks")\nforbid(principal, action, resource) when { context.input.missing == 1 };\n';
  const policy = createCedarPolicy({ policies });
  const d = await decide(policy, '{"a":1}', 'x');
  assert.equal(d.decision, 'deny');
  assert.equal(d.reason, 'cedar_evaluation_error');
  assert.deepEqual(d.policyResult.policies, ['breaks']);
});

test('a typo attribute is refused at creation (validation_error) naming the policy; a syntax error (parse_error)', () => {
  const typo = '@id("typo")\npermit(principal, action == Action::"transfer", resource) when { context.input.amout < 400 };\n';
  assert.throws(
    () => createCedarPolicy({ policies: typo, tools }),
    (error) => {
      assert.ok(isCedarPolicyError(error));
      assert.ok(error instanceof CedarPolicyError);
      assert.equal(error.code, 'validation_error');
      assert.equal(error.policyId, 'typo');
      assert.match(error.message, /amout/);
      return true;
    },
  );
  assert.throws(
    () => createCedarPolicy({ policies: 'permit(principal, action resource);', tools }),
    (error) => isCedarPolicyError(error) && error.code === 'parse_error',
  );
  const dup = '@id("x")\npermit(principal, action, resource);\n@id("x")\nforbid(principal, action, resource);\n';
  assert.throws(
    () => createCedarPolicy({ policies: dup }),
    (error) => isCedarPolicyError(error) && error.code === 'duplicate_policy_id' && error.policyId === 'x',
  );
  assert.equal(isCedarPolicyError(new Error('x')), false);
});

test('options are own data; a Proxy is refused unread', () => {
  let read = false;
  const proxy = new Proxy(
    { policies: PERMIT_SMALL },
    {
      get() {
        read = true;
        return undefined;
      },
      getOwnPropertyDescriptor() {
        read = true;
        return undefined;
      },
    },
  );
  assert.throws(() => createCedarPolicy(proxy), TypeError);
  assert.equal(read, false);
  const inherited = Object.create({ policies: PERMIT_SMALL });
  assert.throws(() => createCedarPolicy(inherited), TypeError);
});

test('results and evaluate events carry the determining ids and policySetHash; update() is atomic', async () => {
  const events = [];
  const handlers = {
    start() {},
    end() {},
    asyncStart() {},
    asyncEnd(context) {
      events.push({ ...context });
    },
    error() {},
  };
  const channel = diagnostics.tracingChannel('tool-argument-snapshot.evaluate');
  channel.subscribe(handlers);
  try {
    const policy = createCedarPolicy({ policies: PERMIT_SMALL, tools });
    assert.equal(policy.policySetHash, sha256(PERMIT_SMALL));
    const d = await decide(policy, '{"to":"bob","amount":5}');
    assert.equal(d.policyResult.policySetHash, sha256(PERMIT_SMALL));
    const event = events.at(-1);
    assert.deepEqual(event.policies, ['small-transfers']);
    assert.equal(event.policySetHash, sha256(PERMIT_SMALL));
    assert.ok(!JSON.stringify(event).includes('bob'), 'no argument value in the event');

    const next = '@id("tiny")\npermit(principal, action == Action::"transfer", resource) when { context.input.amount < 10 };\n';
    assert.throws(
      () => policy.update('@id("t")\npermit(principal, action, resource) when { context.input.amout < 1 };'),
      (e) => e.code === 'validation_error',
    );
    assert.throws(
      () => policy.update('permit('),
      (e) => e.code === 'parse_error',
    );
    assert.equal(policy.policySetHash, sha256(PERMIT_SMALL), 'a refused update keeps the old set');
    assert.equal((await decide(policy, '{"to":"bob","amount":50}')).reason, 'permitted');
    assert.equal(policy.update(next), sha256(next));
    const after = await decide(policy, '{"to":"bob","amount":50}');
    assert.equal(after.reason, 'no_permit');
    assert.equal(after.policyResult.policySetHash, sha256(next));
  } finally {
    channel.unsubscribe(handlers);
  }
});

test('principal: policyContext.principal, the option, else the agent; entities give groups', async () => {
  const entities = [
    { uid: { type: 'User', id: 'alice' }, attrs: {}, parents: [{ type: 'Team', id: 'finance' }] },
    { uid: { type: 'Team', id: 'finance' }, attrs: {}, parents: [] },
  ];
  const policies =
    '@id("finance")\npermit(principal in Team::"finance", action == Action::"transfer", resource);\n' +
    '@id("agent")\npermit(principal == Agent::"payments-agent", action == Action::"transfer", resource) when { context.input.amount < 10 };\n';
  const policy = createCedarPolicy({ policies, tools, entities });
  assert.deepEqual((await decide(policy, '{"to":"bob","amount":50}', 'transfer', { principal: { type: 'User', id: 'alice' } })).policyResult.policies, [
    'finance',
  ]);
  assert.equal((await decide(policy, '{"to":"bob","amount":50}', 'transfer', { principal: { type: 'User', id: 'eve' } })).reason, 'no_permit');
  assert.deepEqual((await decide(policy, '{"to":"bob","amount":5}')).policyResult.policies, ['agent']);
  const fixed = createCedarPolicy({ policies, tools, entities, principal: () => ({ type: 'User', id: 'alice' }) });
  assert.equal((await decide(fixed, '{"to":"bob","amount":50}')).reason, 'permitted');
});
