'use strict';
// The child process of package/lazy-load.test.js (node --test does not run this file: its name
// matches no test-file pattern). Usage: node package/lazy-load-child.js <mode> [subpath]
//
//   loaded [SUBPATH]  requires the package (or tool-argument-snapshot/SUBPATH) and prints
//                     which of its files, which node_modules packages and whether
//                     node:crypto were loaded, and whether Node's web streams were
//   patched           requires the package, then replaces built-ins with counting
//                     wrappers (that forward to the originals) and global constructors
//                     with counting subclasses, makes the first call of every export
//                     whose module loads at first use, restores the built-ins, runs the
//                     scenario below and prints its outcomes and every call of a wrapper
//                     made by the package's own code (during the window or after it: a
//                     module that captured a wrapper at its first use keeps calling it)
//   control           the same first calls and scenario, never patched
//
// Between patching and restoring, this file calls only functions captured before.

const path = require('node:path');
const util = require('node:util');

const ROOT = path.join(__dirname, '..', '..');
const mode = process.argv[2];

if (mode === 'loaded') {
  const subpath = process.argv[3];
  const before = new Set(Object.keys(require.cache));
  const modulesBefore = Array.isArray(process.moduleLoadList) ? process.moduleLoadList.length : 0;
  require(subpath === undefined ? 'tool-argument-snapshot' : `tool-argument-snapshot/${subpath}`);
  const files = [];
  const packages = new Set();
  for (const file of Object.keys(require.cache)) {
    if (before.has(file)) continue;
    const at = file.lastIndexOf(`${path.sep}node_modules${path.sep}`);
    if (at !== -1) {
      const rest = file.slice(at + 14).split(path.sep);
      packages.add(rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]);
    } else if (file.startsWith(ROOT + path.sep)) {
      files.push(path.relative(ROOT, file).split(path.sep).join('/'));
    }
  }
  const list = Array.isArray(process.moduleLoadList) ? process.moduleLoadList : [];
  process.stdout.write(
    `${JSON.stringify({ files: files.sort(), packages: [...packages].sort(), crypto: list.includes('NativeModule crypto'), webStreams: list.slice(modulesBefore).includes('NativeModule internal/webstreams/readablestream'), undici: list.slice(modulesBefore).includes('NativeModule internal/deps/undici/undici') })}\n`,
  );
  return;
}

const pkg = require('../..');

// ---------------------------------------------------------------------------------
// Captured before anything is patched.

const S = {
  apply: Reflect.apply,
  define: Object.defineProperty,
  describe: Object.getOwnPropertyDescriptor,
  captureStack: Error.captureStackTrace,
  hasOwn: Object.hasOwn,
  keys: Object.keys,
  stringify: JSON.stringify,
  startsWith: Function.prototype.call.bind(String.prototype.startsWith),
  indexOf: Function.prototype.call.bind(String.prototype.indexOf),
  slice: Function.prototype.call.bind(String.prototype.slice),
};
const PACKAGE_DIRS = [path.join(ROOT, 'lib') + path.sep, path.join(ROOT, 'adapters') + path.sep, path.join(ROOT, 'index.js')];

const hits = { __proto__: null };
const firstHit = { __proto__: null };

/** The file of the frame that called a wrapper (the frame below the wrapper's own). */
function callerFile(stack) {
  // Line 0 is the message, 1 this wrapper, 2 its caller.
  let at = 0;
  for (let line = 0; line < 2; line++) {
    at = S.indexOf(stack, '\n', at);
    if (at === -1) return '';
    at += 1;
  }
  const end = S.indexOf(stack, '\n', at);
  return S.slice(stack, at, end === -1 ? stack.length : end);
}

function count(label) {
  const holder = {};
  S.captureStack(holder, count);
  const frame = callerFile(holder.stack);
  let ours = false;
  for (let i = 0; i < PACKAGE_DIRS.length; i++) if (S.indexOf(frame, PACKAGE_DIRS[i]) !== -1) ours = true;
  if (!ours) return;
  hits[label] = (hits[label] || 0) + 1;
  if (firstHit[label] === undefined) firstHit[label] = frame;
}

