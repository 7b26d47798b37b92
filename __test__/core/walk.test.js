'use strict';
// Security round 2 (issue 9) for the strict walk: re-entry fails closed and the hash binds
// exactly the names and JSON returned (item 1), empty objects are classified without
// running code and no empty host or WebAssembly object passes as {} (item 2), a node:vm
// global object cannot alter a result or a hash (item 3), and the failure path calls no
// built-in that can be patched after load (item 5). Each test below fails on 130571d.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const vm = require('node:vm');
const net = require('node:net');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const pkg = require('../..');
const { canonicalize, createSnapshot, prepareToolCall, proposalHash, SnapshotDomainError, ToolArgumentsValidationError } = pkg;
const payloads = require('../../support/payloads');
const { attempt, describeError } = require('../helpers/attempt');

const ROOT = path.join(__dirname, '..', '..');

/** The code of what fn threw, or 'ok:<result>'. */
function outcome(fn) {
  const r = attempt(fn);
  if (r.ok) return `ok:${typeof r.value === 'string' ? r.value : typeof r.value}`;
  return r.error && typeof r.error.code === 'string' ? r.error.code : describeError(r.error);
}

/**
 * The global object of a node:vm context whose sandbox is a Proxy, with its prototype
 * reset to this realm's Object.prototype: every trap calls `onTrap` while `armed.on`.
 */
function vmGlobal(onTrap, armed) {
  const handler = {};
  for (const trap of ['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'defineProperty', 'deleteProperty', 'set']) {
    handler[trap] = (...args) => {
      if (armed.on) onTrap(trap);
      return Reflect[trap](...args);
    };
  }
  const global = vm.runInContext('this', vm.createContext(new Proxy({ a: 1 }, handler)));
  Object.setPrototypeOf(global, Object.prototype);
  return global;
}

describe('item 1: re-entry fails closed, and the hash binds exactly what is returned', () => {
  test('a call made by code that runs during a walk fails with reentrant_call, and so does the walk it interrupted', () => {
    const armed = { on: false };
    const inner = [];
    const global = vmGlobal(() => {
      inner.push(outcome(() => canonicalize({ inner: [1, 2, 3] })));
    }, armed);
    armed.on = true;
    const outer = outcome(() => canonicalize([global, new Date(), -0, undefined, () => 1]));
    armed.on = false;
    assert.ok(inner.length > 0, 'the sandbox traps ran (the documented vm limit) and called canonicalize');
    assert.deepEqual([...new Set(inner)], ['reentrant_call'], 'every inner call failed at once with reentrant_call');
    assert.equal(outer, 'reentrant_call', 'the outer call fails closed instead of returning a result');
    // The package is usable again afterwards, with nothing left of either call.
    assert.equal(canonicalize({ b: [1, { c: 2 }], a: 'x' }), '{"a":"x","b":[1,{"c":2}]}');
  });

  test('re-entry timed anywhere in the walk never yields a result: every interrupted call fails closed', () => {
    // The re-entering object at every position of a value, root to last member.
    const base = payloads.medium(5);
    let calls = 0;
    for (let at = 0; at < 12; at++) {
      const armed = { on: false };
      const global = vmGlobal(() => {
        calls++;
        attempt(() => createSnapshot({ agentName: 'attacker', toolName: 'other_tool', value: { x: at } }));
      }, armed);
      const value = { ...base, records: base.records.slice(0, at), [`k${at}`]: global, tail: 'end' };
      armed.on = true;
      const r = attempt(() => createSnapshot({ agentName: 'ops', toolName: 'deploy', value }));
      armed.on = false;
      assert.equal(r.ok, false, `position ${at}: a snapshot was returned after a re-entry`);
      assert.ok(r.error instanceof ToolArgumentsValidationError, `position ${at}: ${describeError(r.error)}`);
      assert.equal(r.error.code, 'reentrant_call', `position ${at}`);
      assert.equal(r.error.stage, 'snapshot', `position ${at}`);
    }
    assert.ok(calls >= 12, 'the traps re-entered');
  });

  test('prepareToolCall cannot be made to return the hash of another agent or tool by a re-entering schema output', () => {
    const armed = { on: false };
    const global = vmGlobal(() => {
      attempt(() => createSnapshot({ agentName: 'attacker', toolName: 'exfiltrate', value: { target: 'prod' } }));
    }, armed);
    armed.on = true;
    const r = attempt(() =>
      prepareToolCall({ agentName: 'ops', toolName: 'deploy', rawArguments: '{"target":"prod"}', schema: () => ({ target: 'prod', g: global }) }),
    );
    armed.on = false;
    assert.equal(r.ok, false, 'a prepared call was returned after a re-entry');
    assert.equal(r.error.code, 'reentrant_call');
    assert.equal(r.error.stage, 'snapshot');
  });

  test('the returned hash always equals proposalHash() of the returned agent name, tool name and JSON', () => {
    const names = [
      ['ops', 'deploy'],
      ['a', 't'],
      ['agent é', 'tool 😀'],
      ['"quoted"\n', 'x\u2028y'],
      ['', ''],
    ];
    const values = [
      {},
      [],
      'x',
      0,
      null,
      payloads.small(1),
      payloads.medium(2),
      payloads.deep(3),
      payloads.wide(4),
      { big: 'é'.repeat(3000), list: ['€'.repeat(1500)] },
      JSON.parse('{"__proto__":{"a":1}}'),
    ];
    let checked = 0;
    for (const [agentName, toolName] of names) {
      for (const value of values) {
        const s = createSnapshot({ agentName, toolName, value });
        assert.equal(s.agentName, agentName);
        assert.equal(s.toolName, toolName);
        assert.equal(s.proposalHash, proposalHash(s), `createSnapshot ${agentName}/${toolName}`);
        const rawArguments = JSON.stringify(value);
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
          for (const schema of [undefined, (v) => v]) {
            const p = prepareToolCall({ agentName, toolName, rawArguments, schema });
            assert.equal(
              p.proposalHash,
              proposalHash({ agentName: p.agentName, toolName: p.toolName, argsCanonicalJson: p.argsCanonicalJson }),
              `prepareToolCall ${agentName}/${toolName}`,
            );
            assert.equal(p.argsCanonicalJson, s.argsCanonicalJson);
            checked++;
          }
        }
        checked++;
      }
    }
    assert.ok(checked > 50);
  });
});

