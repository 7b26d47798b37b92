'use strict';
// The child process of core/monkeypatch.test.js (node --test does not run this file: its name
// matches no test-file pattern). Usage: node core/monkeypatch-child.js <variant>
//
// It loads the package first, runs every case once on pristine built-ins (the baseline),
// then installs the variant's patches, runs every case again, restores the built-ins and
// prints one JSON line: per-case summaries (hashed), mismatches and the number of times
// each lying function ran. Between patching and restoring, this file's own code calls
// only functions captured before patching, and never Function.prototype.call/apply/bind,
// array iteration, spread of arrays, JSON or Object/Array statics directly.
//
// Variants:
//   builtins        lying, counting replacements of the built-ins the package could call
//   payload-setters counting accessors on Object.prototype for common payload keys
//   known-setters   the same for "path", "code", "get", "set" and PreparedToolCall's
//                   field names (known bugs: see core/monkeypatch.test.js)
//   inspect         util.inspect of a ToolArgumentsValidationError with JSON.stringify
//                   and Array.prototype.push/join counting (a known bug)
//   frozen          Object.freeze of the intrinsic prototypes and namespaces after load
//   none            no patches (the baseline of the --frozen-intrinsics run)
//   selftest        builtins plus one case that calls a patched built-in itself: the
//                   harness must report it

const variant = process.argv[2];

const pkg = require('../..');
const payloads = require('../../support/payloads');
const util = require('node:util');
const vm = require('node:vm');
const { createHash } = require('node:crypto');

const {
  canonicalize,
  createSnapshot,
  decodeView,
  decodeRequest,
  prepareToolCall,
  authorizeToolCall,
  proposalHash,
  SnapshotDomainError,
  ToolArgumentsValidationError,
} = pkg;

// ---------------------------------------------------------------------------------
// What this file calls while built-ins are patched: captured now, called directly.

const S = {
  names: Object.getOwnPropertyNames,
  describe: Object.getOwnPropertyDescriptor,
  define: Object.defineProperty,
  getProto: Object.getPrototypeOf,
  setProto: Object.setPrototypeOf,
  hasOwn: Object.hasOwn,
  isArray: Array.isArray,
  freeze: Object.freeze,
  isFrozen: Object.isFrozen,
  captureStack: Error.captureStackTrace,
  OP: Object.prototype,
  AP: Array.prototype,
  SDE: SnapshotDomainError.prototype,
  TAVE: ToolArgumentsValidationError.prototype,
  TE: TypeError.prototype,
};

// ---------------------------------------------------------------------------------
// Summaries: a string that captures a value exactly (prototypes, property attributes,
// negative zero, lone surrogates), built without any patchable function.

function summarize(value) {
  if (value === null) return 'null';
  const type = typeof value;
  if (type === 'string') return `s${value.length}:${value}`;
  if (type === 'number') return value === 0 && 1 / value < 0 ? 'n-0' : `n${value}`;
  if (type === 'boolean') return value ? 'T' : 'F';
  if (type !== 'object') return `?${type}`;
  const proto = S.getProto(value);
  const p = proto === S.OP ? 'O' : proto === S.AP ? 'A' : proto === null ? 'N' : 'X';
  const names = S.names(value);
  let out = `${S.isArray(value) ? '[' : '{'}${p}`;
  for (let i = 0; i < names.length; i++) {
    const d = S.describe(value, names[i]);
    out += `,${names[i].length}:${names[i]}${d.enumerable ? '' : '!e'}${d.writable === false ? '!w' : ''}=`;
    out += S.hasOwn(d, 'value') ? summarize(d.value) : 'accessor';
  }
  return `${out}${S.isArray(value) ? ']' : '}'}`;
}

function inherits(value, proto) {
  for (let p = S.getProto(value); p !== null; p = S.getProto(p)) {
    if (p === proto) return true;
  }
  return false;
}

function describeError(e) {
  if (e === null || typeof e !== 'object') return `thrown ${typeof e}`;
  let kind = 'Error';
  // instanceof, written out: Symbol.hasInstance is patched on the failure path.
  if (inherits(e, S.SDE)) kind = 'SnapshotDomainError';
  else if (inherits(e, S.TAVE)) kind = 'ToolArgumentsValidationError';
  else if (inherits(e, S.TE)) kind = 'TypeError';
  // Own data properties only: an inherited accessor would be this file calling code.
  const own = (key) => {
    const d = S.describe(e, key);
    return d === undefined ? '-' : S.hasOwn(d, 'value') ? `${d.value}` : 'accessor';
  };
  return `${kind} name=${own('name')} code=${own('code')} stage=${own('stage')} tool=${own('toolName')} path=${own('path')} message=${own('message')}`;
}

