'use strict';
// The strict snapshot domain of RFC-0016: what canonicalize and createSnapshot reject
// (one error code per cause), what they accept, that they never run code of the value
// (no trap, getter, setter, toJSON, toPrimitive, toString, valueOf), and that depth is
// bounded without exhausting the stack.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Worker } = require('node:worker_threads');

const { canonicalize, createSnapshot, decodeView, SnapshotDomainError, ToolArgumentsValidationError, MAX_DEPTH } = require('../..');
const { CASES, nest, wrap, newSecret } = require('./cases');

const AGENT = 'Domain test agent';
const TOOL = 'domain_tool';

/** Asserts that canonicalize(value) throws SnapshotDomainError with `code`. */
function assertCanonicalizeCode(value, code, label) {
  let thrown;
  try {
    canonicalize(value);
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown !== undefined, `${label}: canonicalize should throw ${code}, but it returned`);
  assert.ok(
    thrown instanceof SnapshotDomainError,
    `${label}: canonicalize should throw a SnapshotDomainError, got ${thrown && thrown.name}: ${thrown && thrown.message}`,
  );
  assert.equal(thrown.code, code, `${label}: canonicalize error code`);
}

/** Asserts that createSnapshot({ value }) throws ToolArgumentsValidationError at stage snapshot with `code`. */
function assertSnapshotCode(value, code, label, toolName = TOOL) {
  let thrown;
  try {
    createSnapshot({ agentName: AGENT, toolName, value });
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown !== undefined, `${label}: createSnapshot should throw ${code}, but it returned`);
  assert.ok(
    thrown instanceof ToolArgumentsValidationError,
    `${label}: createSnapshot should throw a ToolArgumentsValidationError, got ${thrown && thrown.name}: ${thrown && thrown.message}`,
  );
  assert.equal(thrown.code, code, `${label}: createSnapshot error code`);
  assert.equal(thrown.stage, 'snapshot', `${label}: createSnapshot error stage`);
  assert.equal(thrown.toolName, toolName, `${label}: createSnapshot error toolName`);
}

function assertBothCode(value, code, label) {
  assertCanonicalizeCode(value, code, label);
  assertSnapshotCode(value, code, label);
}

/** Both APIs accept `value` and produce `expected`; returns the snapshot. */
function assertAccepted(value, expected, label) {
  let json;
  assert.doesNotThrow(() => {
    json = canonicalize(value);
  }, `${label}: canonicalize should accept the value`);
  if (expected !== undefined) assert.equal(json, expected, `${label}: canonical JSON`);
  let snapshot;
  assert.doesNotThrow(() => {
    snapshot = createSnapshot({ agentName: AGENT, toolName: TOOL, value });
  }, `${label}: createSnapshot should accept the value`);
  assert.equal(snapshot.argsCanonicalJson, json, `${label}: createSnapshot JSON equals canonicalize`);
  return snapshot;
}

describe('every value outside the strict snapshot domain is rejected with the code of its cause', () => {
  const codesCovered = new Set(CASES.map((c) => c.code));

  test('the table covers every domain error code', () => {
    for (const code of [
      'unsupported_type',
      'non_finite_number',
      'negative_zero',
      'lone_surrogate',
      'non_plain_object',
      'sparse_array',
      'array_extra_property',
      'accessor_property',
      'non_enumerable_property',
      'symbol_key',
      'cycle',
      'repeated_reference',
      'depth_limit',
    ]) {
      assert.ok(codesCovered.has(code), `the case table has no case for ${code}`);
    }
  });

  for (const testCase of CASES) {
    test(`${testCase.name} gives ${testCase.code} at the root and nested in a valid payload`, () => {
      const secret = newSecret();
      assertBothCode(testCase.make(secret), testCase.code, `${testCase.name} (root)`);
      assertBothCode(wrap(secret, testCase.make(secret)), testCase.code, `${testCase.name} (nested)`);
      assertBothCode([{ deep: [testCase.make(secret)] }], testCase.code, `${testCase.name} (in an array)`);
    });
  }

  test('createSnapshot echoes the tool name it was given in its error', () => {
    for (const toolName of ['a', 'search_web', 'outil-é', 'tool "quoted"', '工具']) {
      assertSnapshotCode({ bad: -0 }, 'negative_zero', `tool name ${JSON.stringify(toolName)}`, toolName);
    }
  });
});

