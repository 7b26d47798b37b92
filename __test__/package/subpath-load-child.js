'use strict';
// The child process of package/subpath-load.test.js (node --test does not run this file: its
// name matches no test-file pattern). Usage: node package/subpath-load-child.js <mode> <subpath>
//
//   first SUBPATH     requires tool-argument-snapshot/SUBPATH, then makes the first call of
//                     each export (with options it refuses: the call still loads the gate)
//                     and prints the package's files loaded by the require and by the calls
//   gate SUBPATH      requires the gate's own modules (adapters/SUBPATH/index.js) and prints
//                     the package's files they load: what the first call must have loaded
//   missing SUBPATH   requires the subpath with its framework made unresolvable (as when it
//                     is not installed) and prints the error's code, packageName and message
//   patched SUBPATH   requires the subpath, replaces built-ins with counting wrappers (that
//                     forward to the originals) and global constructors with counting
//                     subclasses, makes the first call (a gate, which loads the gate's
//                     modules), restores the built-ins, then runs the subpath's scenario
//                     below and prints its outcomes and every call of a wrapper made from
//                     the adapters' code after the built-ins were restored: a module that
//                     captured a wrapper when it loaded (during the window) keeps calling it
//   control SUBPATH   the same first call and scenario, never patched
//   v2only mcp        requires tool-argument-snapshot/mcp with the 1.x SDK made unresolvable
//                     (a project with only @modelcontextprotocol/server) and prints the
//                     package's files loaded and whether Node's fetch implementation loaded
//
// Between patching and restoring, this file calls only functions captured before.

const path = require('node:path');
const util = require('node:util');

const ROOT = path.join(__dirname, '..', '..');
const [mode, subpath] = process.argv.slice(2);

/** The frameworks each subpath resolves at require (the names Node would not find without them). */
const FRAMEWORKS = {
  ai: ['ai'],
  langchain: ['@langchain/core'],
  'openai-agents': ['@openai/agents'],
  mastra: ['@mastra/core'],
  mcp: ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server'],
};

function packageFiles(keys) {
  const files = [];
  for (const file of keys) {
    if (file.startsWith(ROOT + path.sep) && !file.includes(`${path.sep}node_modules${path.sep}`))
      files.push(path.relative(ROOT, file).split(path.sep).join('/'));
  }
  return files.sort();
}

if (mode === 'first') {
  const api = require(`tool-argument-snapshot/${subpath}`);
  const atRequire = packageFiles(Object.keys(require.cache));
  const calls = [];
  for (const name of Object.keys(api)) {
    if (typeof api[name] !== 'function') continue;
    try {
      api[name](null);
      calls.push(`${name}: returned`);
    } catch (error) {
      calls.push(`${name}: ${error.name} ${error.code}`);
    }
  }
  process.stdout.write(`${JSON.stringify({ atRequire, afterCalls: packageFiles(Object.keys(require.cache)), calls })}\n`);
  return;
}

if (mode === 'gate') {
  require(path.join(ROOT, 'adapters', subpath, 'index.js'));
  process.stdout.write(`${JSON.stringify({ files: packageFiles(Object.keys(require.cache)) })}\n`);
  return;
}