const saved = [];

function replace(target, key, descriptor) {
  const old = S.describe(target, key);
  saved[saved.length] = [target, key, old];
  S.define(target, key, { __proto__: null, configurable: true, enumerable: old ? old.enumerable : false, writable: true, ...descriptor });
}

/** target[key] becomes a counting wrapper that forwards to the original. */
function wrap(target, key, label) {
  const original = target[key];
  replace(target, key, {
    value: function counting(...args) {
      count(label);
      return S.apply(original, this, args);
    },
  });
}

/** globalThis[name] becomes a counting subclass (or wrapper, for a function that is no class). */
function wrapGlobal(name) {
  const Original = globalThis[name];
  const Counting = class extends Original {
    constructor(...args) {
      count(`new ${name}`);
      super(...args);
    }
  };
  replace(globalThis, name, { value: Counting });
}

const PLAN = [];
function plan(target, keys, owner) {
  for (let i = 0; i < keys.length; i++) PLAN[PLAN.length] = [target, keys[i], `${owner}.${String(keys[i])}`];
}
plan(
  Object,
  [
    'getPrototypeOf',
    'getOwnPropertyNames',
    'getOwnPropertySymbols',
    'getOwnPropertyDescriptor',
    'defineProperty',
    'freeze',
    'keys',
    'hasOwn',
    'isFrozen',
    'setPrototypeOf',
    'is',
    'entries',
    'assign',
    'create',
  ],
  'Object',
);
plan(Reflect, ['apply', 'ownKeys', 'get'], 'Reflect');
plan(Array, ['isArray', 'from'], 'Array');
plan(Array.prototype, ['push', 'splice', 'sort', 'slice', 'includes', 'indexOf', 'join', 'map', 'forEach', 'toSpliced', Symbol.iterator], 'Array.prototype');
plan(JSON, ['parse', 'stringify'], 'JSON');
plan(Number, ['isFinite', 'isSafeInteger', 'parseInt'], 'Number');
plan(Math, ['imul'], 'Math');
plan(Date, ['now'], 'Date');
plan(Symbol, ['for'], 'Symbol');
plan(String, ['fromCharCode'], 'String');
plan(String.prototype, ['indexOf', 'startsWith', 'toLowerCase', 'slice', 'charCodeAt', 'isWellFormed', 'endsWith'], 'String.prototype');
plan(RegExp.prototype, ['test', 'exec'], 'RegExp.prototype');
plan(Map.prototype, ['get', 'set', 'has', 'delete', 'forEach'], 'Map.prototype');
plan(Set.prototype, ['has', 'add', 'delete'], 'Set.prototype');
plan(WeakMap.prototype, ['get', 'set', 'has'], 'WeakMap.prototype');
plan(WeakSet.prototype, ['has', 'add', 'delete'], 'WeakSet.prototype');
plan(Function.prototype, ['call', 'bind', 'apply'], 'Function.prototype');
plan(TextEncoder.prototype, ['encode'], 'TextEncoder.prototype');
plan(Object.getPrototypeOf(Uint8Array.prototype), ['slice', 'set'], 'TypedArray.prototype');
plan(Error, ['captureStackTrace'], 'Error');
plan(Promise, ['reject', 'resolve'], 'Promise');
plan(globalThis, ['setTimeout', 'clearTimeout', 'structuredClone'], 'globalThis');
plan(process, ['emitWarning', 'cwd'], 'process');
const TYPES = [];
for (const name of Object.keys(util.types)) {
  const d = Object.getOwnPropertyDescriptor(util.types, name);
  if (d.configurable && typeof d.value === 'function') TYPES[TYPES.length] = name;
}
plan(util.types, TYPES, 'util.types');
const GLOBALS = ['Map', 'Set', 'WeakMap', 'WeakSet', 'Error', 'TypeError', 'TextEncoder', 'Promise'];