function attempt(fn) {
  try {
    return `ok ${fn()}`;
  } catch (e) {
    return `err ${describeError(e)}`;
  }
}

// ---------------------------------------------------------------------------------
// Cases: values and texts built now, before anything is patched.

const counter = { count: 0 };
const spy = () => {
  counter.count += 1;
  return 1;
};
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
const handler = {};
for (const trap of TRAPS) handler[trap] = spy;

const bigAscii = 'a'.repeat(3000);
const bigLatin1 = 'é'.repeat(3000);
const bigWide = '€😀'.repeat(1500);
function nested(levels, leaf) {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { k: v, ['__proto__']: i };
  return v;
}
function data(object, key, value, enumerable = true) {
  Object.defineProperty(object, key, { value, enumerable, writable: true, configurable: true });
  return object;
}

const VALID = [
  ['small', payloads.small(1)],
  ['medium', payloads.medium(3)],
  ['wide', payloads.wide(13)],
  ['deep', payloads.deep(17)],
  ['numbers', payloads.numberHeavy(11)],
  ['big strings', { ascii: bigAscii, latin1: bigLatin1, wide: bigWide, list: [bigAscii, 'short', bigWide] }],
  ['__proto__ keys', JSON.parse('{"__proto__":{"constructor":{"prototype":{"toString":1}}},"valueOf":[{"__proto__":null}]}')],
  ['integer-like keys', { 10: 1, 9: 2, 1: [3], '-1': 4, a: 5 }],
  ['null-prototype objects', Object.assign(Object.create(null), { b: Object.assign(Object.create(null), { y: 1 }), a: [] })],
  ['frozen containers', Object.freeze({ a: Object.freeze([1, Object.freeze({ b: 'c' })]) })],
  ['strings with escapes', ['\u0000\b\t\n\f\r\u001f"\\/\u007f\u2028', '😀', 'ÿ']],
  ['numbers of every magnitude', [1e21, 1e-7, 5e-324, 1.7976931348623157e308, 2 ** 53 + 2, 0.1 + 0.2, -1e-7]],
  [`${pkg.MAX_DEPTH} levels`, nested(pkg.MAX_DEPTH, 'leaf')],
  ['primitives', [true, false, null, 0, '']],
];
const realistic = payloads.realistic(7);
for (let i = 0; i < realistic.length; i++) VALID.push([`realistic ${i}`, realistic[i]]);

const revocable = Proxy.revocable({}, handler);
revocable.revoke();
const cyclic = { a: 1 };
cyclic.self = cyclic;
const shared = { s: 1 };
const INVALID = [
  ['negative zero', { a: [-0] }],
  ['NaN', [NaN]],
  ['Infinity', { x: Infinity }],
  ['undefined', { u: undefined }],
  ['a bigint', [1n]],
  ['a symbol', [Symbol('s')]],
  ['a function', { f() {} }],
  ['a lone surrogate', ['a\ud800']],
  ['a lone surrogate in a key', { '\udc00': 1 }],
  ['a lone surrogate in a big string', [`${bigAscii}\ud800`]],
  ['a Proxy of an object', { p: new Proxy({ a: 1 }, handler) }],
  ['a Proxy of an array', [new Proxy([1], handler)]],
  ['a Proxy of a function', new Proxy(function f() {}, handler)],
  ['a revoked Proxy', [revocable.proxy]],
  ['a getter', Object.defineProperty({}, 'g', { get: spy, enumerable: true })],
  ['a setter at an array index', Object.defineProperty([0], 0, { set: spy, enumerable: true })],
  ['a non-enumerable property', data({ a: 1 }, 'h', 1, false)],
  ['a symbol key', { [Symbol('k')]: 1 }],
  ['a Date', new Date(0)],
  ['a Date reset to null', Object.setPrototypeOf(new Date(0), null)],
  ['a Map reset to Object.prototype', Object.setPrototypeOf(new Map(), Object.prototype)],
  ['an empty WeakRef reset to Object.prototype', Object.setPrototypeOf(new WeakRef({}), Object.prototype)],
  ['an empty Intl.Collator reset to null', Object.setPrototypeOf(new Intl.Collator(), null)],
  ['a Uint8Array', new Uint8Array(2)],
  ['a boxed string', new String('s')],
  ['an Error', new Error('e')],
  ['a class instance', new (class C {})()],
  ['an array subclass', new (class A extends Array {})()],
  ['an array reset to Object.prototype', Object.setPrototypeOf([1], Object.prototype)],
  ['an object from another realm', vm.runInNewContext('({ a: 1 })')],
  ['an array from another realm', vm.runInNewContext('[1]')],
  ['a holey array', [1, , 3]], // eslint-disable-line no-sparse-arrays
  ['an array extra property', Object.assign([1], { x: 1 })],
  ['a cycle', cyclic],
  ['a repeated reference', { a: shared, b: [shared] }],
  [`${pkg.MAX_DEPTH + 1} levels`, nested(pkg.MAX_DEPTH + 1, 1)],
];

