'use strict';
// Run-loop contract v2 (issue 10): evaluateToolCall -> (record) -> executeToolCall, the
// ToolCallNotAllowedError codes, decidedBy, RUNTIME_REASONS, the stricter policy-result
// check, the grants hook, and authorizeToolCall as evaluate-then-execute.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');

const { prepareToolCall, evaluateToolCall, executeToolCall, authorizeToolCall, canonicalize, RUNTIME_REASONS, ToolCallNotAllowedError } = require('../..');
const { AGENT, TOOL, recordingHandler } = require('./pipeline-helpers');

const RAW = '{"city":"Oslo","days":3}';
const CANONICAL = '{"city":"Oslo","days":3}';

function prepare(rawArguments = RAW) {
  return prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments });
}

const allow = () => ({ decision: 'allow', reason: 'ok' });

async function refused(promise, code, label) {
  let error;
  try {
    await promise;
  } catch (caught) {
    error = caught;
  }
  assert.ok(error instanceof ToolCallNotAllowedError, `${label}: a ToolCallNotAllowedError (got ${error && error.name})`);
  assert.equal(error.name, 'ToolCallNotAllowedError', `${label}: name`);
  assert.equal(error.code, code, `${label}: code`);
  assert.ok(error.message.endsWith(`[${code}]`), `${label}: the message ends with the code: ${error.message}`);
  return error;
}