describe('other built-ins with internal slots', () => {
  // RFC-0016: "undefined, bigint, symbols, functions, Date, RegExp, Map, Set, typed arrays,
  // class instances, and other host objects are rejected"; objects must be plain records.
  const others = [
    ['a WeakRef', () => new WeakRef({})],
    ['a FinalizationRegistry', () => new FinalizationRegistry(() => {})],
    ['an Intl.Collator', () => new Intl.Collator('en')],
    ['an Intl.DateTimeFormat', () => new Intl.DateTimeFormat('en')],
    ['an array iterator', () => [1, 2][Symbol.iterator]()],
    ['a string iterator', () => 'ab'[Symbol.iterator]()],
    ['a RegExp string iterator', () => 'aa'.matchAll(/a/g)],
  ];

  test('are rejected with their own prototype', () => {
    for (const [label, make] of others) assertBothCode(make(), 'non_plain_object', label);
  });

  test('are rejected even after their prototype is reset to Object.prototype or null', () => {
    const failures = [];
    for (const [label, make] of others) {
      for (const [protoLabel, proto] of [
        ['Object.prototype', Object.prototype],
        ['null', null],
      ]) {
        const value = Object.setPrototypeOf(make(), proto);
        let outcome;
        try {
          outcome = `accepted as ${canonicalize(value)}`;
        } catch (error) {
          outcome = error.code;
        }
        if (outcome !== 'non_plain_object') failures.push(`${label} reset to ${protoLabel}: ${outcome}`);
      }
    }
    assert.deepEqual(failures, [], `these built-ins with internal slots were not rejected as non_plain_object:\n${failures.join('\n')}`);
  });
});