const TEXTS = [
  ['valid', '{"b":[1,2.50,"x"],"a":{"__proto__":{"c":null}}}'],
  ['blank', ' \n'],
  ['negative zero', '{"a":-0}'],
  ['duplicate', '{"a":1,"a":2}'],
  ['escaped duplicate', '{"a":1,"\\u0061":2}'],
  ['lone surrogate', '["\\ud800"]'],
  ['overflow', '[1e400]'],
  ['invalid', '{"a":1,}'],
  ['byte order mark', '\ufeff{}'],
  ['depth', '['.repeat(2000)],
  ['big string', `{"s":"${bigWide}"}`],
];

const AGENT = 'Monkeypatch agent';
const TOOL = 'monkeypatch_tool';
const CASES = [];
const add = (name, fn) => {
  CASES.push([name, fn]);
};

for (const [name, value] of VALID) {
  add(`valid ${name}: canonicalize`, () => canonicalize(value));
  add(`valid ${name}: createSnapshot and views`, () => {
    const s = createSnapshot({ agentName: AGENT, toolName: TOOL, value });
    const v1 = decodeView(s);
    const v2 = decodeView(s);
    return `${s.argsCanonicalJson} ${s.proposalHash} ${summarize(s)} ${summarize(v1)} ${summarize(v2)} distinct=${v1 !== v2 || typeof v1 !== 'object' || v1 === null}`;
  });
  add(`valid ${name}: views of the text`, () => {
    const json = canonicalize(value);
    return `${summarize(decodeView(json))} ${summarize(decodeView({ argsCanonicalJson: json }))} ${proposalHash({ agentName: AGENT, toolName: TOOL, argsCanonicalJson: json })}`;
  });
  add(`valid ${name}: prepareToolCall`, () => {
    const p = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: canonicalize(value), schema: (input) => input });
    return `${p.argsCanonicalJson} ${p.proposalHash} ${summarize(p.requestedArguments)} ${summarize(p.policyView())} ${summarize(p.policyView())} frozen=${S.isFrozen(p)}`;
  });
}
for (const [name, value] of INVALID) {
  add(`invalid ${name}: canonicalize`, () => canonicalize(value));
  add(`invalid ${name}: canonicalize includePath`, () => canonicalize({ 'x/y': [value] }, { includePath: true }));
  add(`invalid ${name}: createSnapshot`, () => createSnapshot({ agentName: AGENT, toolName: TOOL, value }).proposalHash);
  add(
    `invalid ${name}: prepareToolCall schema output`,
    () => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{}', schema: () => value, includePath: true }).proposalHash,
  );
}
for (const [name, text] of TEXTS) {
  add(`text ${name}: decodeView`, () => summarize(decodeView(text)));
  add(`text ${name}: decodeView includePath`, () => summarize(decodeView(text, { includePath: true })));
  add(`text ${name}: decodeRequest`, () => summarize(decodeRequest(text, { toolName: TOOL })));
  add(`text ${name}: prepareToolCall`, () => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: text }).argsCanonicalJson);
}
if (variant === 'selftest') {
  // Proves the harness: this case calls a patched built-in itself, so the run must
  // report a hit and a mismatch.
  add('selftest: a direct call of a patched built-in', () => `${Array.isArray([])}`);
}
add('a throwing schema', () =>
  prepareToolCall({
    agentName: AGENT,
    toolName: TOOL,
    rawArguments: '{}',
    schema: () => {
      throw new RangeError('no');
    },
  }),
);
add('an ill-formed tool name', () => createSnapshot({ agentName: AGENT, toolName: 'x\ud800', value: 1 }));
add('a Proxy posing as a snapshot', () => decodeView(new Proxy({ argsCanonicalJson: '{}' }, handler)));