describe('executeToolCall runs only an allow that evaluateToolCall made, at most once', () => {
  test('an allow decision runs the handler once, with a fresh view', async () => {
    const prepared = prepare();
    let policyView;
    const decision = await evaluateToolCall({
      prepared,
      policy: (input) => {
        policyView = input.parsedArguments;
        return allow();
      },
    });
    assert.equal(decision.decision, 'allow');
    assert.equal(decision.decidedBy, 'policy');
    assert.equal(decision.reason, 'ok');
    assert.equal(decision.agentName, AGENT);
    assert.equal(decision.toolName, TOOL);
    assert.equal(decision.argsCanonicalJson, CANONICAL);
    assert.equal(decision.proposalHash, prepared.proposalHash);
    assert.ok(Object.isFrozen(decision), 'the decision is frozen');
    const handler = recordingHandler('done');
    assert.equal(await executeToolCall(decision, handler.execute), 'done');
    assert.equal(handler.calls.length, 1);
    assert.equal(canonicalize(handler.calls[0]), CANONICAL);
    assert.notEqual(handler.calls[0], policyView, 'the handler view is not the policy view');
  });

  test('a denied decision makes executeToolCall throw not_allowed without running the handler', async () => {
    const decision = await evaluateToolCall({ prepared: prepare(), policy: () => ({ decision: 'deny', reason: 'no' }) });
    const handler = recordingHandler();
    const error = await refused(executeToolCall(decision, handler.execute), 'not_allowed', 'deny');
    assert.equal(error.toolName, TOOL);
    assert.equal(handler.calls.length, 0);
  });

  test('an approval-required decision makes executeToolCall throw not_allowed without running the handler', async () => {
    const decision = await evaluateToolCall({ prepared: prepare(), policy: () => ({ decision: 'require_approval', reason: 'human' }) });
    assert.equal(decision.proposal.kind, 'tool');
    assert.equal(decision.proposal.proposalHash, decision.proposalHash);
    const handler = recordingHandler();
    await refused(executeToolCall(decision, handler.execute), 'not_allowed', 'approval');
    assert.equal(handler.calls.length, 0);
  });

  test('a mutated decision (policy_mutated_arguments) makes executeToolCall throw not_allowed without running the handler', async () => {
    const decision = await evaluateToolCall({
      prepared: prepare(),
      policy: (input) => {
        input.parsedArguments.days = 365;
        return allow();
      },
    });
    assert.equal(decision.decision, 'deny');
    assert.equal(decision.reason, 'policy_mutated_arguments');
    assert.equal(decision.decidedBy, 'runtime');
    assert.equal(decision.policyResult.decision, 'allow', 'the policy result rides along');
    const handler = recordingHandler();
    await refused(executeToolCall(decision, handler.execute), 'not_allowed', 'mutated');
    assert.equal(handler.calls.length, 0);
  });

  test('an already-executed decision makes executeToolCall throw already_executed without running the handler again', async () => {
    const decision = await evaluateToolCall({ prepared: prepare(), policy: allow });
    const handler = recordingHandler();
    await executeToolCall(decision, handler.execute);
    await refused(executeToolCall(decision, handler.execute), 'already_executed', 'second call');
    assert.equal(handler.calls.length, 1);
  });

  test('two concurrent executeToolCall calls on one decision run the handler once', async () => {
    const decision = await evaluateToolCall({ prepared: prepare(), policy: allow });
    const handler = recordingHandler();
    const results = await Promise.allSettled([executeToolCall(decision, handler.execute), executeToolCall(decision, handler.execute)]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    assert.equal(handler.calls.length, 1);
  });

  test('a forged or spread-copied decision is refused with not_a_decision', async () => {
    const decision = await evaluateToolCall({ prepared: prepare(), policy: allow });
    const handler = recordingHandler();
    const forged = {
      decision: 'allow',
      reason: 'ok',
      decidedBy: 'policy',
      agentName: AGENT,
      toolName: TOOL,
      argsCanonicalJson: CANONICAL,
      proposalHash: decision.proposalHash,
    };
    for (const [label, value] of [
      ['a forged object', forged],
      ['a spread copy', { ...decision }],
      ['Object.assign copy', Object.assign({}, decision)],
      ['structuredClone', structuredClone(decision)],
      ['an object inheriting from the decision', Object.create(decision)],
      ['null', null],
      ['a string', 'allow'],
    ]) {
      await refused(executeToolCall(value, handler.execute), 'not_a_decision', label);
    }
    assert.equal(handler.calls.length, 0);
    // The real decision is still unspent.
    await executeToolCall(decision, handler.execute);
    assert.equal(handler.calls.length, 1);
  });

  test('a handler that is not a function is a TypeError and spends nothing', async () => {
    const decision = await evaluateToolCall({ prepared: prepare(), policy: allow });
    await assert.rejects(executeToolCall(decision, 'nope'), TypeError);
    const handler = recordingHandler();
    await executeToolCall(decision, handler.execute);
    assert.equal(handler.calls.length, 1);
  });

  test('errors of the handler propagate', async () => {
    const decision = await evaluateToolCall({ prepared: prepare(), policy: allow });
    const boom = new Error('handler failed');
    await assert.rejects(
      executeToolCall(decision, () => {
        throw boom;
      }),
      (error) => error === boom,
    );
  });
});

describe('decidedBy and RUNTIME_REASONS', () => {
  test('RUNTIME_REASONS is a frozen array of exactly the five runtime reasons', () => {
    assert.ok(Array.isArray(RUNTIME_REASONS));
    assert.ok(Object.isFrozen(RUNTIME_REASONS));
    assert.deepEqual([...RUNTIME_REASONS].sort(), [
      'grant_store_unavailable',
      'invalid_policy_result',
      'policy_error',
      'policy_mutated_arguments',
      'policy_not_configured',
    ]);
  });

  const RUNTIME_CASES = [
    [
      'policy_mutated_arguments',
      {
        policy: (input) => {
          input.parsedArguments.city = 'X';
          return allow();
        },
      },
    ],
    [
      'policy_error',
      {
        policy: () => {
          throw new Error('policy broke');
        },
      },
    ],
    ['invalid_policy_result', { policy: () => ({ verdict: 'fine' }) }],
    ['policy_not_configured', {}],
  ];
  for (const [reason, fields] of RUNTIME_CASES) {
    test(`${reason} is a deny with decidedBy runtime, through evaluateToolCall and authorizeToolCall`, async () => {
      const decision = await evaluateToolCall({ prepared: prepare(), ...fields });
      assert.equal(decision.decision, 'deny');
      assert.equal(decision.reason, reason);
      assert.equal(decision.decidedBy, 'runtime');
      assert.ok(RUNTIME_REASONS.includes(decision.reason));
      const handler = recordingHandler();
      const outcome = await authorizeToolCall({ prepared: prepare(), execute: handler.execute, ...fields });
      assert.equal(outcome.decision, 'deny');
      assert.equal(outcome.reason, reason);
      assert.equal(outcome.decidedBy, 'runtime');
      assert.equal(handler.calls.length, 0);
    });
  }

  test('a policy returning reason policy_mutated_arguments is decidedBy policy', async () => {
    const decision = await evaluateToolCall({ prepared: prepare(), policy: () => ({ decision: 'deny', reason: 'policy_mutated_arguments' }) });
    assert.equal(decision.reason, 'policy_mutated_arguments');
    assert.equal(decision.decidedBy, 'policy');
    const outcome = await authorizeToolCall({
      prepared: prepare(),
      policy: () => ({ decision: 'deny', reason: 'policy_mutated_arguments' }),
      execute: () => 1,
    });
    assert.equal(outcome.decidedBy, 'policy');
  });

  test('policy_error carries the thrown error; a rejected promise is policy_error too', async () => {
    const boom = new Error('x');
    const thrown = await evaluateToolCall({
      prepared: prepare(),
      policy: () => {
        throw boom;
      },
    });
    assert.equal(thrown.error, boom);
    const rejected = await evaluateToolCall({
      prepared: prepare(),
      policy: async () => {
        throw boom;
      },
    });
    assert.equal(rejected.reason, 'policy_error');
    assert.equal(rejected.error, boom);
  });
});

describe('policy results are checked strictly', () => {
  const INVALID = [
    ['an empty reason', () => ({ decision: 'allow', reason: '' })],
    ['a missing reason', () => ({ decision: 'allow' })],
    ['a non-string reason', () => ({ decision: 'allow', reason: 1 })],
    ['an unknown decision', () => ({ decision: 'maybe', reason: 'r' })],
    ['undefined', () => undefined],
    ['a string', () => 'allow'],
    ['an inherited decision and reason', () => Object.create({ decision: 'allow', reason: 'r' })],
    [
      'a getter for decision',
      () => ({
        get decision() {
          return 'allow';
        },
        reason: 'r',
      }),
    ],
    [
      'a getter for reason',
      () => ({
        decision: 'allow',
        get reason() {
          return 'r';
        },
      }),
    ],
    [
      'a throwing getter for decision',
      () => ({
        get decision() {
          throw new Error('getter');
        },
        reason: 'r',
      }),
    ],
    ['a Proxy', () => new Proxy({ decision: 'allow', reason: 'r' }, {})],
    [
      'a Proxy whose traps throw',
      () =>
        new Proxy(
          {},
          {
            get() {
              throw new Error('trap');
            },
            getOwnPropertyDescriptor() {
              throw new Error('trap');
            },
          },
        ),
    ],
  ];
  for (const [label, policy] of INVALID) {
    test(`${label} is a runtime deny invalid_policy_result, never a rejected promise`, async () => {
      const decision = await evaluateToolCall({ prepared: prepare(), policy });
      assert.equal(decision.decision, 'deny');
      assert.equal(decision.reason, 'invalid_policy_result');
      assert.equal(decision.decidedBy, 'runtime');
      const handler = recordingHandler();
      const outcome = await authorizeToolCall({ prepared: prepare(), policy, execute: handler.execute });
      assert.equal(outcome.reason, 'invalid_policy_result');
      assert.equal(handler.calls.length, 0);
    });
  }

  test('a Proxy result runs none of its traps', async () => {
    let traps = 0;
    const handler = new Proxy(
      {},
      {
        get() {
          traps += 1;
          return undefined;
        },
      },
    );
    const decision = await evaluateToolCall({ prepared: prepare(), policy: () => new Proxy({ decision: 'allow', reason: 'r' }, handler) });
    assert.equal(decision.reason, 'invalid_policy_result');
    assert.equal(traps, 0);
  });

  test('extra fields of a valid result stay in policyResult', async () => {
    const result = { decision: 'allow', reason: 'r', grantId: 'g1', audit: { by: 'rule 7' } };
    const decision = await evaluateToolCall({ prepared: prepare(), policy: () => result });
    assert.equal(decision.policyResult, result);
  });
});

describe('the grants hook', () => {
  test('spend(decision) is called with the decision right before the handler; true runs it', async () => {
    const events = [];
    const decision = await evaluateToolCall({ prepared: prepare(), policy: allow });
    const grants = {
      spend(d) {
        events.push(['spend', d]);
        return true;
      },
    };
    await executeToolCall(decision, () => events.push(['handler']), { grants });
    assert.equal(events.length, 2);
    assert.equal(events[0][0], 'spend');
    assert.equal(events[0][1], decision);
    assert.equal(events[1][0], 'handler');
  });

  test('a promise of true runs the handler; spend may be inherited (a class method)', async () => {
    class Grants {
      async spend() {
        return true;
      }
    }
    const decision = await evaluateToolCall({ prepared: prepare(), policy: allow });
    const handler = recordingHandler('ran');
    assert.equal(await executeToolCall(decision, handler.execute, { grants: new Grants() }), 'ran');
  });

  const REFUSALS = [
    ['false', () => false],
    ['a truthy non-true value', () => 1],
    ['a promise of false', async () => false],
    [
      'a throw',
      () => {
        throw new Error('store down');
      },
    ],
    [
      'a rejection',
      async () => {
        throw new Error('store down');
      },
    ],
    [
      'a thenable (never awaited)',
      () => ({
        then(resolve) {
          resolve(true);
        },
      }),
    ],
  ];
  for (const [label, spend] of REFUSALS) {
    test(`${label} from spend: grant_unavailable, nothing runs, and the decision is spent`, async () => {
      const decision = await evaluateToolCall({ prepared: prepare(), policy: allow });
      const handler = recordingHandler();
      await refused(executeToolCall(decision, handler.execute, { grants: { spend } }), 'grant_unavailable', label);
      assert.equal(handler.calls.length, 0);
      await refused(executeToolCall(decision, handler.execute), 'already_executed', `${label}, second call`);
      assert.equal(handler.calls.length, 0);

      const outcomeHandler = recordingHandler();
      const outcome = await authorizeToolCall({ prepared: prepare(), policy: allow, execute: outcomeHandler.execute, grants: { spend } });
      assert.equal(outcome.decision, 'deny');
      assert.equal(outcome.decidedBy, 'runtime');
      assert.equal(outcome.reason, 'grant_unavailable');
      assert.equal(outcomeHandler.calls.length, 0);
    });
  }

  test('spend is not asked for a deny, an approval or a non-decision', async () => {
    let spends = 0;
    const grants = {
      spend() {
        spends += 1;
        return true;
      },
    };
    const deny = await evaluateToolCall({ prepared: prepare(), policy: () => ({ decision: 'deny', reason: 'no' }) });
    await refused(
      executeToolCall(deny, () => 1, { grants }),
      'not_allowed',
      'deny',
    );
    await refused(
      executeToolCall({}, () => 1, { grants }),
      'not_a_decision',
      'forged',
    );
    assert.equal(spends, 0);
  });

  test('an inherited grants option is not read', async () => {
    const decision = await evaluateToolCall({ prepared: prepare(), policy: allow });
    const handler = recordingHandler();
    const options = Object.create({ grants: { spend: () => false } });
    await executeToolCall(decision, handler.execute, options);
    assert.equal(handler.calls.length, 1);
  });
});

describe('authorizeToolCall is evaluateToolCall then executeToolCall', () => {
  test('an allow runs execute once and the outcome has decidedBy policy and the result', async () => {
    const handler = recordingHandler('r');
    const outcome = await authorizeToolCall({ prepared: prepare(), policy: allow, execute: handler.execute });
    assert.equal(outcome.decision, 'allow');
    assert.equal(outcome.decidedBy, 'policy');
    assert.equal(outcome.result, 'r');
    assert.equal(handler.calls.length, 1);
  });

  test('a require_approval outcome carries the proposal and decidedBy policy', async () => {
    const outcome = await authorizeToolCall({ prepared: prepare(), policy: () => ({ decision: 'require_approval', reason: 'h' }), execute: () => 1 });
    assert.equal(outcome.decidedBy, 'policy');
    assert.equal(outcome.proposal.argsCanonicalJson, CANONICAL);
  });
});

describe('verifySnapshot: stored proposals are verified before anything uses them', () => {
  const { verifySnapshot, decodeView, createSnapshot, proposalHash, SnapshotDomainError } = require('../..');
  const { createHash } = require('node:crypto');
  const AGENT2 = 'Verify agent';
  const TOOL2 = 'transfer';
  const VALUE = { amount: 100, to: 'acct-7', memo: 'rent' };
  // Oracle: the RFC-0016 envelope, key-sorted by hand, through JSON.stringify and SHA-256.
  const envelopeHash = (agentName, toolName, argsCanonicalJson) =>
    createHash('sha256')
      .update(JSON.stringify({ agentName, argsCanonicalJson, kind: 'tool', toolName }))
      .digest('hex');
  const storedRecord = () => JSON.parse(JSON.stringify(createSnapshot({ agentName: AGENT2, toolName: TOOL2, value: VALUE })));
  const code = (c) => (error) => error instanceof SnapshotDomainError && error.code === c;

  test('a record loaded from storage verifies, and the result is a frozen snapshot decodeView treats as its own', () => {
    const stored = { ...storedRecord(), savedAt: '2026-12-01', approvedBy: 'ops' };
    assert.equal(stored.argsCanonicalJson, '{"amount":100,"memo":"rent","to":"acct-7"}');
    assert.equal(stored.proposalHash, envelopeHash(AGENT2, TOOL2, stored.argsCanonicalJson));
    const snapshot = verifySnapshot(stored);
    assert.ok(Object.isFrozen(snapshot));
    assert.deepEqual(Object.keys(snapshot).sort(), ['agentName', 'argsCanonicalJson', 'proposalHash', 'toolName']);
    assert.equal(snapshot.proposalHash, stored.proposalHash);
    const a = decodeView(snapshot);
    const b = decodeView(snapshot);
    assert.deepEqual(a, VALUE);
    assert.notEqual(a, b, 'fresh views');
  });

  test('a changed key order is not_canonical', () => {
    const stored = storedRecord();
    stored.argsCanonicalJson = '{"memo":"rent","amount":100,"to":"acct-7"}';
    stored.proposalHash = envelopeHash(AGENT2, TOOL2, stored.argsCanonicalJson);
    assert.throws(() => verifySnapshot(stored), code('not_canonical'));
  });

  test('other non-canonical spellings are not_canonical', () => {
    for (const text of [
      '{"amount":100, "memo":"rent","to":"acct-7"}',
      '{"amount":1e2,"memo":"rent","to":"acct-7"}',
      '{"amount":100,"memo":"r\\u0065nt","to":"acct-7"}',
      ' {"amount":100,"memo":"rent","to":"acct-7"}',
    ]) {
      const stored = { agentName: AGENT2, toolName: TOOL2, argsCanonicalJson: text, proposalHash: envelopeHash(AGENT2, TOOL2, text) };
      assert.throws(() => verifySnapshot(stored), code('not_canonical'), text);
    }
  });

  test('a changed value is hash_mismatch', () => {
    const stored = storedRecord();
    stored.argsCanonicalJson = '{"amount":100000,"memo":"rent","to":"acct-7"}';
    assert.throws(() => verifySnapshot(stored), code('hash_mismatch'));
  });

  test('a changed agent or tool is hash_mismatch', () => {
    assert.throws(() => verifySnapshot({ ...storedRecord(), agentName: 'Other agent' }), code('hash_mismatch'));
    assert.throws(() => verifySnapshot({ ...storedRecord(), toolName: 'delete_account' }), code('hash_mismatch'));
  });

  test('a wrong hash is hash_mismatch', () => {
    for (const hash of ['0'.repeat(64), envelopeHash(AGENT2, TOOL2, '{}'), storedRecord().proposalHash.toUpperCase(), '']) {
      assert.throws(() => verifySnapshot({ ...storedRecord(), proposalHash: hash }), code('hash_mismatch'), hash);
    }
  });

  test('anything else is not_a_snapshot, and no getter or trap runs', () => {
    let ran = 0;
    const withGetter = storedRecord();
    Object.defineProperty(withGetter, 'proposalHash', {
      get() {
        ran += 1;
        return storedRecord().proposalHash;
      },
      enumerable: true,
    });
    const inherited = Object.create(storedRecord());
    const { toolName, ...missing } = storedRecord();
    assert.equal(toolName, TOOL2);
    for (const [label, value] of [
      ['null', null],
      ['a string', '{}'],
      ['a number', 1],
      ['an array', []],
      ['a missing field', missing],
      ['a non-string field', { ...storedRecord(), argsCanonicalJson: { amount: 100 } }],
      ['a lone surrogate in the agent name', { ...storedRecord(), agentName: 'a\ud800' }],
      ['a getter', withGetter],
      ['inherited fields', inherited],
      [
        'a Proxy',
        new Proxy(storedRecord(), {
          get() {
            ran += 1;
          },
          getOwnPropertyDescriptor() {
            ran += 1;
          },
        }),
      ],
    ]) {
      assert.throws(() => verifySnapshot(value), code('not_a_snapshot'), label);
    }
    assert.equal(ran, 0);
  });

  test('the hash it checks is the one proposalHash computes', () => {
    const stored = storedRecord();
    assert.equal(proposalHash(stored), stored.proposalHash);
  });
});
