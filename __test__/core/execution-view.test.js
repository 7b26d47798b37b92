'use strict';
// The execution view may be the snapshot's template itself, handed out instead of a copy
// of it, only when nothing else can reach it: no policy view whose mutation check is still
// to come points into it, and the snapshot keeps no template afterwards. These tests
// mutate every view a handler gets and check, against canonical JSON written out by hand,
// that no other view, no later view and no pending check ever sees the change.

const { test } = require('node:test');
const assert = require('node:assert/strict');

const { prepareToolCall, evaluateToolCall, executeToolCall, authorizeToolCall, decodeView, canonicalize, createApprovalGrants } = require('../..');

const { binding } = require('../../lib/native');

const AGENT = 'View agent';
// A value whose views are copies of a template (the native pass says so: template
// character `1`): a small tool call.
const RAW =
  '{"path":"/srv/app/branch/alpha.ts","content":"export const queue = \\"region region schema commit report vector\\";\\n","b":[1,{"c":"x"}],"a":1,"overwrite":false,"createDirectories":true,"mode":420,"tags":["region","window","M\u00fcnchen"],"options":{"encoding":"utf8","retries":3,"timeoutMs":2500.5,"backup":null,"owner":{"uid":1000,"gid":1000}}}';
const CANONICAL =
  '{"a":1,"b":[1,{"c":"x"}],"content":"export const queue = \\"region region schema commit report vector\\";\\n","createDirectories":true,"mode":420,"options":{"backup":null,"encoding":"utf8","owner":{"gid":1000,"uid":1000},"retries":3,"timeoutMs":2500.5},"overwrite":false,"path":"/srv/app/branch/alpha.ts","tags":["region","window","M\u00fcnchen"]}';
const allow = () => ({ decision: 'allow', reason: 'ok' });

test('the values here have views copied from a template (else these tests would not reach the hand-over)', () => {
  assert.equal(binding.canonicalizeText(RAW, AGENT, 't', 0).charAt(64), '1');
  assert.equal(canonicalize(JSON.parse(RAW)), CANONICAL);
});

function vandalize(view) {
  view.a = 2;
  view.b[1].c = 'changed';
  view.b.push('more');
  view.z = { added: true };
}

/** A change of values only: no member added or removed. */
function retouch(view) {
  view.a = 2;
  view.b[1].c = 'changed';
  view.options.owner.uid = 0;
}

test('a handler that changes its view changes no later view of the same snapshot', async () => {
  const prepared = prepareToolCall({ agentName: AGENT, toolName: 't', rawArguments: RAW });
  const decision = await evaluateToolCall({ prepared, policy: allow });
  let handled;
  await executeToolCall(decision, (view) => {
    assert.equal(canonicalize(view), CANONICAL);
    handled = view;
    vandalize(view);
  });
  assert.equal(canonicalize(decodeView(prepared.snapshot)), CANONICAL);
  assert.equal(canonicalize(prepared.policyView()), CANONICAL);
  // A second evaluation and execution of the same prepared call: fresh views again.
  const again = await evaluateToolCall({
    prepared,
    policy: (input) => {
      assert.equal(canonicalize(input.parsedArguments), CANONICAL);
      assert.notEqual(input.parsedArguments, handled);
      return allow();
    },
  });
  assert.equal(again.decision, 'allow');
  await executeToolCall(again, (view) => {
    assert.notEqual(view, handled);
    assert.equal(canonicalize(view), CANONICAL);
    vandalize(view);
  });
  assert.equal(canonicalize(decodeView(prepared.snapshot)), CANONICAL);
});

test('a policy still running when another decision of the same call executes: its check compares with the untouched arguments', async () => {
  const prepared = prepareToolCall({ agentName: AGENT, toolName: 't', rawArguments: RAW });
  const first = await evaluateToolCall({ prepared, policy: allow });
  let release;
  const gate = new Promise((resolve) => {
    release = resolve;
  });
  // This policy changes its view exactly as the handler below changes its own, then waits.
  const pending = evaluateToolCall({
    prepared,
    policy: async (input) => {
      retouch(input.parsedArguments);
      await gate;
      return allow();
    },
  });
  // Another, untouched, also waits.
  let releaseClean;
  const cleanGate = new Promise((resolve) => {
    releaseClean = resolve;
  });
  const clean = evaluateToolCall({
    prepared,
    policy: async () => {
      await cleanGate;
      return allow();
    },
  });
  await new Promise((resolve) => setImmediate(resolve));
  await executeToolCall(first, (view) => retouch(view));
  release();
  releaseClean();
  const changed = await pending;
  assert.equal(changed.decision, 'deny');
  assert.equal(changed.reason, 'policy_mutated_arguments');
  const untouched = await clean;
  assert.equal(untouched.decision, 'allow');
  await executeToolCall(untouched, (view) => assert.equal(canonicalize(view), CANONICAL));
});

