'use strict';
// The strict JavaScript reference (support/strict-reference.js) is the benchmark's
// stand-in for the core this package replaces and the differential oracle of the tests,
// so it must be exactly as strict as the package and run no foreign code either:
// - on every value row of the adversarial catalogue (helpers/adversarial-cases.js), in the row's
//   environment (pollution, patched prototypes), the catalogue's counters stay at zero
//   while the reference canonicalizes and snapshots the value, and the reference gives
//   the package's outcome (same canonical JSON and proposal hash, or the same code) and
//   the catalogue's expected one;
// - on every case of core/cases.js, at the root and wrapped in a payload, it gives the
//   package's code and the case's code;
// - with lying, counting replacements of every built-in it could reach, and counting
//   accessors on Object.prototype, installed after it loaded (in a child process: run
//   this file with --patched-child), nothing planted runs and every output is the one
//   it gave on pristine built-ins.

const path = require('node:path');

const reference = require('../../support/strict-reference');

const CHILD_FLAG = '--patched-child';

/**
 * Catalogue rows where the reference knowingly gives another outcome than the package,
 * with the code it gives (each is explained in the header of support/strict-reference.js).
 * A node:vm context's global object runs its sandbox's Proxy traps when its keys are
 * listed, and no check in Node 20 can tell beforehand (docs/security.md, Limits): when those
 * traps call the package, the package fails closed with reentrant_call; the reference
 * keeps no state between calls, so it gives the code of the global's first
 * non-enumerable property, as the package would without the inner call.
 */
const KNOWN_DIFFERENCES = {
  __proto__: null,
  'codes: a node:vm global whose sandbox calls the package again while its keys are listed': 'non_enumerable_property',
};

if (process.argv[2] === CHILD_FLAG) {
  patchedChild();
} else {
  defineTests();
}

// ---------------------------------------------------------------------------------
// The tests