function runAll() {
  const out = [];
  for (let i = 0; i < CASES.length; i++) out[i] = attempt(CASES[i][1]);
  return out;
}

/** authorizeToolCall on allow, require_approval, deny by mutation; summaries only. */
async function runAuthorize() {
  const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"q":"x","list":[1,{"__proto__":2}]}' });
  let out = '';
  const allow = await authorizeToolCall({
    prepared,
    policy: (input) => ({ decision: 'allow', reason: `seen ${summarize(input.parsedArguments)}` }),
    execute: (args) => summarize(args),
  });
  out += `allow:${allow.decision}:${allow.reason}:${allow.result} `;
  const approval = await authorizeToolCall({ prepared, policy: () => ({ decision: 'require_approval', reason: 'r' }), execute: () => 'never' });
  out += `approval:${approval.decision}:${approval.proposal.proposalHash}:${summarize(approval.proposal.parsedArguments)} `;
  const mutated = await authorizeToolCall({
    prepared,
    policy: (input) => {
      input.parsedArguments.q = 'y';
      return { decision: 'allow', reason: 'r' };
    },
    execute: () => 'never',
  });
  out += `mutated:${mutated.decision}:${mutated.reason}`;
  return out;
}

// ---------------------------------------------------------------------------------
// Patches

const hits = { __proto__: null };
const firstHit = { __proto__: null };
const saved = [];

function count(label) {
  hits[label] = (hits[label] || 0) + 1;
  if (firstHit[label] === undefined) {
    const holder = {};
    S.captureStack(holder);
    firstHit[label] = holder.stack;
  }
}

/** Replaces target[key] with `descriptor` (a null-prototype object); remembered for restore. */
function replace(target, key, descriptor) {
  const old = S.describe(target, key);
  saved[saved.length] = [target, key, old];
  S.define(target, key, { __proto__: null, configurable: true, enumerable: old ? old.enumerable : false, ...descriptor });
}

function lie(target, key, label, result) {
  replace(target, key, {
    writable: true,
    value: function lying() {
      count(label);
      return result(this);
    },
  });
}