if (mode === 'missing' || mode === 'v2only') {
  const Module = require('node:module');
  const resolve = Module._resolveFilename;
  const names = mode === 'v2only' ? ['@modelcontextprotocol/sdk'] : FRAMEWORKS[subpath];
  Module._resolveFilename = function (request, ...rest) {
    if (names.some((name) => request === name || request.startsWith(`${name}/`))) {
      const error = new Error(`Cannot find module '${request}'`);
      error.code = 'MODULE_NOT_FOUND';
      throw error;
    }
    return Reflect.apply(resolve, this, [request, ...rest]);
  };
  try {
    require(`tool-argument-snapshot/${subpath}`);
    if (mode === 'v2only') {
      const undici = process.moduleLoadList.includes('NativeModule internal/deps/undici/undici');
      process.stdout.write(`${JSON.stringify({ files: packageFiles(Object.keys(require.cache)), undici })}\n`);
      return;
    }
    process.stdout.write('{"loaded":true}\n');
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ code: error.code, packageName: error.packageName, message: error.message })}\n`);
  }
  return;
}

const api = require(`tool-argument-snapshot/${subpath}`);
// The frameworks and zod, loaded before the window (the application's own modules).
const { z } = require('zod');
const frameworks = {
  ai: () => require('ai'),
  langchain: () => ({ tools: require('@langchain/core/tools'), messages: require('@langchain/core/messages') }),
  'openai-agents': () => require('@openai/agents'),
  mastra: () => require('@mastra/core/tools'),
  mcp: () => ({
    McpServer: require('@modelcontextprotocol/sdk/server/mcp.js').McpServer,
    Client: require('@modelcontextprotocol/sdk/client/index.js').Client,
  }),
}[subpath]();

// ---------------------------------------------------------------------------------
// Captured before anything is patched.

const S = {
  apply: Reflect.apply,
  define: Object.defineProperty,
  describe: Object.getOwnPropertyDescriptor,
  captureStack: Error.captureStackTrace,
  keys: Object.keys,
  indexOf: Function.prototype.call.bind(String.prototype.indexOf),
  slice: Function.prototype.call.bind(String.prototype.slice),
};
const ADAPTERS = path.join(ROOT, 'adapters') + path.sep;

const hits = { __proto__: null };
const firstHit = { __proto__: null };
let counting = false;

/** The file of the frame that called a wrapper (the frame below the wrapper's own). */
function callerFrame(stack) {
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
  if (!counting) return;
  const holder = {};
  S.captureStack(holder, count);
  const frame = callerFrame(holder.stack);
  if (S.indexOf(frame, ADAPTERS) === -1) return;
  hits[label] = (hits[label] || 0) + 1;
  if (firstHit[label] === undefined) firstHit[label] = frame;
}

const saved = [];

function replace(target, key, descriptor) {
  const old = S.describe(target, key);
  saved[saved.length] = [target, key, old];
  S.define(target, key, { __proto__: null, configurable: true, enumerable: old ? old.enumerable : false, writable: true, ...descriptor });
}

function wrap(target, key, label) {
  const original = target[key];
  replace(target, key, {
    value: function counting(...args) {
      count(label);
      return S.apply(original, this, args);
    },
  });
}

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
    'getOwnPropertyDescriptor',
    'defineProperty',
    'freeze',
    'keys',
    'hasOwn',
    'isExtensible',
    'entries',
    'assign',
    'create',
  ],
  'Object',
);
plan(Object.prototype, ['__lookupGetter__', 'toString'], 'Object.prototype');
plan(Reflect, ['apply', 'ownKeys', 'get'], 'Reflect');
plan(Array, ['isArray', 'from'], 'Array');
plan(Array.prototype, ['push', 'splice', 'slice', 'includes', 'indexOf', 'unshift', 'join', 'map', 'forEach'], 'Array.prototype');
plan(JSON, ['parse', 'stringify'], 'JSON');
plan(Number, ['isFinite', 'isNaN', 'isSafeInteger', 'parseInt'], 'Number');
plan(Date, ['now'], 'Date');
plan(String.prototype, ['indexOf', 'startsWith', 'slice', 'split', 'trim', 'charCodeAt', 'isWellFormed', 'replaceAll', 'endsWith'], 'String.prototype');
plan(RegExp.prototype, ['test', 'exec'], 'RegExp.prototype');
plan(Map.prototype, ['get', 'set', 'has', 'delete', 'keys'], 'Map.prototype');
plan(Set.prototype, ['has', 'add', 'delete'], 'Set.prototype');
plan(WeakMap.prototype, ['get', 'set', 'has'], 'WeakMap.prototype');
plan(WeakSet.prototype, ['has', 'add', 'delete'], 'WeakSet.prototype');
plan(Promise, ['resolve', 'reject'], 'Promise');
plan(Promise.prototype, ['then'], 'Promise.prototype');
plan(TextDecoder.prototype, ['decode'], 'TextDecoder.prototype');
plan(Buffer, ['from', 'concat'], 'Buffer');
plan(ReadableStream.prototype, ['pipeThrough', 'getReader'], 'ReadableStream.prototype');
plan(process, ['emitWarning'], 'process');
const TYPES = [];
for (const name of Object.keys(util.types)) {
  const d = Object.getOwnPropertyDescriptor(util.types, name);
  if (d.configurable && typeof d.value === 'function') TYPES[TYPES.length] = name;
}
plan(util.types, TYPES, 'util.types');
const GLOBALS = ['Map', 'Set', 'WeakMap', 'WeakSet', 'Error', 'TypeError', 'Promise', 'TextDecoder', 'TransformStream'];

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
// Each subpath's gate: made once in the window (the first call) and again in the scenario.

const allow = () => ({ decision: 'allow', reason: 'ok' });
const payments = z.object({ amount: z.number(), to: z.string() });

const GATES = {
  ai: () => {
    const { tool } = frameworks;
    const pay = tool({ description: 'Pay', inputSchema: payments, execute: async (args) => `paid ${args.amount}` });
    return api.createToolGate({ agentName: 'payments', tools: { pay }, policy: allow });
  },
  langchain: (executed) => {
    const pay = frameworks.tools.tool(
      async (args) => {
        executed.push(args);
        return `paid ${args.amount} to ${args.to}`;
      },
      { name: 'pay', description: 'Pay', schema: payments },
    );
    return api.createToolGate({ agentName: 'payments', tools: [pay], policy: allow });
  },
  'openai-agents': () => api.createOpenAIAgentsGate({ agentName: 'payments', policy: allow }),
  mastra: () =>
    api.createToolGate({
      agentName: 'payments',
      tools: { pay: { id: 'pay', description: 'Pay', inputSchema: payments, execute: async (args) => `paid ${args.amount}` } },
      policy: allow,
    }),
  mcp: (executed) => {
    const server = new frameworks.McpServer({ name: 'payments', version: '1.0.0' });
    server.registerTool('pay', { inputSchema: { to: z.string(), amount: z.number() } }, async (args) => {
      executed.push(args);
      return { content: [{ type: 'text', text: `paid ${args.amount} to ${args.to}` }] };
    });
    const gate = api.gateMcpServer(server, { agentName: 'payments', policy: allow });
    return { server, gate, createLinkedPair: gate.createLinkedPair, handleHttp: gate.handleHttp };
  },
};

/** What the gate does after the window: a second gate, and what each framework's gate can do without a model. */
async function scenario() {
  const out = [];
  const executed = [];
  const gate = GATES[subpath](executed);
  out.push(`gate ${Object.keys(gate).sort().join(',')}`);
  if (subpath === 'langchain') {
    const { AIMessage } = frameworks.messages;
    for (const [id, text] of [
      ['call_1', '{"to":"bob","amount":5}'],
      ['call_2', '{"amount":6,"to":"eve","amount":7}'],
      ['call_1', '{"to":"bob","amount":5}'],
    ]) {
      const raw = [{ id, type: 'function', function: { name: 'pay', arguments: text } }];
      const message = new AIMessage({
        content: '',
        additional_kwargs: { tool_calls: raw },
        tool_calls: [{ id, name: 'pay', args: JSON.parse(text), type: 'tool_call' }],
      });
      // A LangGraph thread: the default (shared) receipts then apply, so a replay of call_1 runs nothing.
      const { results } = await gate.run(message, { config: { configurable: { thread_id: 'thread-1' } } });
      out.push(
        `run ${id}: ${results.map((r) => `${r.status}${r.code ? ` ${r.code}` : ''}${r.reason ? ` ${r.reason}` : ''}${r.replayed ? ' replayed' : ''}`).join(',')}`,
      );
    }
    out.push(`executed ${JSON.stringify(executed)}`);
  } else if (subpath === 'ai') {
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue({ type: 'text-delta', delta: 'hi' });
        controller.close();
      },
    });
    const reader = gate.uiMessageStream(stream).getReader();
    const chunks = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value.type);
    out.push(`ui stream ${chunks.join(',')}`);
    out.push(`runId ${/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(gate.runId)}`);
  } else if (subpath === 'openai-agents') {
    const transfer = gate.tool({ name: 'transfer', description: 'Send', parameters: payments, execute: (args) => executed.push(args) });
    out.push(`tool ${transfer.name} ${typeof transfer.invoke}`);
  } else if (subpath === 'mcp') {
    const { server } = gate;
    const [clientTransport, serverTransport] = gate.gate.createLinkedPair();
    await server.connect(serverTransport);
    const client = new frameworks.Client({ name: 'payer', version: '1.0.0' });
    await client.connect(clientTransport);
    for (const [id, args] of [
      ['k1', { to: 'bob', amount: 5 }],
      ['k2', { to: 'eve', amount: 'seven' }],
    ]) {
      const result = await client.callTool({ name: 'pay', arguments: args, _meta: { 'tool-argument-snapshot/idempotency-key': id } });
      out.push(`call ${id}: ${result.isError ? `error ${JSON.stringify(result.structuredContent ?? null)}` : result.content[0].text}`);
    }
    out.push(`executed ${JSON.stringify(executed)}`);
    await client.close();
  } else if (subpath === 'mastra') {
    out.push(`tools ${Object.keys(gate.tools).join(',')}`);
  }
  return out;
}

async function main() {
  let first;
  if (mode === 'patched') {
    patch();
    try {
      first = typeof GATES[subpath]([]) === 'object' ? 'gate made' : 'no gate';
    } finally {
      restore();
    }
    counting = true;
  } else {
    first = typeof GATES[subpath]([]) === 'object' ? 'gate made' : 'no gate';
  }
  let outcomes;
  try {
    outcomes = await scenario();
  } catch (error) {
    outcomes = [`scenario threw ${error && error.stack}`];
  }
  counting = false;
  process.stdout.write(`${JSON.stringify({ first, outcomes, hits, firstHit })}\n`);
}

main().catch((error) => {
  restore();
  process.stderr.write(`subpath-load child failed: ${error && error.stack}\n`);
  process.exit(1);
});
