'use strict';
// Cedar compares the number the handler receives (issue 33, item 5). The handler's view is
// JSON.parse of the canonical text, so it holds a double; Cedar must hold that double's exact
// value (a Long is i64, a decimal four fraction digits) or deny with
// cedar_unrepresentable_value. Oracles: BigInt arithmetic (2n ** 60n), V8's Number and String,
// and hand-written literals; never the addon's own conversion.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { createCedarPolicy, isCedarPolicyError, prepareToolCall, evaluateToolCall, executeToolCall } = require('../..');

const AGENT = 'ledger';
const accountTools = { close: { type: 'object', properties: { account: { type: 'integer' } }, required: ['account'] } };
const amountTools = { pay: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] } };

const prepare = (toolName, rawArguments) => prepareToolCall({ agentName: AGENT, toolName, rawArguments });
const decide = (policy, toolName, rawArguments) => evaluateToolCall({ prepared: prepare(toolName, rawArguments), policy });

/** The one value the handler receives for `raw`, from executeToolCall itself. */
async function handlerValue(decision, key) {
  let seen;
  await executeToolCall(decision, (args) => {
    seen = args[key];
  });
  return seen;
}

test('the red-team reproducer: forbid account == 2^60 forbids an account of 2^60, with and without tools', async () => {
  const twoTo60 = (2n ** 60n).toString();
  assert.equal(twoTo60, '1152921504606846976');
  // V8 writes the double 2^60 as 1152921504606847000: the canonical text is not the integer.
  assert.equal(String(2 ** 60), '1152921504606847000');
  const policies = `@id("open") permit(principal, action, resource);
    @id("frozen") forbid(principal, action, resource) when { context.input.account == ${twoTo60} };`;
  for (const tools of [undefined, accountTools]) {
    const policy = createCedarPolicy(tools === undefined ? { policies } : { policies, tools });
    for (const raw of [twoTo60, '1152921504606847000', '1.152921504606846976e18']) {
      const d = await decide(policy, 'close', `{"account":${raw}}`);
      assert.equal(d.decision, 'deny', `${raw}, tools ${tools !== undefined}`);
      assert.equal(d.reason, 'forbidden');
      assert.deepEqual(d.policyResult.policies, ['frozen']);
    }
    const other = await decide(policy, 'close', '{"account":1152921504606849024}'); // 2^60 + 2048, the next double but one
    assert.equal(other.reason, 'permitted');
  }
  // The shortest text is not what the handler holds: a policy on it does not match.
  const onText = createCedarPolicy({
    policies: '@id("text") forbid(principal, action, resource) when { context.input.account == 1152921504606847000 }; permit(principal, action, resource);',
    tools: accountTools,
  });
  assert.equal((await decide(onText, 'close', `{"account":${twoTo60}}`)).reason, 'permitted');
});

test('every integer a Long holds is compared as the exact integer the handler receives', async () => {
  // [the raw text, the exact integer of the double nearest to it, by BigInt]
  const cases = [
    ['4611686018427387904', 2n ** 62n],
    ['9223372036854774784', 2n ** 63n - 1024n],
    ['-9223372036854775808', -(2n ** 63n)],
    ['-1152921504606846977', -(2n ** 60n)],
    ['9007199254740993', 2n ** 53n],
    ['9007199254740994', 2n ** 53n + 2n],
    ['123456789012345678', 123456789012345680n],
    ['-42', -42n],
    ['0', 0n],
  ];
  for (const tools of [undefined, accountTools]) {
    for (const [raw, exact] of cases) {
      // The oracle holds: V8's nearest double is exactly that integer.
      assert.equal(BigInt(Number(raw)), exact, raw);
      const policies = `@id("exact") permit(principal, action, resource) when { context.input.account == ${exact} };`;
      const policy = createCedarPolicy(tools === undefined ? { policies } : { policies, tools });
      const d = await decide(policy, 'close', `{"account":${raw}}`);
      assert.equal(d.reason, 'permitted', `${raw}, tools ${tools !== undefined}`);
      assert.equal(BigInt(await handlerValue(d, 'account')), exact, raw);
      const below = createCedarPolicy({ policies: `@id("below") permit(principal, action, resource) when { context.input.account < ${exact} };` });
      assert.equal((await decide(below, 'close', `{"account":${raw}}`)).reason, 'no_permit', raw);
    }
  }
});