/** The built-in lies, planned before anything is patched: [target, key, label, result]. */
function planBuiltins() {
  const fakeCtor = function FakeArray() {
    count('fake Array constructor');
    return ['lie'];
  };
  const lies = [
    [Object, 'getOwnPropertyDescriptor', () => ({ value: 'lie', writable: true, enumerable: true, configurable: true })],
    [Object, 'getOwnPropertyNames', () => []],
    [Object, 'getOwnPropertySymbols', () => []],
    [Object, 'getPrototypeOf', () => Object.prototype],
    [Object, 'setPrototypeOf', (self) => self],
    [Object, 'keys', () => []],
    [Object, 'entries', () => []],
    [Object, 'assign', () => ({ lie: true })],
    [Object, 'hasOwn', () => true],
    [Object, 'freeze', () => ({ lie: true })],
    [Object, 'isFrozen', () => false],
    [Object, 'defineProperty', () => ({ lie: true })],
    [Object, 'create', () => ({ lie: true })],
    [Reflect, 'ownKeys', () => []],
    [Reflect, 'apply', () => 'lie'],
    [Reflect, 'get', () => 'lie'],
    [Reflect, 'getOwnPropertyDescriptor', () => undefined],
    [Array, 'isArray', () => false],
    [Array, 'from', () => ['lie']],
    [Array.prototype, 'slice', () => ['lie']],
    [Array.prototype, 'map', () => ['lie']],
    [Array.prototype, 'push', () => 0],
    [Array.prototype, 'includes', () => true],
    [Array.prototype, 'indexOf', () => 0],
    [Array.prototype, 'join', () => 'lie'],
    [Array.prototype, 'sort', (self) => self],
    [Array.prototype, 'toSpliced', () => ['lie']],
    [Array.prototype, 'forEach', () => undefined],
    [Array.prototype, Symbol.iterator, () => [].values()],
    [JSON, 'parse', () => ({ lie: true })],
    [JSON, 'stringify', () => '"lie"'],
    [String, 'fromCharCode', () => 'L'],
    [String.prototype, 'isWellFormed', () => true],
    [String.prototype, 'slice', () => 'lie'],
    [String.prototype, 'charCodeAt', () => 0],
    [String.prototype, 'toString', () => 'lie'],
    [RegExp.prototype, 'test', () => true],
    [RegExp.prototype, 'exec', () => null],
    [Function.prototype, 'call', () => 'lie'],
    [Function.prototype, 'apply', () => 'lie'],
    [Function.prototype, 'bind', () => () => 'lie'],
    [Set.prototype, 'has', () => false],
    [Set.prototype, 'add', (self) => self],
    [Set.prototype, 'clear', () => undefined],
    [WeakSet.prototype, 'has', () => true],
    [WeakSet.prototype, 'add', (self) => self],
    [WeakMap.prototype, 'get', () => undefined],
    [WeakMap.prototype, 'set', (self) => self],
    [Object.prototype, 'hasOwnProperty', () => true],
    [Object.prototype, 'toString', () => 'lie'],
    [Object.getPrototypeOf(Uint8Array.prototype), 'set', () => undefined],
    [globalThis, 'structuredClone', () => ({})],
    // The failure path: instanceof through Symbol.hasInstance, message reads.
    [Error, Symbol.hasInstance, () => true],
    [RangeError, Symbol.hasInstance, () => true],
    [TypeError, Symbol.hasInstance, () => true],
    [SyntaxError, Symbol.hasInstance, () => true],
    [SnapshotDomainError, Symbol.hasInstance, () => true],
    [ToolArgumentsValidationError, Symbol.hasInstance, () => true],
    [Object.prototype, '__lookupGetter__', () => undefined],
    [Symbol, 'for', () => Symbol('lie')],
  ];
  const NAMES = new Map([
    [Object, 'Object'],
    [Reflect, 'Reflect'],
    [Array, 'Array'],
    [JSON, 'JSON'],
    [String, 'String'],
    [globalThis, 'globalThis'],
    [Object.getPrototypeOf(Uint8Array.prototype), 'TypedArray.prototype'],
    [Error, 'Error'],
    [RangeError, 'RangeError'],
    [TypeError, 'TypeError'],
    [SyntaxError, 'SyntaxError'],
    [SnapshotDomainError, 'SnapshotDomainError'],
    [ToolArgumentsValidationError, 'ToolArgumentsValidationError'],
    [Symbol, 'Symbol'],
  ]);
  const plan = lies.map(([target, key, result]) => {
    const owner = NAMES.get(target) || `${target.constructor.name}.prototype`;
    return { target, key, label: `${owner}.${String(key)}`, result };
  });
  for (const name of Object.keys(util.types)) {
    // A few (isKeyObject, isCryptoKey) are non-configurable getters-free constants.
    const d = Object.getOwnPropertyDescriptor(util.types, name);
    if (d.configurable) plan.push({ target: util.types, key: name, label: `util.types.${name}`, result: () => false });
  }
  plan.push({ target: Array.prototype, key: 'constructor', label: 'Array.prototype.constructor getter', getter: fakeCtor });
  plan.push({ target: Array, key: Symbol.species, label: 'Array[Symbol.species] getter', getter: fakeCtor });
  // Error messages read through the prototype on the failure path.
  plan.push({ target: Error.prototype, key: 'message', label: 'Error.prototype.message getter', getter: 'Invalid string length' });
  plan.push({ target: RangeError.prototype, key: 'message', label: 'RangeError.prototype.message getter', getter: 'Invalid string length' });
  return plan;
}

const BUILTIN_PLAN = planBuiltins();

function patchBuiltins() {
  for (let i = 0; i < BUILTIN_PLAN.length; i++) {
    const entry = BUILTIN_PLAN[i];
    if (entry.getter !== undefined) {
      const { label, getter } = entry;
      replace(entry.target, entry.key, {
        get() {
          count(label);
          return getter;
        },
      });
    } else {
      lie(entry.target, entry.key, entry.label, entry.result);
    }
  }
}

function accessorsFor(keys, label) {
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === '__proto__') {
      replace(Object.prototype, key, {
        get() {
          count(`${label} __proto__ getter`);
          return S.getProto(this);
        },
        set(v) {
          count(`${label} __proto__ setter`);
          S.setProto(this, v);
        },
      });
    } else {
      replace(Object.prototype, key, {
        get() {
          count(`${label} ${key} getter`);
          return undefined;
        },
        set() {
          count(`${label} ${key} setter`);
        },
      });
    }
  }
}