describe('item 2: empty objects are classified without running code; no empty host or WebAssembly object passes', () => {
  test('an empty Node host object under a reset prototype is rejected and code planted under its clone hook never runs', () => {
    const list = new net.BlockList();
    const cloneSymbol = Object.getOwnPropertySymbols(Object.getPrototypeOf(list)).find((s) => s.description === 'messaging_clone_symbol');
    assert.equal(typeof cloneSymbol, 'symbol', 'Node names its clone hook');
    for (const s of Object.getOwnPropertySymbols(list)) delete list[s];
    Object.setPrototypeOf(list, Object.prototype);
    let runs = 0;
    Object.defineProperty(Object.prototype, cloneSymbol, {
      configurable: true,
      writable: true,
      value() {
        runs++;
        return { data: {}, deserializeInfo: 'internal/blocklist:BlockList' };
      },
    });
    try {
      assert.equal(
        outcome(() => canonicalize({ list })),
        'non_plain_object',
      );
      assert.equal(
        outcome(() => createSnapshot({ agentName: 'a', toolName: 't', value: [list] })),
        'non_plain_object',
      );
    } finally {
      delete Object.prototype[cloneSymbol];
    }
    assert.equal(runs, 0, 'the planted clone hook ran');
    // An accessor there is not called either.
    let getterRuns = 0;
    Object.defineProperty(Object.prototype, cloneSymbol, {
      configurable: true,
      get() {
        getterRuns++;
        return undefined;
      },
    });
    try {
      assert.equal(
        outcome(() => canonicalize({ list })),
        'non_plain_object',
      );
      assert.equal(
        outcome(() => canonicalize({ empty: {} })),
        'non_plain_object',
        'fail closed: an empty object is not classified while cloning could call the accessor',
      );
    } finally {
      delete Object.prototype[cloneSymbol];
    }
    assert.equal(getterRuns, 0, 'the planted accessor ran');
    assert.equal(canonicalize({ empty: {} }), '{"empty":{}}', 'with Object.prototype clean again, {} passes');
  });

  test('empty WebAssembly objects under a reset or null prototype are rejected, a shared Memory and a Module too', () => {
    const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
    const tag = new WebAssembly.Tag({ parameters: [] });
    const make = [
      ['a Module', () => new WebAssembly.Module(bytes)],
      ['an Instance', () => new WebAssembly.Instance(new WebAssembly.Module(bytes))],
      ['a Memory', () => new WebAssembly.Memory({ initial: 0 })],
      ['a shared Memory', () => new WebAssembly.Memory({ initial: 0, maximum: 1, shared: true })],
      ['a Table', () => new WebAssembly.Table({ initial: 0, element: 'anyfunc' })],
      ['a Global', () => new WebAssembly.Global({ value: 'i32' })],
      ['a Tag', () => new WebAssembly.Tag({ parameters: [] })],
      ['an Exception', () => new WebAssembly.Exception(tag, [])],
    ];
    for (const [label, build] of make) {
      for (const proto of [Object.prototype, null]) {
        const value = Object.setPrototypeOf(build(), proto);
        assert.deepEqual(Object.getOwnPropertyNames(value), [], `${label} has no own property`);
        assert.equal(
          outcome(() => canonicalize([value])),
          'non_plain_object',
          `${label} under ${proto === null ? 'null' : 'Object.prototype'}`,
        );
      }
    }
  });

  test('empty WeakRef, FinalizationRegistry, Intl objects and iterators under a reset prototype are rejected', () => {
    const make = [
      () => new WeakRef({}),
      () => new FinalizationRegistry(() => {}),
      () => [][Symbol.iterator](),
      () => ''[Symbol.iterator](),
      () => 'a'.matchAll(/a/g),
      () => new Intl.Segmenter().segment('a'),
      () => new Intl.Segmenter().segment('a')[Symbol.iterator](),
      () => new Intl.Locale('en'),
      () => new Intl.DisplayNames('en', { type: 'region' }),
    ];
    for (const name of ['Collator', 'DateTimeFormat', 'NumberFormat', 'PluralRules', 'RelativeTimeFormat', 'ListFormat', 'Segmenter'])
      make.push(() => new Intl[name]('en'));
    for (const build of make) {
      for (const proto of [Object.prototype, null]) {
        const value = Object.setPrototypeOf(build(), proto);
        assert.equal(
          outcome(() => canonicalize({ value })),
          'non_plain_object',
          `${Object.prototype.toString.call(build())}`,
        );
      }
    }
  });

  test('a well-known symbol on Object.prototype does not make {} fail; nothing planted there runs', () => {
    let runs = 0;
    const planted = [Symbol.toPrimitive, Symbol.iterator, Symbol.toStringTag];
    for (const symbol of planted)
      Object.defineProperty(Object.prototype, symbol, {
        configurable: true,
        get() {
          runs++;
          return undefined;
        },
      });
    try {
      assert.equal(canonicalize({ a: {}, b: Object.create(null) }), '{"a":{},"b":{}}');
      assert.equal(
        outcome(() => canonicalize({ d: Object.setPrototypeOf(new Date(0), null) })),
        'non_plain_object',
        'brand checks still run without the toString shortcut',
      );
    } finally {
      for (const symbol of planted) delete Object.prototype[symbol];
    }
    assert.equal(runs, 0);
  });
});