describe('values inside the domain are accepted', () => {
  test('null-prototype objects are accepted and canonicalize like plain ones', () => {
    const plain = { b: 1, a: [true, null, 'x'], c: { z: 0, y: 'é' } };
    const bare = Object.assign(Object.create(null), {
      b: 1,
      a: [true, null, 'x'],
      c: Object.assign(Object.create(null), { z: 0, y: 'é' }),
    });
    const expected = '{"a":[true,null,"x"],"b":1,"c":{"y":"é","z":0}}';
    assertAccepted(plain, expected, 'plain objects');
    assertAccepted(bare, expected, 'null-prototype objects');
    assertAccepted(Object.create(null), '{}', 'an empty null-prototype object');
    assertAccepted([Object.create(null), { n: Object.create(null) }], '[{},{"n":{}}]', 'nested empty null-prototype objects');
  });

  test('own __proto__, constructor and prototype keys are kept as data at several depths', () => {
    const dataProp = (target, key, value) => Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
    const inner = dataProp({}, '__proto__', { polluted: true });
    dataProp(inner, 'constructor', { prototype: { polluted: true } });
    dataProp(inner, 'prototype', [1]);
    const middle = dataProp({ list: [inner] }, '__proto__', 'text');
    const root = dataProp({ middle }, 'constructor', 'Object');
    dataProp(root, 'prototype', null);
    dataProp(root, '__proto__', 7);
    const expected =
      '{"__proto__":7,"constructor":"Object","middle":{"__proto__":"text","list":[{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"prototype":[1]}]},"prototype":null}';
    const snapshot = assertAccepted(root, expected, 'keys defined with Object.defineProperty');

    const parsed = JSON.parse(expected);
    assertAccepted(parsed, expected, 'keys made by JSON.parse');
    assertAccepted(JSON.parse('{"__proto__":1}'), '{"__proto__":1}', 'JSON.parse(\'{"__proto__":1}\')');
    assertAccepted(JSON.parse('[{"a":{"__proto__":[]}}]'), '[{"a":{"__proto__":[]}}]', 'a deep JSON.parse __proto__ key');

    for (const [label, view] of [
      ['view of the snapshot', decodeView(snapshot)],
      ['view of the JSON text', decodeView(expected)],
    ]) {
      for (const [where, object] of [
        ['root', view],
        ['middle', view.middle],
        ['inner', view.middle.list[0]],
      ]) {
        assert.equal(Object.getPrototypeOf(object), Object.prototype, `${label}, ${where}: the prototype is Object.prototype (no prototype mutation)`);
        for (const key of ['__proto__', 'constructor', 'prototype']) {
          if (where === 'middle' && key !== '__proto__') continue;
          assert.ok(Object.hasOwn(object, key), `${label}, ${where}: ${key} is an own property`);
          const descriptor = Object.getOwnPropertyDescriptor(object, key);
          assert.ok(Object.hasOwn(descriptor, 'value'), `${label}, ${where}: ${key} is a data property`);
          assert.equal(descriptor.enumerable, true, `${label}, ${where}: ${key} is enumerable`);
        }
      }
      assert.equal(Object.getOwnPropertyDescriptor(view, '__proto__').value, 7, `${label}: root __proto__ value`);
      assert.equal(canonicalize(view), expected, `${label}: the view canonicalizes back to the snapshot`);
    }
    assert.equal({}.polluted, undefined, 'Object.prototype was not polluted');
  });

  test('integer-like keys sort as strings, in the default JavaScript sort order', () => {
    assert.equal(canonicalize({ 2: 1, 10: 1, 1: 1 }), '{"1":1,"10":1,"2":1}', 'the example from the brief');
    const keys = [
      '2',
      '10',
      '1',
      '0',
      '01',
      '-1',
      '1.5',
      '4294967294',
      '4294967295',
      '9007199254740993',
      'a',
      'B',
      '',
      ' ',
      'é',
      'e\u0301',
      '😀',
      '\uffff',
      '\ud83d\ude00x',
      'Z',
      '_',
      '~',
      '10a',
      '100',
    ];
    const object = {};
    keys.forEach((key, i) => {
      object[key] = i;
    });
    const sorted = Object.keys(object).sort();
    const expected = `{${sorted.map((key) => `${JSON.stringify(key)}:${object[key]}`).join(',')}}`;
    assertAccepted(object, expected, 'mixed integer-like and other keys');
    const bare = Object.assign(Object.create(null), object);
    assertAccepted(bare, expected, 'the same keys on a null-prototype object');
  });

  test('enumerable properties inherited from a polluted Object.prototype are ignored', () => {
    try {
      Object.prototype.polluted = 1; // eslint-disable-line no-extend-native
      assertAccepted({ a: 1 }, '{"a":1}', 'a plain object under pollution');
      assertAccepted({ n: { m: [{}] } }, '{"n":{"m":[{}]}}', 'nested objects under pollution');
      assertAccepted(Object.assign(Object.create(null), { a: 1 }), '{"a":1}', 'a null-prototype object under pollution');
      const view = decodeView(createSnapshot({ agentName: AGENT, toolName: TOOL, value: { a: 1 } }));
      assert.equal(Object.hasOwn(view, 'polluted'), false, 'a view does not get the polluted property as its own');
    } finally {
      delete Object.prototype.polluted;
    }
  });

  test('an index inherited from Array.prototype does not fill a hole', () => {
    try {
      Array.prototype[0] = 'inherited'; // eslint-disable-line no-extend-native
      assertBothCode([, 1], 'sparse_array', 'a leading hole with Array.prototype[0] set'); // eslint-disable-line no-sparse-arrays
      assertBothCode({ a: [, 1] }, 'sparse_array', 'a nested leading hole with Array.prototype[0] set'); // eslint-disable-line no-sparse-arrays
      assertAccepted([5, 6], '[5,6]', 'a dense array with Array.prototype[0] set');
      assertAccepted([], '[]', 'an empty array with Array.prototype[0] set');
    } finally {
      delete Array.prototype[0];
    }
  });

  test('frozen, sealed and non-extensible plain objects and arrays are accepted', () => {
    const deepFrozen = Object.freeze({ a: Object.freeze([1, Object.freeze({ b: 'c' })]) });
    assertAccepted(deepFrozen, '{"a":[1,{"b":"c"}]}', 'a deep-frozen object');
    assertAccepted(Object.seal({ b: 2, a: 1 }), '{"a":1,"b":2}', 'a sealed object');
    assertAccepted(Object.preventExtensions({ a: [] }), '{"a":[]}', 'a non-extensible object');
    assertAccepted(Object.freeze([1, 2]), '[1,2]', 'a frozen array');
    assertAccepted(Object.seal(['x']), '["x"]', 'a sealed array');
    assertAccepted(Object.freeze(Object.assign(Object.create(null), { k: 1 })), '{"k":1}', 'a frozen null-prototype object');
  });

  test('strings with valid astral pairs are accepted; lone surrogates in values and keys are not', () => {
    assertAccepted('😀', '"😀"', 'an astral character');
    assertAccepted({ '𝄞': '\ud834\udd1e', k: 'a😀b' }, '{"k":"a😀b","𝄞":"𝄞"}', 'astral characters in keys and values');
    assertAccepted(['\udbff\udfff', '\ud800\udc00'], '["\udbff\udfff","\ud800\udc00"]', 'the first and last astral pairs');
    for (const [label, value] of [
      ['a lone high surrogate value', '\ud800'],
      ['a lone low surrogate value', '\udfff'],
      ['a high surrogate at the end', 'abc\udbff'],
      ['two high surrogates', '\ud800\ud800'],
      ['a lone surrogate key', { '\ud800': 1 }],
      ['a lone surrogate key after a valid pair', { '😀\udc00': 1 }],
      ['a lone surrogate in a nested value', { a: [{ b: 'ok\udc00' }] }],
    ]) {
      assertBothCode(value, 'lone_surrogate', label);
    }
  });

  test('a value with exactly MAX_DEPTH nested containers is accepted', () => {
    assert.equal(MAX_DEPTH, 1024, 'MAX_DEPTH');
    assertAccepted(
      nest(MAX_DEPTH, () => 'array', 1),
      `${'['.repeat(MAX_DEPTH)}1${']'.repeat(MAX_DEPTH)}`,
      '1024 nested arrays',
    );
    assertAccepted(
      nest(MAX_DEPTH, () => 'object', 1),
      `${'{"k":'.repeat(MAX_DEPTH)}1${'}'.repeat(MAX_DEPTH)}`,
      '1024 nested objects',
    );
    let empty = [];
    for (let i = 1; i < MAX_DEPTH; i++) empty = [empty];
    assertAccepted(empty, `${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}`, '1024 nested arrays, the innermost empty');
    let emptyObjects = {};
    for (let i = 1; i < MAX_DEPTH; i++) emptyObjects = { k: emptyObjects };
    assertAccepted(emptyObjects, `${'{"k":'.repeat(MAX_DEPTH - 1)}{}${'}'.repeat(MAX_DEPTH - 1)}`, '1024 nested objects, the innermost empty');
  });

  test('a value with MAX_DEPTH + 1 nested containers gives depth_limit', () => {
    let arrays = [];
    for (let i = 1; i <= MAX_DEPTH; i++) arrays = [arrays];
    assertBothCode(arrays, 'depth_limit', '1025 nested arrays, the innermost empty');
    let objects = {};
    for (let i = 1; i <= MAX_DEPTH; i++) objects = { k: objects };
    assertBothCode(objects, 'depth_limit', '1025 nested objects, the innermost empty');
  });
});

