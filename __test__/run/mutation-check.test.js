'use strict';
// The mutation check of evaluateToolCall answers exactly what canonicalizing the policy's
// view answers. A view still exactly as the package copied it is recognized without
// canonicalizing it (lib/snapshot/view.js unchangedCopy); every other view is
// canonicalized. These cases sit at the edge between the two: changes that keep the
// canonical JSON (allowed), changes that keep every value but not what the walk accepts
// (denied), and views whose checks must not run any of the view's code.

const { test } = require('node:test');
const assert = require('node:assert/strict');

const { prepareToolCall, evaluateToolCall, canonicalize } = require('../..');

const RAW = '{"a":{"b":[1,{"c":"x"},[]],"e":{}},"n":-1.5e-7,"s":"t","7":true,"__proto__":null}';

async function decide(mutate) {
  const prepared = prepareToolCall({ agentName: 'agent', toolName: 'tool', rawArguments: RAW });
  let after;
  const decision = await evaluateToolCall({
    prepared,
    policy: (input) => {
      mutate(input.parsedArguments);
      after = input.parsedArguments;
      return { decision: 'allow', reason: 'ok' };
    },
  });
  return { decision, after, expected: prepared.argsCanonicalJson };
}

/** What canonicalizing the view after the policy gives: the oracle of the check. */
function canonicalAllows(view, expected) {
  try {
    return canonicalize(view) === expected;
  } catch {
    return false;
  }
}

const KEEP_JSON = [
  ['an untouched view', () => {}],
  [
    'a prototype reset to null',
    (v) => {
      Object.setPrototypeOf(v.a, null);
    },
  ],
  [
    'a key deleted and added again (another insertion order)',
    (v) => {
      const s = v.s;
      delete v.s;
      v.s = s;
    },
  ],
  [
    'empty members replaced with new empty ones',
    (v) => {
      v.a.b[2] = [];
      v.a.e = {};
    },
  ],
  [
    'a nested object replaced with an equal copy',
    (v) => {
      v.a = JSON.parse(JSON.stringify(v.a));
    },
  ],
  [
    'a value written again (the same string)',
    (v) => {
      v.a.b[1].c = 'x';
    },
  ],
  [
    'the view frozen',
    (v) => {
      Object.freeze(v.a.b);
    },
  ],
];

for (const [label, mutate] of KEEP_JSON) {
  test(`keeps the canonical JSON, allowed: ${label}`, async () => {
    const { decision, after, expected } = await decide(mutate);
    assert.equal(canonicalAllows(after, expected), true, 'the oracle: the view canonicalizes to the snapshot');
    assert.equal(decision.decision, 'allow');
  });
}

const CHANGE = [
  [
    'a number changed to negative zero',
    (v) => {
      v.n = -0;
    },
  ],
  [
    'the integer-like key made non-enumerable',
    (v) => {
      Object.defineProperty(v, '7', { enumerable: false });
    },
  ],
  [
    'an own "__proto__" data member removed',
    (v) => {
      delete v.__proto__;
    },
  ],
  [
    'a getter returning the same value on an array element',
    (v) => {
      Object.defineProperty(v.a.b, 0, { get: () => 1, enumerable: true, configurable: true });
    },
  ],
  [
    'a setter-only accessor on a member',
    (v) => {
      Object.defineProperty(v.a.b[1], 'c', { set() {}, enumerable: true, configurable: true });
    },
  ],
  [
    'an extra non-index property on an array',
    (v) => {
      v.a.b.extra = 1;
    },
  ],
  [
    'a hole made where an index was, with an extra property to keep the count',
    (v) => {
      delete v.a.b[0];
      v.a.b.x = 1;
    },
  ],
  [
    'a symbol key on an empty object',
    (v) => {
      v.a.e[Symbol('s')] = 1;
    },
  ],
  [
    'the same array in two places',
    (v) => {
      v.a.e = v.a.b[2];
    },
  ],
  [
    'an empty object replaced with a Map reset to Object.prototype',
    (v) => {
      v.a.e = Object.setPrototypeOf(new Map(), Object.prototype);
    },
  ],
  [
    'an array replaced with a Proxy of itself',
    (v) => {
      v.a.b = new Proxy(v.a.b, {});
    },
  ],
];

for (const [label, mutate] of CHANGE) {
  test(`not what was approved, denied: ${label}`, async () => {
    const { decision, after, expected } = await decide(mutate);
    assert.equal(canonicalAllows(after, expected), false, 'the oracle: the view does not canonicalize to the snapshot');
    assert.equal(decision.decision, 'deny');
    assert.equal(decision.reason, 'policy_mutated_arguments');
  });
}

test('the check runs no getter of the view (a getter put where a member was)', async () => {
  let calls = 0;
  const { decision } = await decide((v) => {
    Object.defineProperty(v.a.b[1], 'c', {
      get: () => {
        calls += 1;
        return 'x';
      },
      enumerable: true,
      configurable: true,
    });
  });
  assert.equal(decision.reason, 'policy_mutated_arguments');
  assert.equal(calls, 0);
});

test('an empty object is asked to prove itself ordinary, as the walk asks it', async (t) => {
  // A function under a symbol on Object.prototype could be called by structured cloning:
  // the walk then refuses every empty object, and so does the check of an untouched view.
  const key = Symbol('clone hook');
  Object.defineProperty(Object.prototype, key, { value() {}, configurable: true, writable: true });
  t.after(() => delete Object.prototype[key]);
  const { decision, after, expected } = await decide(() => {});
  assert.equal(canonicalAllows(after, expected), false, 'the oracle refuses the empty objects');
  assert.equal(decision.reason, 'policy_mutated_arguments');
});