function patch() {
  for (let i = 0; i < PLAN.length; i++) wrap(PLAN[i][0], PLAN[i][1], PLAN[i][2]);
  for (let i = 0; i < GLOBALS.length; i++) wrapGlobal(GLOBALS[i]);
}

function restore() {
  for (let i = saved.length - 1; i >= 0; i--) {
    const [target, key, old] = saved[i];
    if (old === undefined) delete target[key];
    else S.define(target, key, old);
  }
  saved.length = 0;
}

// ---------------------------------------------------------------------------------
// The first calls: each loads a module the package loads at first use.

const K1 = { id: 'k1', secret: 'k1-secret-of-at-least-thirty-two-bytes!' };
const A = pkg.createSnapshot({ agentName: 'a', toolName: 't', value: { x: [1, 2], y: 'same' } });
const B = pkg.createSnapshot({ agentName: 'a', toolName: 't', value: { x: [1, 3], y: 'same', z: true } });
const SCHEMA = { type: 'object', properties: { amount: { type: 'number', maximum: 100 } }, required: ['amount'] };
const fakePool = { query: () => Promise.resolve({ rows: [] }) };
const fakeRedis = { sendCommand: () => Promise.resolve(null) };

const FIRST_CALLS = [
  ['decodeRequest', () => pkg.decodeRequest('{"a":1}', { toolName: 't' })],
  ['prepareToolCall', () => pkg.prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{"a":1}' })],
  ['createApprovalGrants', () => pkg.createApprovalGrants({ keys: [K1] })],
  ['createExecutionReceipts', () => pkg.createExecutionReceipts()],
  ['diffSnapshots', () => pkg.diffSnapshots(A, B)],
  ['createSqliteGrantStore', () => pkg.createSqliteGrantStore({ path: ':memory:' }).close()],
  ['createPostgresGrantStore', () => pkg.createPostgresGrantStore({ pool: fakePool })],
  ['createRedisGrantStore', () => pkg.createRedisGrantStore({ client: fakeRedis })],
  ['openGrantStore', () => pkg.openGrantStore('unknown:').catch(() => undefined)],
  ['fromJsonSchema', () => pkg.fromJsonSchema(SCHEMA)],
  ['createCedarPolicy', () => pkg.createCedarPolicy({ policies: 'permit(principal, action, resource);' })],
  ['randomUUID', () => pkg.randomUUID()],
];

function firstCalls() {
  const out = [];
  for (let i = 0; i < FIRST_CALLS.length; i++) {
    try {
      FIRST_CALLS[i][1]();
      out[out.length] = `${FIRST_CALLS[i][0]}: ok`;
    } catch (error) {
      out[out.length] = `${FIRST_CALLS[i][0]}: threw ${error && error.name} ${error && error.message}`;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------
// The scenario, after the built-ins are back: what the first-use modules do.

async function scenario() {
  const out = [];
  let t = 1_000_000;
  const now = () => t;
  const prepared = (raw, toolCallId) => pkg.prepareToolCall({ agentName: 'payments', toolName: 'pay', rawArguments: raw, toolCallId });

  // Grants, seals and kept proposals (memory store).
  const grants = pkg.createApprovalGrants({ keys: [K1], now });
  const asked = await pkg.authorizeToolCall({ prepared: prepared('{"amount":5,"to":"bob"}'), policy: grants.policy(), execute: () => 'ran' });
  out.push(`asked ${asked.decision} ${asked.proposal.proposalHash}`);
  const sealed = grants.seal(asked.proposal, { ttlMs: 60_000 });
  out.push(`sealed ${S.keys(sealed).sort().join(',')} nonce ${sealed.nonce.length} signature ${sealed.signature.length}`);
  const verified = grants.verify(JSON.parse(JSON.stringify(sealed)));
  out.push(`verified ${verified.argsCanonicalJson} ${verified.proposalHash}`);
  await grants.grant(JSON.parse(JSON.stringify(sealed)));
  const allowed = await pkg.authorizeToolCall({ prepared: prepared('{"amount":5,"to":"bob"}'), policy: grants.policy(), execute: () => 'ran' });
  out.push(`after grant ${allowed.decision} ${allowed.result}`);
  const again = await pkg.authorizeToolCall({ prepared: prepared('{"amount":5,"to":"bob"}'), policy: grants.policy(), execute: () => 'ran' });
  out.push(`again ${again.decision}`);
  try {
    grants.verify({ ...sealed, signature: '0'.repeat(64) });
    out.push('forged: accepted');
  } catch (error) {
    out.push(`forged: ${error.code}`);
  }

  // Receipts: at most once per call id.
  const receipts = pkg.createExecutionReceipts({ now });
  let runs = 0;
  for (let i = 0; i < 2; i++) {
    const decision = await pkg.evaluateToolCall({ prepared: prepared('{"amount":1}', 'call-1'), policy: () => ({ decision: 'allow', reason: 'ok' }) });
    try {
      const result = await pkg.executeToolCall(
        decision,
        () => {
          runs++;
          return 'paid';
        },
        { receipts },
      );
      out.push(`receipt run ${i}: ${result}`);
    } catch (error) {
      out.push(`receipt run ${i}: ${error.code}`);
    }
  }
  out.push(`handler ran ${runs}`);

  // SQLite store through openGrantStore.
  const store = await pkg.openGrantStore('sqlite::memory:');
  const stored = pkg.createApprovalGrants({ store, now });
  const proposal = (await pkg.authorizeToolCall({ prepared: prepared('{"amount":7}'), policy: stored.policy(), execute: () => 'ran' })).proposal;
  await stored.grant(proposal, { uses: 1 });
  const first = await pkg.authorizeToolCall({ prepared: prepared('{"amount":7}'), policy: stored.policy(), execute: () => 'ran' });
  const second = await pkg.authorizeToolCall({ prepared: prepared('{"amount":7}'), policy: stored.policy(), execute: () => 'ran' });
  out.push(`sqlite ${first.decision} ${second.decision}`);
  await store.close();

  // Diff, JSON Schema, Cedar.
  out.push(`diff ${S.stringify(pkg.diffSnapshots(A, B))}`);
  const schema = pkg.fromJsonSchema(SCHEMA);
  out.push(`schema ${S.stringify(schema['~standard'].validate({ amount: 5 }))} ${S.stringify(schema['~standard'].validate({ amount: 500 }).issues.length)}`);
  const cedar = pkg.createCedarPolicy({ policies: 'permit(principal, action, resource) when { context.input.amount < 10 };' });
  for (const raw of ['{"amount":5}', '{"amount":50}']) {
    const d = await pkg.evaluateToolCall({ prepared: prepared(raw), policy: cedar });
    out.push(`cedar ${raw} ${d.decision} ${d.reason}`);
  }
  return out;
}

async function main() {
  let first;
  if (mode === 'patched') {
    patch();
    try {
      first = firstCalls();
    } finally {
      restore();
    }
  } else {
    first = firstCalls();
  }
  const loaded = Object.keys(require.cache)
    .filter((file) => S.startsWith(file, path.join(ROOT, 'lib') + path.sep))
    .map((file) => path.relative(ROOT, file).split(path.sep).join('/'))
    .sort();
  let outcomes;
  try {
    outcomes = await scenario();
  } catch (error) {
    outcomes = [`scenario threw ${error && error.stack}`];
  }
  process.stdout.write(`${JSON.stringify({ first, loaded, outcomes, hits, firstHit })}\n`);
}

main().catch((error) => {
  restore();
  process.stderr.write(`lazy-load child failed: ${error && error.stack}\n`);
  process.exit(1);
});