test('the same with a policy that throws or answers badly, with grants in the process, and through authorizeToolCall', async () => {
  createApprovalGrants();
  for (const policy of [
    () => {
      throw new Error('no');
    },
    () => 'not a result',
    async () => {
      throw new Error('no');
    },
  ]) {
    const prepared = prepareToolCall({ agentName: AGENT, toolName: 't', rawArguments: RAW });
    const refused = await evaluateToolCall({ prepared, policy });
    assert.equal(refused.decision, 'deny');
    const decision = await evaluateToolCall({ prepared, policy: allow });
    await executeToolCall(decision, (view) => vandalize(view));
    assert.equal(canonicalize(decodeView(prepared.snapshot)), CANONICAL);
  }
  const prepared = prepareToolCall({ agentName: AGENT, toolName: 't', rawArguments: RAW });
  const views = [];
  for (let i = 0; i < 3; i++) {
    const outcome = await authorizeToolCall({
      prepared,
      policy: allow,
      execute: (view) => {
        views.push(view);
        assert.equal(canonicalize(view), CANONICAL);
        vandalize(view);
        return i;
      },
    });
    assert.equal(outcome.result, i);
  }
  assert.equal(new Set(views).size, 3);
  assert.equal(canonicalize(decodeView(prepared.snapshot)), CANONICAL);
});

test('large and number-heavy values (views copied from a template of their skeleton) and scalars', async () => {
  const numbers = Array.from({ length: 200 }, (_, i) => i * 1.5);
  const texts = [JSON.stringify({ numbers, label: 'n' }), JSON.stringify({ text: 'x'.repeat(5000), list: [1, 2] }), '"just a string"', '42', '[]', '{}'];
  for (const raw of texts) {
    const expected = canonicalize(JSON.parse(raw));
    const prepared = prepareToolCall({ agentName: AGENT, toolName: 't', rawArguments: raw });
    for (let i = 0; i < 2; i++) {
      const decision = await evaluateToolCall({ prepared, policy: allow });
      await executeToolCall(decision, (view) => {
        assert.equal(canonicalize(view), expected);
        if (view !== null && typeof view === 'object') {
          if (Array.isArray(view)) view.push(1);
          else view.extra = 1;
        }
      });
      assert.equal(canonicalize(decodeView(prepared.snapshot)), expected);
    }
  }
});

// Values whose views are parsed (template character `3`: the policy's view is a copy of a
// parse of its own, and that parse, checked and shown to no one, becomes the handler's view).
const SMALL_RAW = '{"b":[1,{"c":"x"}],"a":1}';
const SMALL_CANONICAL = '{"a":1,"b":[1,{"c":"x"}]}';

test('a value whose views are parsed: its views are the parse the native pass says', () => {
  assert.equal(binding.canonicalizeText(SMALL_RAW, AGENT, 't', 0).charAt(64), '3');
  assert.equal(canonicalize(JSON.parse(SMALL_RAW)), SMALL_CANONICAL);
});

for (const [label, raw, canonical] of [
  ['parsed views', SMALL_RAW, SMALL_CANONICAL],
  ['a template', RAW, CANONICAL],
]) {
  test(`${label}: a policy that keeps its view and changes it after answering changes no handler view`, async () => {
    const prepared = prepareToolCall({ agentName: AGENT, toolName: 't', rawArguments: raw });
    const kept = [];
    const decisions = [];
    for (let i = 0; i < 3; i++) {
      decisions.push(
        await evaluateToolCall({
          prepared,
          policy: (input) => {
            kept.push(input.parsedArguments);
            return allow();
          },
        }),
      );
    }
    for (const view of kept) {
      view.changed = true;
      if ('amount' in view) view.amount = 999;
      if ('a' in view) view.a = 999;
    }
    const handled = [];
    for (const decision of decisions) {
      await executeToolCall(decision, (view) => {
        assert.equal(canonicalize(view), canonical);
        assert.ok(!kept.includes(view), 'the handler never gets a view a policy holds');
        assert.ok(!handled.includes(view), 'each execution its own view');
        handled.push(view);
        view.more = 1;
      });
    }
    assert.equal(canonicalize(decodeView(prepared.snapshot)), canonical);
    // A decision refused (a view changed while the policy ran) runs nothing.
    const refused = await evaluateToolCall({
      prepared,
      policy: (input) => {
        input.parsedArguments.late = true;
        return allow();
      },
    });
    assert.equal(refused.reason, 'policy_mutated_arguments');
  });
}