describe('item 3: a node:vm global object cannot alter a result or a hash', () => {
  test('with traps that only count, the global is refused (its members are functions), never a record', () => {
    let traps = 0;
    const armed = { on: false };
    const global = vmGlobal(() => {
      traps++;
    }, armed);
    armed.on = true;
    const r = outcome(() => canonicalize({ global }));
    armed.on = false;
    assert.notEqual(r.slice(0, 3), 'ok:', 'the global was accepted');
    // Documented limit: no check in Node 20 tells this object from a record before its
    // keys are listed, and listing them runs the sandbox's traps.
    assert.ok(traps > 0, 'the limit docs/security.md documents no longer holds: update docs/security.md');
  });

  test('traps that call the package again make every entry point fail closed with reentrant_call', () => {
    const armed = { on: false };
    const global = vmGlobal(() => {
      attempt(() => canonicalize({}));
      attempt(() => createSnapshot({ agentName: 'x', toolName: 'y', value: 1 }));
      attempt(() => prepareToolCall({ agentName: 'x', toolName: 'y', rawArguments: '{}', schema: (v) => v }));
    }, armed);
    armed.on = true;
    const results = [
      outcome(() => canonicalize({ global })),
      outcome(() => createSnapshot({ agentName: 'ops', toolName: 'deploy', value: [global] })),
      outcome(() => prepareToolCall({ agentName: 'ops', toolName: 'deploy', rawArguments: '{}', schema: () => ({ global }) })),
    ];
    armed.on = false;
    assert.deepEqual(results, ['reentrant_call', 'reentrant_call', 'reentrant_call']);
  });
});

