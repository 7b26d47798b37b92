'use strict';
// Review findings on the evaluation registry (lib/run/registry.js, lib/grants/index.js
// policy(), lib/run/decide.js conclude()): ways an allow that came from a live grant ran
// a handler without spending that grant, or ran arguments nobody approved. Each test
// failed on 7e7def7 (registry v1).

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { createApprovalGrants, prepareToolCall, evaluateToolCall, executeToolCall, authorizeToolCall } = require('../..');

const AGENT = 'payments';
const TOOL = 'pay';
const prepare = (raw) => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: raw });

async function grantFor(grants, raw) {
  const first = await authorizeToolCall({ prepared: prepare(raw), policy: grants.policy(), execute: () => 'ran' });
  assert.equal(first.decision, 'require_approval');
  await grants.grant(first.proposal, { uses: 1 });
}

/** Runs one attempt; counts executions; a refused spend is not an execution. */
async function attempt(raw, policy, ran) {
  const decision = await evaluateToolCall({ prepared: prepare(raw), policy });
  if (decision.decision !== 'allow') return decision;
  try {
    await executeToolCall(decision, (args) => ran.push(JSON.stringify(args)));
  } catch (error) {
    if (error.code !== 'grant_unavailable') throw error;
  }
  return decision;
}

test("review: a policy memoized by proposal hash (the grants helper's answer reused for a later attempt) executes a single-use grant once", async () => {
  // lib/grants/index.js:299-319 ties the use to the evaluation whose input the helper was
  // called with; a later evaluation that gets the same answer object relied on the same
  // grant but spends nothing (lib/run/decide.js:185 makes an allow with no use).
  const grants = createApprovalGrants();
  await grantFor(grants, '{"amount":900}');
  // (A fallback that asks for approval: a deny is final since issue 33, grant or not.)
  const grantPolicy = grants.policy(() => ({ decision: 'require_approval', reason: 'not_approved' }));
  const cache = new Map();
  const memoized = (input) => {
    if (!cache.has(input.proposalHash)) cache.set(input.proposalHash, grantPolicy(input));
    return cache.get(input.proposalHash);
  };
  const ran = [];
  for (let i = 0; i < 5; i++) await attempt('{"amount":900}', memoized, ran);
  assert.equal(ran.length, 1, `a uses:1 grant executed ${ran.length} times`);
});

test("review: a policy that consults the grants with another (concurrent) evaluation's input cannot allow its own, unapproved arguments", async () => {
  // The classic shared-variable bug of a concurrent server: `current` is overwritten by the
  // next request before the grants are asked. grantPolicy(input) adds the use to the
  // evaluation of the input it is given (A), answers allow, and B's evaluation concludes
  // allow with no use of its own: B's arguments run, and only A's run spends the grant.
  const grants = createApprovalGrants();
  await grantFor(grants, '{"amount":5,"to":"bob"}');
  const grantPolicy = grants.policy(() => ({ decision: 'require_approval', reason: 'needs_review' }));
  let current;
  const gates = [];
  const policy = async (input) => {
    current = input;
    await new Promise((resolve) => gates.push(resolve)); // an audit log write, a lookup...
    return grantPolicy(current);
  };
  const ran = [];
  const b = attempt('{"amount":5000000,"to":"mallory"}', policy, ran);
  const a = attempt('{"amount":5,"to":"bob"}', policy, ran);
  while (gates.length < 2) await new Promise((resolve) => setImmediate(resolve));
  for (const release of gates) release();
  await Promise.all([a, b]);
  assert.deepEqual(
    ran.filter((r) => r.includes('mallory')),
    [],
    "mallory's transfer ran on bob's approval",
  );
});

test('review: code that reaches the process-wide registry cannot make a grant-backed allow spend nothing', async () => {
  // Evaluations are frozen objects of functions over private state (registry v2 and
  // later): what the v1 records let code write (spent, uses, open, failed) is gone. Since
  // v3 the evaluation is reached through the context the policy runs in.
  const registry = globalThis[Symbol.for('tool-argument-snapshot.evaluations.v3')];
  assert.ok(registry, 'the registry exists');
  const grants = createApprovalGrants();
  await grantFor(grants, '{"amount":77}');
  const grantPolicy = grants.policy();
  let tries = 0;
  let refused = 0;
  const policy = async (input) => {
    const answer = await grantPolicy(input);
    const evaluation = registry.context.getStore();
    if (evaluation !== undefined) {
      for (const [key, value] of [
        ['spent', Promise.resolve(true)],
        ['spend', async () => true],
        ['hasUses', () => false],
        ['uses', []],
      ]) {
        tries++;
        try {
          evaluation[key] = value;
        } catch {
          refused++;
        }
      }
      assert.ok(Object.isFrozen(evaluation), 'the evaluation is frozen');
    }
    return answer;
  };
  const ran = [];
  for (let i = 0; i < 3; i++) await attempt('{"amount":77}', policy, ran);
  assert.equal(ran.length, 1, `a uses:1 grant executed ${ran.length} times`);
  assert.ok(tries > 0, 'the evaluations were reached');
  assert.equal(refused, tries, 'every write was refused (strict mode throws on a frozen object)');
});