describe('depth is bounded without exhausting the stack', () => {
  function millionLevels(kind) {
    let value = null;
    for (let i = 0; i < 1_000_000; i++) value = kind === 'array' ? [value] : { k: value };
    return value;
  }

  test('a value nested a million levels gives depth_limit', () => {
    assertBothCode(millionLevels('array'), 'depth_limit', 'a million nested arrays');
    assertBothCode(millionLevels('object'), 'depth_limit', 'a million nested objects');
    // The package is still usable afterwards.
    assert.equal(canonicalize({ b: [1], a: 2 }), '{"a":2,"b":[1]}', 'canonicalize after a depth failure');
  });

  test('a million-level value gives depth_limit inside a worker with a 1 MB stack', async () => {
    const source = `
      const { parentPort, workerData } = require('node:worker_threads');
      const { canonicalize, createSnapshot, decodeView } = require(workerData.pkg);
      const outcome = (fn) => { try { fn(); return 'accepted'; } catch (error) { return error.code || String(error); } };
      let arrays = null;
      for (let i = 0; i < 1e6; i++) arrays = [arrays];
      let objects = null;
      for (let i = 0; i < 1e6; i++) objects = { k: objects };
      let max = 0;
      for (let i = 0; i < workerData.maxDepth; i++) max = [max];
      parentPort.postMessage({
        arrays: outcome(() => canonicalize(arrays)),
        objects: outcome(() => createSnapshot({ agentName: 'a', toolName: 't', value: objects })),
        text: outcome(() => decodeView('['.repeat(1e6))),
        maxDepth: outcome(() => canonicalize(max)),
      });
    `;
    const worker = new Worker(source, {
      eval: true,
      workerData: { pkg: path.join(__dirname, '..', '..'), maxDepth: MAX_DEPTH },
      resourceLimits: { stackSizeMb: 1 },
    });
    const result = await new Promise((resolve, reject) => {
      let message;
      worker.once('message', (m) => {
        message = m;
      });
      worker.once('error', reject);
      worker.once('exit', (code) => (code === 0 && message ? resolve(message) : reject(new Error(`worker exited with code ${code} without a result`))));
    });
    assert.equal(result.arrays, 'depth_limit', 'worker: canonicalize of a million nested arrays');
    assert.equal(result.objects, 'depth_limit', 'worker: createSnapshot of a million nested objects');
    assert.equal(result.text, 'depth_limit', 'worker: decodeView of a million [');
    assert.equal(result.maxDepth, 'accepted', 'worker: canonicalize of MAX_DEPTH nested arrays');
  });
});