describe('item 5: the failure path calls no built-in that can be patched after load', () => {
  test('patched instanceof, RegExp.prototype.test and error messages change no code and are never called', () => {
    let hits = 0;
    const restore = [];
    const patch = (target, key, descriptor) => {
      restore.push([target, key, Object.getOwnPropertyDescriptor(target, key)]);
      Object.defineProperty(target, key, { configurable: true, ...descriptor });
    };
    const lie = () => {
      hits++;
      return true;
    };
    const cases = [
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
    ];
    for (const Ctor of [Error, RangeError, TypeError, SyntaxError, SnapshotDomainError, ToolArgumentsValidationError])
      patch(Ctor, Symbol.hasInstance, { value: lie, writable: true });
    patch(RegExp.prototype, 'test', { value: lie, writable: true });
    patch(RegExp.prototype, 'exec', {
      value: () => {
        hits++;
        return ['string length'];
      },
      writable: true,
    });
    patch(RangeError.prototype, 'message', {
      get() {
        hits++;
        return 'Invalid string length';
      },
    });
    patch(Error.prototype, 'message', {
      get() {
        hits++;
        return 'Invalid string length';
      },
    });
    const seen = [];
    try {
      for (const [code, make] of cases) {
        seen.push([code, outcome(() => canonicalize(make(), { includePath: true }))]);
        seen.push([code, outcome(() => createSnapshot({ agentName: 'a', toolName: 't', value: make() }))]);
        seen.push([code, outcome(() => prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{}', schema: () => make() }))]);
      }
    } finally {
      for (let i = restore.length - 1; i >= 0; i--) {
        const [target, key, old] = restore[i];
        if (old === undefined) delete target[key];
        else Object.defineProperty(target, key, old);
      }
    }
    for (const [code, got] of seen) assert.equal(got, code);
    assert.equal(hits, 0, 'a patched built-in was called on the failure path');
  });
});

describe('runtimes: the walk on Node, and on Bun and Deno when their binaries are installed', () => {
  const script = path.join(__dirname, 'walk-runtime.cjs');
  const expected = spawnSync(process.execPath, [script], { encoding: 'utf8', cwd: ROOT });
  for (const [name, bin, args] of [
    ['bun', 'node_modules/.bin/bun', []],
    ['deno', 'node_modules/.bin/deno', ['run', '-A']],
  ]) {
    const binary = path.join(ROOT, bin);
    const present = require('node:fs').existsSync(binary);
    test(`${name}: the same outputs and codes as Node, every check kept`, { skip: present ? false : `${bin} is not installed` }, () => {
      assert.equal(expected.status, 0, expected.stderr);
      const got = spawnSync(binary, [...args, script], { encoding: 'utf8', cwd: ROOT, timeout: 60000 });
      assert.equal(got.status, 0, got.stderr.slice(0, 2000));
      assert.deepEqual(JSON.parse(got.stdout), JSON.parse(expected.stdout));
    });
  }
});

describe('views are made from the hashed JSON, never from a second read of the value', () => {
  // A node:vm global with its built-ins deleted and its prototype reset reads as a record,
  // and its sandbox (a Proxy) can answer every read differently. The walk reads each
  // property once; a view template copied from the value afterwards read it again and
  // showed the policy and the handler a value other than the one hashed.
  function driftingGlobal() {
    let reads = 0;
    const data = (value) => ({ value, writable: true, enumerable: true, configurable: true });
    const target = { amount: 5, Reflect };
    const sandbox = new Proxy(target, {
      getOwnPropertyDescriptor(t, key) {
        if (key === 'Infinity' || key === 'NaN' || key === 'undefined') return data(1);
        if (key === 'amount') return data(5 + ++reads);
        return Reflect.getOwnPropertyDescriptor(t, key);
      },
      ownKeys(t) {
        return ['amount', ...Reflect.ownKeys(t).filter((key) => key !== 'amount')];
      },
      get(t, key) {
        if (key === 'Infinity' || key === 'NaN' || key === 'undefined') return 1;
        if (key === 'amount') return 5 + ++reads;
        return Reflect.get(t, key);
      },
    });
    const context = vm.createContext(sandbox);
    const global = vm.runInContext('const G = this; for (const k of Reflect.ownKeys(G)) { try { delete G[k]; } catch {} } G', context);
    delete target.Reflect;
    Object.setPrototypeOf(global, Object.prototype);
    return global;
  }

  test('createSnapshot: every view of a long-string value with a drifting host object canonicalizes to argsCanonicalJson', () => {
    const outcome = attempt(() => createSnapshot({ agentName: 'a', toolName: 'pay', value: { pad: 'y'.repeat(500), g: driftingGlobal() } }));
    if (!outcome.ok) return assert.ok(outcome.error instanceof ToolArgumentsValidationError, 'a rejection is a validation error');
    const snapshot = outcome.value;
    for (let i = 0; i < 3; i++) assert.equal(canonicalize(pkg.decodeView(snapshot)), snapshot.argsCanonicalJson, `view ${i}`);
  });

  test('prepareToolCall: the policy and execution views equal the hashed JSON', () => {
    const outcome = attempt(() =>
      prepareToolCall({ agentName: 'a', toolName: 'pay', rawArguments: '{}', schema: () => ({ pad: 'y'.repeat(500), g: driftingGlobal() }) }),
    );
    if (!outcome.ok) return assert.ok(outcome.error instanceof ToolArgumentsValidationError, 'a rejection is a validation error');
    const prepared = outcome.value;
    assert.equal(canonicalize(prepared.policyView()), prepared.argsCanonicalJson);
  });
});