const PAYLOAD_KEYS = ['a', 'b', '__proto__', 'q', 'query', 'url', 'body', 'id', 'name', 'list', 'k', 'x', 's', 'value', 'template', 'ops', 'text'];
const KNOWN_KEYS = [
  'path',
  'code',
  'get',
  'set',
  'agentName',
  'toolName',
  'rawArguments',
  'requestedArguments',
  'snapshot',
  'argsCanonicalJson',
  'proposalHash',
];

function patch() {
  switch (variant) {
    case 'builtins':
    case 'selftest':
      patchBuiltins();
      break;
    case 'payload-setters':
      accessorsFor(PAYLOAD_KEYS, 'Object.prototype');
      break;
    case 'known-setters':
      accessorsFor(KNOWN_KEYS, 'Object.prototype');
      break;
    case 'frozen':
      for (const target of [
        Object.prototype,
        Array.prototype,
        Function.prototype,
        String.prototype,
        Number.prototype,
        Object,
        Array,
        JSON,
        Reflect,
        Set.prototype,
        WeakMap.prototype,
        WeakSet.prototype,
        Error.prototype,
        Error,
        Object.getPrototypeOf(Uint8Array.prototype),
        util.types,
      ]) {
        S.freeze(target);
      }
      break;
    default:
      break;
  }
}

function restore() {
  for (let i = saved.length - 1; i >= 0; i--) {
    const entry = saved[i];
    const target = entry[0];
    const key = entry[1];
    const old = entry[2];
    if (old === undefined) delete target[key];
    else S.define(target, key, { __proto__: null, ...old });
  }
  saved.length = 0;
}

// ---------------------------------------------------------------------------------

function sha(text) {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

async function main() {
  const report = { variant, cases: CASES.length };
  if (variant === 'inspect') {
    // util.inspect runs the error's nodejs.util.inspect.custom hook: count what it calls.
    let error;
    try {
      prepareToolCall({ agentName: AGENT, toolName: 'tool "q"', rawArguments: '{"a":1,"a":2}', includePath: true });
    } catch (e) {
      error = e;
    }
    const push = Array.prototype.push;
    const join = Array.prototype.join;
    const stringify = JSON.stringify;
    const apply = Reflect.apply;
    replace(Array.prototype, 'push', {
      writable: true,
      value: function countingPush(...items) {
        count('Array.prototype.push');
        return apply(push, this, items);
      },
    });
    replace(Array.prototype, 'join', {
      writable: true,
      value: function countingJoin(sep) {
        count('Array.prototype.join');
        return apply(join, this, [sep]);
      },
    });
    replace(JSON, 'stringify', {
      writable: true,
      value: function countingStringify(v) {
        count('JSON.stringify');
        return apply(stringify, JSON, [v]);
      },
    });
    // Only the hook itself: util.inspect's own machinery would use push too.
    const hook = error[Symbol.for('nodejs.util.inspect.custom')];
    let rendered;
    try {
      rendered = hook.call(error);
    } finally {
      restore();
    }
    report.rendered = rendered;
    report.hits = hits;
    report.firstHit = firstHit;
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  counter.count = 0;
  const baseline = runAll();
  const baselineAuthorize = await runAuthorize();
  const baselineCount = counter.count;
  patch();
  let patched;
  let patchedAuthorize;
  try {
    patched = runAll();
    patchedAuthorize = await runAuthorize();
  } finally {
    restore();
  }
  report.valueCodeRuns = counter.count;
  report.baselineValueCodeRuns = baselineCount;
  report.baseline = baseline.map((s, i) => `${CASES[i][0]} => ${sha(s)} ${s.slice(0, 60)}`);
  report.authorize = [sha(baselineAuthorize), sha(patchedAuthorize)];
  report.mismatches = [];
  for (let i = 0; i < CASES.length; i++) {
    if (baseline[i] !== patched[i]) report.mismatches.push({ name: CASES[i][0], before: baseline[i].slice(0, 300), after: patched[i].slice(0, 300) });
  }
  if (baselineAuthorize !== patchedAuthorize) report.mismatches.push({ name: 'authorizeToolCall', before: baselineAuthorize, after: patchedAuthorize });
  report.hits = hits;
  report.firstHit = firstHit;
  report.errors = baseline.filter((s) => s.startsWith('err ')).length;
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((error) => {
  restore();
  process.stderr.write(`monkeypatch child failed: ${error && error.stack}\n`);
  process.exit(1);
});