function defineTests() {
  const { test, describe } = require('node:test');
  const assert = require('node:assert/strict');
  const { spawnSync } = require('node:child_process');

  const pkg = require('../..');
  const adversarial = require('../helpers/adversarial-cases');
  const cases = require('./cases');

  const { canonicalize, createSnapshot, decodeView } = pkg;
  const AGENT = 'Reference agent';
  const TOOL = 'reference_tool';

  function outcome(fn) {
    try {
      return { ok: true, value: fn() };
    } catch (error) {
      return { ok: false, error, code: error && error.code };
    }
  }

  function show(result) {
    if (result.ok) return `ok ${typeof result.value === 'string' ? JSON.stringify(result.value.slice(0, 120)) : typeof result.value}`;
    const e = result.error;
    return e === undefined ? `throws ${result.code}` : `throws ${e && e.name} ${e && e.code} (${e && String(e.message).slice(0, 120)})`;
  }

  /** Asserts that two outcomes of canonicalization agree: same JSON, or same code. */
  function assertSame(actual, expected, label) {
    assert.equal(actual.ok, expected.ok, `${label}: ${show(actual)}, expected ${show(expected)}`);
    if (expected.ok) assert.equal(actual.value, expected.value, `${label}: canonical JSON`);
    else assert.equal(actual.code, expected.code, `${label}: code (${show(actual)})`);
  }

  test("the reference has the package's depth limit", () => {
    assert.equal(reference.MAX_DEPTH, pkg.MAX_DEPTH);
  });

  describe("on every value row of the adversarial catalogue: no foreign code runs, the package's outcome", () => {
    const rows = adversarial.CASES.filter((row) => row.kind === 'value');
    test('the catalogue has value rows', () => assert.ok(rows.length >= 200, `only ${rows.length} value rows`));
    for (const row of rows) {
      test(row.id, () => {
        const counter = adversarial.newCounter();
        const value = row.make(counter);
        const env = row.envFactory ? row.envFactory(counter) : (run) => run();
        // The size_limit row builds about 540 M characters: canonicalize it once only.
        const heavy = row.expect.code === 'size_limit';
        const [ref, refSnapshot, refView] = env(() => {
          const json = outcome(() => reference.canonicalize(value));
          const snapshot = heavy ? null : outcome(() => reference.createSnapshot({ agentName: AGENT, toolName: TOOL, value }));
          const view = snapshot && snapshot.ok ? outcome(() => reference.decodeView(snapshot.value)) : null;
          return [json, snapshot, view];
        });
        assert.equal(
          counter.count,
          0,
          `${row.id}: code of the value or of a planted patch ran ${counter.count} time(s) in the reference: ${counter.log.join(', ')}`,
        );
        if (!ref.ok) assert.equal(ref.error instanceof reference.StrictReferenceError, true, `${row.id}: the reference threw something else: ${show(ref)}`);

        // The catalogue's expectation, then the package on a fresh copy in the same environment.
        if (KNOWN_DIFFERENCES[row.id] !== undefined) {
          assert.equal(ref.code, KNOWN_DIFFERENCES[row.id], `${row.id}: the reference's known different code (${show(ref)})`);
          return;
        }
        assert.notEqual(
          row.expect.code,
          'reentrant_call',
          `${row.id}: a re-entry row the reference cannot reproduce: add it to KNOWN_DIFFERENCES with the code the reference gives`,
        );
        const expected = row.expect.code !== undefined ? { ok: false, code: row.expect.code } : { ok: true, value: row.expect.json };
        assertSame(ref, expected, `${row.id}: the reference against the catalogue`);
        const pkgCounter = adversarial.newCounter();
        const pkgValue = row.make(pkgCounter);
        const pkgEnv = row.envFactory ? row.envFactory(pkgCounter) : (run) => run();
        const [actual, snapshot] = pkgEnv(() => [
          outcome(() => canonicalize(pkgValue)),
          heavy ? null : outcome(() => createSnapshot({ agentName: AGENT, toolName: TOOL, value: pkgValue })),
        ]);
        assertSame(ref, actual, `${row.id}: the reference against the package`);
        if (heavy) return;
        assert.equal(refSnapshot.ok, snapshot.ok, `${row.id}: createSnapshot: reference ${show(refSnapshot)}, package ${show(snapshot)}`);
        if (snapshot.ok) {
          assert.equal(refSnapshot.value.argsCanonicalJson, snapshot.value.argsCanonicalJson, `${row.id}: snapshot JSON`);
          assert.equal(refSnapshot.value.proposalHash, snapshot.value.proposalHash, `${row.id}: proposal hash`);
          if (!row.skipViews) assert.deepStrictEqual(refView.value, decodeView(snapshot.value), `${row.id}: views`);
        } else {
          assert.equal(refSnapshot.code, snapshot.code, `${row.id}: createSnapshot code`);
        }
      });
    }
  });

  describe("on every case of cases.js, at the root and inside a payload: the package's code", () => {
    for (const testCase of cases.CASES) {
      test(testCase.name, () => {
        for (const wrapped of [false, true]) {
          const secret = cases.newSecret();
          const make = () => (wrapped ? cases.wrap(secret, testCase.make(secret)) : testCase.make(secret));
          const label = `${testCase.name}${wrapped ? ' (wrapped)' : ''}`;
          const ref = outcome(() => reference.canonicalize(make()));
          assert.equal(ref.ok, false, `${label}: the reference accepts the value`);
          assert.equal(ref.code, testCase.code, `${label}: the reference's code`);
          assertSame(
            ref,
            outcome(() => canonicalize(make())),
            `${label}: the reference against the package`,
          );
          const refSnapshot = outcome(() => reference.createSnapshot({ agentName: AGENT, toolName: TOOL, value: make() }));
          assert.equal(refSnapshot.code, testCase.code, `${label}: the reference's createSnapshot code`);
        }
      });
    }
  });

  describe("on the hostile objects of security round 2 (issue 9): no foreign code runs, the package's outcome", () => {
    const net = require('node:net');
    const vm = require('node:vm');
    const WASM = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
    const cloneSymbol = Object.getOwnPropertySymbols(net.BlockList.prototype).find((s) => s.description === 'messaging_clone_symbol');
    const stripped = (object) => {
      for (const symbol of Object.getOwnPropertySymbols(object)) delete object[symbol];
      return Object.setPrototypeOf(object, Object.prototype);
    };
    /** Runs `run` with `key` of Object.prototype defined by `descriptor(counter)`. */
    const planted = (key, descriptor) => (counter) => (run) => {
      Object.defineProperty(Object.prototype, key, { configurable: true, ...descriptor(counter) });
      try {
        return run();
      } finally {
        delete Object.prototype[key];
      }
    };
    const cloneFunction = planted(cloneSymbol, (c) => ({
      writable: true,
      value() {
        c.hit('clone hook');
        return { data: {}, deserializeInfo: 'internal/blocklist:BlockList' };
      },
    }));
    const cloneGetter = planted(cloneSymbol, (c) => ({
      get() {
        c.hit('clone hook getter');
      },
    }));
    const hosts = [
      ['a BlockList', () => new net.BlockList()],
      ['a SocketAddress', () => new net.SocketAddress()],
      ['a ReadableStream', () => new ReadableStream()],
    ];
    const engine = [
      ['a WebAssembly.Module', () => new WebAssembly.Module(WASM)],
      ['a WebAssembly.Instance', () => new WebAssembly.Instance(new WebAssembly.Module(WASM))],
      ['a WebAssembly.Memory', () => new WebAssembly.Memory({ initial: 0 })],
      ['a shared WebAssembly.Memory', () => new WebAssembly.Memory({ initial: 0, maximum: 1, shared: true })],
      ['a WebAssembly.Table', () => new WebAssembly.Table({ initial: 0, element: 'anyfunc' })],
      ['a WebAssembly.Global', () => new WebAssembly.Global({ value: 'i32' })],
      ['a WebAssembly.Tag', () => new WebAssembly.Tag({ parameters: [] })],
      ['a WebAssembly.Exception', () => new WebAssembly.Exception(new WebAssembly.Tag({ parameters: [] }), [])],
      ['a WeakRef', () => new WeakRef({})],
      ['a FinalizationRegistry', () => new FinalizationRegistry(() => {})],
      ['an Array iterator', () => [][Symbol.iterator]()],
      ['a String iterator', () => ''[Symbol.iterator]()],
      ['a RegExp String iterator', () => 'a'.matchAll(/a/g)],
      ['Intl.Segmenter segments', () => new Intl.Segmenter().segment('a')],
      ['an Intl.Locale', () => new Intl.Locale('en')],
      ...['Collator', 'DateTimeFormat', 'NumberFormat', 'PluralRules', 'RelativeTimeFormat', 'ListFormat', 'Segmenter'].map((name) => [
        `an Intl.${name}`,
        () => new Intl[name]('en'),
      ]),
    ];
    const rows = [];
    for (const [label, make] of hosts) {
      rows.push([`${label} stripped and reset to Object.prototype`, () => ({ host: stripped(make()) })]);
      rows.push([`${label} stripped and reset, a function planted under the clone hook`, () => [stripped(make())], cloneFunction]);
      rows.push([`${label} stripped and reset, an accessor planted under the clone hook`, () => ({ a: 1, host: stripped(make()) }), cloneGetter]);
    }
    rows.push(['{} while an accessor is planted under the clone hook (fail closed)', () => ({ empty: {} }), cloneGetter]);
    rows.push(['a null-prototype {} while a function is planted under the clone hook', () => [Object.create(null)], cloneFunction]);
    for (const [label, make] of engine) {
      rows.push([`an empty ${label.replace(/^an? /, '')} reset to Object.prototype`, () => ({ value: Object.setPrototypeOf(make(), Object.prototype) })]);
      rows.push([`an empty ${label.replace(/^an? /, '')} reset to null`, () => [Object.setPrototypeOf(make(), null)]]);
    }
    const wellKnown = (c) => (run) => {
      const symbols = [Symbol.toPrimitive, Symbol.iterator, Symbol.toStringTag];
      for (const symbol of symbols)
        Object.defineProperty(Object.prototype, symbol, {
          configurable: true,
          get() {
            c.hit(`Object.prototype[${String(symbol)}]`);
          },
        });
      try {
        return run();
      } finally {
        for (const symbol of symbols) delete Object.prototype[symbol];
      }
    };
    rows.push(['well-known symbols planted on Object.prototype do not make {} fail', () => ({ a: {}, b: Object.create(null) }), wellKnown]);
    rows.push(['well-known symbols planted on Object.prototype: a Date reset to null', () => ({ d: Object.setPrototypeOf(new Date(0), null) }), wellKnown]);
    // The failure path: instanceof, RegExp and error messages patched (item 5).
    const failurePath = (c) => (run) => {
      const restore = [];
      const patch = (target, key, descriptor) => {
        restore.push([target, key, Object.getOwnPropertyDescriptor(target, key)]);
        Object.defineProperty(target, key, { configurable: true, ...descriptor });
      };
      const lie = () => {
        c.hit('patched failure-path built-in');
        return true;
      };
      for (const Ctor of [Error, RangeError, TypeError, SyntaxError, reference.StrictReferenceError, pkg.SnapshotDomainError])
        patch(Ctor, Symbol.hasInstance, { value: lie, writable: true });
      patch(RegExp.prototype, 'test', { value: lie, writable: true });
      patch(RegExp.prototype, 'exec', {
        value: () => {
          c.hit('RegExp.prototype.exec');
          return ['string length'];
        },
        writable: true,
      });
      patch(RangeError.prototype, 'message', {
        get() {
          c.hit('RangeError message');
          return 'Invalid string length';
        },
      });
      patch(Error.prototype, 'message', {
        get() {
          c.hit('Error message');
          return 'Invalid string length';
        },
      });
      try {
        return run();
      } finally {
        for (let i = restore.length - 1; i >= 0; i--) {
          const [target, key, saved] = restore[i];
          if (saved === undefined) delete target[key];
          else Object.defineProperty(target, key, saved);
        }
      }
    };
    for (const [code, make] of [
      ['non_plain_object', () => ({ d: new Date(0) })],
      [
        'accessor_property',
        () =>
          Object.defineProperty({}, 'g', {
            get() {
              return 1;
            },
            enumerable: true,
          }),
      ],
      ['sparse_array', () => [1, , 2]], // eslint-disable-line no-sparse-arrays
      ['negative_zero', () => [-0]],
      [
        'cycle',
        () => {
          const o = {};
          o.o = o;
          return o;
        },
      ],
      ['unsupported_type', () => ({ u: undefined })],
      ['lone_surrogate', () => ['\ud800']],
      [
        'depth_limit',
        () => {
          let v = 1;
          for (let i = 0; i <= pkg.MAX_DEPTH; i++) v = [v];
          return v;
        },
      ],
    ]) {
      rows.push([`${code} with instanceof, RegExp and error messages patched`, make, failurePath]);
    }

    for (const [label, make, envFactory] of rows) {
      test(label, () => {
        const counter = adversarial.newCounter();
        const env = envFactory ? envFactory(counter) : (run) => run();
        const value = make();
        const ref = env(() => outcome(() => reference.canonicalize(value)));
        const refSnapshot = env(() => outcome(() => reference.createSnapshot({ agentName: AGENT, toolName: TOOL, value })));
        assert.equal(counter.count, 0, `${label}: planted code ran ${counter.count} time(s) in the reference: ${counter.log.join(', ')}`);
        const pkgCounter = adversarial.newCounter();
        const pkgEnv = envFactory ? envFactory(pkgCounter) : (run) => run();
        const actual = pkgEnv(() => outcome(() => canonicalize(value)));
        assert.equal(pkgCounter.count, 0, `${label}: planted code ran in the package`);
        assertSame(ref, actual, `${label}: the reference against the package`);
        const snapshotJson = refSnapshot.ok ? { ok: true, value: refSnapshot.value.argsCanonicalJson } : refSnapshot;
        assertSame(snapshotJson, ref, `${label}: the reference's createSnapshot against its canonicalize`);
      });
    }

    test('a node:vm global (the documented limit of both): its traps run in both, the outcome is the same, never a record', () => {
      let traps = 0;
      const handler = {};
      for (const trap of ['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'defineProperty', 'deleteProperty', 'set']) {
        handler[trap] = (...args) => {
          traps++;
          return Reflect[trap](...args);
        };
      }
      const global = vm.runInContext('this', vm.createContext(new Proxy({ a: 1 }, handler)));
      Object.setPrototypeOf(global, Object.prototype);
      traps = 0;
      const ref = outcome(() => reference.canonicalize({ global }));
      const refTraps = traps;
      traps = 0;
      const actual = outcome(() => canonicalize({ global }));
      assert.equal(ref.ok, false, 'the reference accepted a vm global');
      assertSame(ref, actual, 'the reference against the package');
      assert.ok(
        refTraps > 0 && traps > 0,
        `traps ran ${refTraps} times in the reference and ${traps} in the package: if a side-effect-free check now exists, use it in both`,
      );
    });
  });

  test('createSnapshot takes its input as the package does: own data fields, no Proxy, well-formed names', () => {
    let ran = 0;
    const inputs = [
      ['inherited fields', () => Object.create({ agentName: 'a', toolName: 't', value: 1 }), 'TypeError'],
      ['a lone surrogate in the tool name', () => ({ agentName: 'a', toolName: '\ud800', value: 1 }), 'TypeError'],
      ['a lone surrogate in the agent name', () => ({ agentName: 'x\udc00', toolName: 't', value: 1 }), 'TypeError'],
      [
        'a Proxy input (no trap runs)',
        () =>
          new Proxy(
            { agentName: 'a', toolName: 't', value: 1 },
            {
              get() {
                ran++;
              },
              getOwnPropertyDescriptor() {
                ran++;
              },
            },
          ),
        'TypeError',
      ],
      [
        'a getter for the tool name (never called)',
        () => ({
          agentName: 'a',
          get toolName() {
            ran++;
            return 't';
          },
          value: 1,
        }),
        'TypeError',
      ],
      ['a number as the agent name', () => ({ agentName: 1, toolName: 't', value: 1 }), 'TypeError'],
      ['null', () => null, 'TypeError'],
      ['no value: undefined is outside the domain', () => ({ agentName: 'a', toolName: 't' }), 'unsupported_type'],
      ['an inherited value does not count', () => Object.assign(Object.create({ value: 1 }), { agentName: 'a', toolName: 't' }), 'unsupported_type'],
      ['a valid call', () => ({ agentName: 'agent', toolName: 'tool', value: { b: [1, 'x'], a: null } }), 'ok'],
    ];
    for (const [label, make, expected] of inputs) {
      const ref = outcome(() => reference.createSnapshot(make()));
      const actual = outcome(() => createSnapshot(make()));
      const kind = (result) => (result.ok ? 'ok' : result.error instanceof TypeError ? 'TypeError' : result.code);
      assert.equal(kind(ref), expected, `${label}: the reference (${show(ref)})`);
      assert.equal(kind(actual), expected, `${label}: the package (${show(actual)})`);
      if (ref.ok) {
        assert.equal(ref.value.argsCanonicalJson, actual.value.argsCanonicalJson, `${label}: JSON`);
        assert.equal(ref.value.proposalHash, actual.value.proposalHash, `${label}: hash`);
        assert.ok(Object.isFrozen(ref.value), `${label}: the reference's snapshot is frozen`);
      }
    }
    assert.equal(ran, 0, 'a trap or getter of an input ran');
  });

  test('with every built-in it could reach lying and counting after it loaded, nothing planted runs and every output is unchanged', () => {
    const child = spawnSync(process.execPath, [__filename, CHILD_FLAG], { encoding: 'utf8', timeout: 120000, maxBuffer: 1 << 24 });
    assert.equal(child.status, 0, `the child failed (status ${child.status}, signal ${child.signal}): ${String(child.stderr).slice(0, 2000)}`);
    const report = JSON.parse(child.stdout);
    assert.ok(report.cases >= 250, `only ${report.cases} cases ran`);
    assert.ok(report.patched >= 100, `only ${report.patched} built-ins were patched`);
    assert.ok(report.selfTestHits > 0, 'the harness does not see a call to a patched built-in');
    assert.deepStrictEqual(report.hits, {}, `patched built-ins ran: ${JSON.stringify(report.hits)}`);
    assert.deepStrictEqual(report.mismatches, [], 'outputs changed under the patches');
  });
}

// ---------------------------------------------------------------------------------
// The child: patches after load, runs every case again, compares (prints one JSON line).
// Between patching and restoring it calls only what it captured before patching.

function patchedChild() {
  const util = require('node:util');
  const crypto = require('node:crypto');
  const { CLASSES } = require(path.join(__dirname, '..', '..', 'support', 'payloads'));
  const adversarial = require('../helpers/adversarial-cases');
  const cases = require('./cases');

  const S = {
    apply: Reflect.apply,
    construct: Reflect.construct,
    define: Object.defineProperty,
    describe: Object.getOwnPropertyDescriptor,
  };
  const ObjectConstructor = Object;

  // Every input, built before anything is patched: [label, value].
  const inputs = [];
  for (const [name, make] of Object.entries(CLASSES)) inputs.push([`payload ${name}`, make(1)]);
  for (const row of adversarial.CASES) {
    // (Object.prototype as a value changes with the patches: planting on it is the point.)
    // (Rows of KNOWN_DIFFERENCES run code of their own: a vm global's sandbox traps.)
    if (
      row.kind === 'value' &&
      !row.envFactory &&
      row.expect.code !== 'size_limit' &&
      !row.id.includes('Object.prototype as a value') &&
      KNOWN_DIFFERENCES[row.id] === undefined
    ) {
      inputs.push([row.id, row.make(adversarial.newCounter())]);
    }
  }
  for (const testCase of cases.CASES) {
    const secret = cases.newSecret();
    inputs.push([testCase.name, cases.wrap(secret, testCase.make(secret))]);
  }
  const count = inputs.length;

  /** Runs every input through the reference into `out` (own slots, filled beforehand). */
  function runAll(out) {
    for (let i = 0; i < count; i++) {
      const value = inputs[i][1];
      let line;
      try {
        const json = reference.canonicalize(value);
        const snapshot = reference.createSnapshot({ agentName: 'agent', toolName: 'tool', value });
        const view = reference.decodeView(snapshot);
        line = `ok ${json} ${snapshot.proposalHash} ${snapshot.argsCanonicalJson === json} ${reference.canonicalize(view) === json} ${reference.proposalHash('agent', 'tool', json)}`;
      } catch (error) {
        const code = S.describe(error, 'code');
        line = `err ${code === undefined ? 'no code' : code.value}`;
      }
      out[i] = line;
    }
    return out;
  }

  const hits = { __proto__: null };
  let hitCount = 0;
  function hit(label) {
    hitCount++;
    hits[label] = (hits[label] || 0) + 1;
  }

  // The replacements, all prepared before the first is installed: each function counts,
  // then does what the original did (so a call changes nothing but the count); each
  // accessor on Object.prototype counts and holds nothing.
  const plan = []; // [target, key, replacement descriptor, saved descriptor]
  function planFunction(target, key, label) {
    const descriptor = S.describe(target, key);
    if (descriptor === undefined || typeof descriptor.value !== 'function' || !descriptor.configurable) return;
    const original = descriptor.value;
    const liar = function (...args) {
      hit(label);
      return new.target === undefined ? S.apply(original, this, args) : S.construct(original, args, new.target);
    };
    plan.push([target, key, { __proto__: null, value: liar, writable: true, enumerable: descriptor.enumerable, configurable: true }, descriptor]);
  }
  function planAll(target, prefix) {
    for (const key of Reflect.ownKeys(target)) {
      if (key !== 'constructor' && key !== 'prototype') planFunction(target, key, `${prefix}.${String(key)}`);
    }
  }
  function planAccessor(target, key, label) {
    const replacement = {
      __proto__: null,
      get() {
        hit(`get ${label}`);
      },
      set() {
        hit(`set ${label}`);
      },
      configurable: true,
    };
    plan.push([target, key, replacement, S.describe(target, key)]);
  }

  const hashPrototype = Object.getPrototypeOf(crypto.createHash('sha256'));
  const targets = [
    [Object, 'Object'],
    [Object.prototype, 'Object.prototype'],
    [Reflect, 'Reflect'],
    [Array, 'Array'],
    [Array.prototype, 'Array.prototype'],
    [JSON, 'JSON'],
    [String, 'String'],
    [String.prototype, 'String.prototype'],
    [Number, 'Number'],
    [Number.prototype, 'Number.prototype'],
    [Set.prototype, 'Set.prototype'],
    [Map.prototype, 'Map.prototype'],
    [WeakSet.prototype, 'WeakSet.prototype'],
    [WeakMap.prototype, 'WeakMap.prototype'],
    [Error, 'Error'],
    [RangeError, 'RangeError'],
    [Error.prototype, 'Error.prototype'],
    [RangeError.prototype, 'RangeError.prototype'],
    [Symbol, 'Symbol'],
    [Symbol.prototype, 'Symbol.prototype'],
    [Math, 'Math'],
    [Function.prototype, 'Function.prototype'],
    [Object.getPrototypeOf(Uint8Array.prototype), 'TypedArray.prototype'],
    [Object.getPrototypeOf([][Symbol.iterator]()), 'ArrayIterator.prototype'],
    [util.types, 'util.types'],
    [util, 'util'],
    [crypto, 'crypto'],
    [hashPrototype, 'Hash.prototype'],
    [WebAssembly, 'WebAssembly'],
  ];
  for (const [target, label] of targets) planAll(target, label);
  for (const name of ['String', 'Number', 'Array', 'Object', 'Set', 'Map', 'Error', 'RangeError', 'TypeError', 'structuredClone', 'isFinite', 'isNaN']) {
    planFunction(globalThis, name, `globalThis.${name}`);
  }
  for (const key of [
    'code',
    'name',
    'message',
    'stack',
    'cause',
    'path',
    'seen',
    'loneSurrogate',
    'value',
    'enumerable',
    'writable',
    'configurable',
    'get',
    'set',
    'length',
    'agentName',
    'toolName',
    'argsCanonicalJson',
    'proposalHash',
    'toJSON',
    'then',
    '0',
    '1',
  ]) {
    planAccessor(Object.prototype, key, `Object.prototype.${key}`);
  }
  planAccessor(Object.prototype, Symbol.toPrimitive, 'Object.prototype[Symbol.toPrimitive]');
  planAccessor(Object.prototype, Symbol.iterator, 'Object.prototype[Symbol.iterator]');
  plan.push([
    RangeError,
    Symbol.hasInstance,
    {
      __proto__: null,
      value() {
        hit('RangeError[Symbol.hasInstance]');
        return false;
      },
      configurable: true,
    },
    undefined,
  ]);
  const patched = plan.length;

  const before = runAll(new Array(count).fill(''));
  const after = new Array(count).fill('');
  let selfTestHits = 0;
  for (let i = 0; i < patched; i++) S.define(plan[i][0], plan[i][1], plan[i][2]);
  try {
    runAll(after);
    // The harness sees a call: one patched built-in called on purpose, then forgotten.
    const hitsBefore = hitCount;
    ObjectConstructor.keys(inputs);
    selfTestHits = hitCount - hitsBefore;
    hits['Object.keys'] -= selfTestHits;
    if (hits['Object.keys'] === 0) delete hits['Object.keys'];
  } finally {
    for (let i = patched - 1; i >= 0; i--) {
      const target = plan[i][0];
      const key = plan[i][1];
      const saved = plan[i][3];
      if (saved === undefined) delete target[key];
      else S.define(target, key, saved);
    }
  }

  const mismatches = [];
  for (let i = 0; i < count; i++) {
    if (before[i] !== after[i]) mismatches.push(`${inputs[i][0]}: ${before[i].slice(0, 100)} -> ${after[i].slice(0, 100)}`);
  }
  process.stdout.write(JSON.stringify({ cases: count, patched, selfTestHits, hits: { ...hits }, mismatches }));
}