describe('cycles and repeated references', () => {
  test('a self-cycle, an indirect cycle and a cycle through an array give cycle', () => {
    const self = {};
    self.self = self;
    assertBothCode(self, 'cycle', 'a self-cycle');
    const a = {};
    const b = { a };
    a.b = b;
    assertBothCode(a, 'cycle', 'an indirect cycle');
    const viaArray = { list: [] };
    viaArray.list.push({ back: viaArray });
    assertBothCode(viaArray, 'cycle', 'a cycle through an array');
    const selfArray = [];
    selfArray.push(selfArray);
    assertBothCode(selfArray, 'cycle', 'an array containing itself');
  });

  test('the same object or array reached twice without a cycle gives repeated_reference', () => {
    const x = { v: 1 };
    assertBothCode({ a: x, b: x }, 'repeated_reference', 'the same object in sibling members');
    const list = [1];
    assertBothCode({ a: list, b: list }, 'repeated_reference', 'the same array in sibling members');
    assertBothCode([list, list], 'repeated_reference', 'the same array twice in an array');
    assertBothCode({ a: { x }, b: [[x]] }, 'repeated_reference', 'the same object at different depths');
  });

  test('equal but distinct objects are accepted, and a value can be snapshotted twice', () => {
    const shared = { v: 1 };
    assertAccepted({ a: { v: 1 }, b: { v: 1 } }, '{"a":{"v":1},"b":{"v":1}}', 'equal distinct objects');
    assertAccepted({ a: shared }, '{"a":{"v":1}}', 'first snapshot of a value');
    assertAccepted({ b: shared }, '{"b":{"v":1}}', 'a later snapshot reusing the same inner object');
  });
});

