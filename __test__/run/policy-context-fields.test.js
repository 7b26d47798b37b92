'use strict';
// Which fields of a policyContext reach the policy input: its own enumerable data
// properties (string and symbol keys, in own-key order), never an accessor (whose code
// never runs), a non-enumerable or an inherited field. The expected fields are computed
// here from the property descriptors (the oracle), for contexts of every kind of field:
// only data fields, and mixed ones.

const { test } = require('node:test');
const assert = require('node:assert/strict');

const { prepareToolCall, evaluateToolCall } = require('../..');

const ARGUMENT_FIELDS = ['agentName', 'toolName', 'rawArguments', 'requestedArguments', 'parsedArguments', 'argsCanonicalJson', 'proposalHash'];

/** The oracle: own enumerable data fields, in Reflect.ownKeys order. */
function expectedFields(context) {
  const fields = [];
  for (const key of Reflect.ownKeys(context)) {
    const descriptor = Object.getOwnPropertyDescriptor(context, key);
    if (descriptor.enumerable && 'value' in descriptor) fields.push([key, descriptor.value]);
  }
  return fields;
}

async function inputFor(policyContext) {
  const prepared = prepareToolCall({ agentName: 'Context agent', toolName: 'ctx', rawArguments: '{"a":1}' });
  let seen;
  await evaluateToolCall({
    prepared,
    policyContext,
    policy: (input) => {
      seen = input;
      return { decision: 'deny', reason: 'seen' };
    },
  });
  return seen;
}

function contextFields(input) {
  // The input's own fields before the argument fields, with their values (accessors excluded: the input has one, requestedArguments).
  return Reflect.ownKeys(input)
    .filter((key) => !ARGUMENT_FIELDS.includes(key))
    .map((key) => [key, Object.getOwnPropertyDescriptor(input, key).value]);
}

test('a context of data fields only: every enumerable one, in order, symbols and __proto__ included', async () => {
  const sym = Symbol('s');
  const hidden = Symbol('hidden');
  const context = JSON.parse('{"turn":3,"__proto__":{"x":1},"2":"two","runContext":{"id":"r"}}');
  context[sym] = 'symbol';
  Object.defineProperty(context, 'quiet', { value: 'not enumerable', enumerable: false });
  Object.defineProperty(context, hidden, { value: 'not enumerable', enumerable: false });
  context.agentName = 'spoofed';
  const input = await inputFor(context);
  const expected = expectedFields(context).filter(([key]) => !ARGUMENT_FIELDS.includes(key));
  assert.deepEqual(contextFields(input), expected);
  assert.equal(Object.getPrototypeOf(input), Object.prototype);
  assert.equal(input.agentName, 'Context agent');
  assert.equal(input.runContext, context.runContext, 'values are passed as they are');
  assert.ok(!Object.hasOwn(input, 'quiet') && !Object.hasOwn(input, hidden));
});

test('a context with accessors (enumerable getters, setter-only, on a symbol): none runs, none is copied, the data fields are', async () => {
  let ran = 0;
  const sym = Symbol('getter');
  const context = { before: 1 };
  Object.defineProperty(context, 'getter', {
    get() {
      ran += 1;
      return 'g';
    },
    enumerable: true,
  });
  Object.defineProperty(context, 'setterOnly', {
    set() {
      ran += 1;
    },
    enumerable: true,
  });
  Object.defineProperty(context, sym, {
    get() {
      ran += 1;
      return 's';
    },
    enumerable: true,
  });
  context.after = 2;
  const input = await inputFor(context);
  assert.equal(ran, 0);
  assert.deepEqual(contextFields(input), expectedFields(context));
  assert.deepEqual(contextFields(input), [
    ['before', 1],
    ['after', 2],
  ]);
  // Only a setter-only accessor: it is not a data field (reading it would give undefined).
  const setterOnly = { a: 1 };
  Object.defineProperty(setterOnly, 'write', {
    set() {
      ran += 1;
    },
    enumerable: true,
  });
  assert.deepEqual(contextFields(await inputFor(setterOnly)), [['a', 1]]);
  // Only a symbol accessor: the string fields are data.
  const onlySymbol = { a: 1 };
  Object.defineProperty(onlySymbol, Symbol('x'), {
    get() {
      ran += 1;
      return 1;
    },
    enumerable: true,
  });
  assert.deepEqual(contextFields(await inputFor(onlySymbol)), [['a', 1]]);
  assert.equal(ran, 0);
  // An inherited field is not copied, an inherited setter is not reached.
  const proto = {};
  Object.defineProperty(proto, 'inherited', {
    get() {
      ran += 1;
      return 1;
    },
    set() {
      ran += 1;
    },
    enumerable: true,
  });
  const child = Object.create(proto);
  child.own = 'yes';
  assert.deepEqual(contextFields(await inputFor(child)), [['own', 'yes']]);
  assert.equal(ran, 0);
});

test('arrays and class instances as contexts: their own enumerable data fields', async () => {
  assert.deepEqual(contextFields(await inputFor(['a', 'b'])), expectedFields(['a', 'b']));
  class Run {
    constructor() {
      this.id = 'run-1';
    }

    get computed() {
      throw new Error('never read');
    }
  }
  assert.deepEqual(contextFields(await inputFor(new Run())), [['id', 'run-1']]);
});