test('an integer no Long holds, or a fraction where the schema says integer, is cedar_unrepresentable_value', async () => {
  const policies = '@id("open") permit(principal, action, resource);';
  const typed = createCedarPolicy({ policies, tools: accountTools });
  const untyped = createCedarPolicy({ policies });
  const outside = ['9223372036854775808', '9223372036854775807', '-9223372036854777856', '1e21', '-1e21', '1e300'];
  for (const raw of outside) {
    assert.ok(BigInt(Number(raw)) >= 2n ** 63n || BigInt(Number(raw)) < -(2n ** 63n), raw);
    for (const policy of [typed, untyped]) {
      const d = await decide(policy, 'close', `{"account":${raw}}`);
      assert.equal(d.decision, 'deny', raw);
      assert.equal(d.reason, 'cedar_unrepresentable_value', raw);
      assert.deepEqual(d.policyResult.policies, []);
    }
  }
  for (const raw of ['1.5', '1e-7', '-0.25']) {
    assert.equal((await decide(typed, 'close', `{"account":${raw}}`)).reason, 'cedar_unrepresentable_value', raw);
  }
});

test('a decimal is the double the handler receives: exactly when it has four fraction digits, else its only four-digit name', async () => {
  // 2^48 + 1/16: V8 writes it 281474976710656.06, the handler holds 281474976710656.0625.
  const v = 2 ** 48 + 1 / 16;
  assert.equal(String(v), '281474976710656.06');
  const policies =
    '@id("open") permit(principal, action, resource);\n' +
    '@id("over") forbid(principal, action, resource) when { context.input.amount.greaterThan(decimal("281474976710656.061")) };';
  const policy = createCedarPolicy({ policies, tools: amountTools });
  const d = await decide(policy, 'pay', '{"amount":281474976710656.0625}');
  assert.equal(d.reason, 'forbidden');
  assert.equal(
    await handlerValue(
      await decide(
        createCedarPolicy({ policies: '@id("open") permit(principal, action, resource);', tools: amountTools }),
        'pay',
        '{"amount":281474976710656.0625}',
      ),
      'amount',
    ),
    v,
  );
  // Two four-digit decimals name the double 2^40 + 2^-12: Cedar cannot hold the handler's number.
  assert.equal(Number('1099511627776.0002'), 2 ** 40 + 2 ** -12);
  assert.equal(Number('1099511627776.0003'), 2 ** 40 + 2 ** -12);
  assert.equal((await decide(policy, 'pay', '{"amount":1099511627776.0002}')).reason, 'cedar_unrepresentable_value');
  // 0.1 is the only decimal of four digits whose double the handler holds.
  const small = createCedarPolicy({
    policies: '@id("small") permit(principal, action, resource) when { context.input.amount.lessThanOrEqual(decimal("0.1")) };',
    tools: amountTools,
  });
  assert.equal((await decide(small, 'pay', '{"amount":0.1}')).reason, 'permitted');
  assert.equal((await decide(small, 'pay', '{"amount":0.1001}')).reason, 'no_permit');
  for (const raw of ['1.23456', '1e-7', '922337203685478', '1e21']) {
    assert.equal((await decide(small, 'pay', `{"amount":${raw}}`)).reason, 'cedar_unrepresentable_value', raw);
  }
});

test('a decimal compared as a Long is refused naming the attribute, its Cedar type and what to write; that form works', async () => {
  let refused;
  try {
    createCedarPolicy({
      policies: '@id("small")\npermit(principal, action == Action::"pay", resource) when { context.input.amount <= 100 };',
      tools: amountTools,
    });
  } catch (error) {
    refused = error;
  }
  assert.ok(isCedarPolicyError(refused));
  assert.equal(refused.code, 'validation_error');
  assert.equal(refused.policyId, 'small');
  assert.equal(refused.issues.length, 1);
  assert.equal(
    refused.issues[0].message,
    'for policy `small`, unexpected type: expected Long but saw decimal; `context.input.amount` is a decimal ' +
      '(a JSON Schema `number` is a Cedar decimal), compared by its methods, not `<=`: write ' +
      '`context.input.amount.lessThanOrEqual(decimal("100.0"))`',
  );
  const equal = (() => {
    try {
      createCedarPolicy({ policies: '@id("exact") permit(principal, action, resource) when { context.input.amount == 100 };', tools: amountTools });
    } catch (e) {
      return e;
    }
  })();
  assert.match(
    equal.issues[0].message,
    /^for policy `exact`, the types Long and decimal are not compatible; .*write `context\.input\.amount == decimal\("100\.0"\)`$/,
  );
  // The form the message gives is accepted and compares the handler's number.
  const policy = createCedarPolicy({
    policies: '@id("small")\npermit(principal, action == Action::"pay", resource) when { context.input.amount.lessThanOrEqual(decimal("100.0")) };',
    tools: amountTools,
  });
  assert.equal((await decide(policy, 'pay', '{"amount":100}')).reason, 'permitted');
  assert.equal((await decide(policy, 'pay', '{"amount":99.99}')).reason, 'permitted');
  assert.equal((await decide(policy, 'pay', '{"amount":100.0001}')).reason, 'no_permit');
});
