'use strict';
// Issue 16, items 4, 5 and 7, and the review findings 1, 3, 4 and 6 against d0c85eb:
// a grant is spent by the evaluation that relied on it, whatever copy of the package or
// grants object evaluates or executes, however the result is copied or decorated; no
// constructor path forges a prepared call; there is no execution view outside
// executeToolCall; every grants entry point refuses a Proxy unread.

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const pkg = require('../..');
const { createApprovalGrants, prepareToolCall, evaluateToolCall, executeToolCall, authorizeToolCall, RUNTIME_REASONS } = pkg;

const AGENT = 'payments';
const TOOL = 'pay';
const prepare = (api, raw) => api.prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: raw });

/** A second copy of the package, loaded from another folder: its own module instances and its own addon handle. */
function loadCopy(dir) {
  for (const entry of ['index.js', 'package.json', 'lib']) fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  for (const file of fs.readdirSync(ROOT).filter((f) => f.endsWith('.node'))) fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
  return require(dir);
}

async function approve(grants, raw, api = pkg) {
  const first = await api.authorizeToolCall({ prepared: prepare(api, raw), policy: grants.policy(), execute: () => 'ran' });
  assert.equal(first.decision, 'require_approval');
  await grants.grant(first.proposal);
  return first.proposal;
}

describe('two copies of the package in one process (finding 1)', () => {
  let dir;
  let copy;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-copy-'));
    copy = loadCopy(dir);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('the copy is really another instance', () => {
    assert.notEqual(copy.prepareToolCall, pkg.prepareToolCall);
    assert.notEqual(copy.createApprovalGrants, pkg.createApprovalGrants);
  });

  for (const [label, makeGrants, evaluator] of [
    ['grants of copy A, evaluateToolCall and executeToolCall of copy B without the grants option', () => createApprovalGrants(), () => copy],
    ['grants of copy B, evaluateToolCall and executeToolCall of copy A without the grants option', () => copy.createApprovalGrants(), () => pkg],
  ]) {
    test(`${label}: one single-use approval executes once in 5 attempts`, async () => {
      const grants = makeGrants();
      const api = evaluator();
      await approve(grants, '{"amount":5}', api);
      let ran = 0;
      for (let i = 0; i < 5; i++) {
        const decision = await api.evaluateToolCall({ prepared: prepare(api, '{"amount":5}'), policy: grants.policy() });
        if (decision.decision !== 'allow') continue;
        try {
          await api.executeToolCall(decision, () => {
            ran++;
          });
        } catch (error) {
          assert.equal(error.code, 'grant_unavailable');
        }
      }
      assert.equal(ran, 1);
    });
  }

  test('authorizeToolCall of copy B with another grants object of copy B: the copy A grant is spent once', async () => {
    const grants = createApprovalGrants();
    const other = copy.createApprovalGrants();
    await approve(grants, '{"amount":7}');
    let ran = 0;
    for (let i = 0; i < 5; i++) {
      const outcome = await copy.authorizeToolCall({
        prepared: prepare(copy, '{"amount":7}'),
        policy: grants.policy(),
        grants: other,
        execute: () => {
          ran++;
        },
      });
      assert.ok(['allow', 'require_approval'].includes(outcome.decision), outcome.reason);
    }
    assert.equal(ran, 1);
  });

  test('both copies share one registry on the global object (non-enumerable, non-writable)', () => {
    const key = Symbol.for('tool-argument-snapshot.evaluations.v3');
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, key);
    assert.ok(descriptor, 'the registry exists');
    assert.equal(descriptor.enumerable, false);
    assert.equal(descriptor.writable, false);
    assert.equal(descriptor.configurable, false);
  });
});