describe('no code of the value is ever run', () => {
  const TRAPS = [
    'get',
    'set',
    'has',
    'ownKeys',
    'getOwnPropertyDescriptor',
    'getPrototypeOf',
    'defineProperty',
    'deleteProperty',
    'apply',
    'construct',
    'isExtensible',
    'preventExtensions',
    'setPrototypeOf',
  ];

  function countingHandler(counter) {
    const handler = {};
    for (const trap of TRAPS) {
      handler[trap] = (...args) => {
        counter.count += 1;
        counter.traps.push(trap);
        return Reflect[trap](...args);
      };
    }
    return handler;
  }

  /** Runs canonicalize and createSnapshot on `value`, alone and deep inside a valid value. */
  function exercise(value, code, label) {
    assertBothCode(value, code, label);
    assertBothCode({ ok: 1, deep: [{ list: [1, 'two', { at: value }] }] }, code, `${label} (deep)`);
  }

  function assertNoCalls(counter, label) {
    assert.equal(counter.count, 0, `${label}: code of the value ran ${counter.count} time(s) (${counter.traps.join(', ')})`);
  }

  test('Proxies with every trap defined are rejected without any trap running', () => {
    const targets = [
      ['an object', () => ({ a: 1 })],
      ['an empty object', () => ({})],
      ['an array', () => [1, 2]],
      ['a null-prototype object', () => Object.create(null)],
      ['a function', () => function target() {}],
      ['an arrow function', () => () => 1],
      ['a class', () => class Target {}],
      ['another Proxy', () => new Proxy({}, {})],
    ];
    for (const [label, make] of targets) {
      const counter = { count: 0, traps: [] };
      const proxy = new Proxy(make(), countingHandler(counter));
      exercise(proxy, 'non_plain_object', `a Proxy of ${label}`);
      assertNoCalls(counter, `a Proxy of ${label}`);

      const revocable = { count: 0, traps: [] };
      const { proxy: revokedProxy, revoke } = Proxy.revocable(make(), countingHandler(revocable));
      revoke();
      exercise(revokedProxy, 'non_plain_object', `a revoked Proxy of ${label}`);
      assertNoCalls(revocable, `a revoked Proxy of ${label}`);
    }
  });

  test('a Proxy used as a prototype is never consulted', () => {
    const counter = { count: 0, traps: [] };
    const proto = new Proxy({}, countingHandler(counter));
    exercise(Object.create(proto), 'non_plain_object', 'an object whose prototype is a Proxy');
    const array = Object.setPrototypeOf([1], proto);
    exercise(array, 'non_plain_object', 'an array whose prototype is a Proxy');
    assertNoCalls(counter, 'a Proxy used as a prototype');
  });

  test('getters and setters on objects and array indices are never called', () => {
    const counter = { count: 0, traps: [] };
    const get = () => {
      counter.count += 1;
      counter.traps.push('getter');
      return 1;
    };
    const set = () => {
      counter.count += 1;
      counter.traps.push('setter');
    };
    const values = [
      ['a getter', () => Object.defineProperty({}, 'g', { get, enumerable: true })],
      ['a getter and setter', () => Object.defineProperty({}, 'g', { get, set, enumerable: true })],
      ['a setter only', () => Object.defineProperty({}, 's', { set, enumerable: true })],
      ['a non-enumerable getter', () => Object.defineProperty({}, 'g', { get })],
      ['a getter at an array index', () => Object.defineProperty([0, 0], 1, { get, enumerable: true })],
      ['a setter at an array index', () => Object.defineProperty([0, 0], 0, { set, enumerable: true })],
      ['a getter on a frozen object', () => Object.freeze(Object.defineProperty({ a: 1 }, 'g', { get, set, enumerable: true }))],
      ['a getter on a sealed object', () => Object.seal(Object.defineProperty({ a: 1 }, 'g', { get, enumerable: true }))],
      ['a getter on a frozen array', () => Object.freeze(Object.defineProperty([0], 0, { get, enumerable: true }))],
      ['a getter on a null-prototype object', () => Object.defineProperty(Object.create(null), 'g', { get, enumerable: true })],
    ];
    for (const [label, make] of values) {
      exercise(make(), 'accessor_property', label);
    }
    exercise(Object.defineProperty({ a: 1 }, 'length', { get, enumerable: true }), 'accessor_property', 'a getter named length');
    assertNoCalls(counter, 'getters and setters');
  });

  /** Runs `fn` and reports what happened, without asserting (for windows where built-ins are patched). */
  function outcome(fn) {
    try {
      return { json: fn() };
    } catch (error) {
      return { code: error.code, name: error.name };
    }
  }

  test("getters on a holey array's inherited index and on Object.prototype are never called", () => {
    const counter = { count: 0, traps: [] };
    const get = () => {
      counter.count += 1;
      return 1;
    };
    // The setter keeps ordinary writes working while the getter is installed; it is not counted.
    function set(v) {
      Object.defineProperty(this, '0', { value: v, writable: true, enumerable: true, configurable: true });
    }
    const results = {};
    try {
      Object.defineProperty(Array.prototype, 0, { get, set, configurable: true });
      Object.defineProperty(Object.prototype, 'trap', { get, configurable: true, enumerable: true });
      results.holeyCanonicalize = outcome(() => canonicalize([, 1])); // eslint-disable-line no-sparse-arrays
      results.holeySnapshot = outcome(() => createSnapshot({ agentName: AGENT, toolName: TOOL, value: { deep: [[, 1]] } })); // eslint-disable-line no-sparse-arrays
      results.plain = outcome(() => canonicalize({ a: [1] }));
      results.plainSnapshot = outcome(() => createSnapshot({ agentName: AGENT, toolName: TOOL, value: { a: [1] } }).argsCanonicalJson);
    } finally {
      delete Array.prototype[0];
      delete Object.prototype.trap;
    }
    assert.equal(counter.count, 0, `inherited getters ran ${counter.count} time(s)`);
    assert.deepEqual(
      results.holeyCanonicalize,
      { code: 'sparse_array', name: 'SnapshotDomainError' },
      'canonicalize of a holey array under an Array.prototype[0] getter',
    );
    assert.deepEqual(
      results.holeySnapshot,
      { code: 'sparse_array', name: 'ToolArgumentsValidationError' },
      'createSnapshot of a deep holey array under an Array.prototype[0] getter',
    );
    assert.deepEqual(results.plain, { json: '{"a":[1]}' }, 'canonicalize of a plain object under an Object.prototype getter');
    assert.deepEqual(results.plainSnapshot, { json: '{"a":[1]}' }, 'createSnapshot of a plain object under an Object.prototype getter');
  });

  test('toJSON, Symbol.toPrimitive, toString and valueOf are never called', () => {
    const counter = { count: 0, traps: [] };
    const spy = (name) =>
      function () {
        counter.count += 1;
        counter.traps.push(name);
        return 'spied';
      };
    const members = ['toJSON', 'toString', 'valueOf'];
    for (const name of members) {
      // An enumerable function member is an unsupported value in itself.
      exercise({ [name]: spy(name), a: 1 }, 'unsupported_type', `an enumerable ${name} member`);
      exercise(Object.defineProperty({ a: 1 }, name, { value: spy(name) }), 'non_enumerable_property', `a non-enumerable ${name} member`);
      exercise(Object.create({ [name]: spy(name) }), 'non_plain_object', `${name} on a prototype`);
      exercise(Object.defineProperty([1], name, { value: spy(name) }), 'array_extra_property', `a non-enumerable ${name} on an array`);
    }
    exercise({ [Symbol.toPrimitive]: spy('Symbol.toPrimitive') }, 'symbol_key', 'a Symbol.toPrimitive member');
    exercise(Object.defineProperty({}, Symbol.toPrimitive, { value: spy('Symbol.toPrimitive') }), 'symbol_key', 'a non-enumerable Symbol.toPrimitive member');
    exercise(Object.create({ [Symbol.toPrimitive]: spy('Symbol.toPrimitive') }), 'non_plain_object', 'Symbol.toPrimitive on a prototype');

    // Built-ins with a toJSON / toString of their own that a serializer would call.
    const date = new Date(0);
    date.toJSON = spy('Date toJSON');
    date.toISOString = spy('Date toISOString');
    exercise(date, 'non_plain_object', 'a Date with an own toJSON');
    const boxed = new Number(1);
    boxed.valueOf = spy('Number valueOf');
    boxed.toString = spy('Number toString');
    exercise(boxed, 'non_plain_object', 'a Number object with own valueOf and toString');
    assertNoCalls(counter, 'toJSON, toPrimitive, toString and valueOf');
  });

  test('toJSON, toString, valueOf and Symbol.toPrimitive on the shared prototypes are never called', () => {
    const counter = { count: 0, traps: [] };
    const spy = (name) =>
      function () {
        counter.count += 1;
        counter.traps.push(name);
        return 'spied';
      };
    const saved = [];
    const patches = [
      [Object.prototype, 'toJSON', spy('Object.prototype.toJSON')],
      [Array.prototype, 'toJSON', spy('Array.prototype.toJSON')],
      [String.prototype, 'toJSON', spy('String.prototype.toJSON')],
      [Number.prototype, 'toJSON', spy('Number.prototype.toJSON')],
      [Boolean.prototype, 'toJSON', spy('Boolean.prototype.toJSON')],
      [Object.prototype, Symbol.toPrimitive, spy('Object.prototype[Symbol.toPrimitive]')],
      [Array.prototype, 'toString', spy('Array.prototype.toString')],
      [Number.prototype, 'toString', spy('Number.prototype.toString')],
      [Object.prototype, 'toString', spy('Object.prototype.toString')],
      [Object.prototype, 'valueOf', spy('Object.prototype.valueOf')],
    ];
    const value = { b: [1, 'x', 2.5, { c: true }], a: null };
    const expected = '{"a":null,"b":[1,"x",2.5,{"c":true}]}';
    const results = {};
    try {
      for (const [target, key, fn] of patches) {
        saved.push([target, key, Object.getOwnPropertyDescriptor(target, key)]);
        Object.defineProperty(target, key, { value: fn, configurable: true, writable: true, enumerable: false });
      }
      results.shallow = outcome(() => canonicalize(value));
      results.deep = outcome(() => createSnapshot({ agentName: AGENT, toolName: TOOL, value: { deep: [[value]] } }).argsCanonicalJson);
      results.rejected = outcome(() => canonicalize({ a: [1, { b: -0 }] }));
    } finally {
      for (const [target, key, descriptor] of saved.reverse()) {
        if (descriptor === undefined) delete target[key];
        else Object.defineProperty(target, key, descriptor);
      }
    }
    assert.equal(counter.count, 0, `patched prototype methods ran ${counter.count} time(s) (${counter.traps.join(', ')})`);
    assert.deepEqual(results.shallow, { json: expected }, 'canonicalize under patched prototypes');
    assert.deepEqual(results.deep, { json: `{"deep":[[${expected}]]}` }, 'createSnapshot of a deep value under patched prototypes');
    assert.deepEqual(results.rejected, { code: 'negative_zero', name: 'SnapshotDomainError' }, 'a rejection under patched prototypes');
  });
});

describe('createSnapshot reads only its documented inputs', () => {
  test('the same value gives the same result through canonicalize and createSnapshot', () => {
    const value = { z: [1, { y: 'é' }], a: -1.5e-7 };
    const snapshot = assertAccepted(value, '{"a":-1.5e-7,"z":[1,{"y":"é"}]}', 'a small value');
    assert.equal(snapshot.agentName, AGENT, 'snapshot agentName');
    assert.equal(snapshot.toolName, TOOL, 'snapshot toolName');
  });

  test('a missing value is rejected as unsupported_type', () => {
    assertSnapshotCode(undefined, 'unsupported_type', 'createSnapshot without a value');
  });
});