describe('no copy or decoration replays a grant (finding 3)', () => {
  const decorations = [
    ['spread and decorated', (grantPolicy) => async (input) => ({ ...(await grantPolicy(input)), audited: true })],
    [
      'copied field by field',
      (grantPolicy) => async (input) => {
        const r = await grantPolicy(input);
        return { decision: r.decision, reason: r.reason };
      },
    ],
    ['wrapped in a new object with a prototype', (grantPolicy) => async (input) => Object.assign(Object.create({ kind: 'wrapped' }), await grantPolicy(input))],
    ['JSON round trip', (grantPolicy) => async (input) => JSON.parse(JSON.stringify(await grantPolicy(input)))],
    [
      'the helper called twice',
      (grantPolicy) => async (input) => {
        await grantPolicy(input);
        return grantPolicy(input);
      },
    ],
  ];
  for (const [label, decorate] of decorations) {
    test(`${label}: a single-use grant executes once in 5 attempts (authorizeToolCall and the three steps)`, async () => {
      for (const steps of ['authorize', 'three steps']) {
        const grants = createApprovalGrants();
        await approve(grants, '{"amount":5}');
        const policy = decorate(grants.policy());
        let ran = 0;
        for (let i = 0; i < 5; i++) {
          if (steps === 'authorize') {
            await authorizeToolCall({
              prepared: prepare(pkg, '{"amount":5}'),
              policy,
              execute: () => {
                ran++;
              },
            });
          } else {
            const decision = await evaluateToolCall({ prepared: prepare(pkg, '{"amount":5}'), policy });
            if (decision.decision === 'allow')
              await executeToolCall(decision, () => {
                ran++;
              }).catch((e) => assert.equal(e.code, 'grant_unavailable'));
          }
        }
        assert.equal(ran, 1, `${label} (${steps})`);
      }
    });
  }

  test('an allow from a policy that never consulted the grants spends nothing', async () => {
    const grants = createApprovalGrants();
    const proposal = await approve(grants, '{"amount":5}');
    const outcome = await authorizeToolCall({
      prepared: prepare(pkg, '{"amount":5}'),
      policy: () => ({ decision: 'allow', reason: 'open' }),
      grants,
      execute: () => 'ran',
    });
    assert.equal(outcome.result, 'ran');
    assert.equal(await grants.has(proposal), true);
  });

  test('a grants policy called with a copy of the input finds no evaluation: the fallback answers', async () => {
    const grants = createApprovalGrants();
    await approve(grants, '{"amount":5}');
    const grantPolicy = grants.policy(() => ({ decision: 'deny', reason: 'fallback' }));
    const outcome = await authorizeToolCall({ prepared: prepare(pkg, '{"amount":5}'), policy: (input) => grantPolicy({ ...input }), execute: () => 'ran' });
    assert.equal(outcome.decision, 'deny');
    assert.equal(outcome.reason, 'fallback');
  });

  test('a grants policy called after its evaluation ended adds nothing to spend', async () => {
    const grants = createApprovalGrants();
    const proposal = await approve(grants, '{"amount":5}');
    const grantPolicy = grants.policy();
    let stashed;
    const decision = await evaluateToolCall({
      prepared: prepare(pkg, '{"amount":5}'),
      policy: (input) => {
        stashed = input;
        return { decision: 'allow', reason: 'own' };
      },
    });
    const late = await grantPolicy(stashed);
    assert.equal(late.decision, 'require_approval', 'a closed evaluation gets the fallback');
    await executeToolCall(decision, () => 'ran', { grants });
    assert.equal(await grants.has(proposal), true);
  });
});

describe('nothing forged, nothing bypassed (finding 4, item 5)', () => {
  test('new prepared.constructor(...) cannot make a prepared call around a mutable snapshot', async () => {
    const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"amount":5}' });
    const plain = { agentName: AGENT, toolName: TOOL, argsCanonicalJson: '{"amount":5}', proposalHash: prepared.proposalHash };
    const request = { rawArguments: '{"amount":5}', blank: false };
    for (const args of [
      [AGENT, TOOL, '{"amount":5}', request, plain],
      [undefined, AGENT, TOOL, '{"amount":5}', request, plain],
      [Symbol('construct a prepared call'), AGENT, TOOL, '{"amount":5}', request, plain],
    ]) {
      assert.throws(() => new prepared.constructor(...args), TypeError);
    }
    assert.equal(typeof prepared.constructor.snapshotOf, 'undefined', 'no static method hands out the private snapshot');
    assert.equal(typeof prepared.constructor.requestOf, 'undefined', 'no static method hands out the private request');
  });

  test('the edit of a plain snapshot after an allow never reaches a handler', async () => {
    // d0c85eb: a forged prepared call around this object was accepted, and editing it
    // after the allow made the handler receive {"amount":5000000}.
    const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"amount":5}' });
    const plain = { ...prepared.snapshot };
    let forged;
    try {
      forged = new prepared.constructor(AGENT, TOOL, '{"amount":5}', { rawArguments: '{"amount":5}', blank: false }, plain);
    } catch {
      forged = undefined;
    }
    assert.equal(forged, undefined);
    await assert.rejects(evaluateToolCall({ prepared: Object.freeze({ ...prepared }), policy: () => ({ decision: 'allow', reason: 'ok' }) }), TypeError);
  });

  test('a prepared call has no executionView: an execution view exists only inside executeToolCall', async () => {
    const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"amount":5}' });
    assert.equal(prepared.executionView, undefined);
    assert.equal('executionView' in prepared, false);
    assert.deepEqual(prepared.policyView(), { amount: 5 });
    const decision = await evaluateToolCall({ prepared, policy: () => ({ decision: 'deny', reason: 'no' }) });
    await assert.rejects(
      executeToolCall(decision, () => 'ran'),
      (error) => error.code === 'not_allowed',
    );
  });
});

describe('grants entry points refuse a Proxy unread (finding 6, item 7)', () => {
  /** A Proxy whose every trap counts and then behaves as the target. */
  function counted(target) {
    const hits = [];
    const handler = {};
    for (const trap of ['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf', 'defineProperty', 'set', 'apply']) {
      handler[trap] = (...args) => {
        hits.push(trap);
        return Reflect[trap](...args);
      };
    }
    return { proxy: new Proxy(target, handler), hits };
  }

  test('createApprovalGrants(options), its store, its keys and each key', () => {
    for (const [label, build] of [
      ['options', (p) => p],
      ['options.store', (p) => ({ store: p })],
      ['options.keys', (p) => ({ keys: p })],
      ['a key', (p) => ({ keys: [p] })],
      ['options.now', (p) => ({ now: p })],
    ]) {
      const target =
        label === 'options.keys'
          ? [{ id: 'k', secret: 'x'.repeat(32) }]
          : label === 'a key'
            ? { id: 'k', secret: 'x'.repeat(32) }
            : label === 'options.now'
              ? () => 0
              : label === 'options.store'
                ? { put() {}, has() {}, take() {} }
                : {};
      const { proxy, hits } = counted(target);
      assert.throws(() => createApprovalGrants(build(proxy)), TypeError, label);
      assert.deepEqual(hits, [], `${label}: no trap ran`);
    }
  });

  test('grant(record, options), seal(proposal, options), has, revoke, policy(fallback), spend, keepProposal', async () => {
    const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"amount":5}' });
    const record = { ...prepared.snapshot };
    const plain = createApprovalGrants();
    const keyed = createApprovalGrants({ keys: [{ id: 'k', secret: 'x'.repeat(32) }] });
    const cases = [
      ['grant(record)', (p) => plain.grant(p), record],
      ['grant(record, options)', (p) => plain.grant(record, p), {}],
      ['keyed grant(record)', (p) => keyed.grant(p), keyed.seal(record)],
      ['seal(proposal)', (p) => keyed.seal(p), record],
      ['seal(proposal, options)', (p) => keyed.seal(record, p), {}],
      ['has(query)', (p) => plain.has(p), record],
      ['revoke(query)', (p) => plain.revoke(p), record],
      ['policy(fallback)', (p) => plain.policy(p), () => ({ decision: 'deny', reason: 'x' })],
      ['keepProposal(key)', (p) => plain.keepProposal(p, record), { runId: 'r', toolCallId: 'c' }],
      ['keepProposal(key, proposal)', (p) => plain.keepProposal({ runId: 'r', toolCallId: 'c' }, p), record],
      ['keptProposal(key)', (p) => plain.keptProposal(p), { runId: 'r', toolCallId: 'c' }],
    ];
    for (const [label, run, target] of cases) {
      const { proxy, hits } = counted(target);
      await assert.rejects(async () => run(proxy), TypeError, label);
      assert.deepEqual(hits, [], `${label}: no trap ran`);
    }
    const { proxy, hits } = counted({ decision: 'allow' });
    assert.equal(await plain.spend(proxy), false, 'spend(Proxy) is false');
    assert.deepEqual(hits, [], 'spend: no trap ran');
  });
});

describe('grant_store_unavailable (item 1: faults)', () => {
  const failing = (how) => ({
    put() {
      return true;
    },
    has() {
      if (how === 'throw') throw new Error('store down');
      return Promise.reject(new Error('store down'));
    },
    take() {
      throw new Error('store down');
    },
  });
  for (const how of ['throw', 'reject']) {
    test(`a store whose has() ${how}s while the policy looks: deny, decidedBy runtime, grant_store_unavailable; nothing runs`, async () => {
      assert.ok(RUNTIME_REASONS.includes('grant_store_unavailable'));
      const grants = createApprovalGrants({ store: failing(how) });
      let ran = 0;
      // Even a policy that catches the helper's answer and allows is overruled.
      const policy = async (input) => {
        await grants.policy()(input);
        return { decision: 'allow', reason: 'anyway' };
      };
      const outcome = await authorizeToolCall({
        prepared: prepare(pkg, '{"amount":5}'),
        policy,
        execute: () => {
          ran++;
        },
      });
      assert.deepEqual([outcome.decision, outcome.decidedBy, outcome.reason], ['deny', 'runtime', 'grant_store_unavailable']);
      const decision = await evaluateToolCall({ prepared: prepare(pkg, '{"amount":5}'), policy: grants.policy() });
      assert.deepEqual([decision.decision, decision.decidedBy, decision.reason], ['deny', 'runtime', 'grant_store_unavailable']);
      assert.equal(ran, 0);
      assert.doesNotMatch(JSON.stringify(outcome) + String(outcome.error), /amount/);
    });
  }

  test('a store whose take() fails at spend: grant_unavailable, nothing runs', async () => {
    const memory = createApprovalGrants();
    const proposal = await approve(memory, '{"amount":5}');
    let live = true;
    const store = {
      put() {
        return true;
      },
      has() {
        return live;
      },
      take() {
        live = false;
        throw new Error('store down');
      },
    };
    const grants = createApprovalGrants({ store });
    let ran = 0;
    const outcome = await authorizeToolCall({
      prepared: prepare(pkg, proposal.argsCanonicalJson),
      policy: grants.policy(),
      execute: () => {
        ran++;
      },
    });
    assert.deepEqual([outcome.decision, outcome.decidedBy, outcome.reason], ['deny', 'runtime', 'grant_unavailable']);
    assert.equal(ran, 0);
  });
});
