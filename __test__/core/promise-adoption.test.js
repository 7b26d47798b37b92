'use strict';
// The package awaits its own promises without a definition on each of them when the
// lookup `await` makes (Promise.prototype.constructor) can reach only the engine's data
// (lib/promises.js ours()). These tests put code on that lookup (a getter, or a Proxy
// behind a deleted own property) and check that none of it runs inside the package's
// frames while the three steps run with an asynchronous schema, grants and receipts; and
// that the results are what they are without the tampering.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const z = require('zod');

const { prepareToolCallAsync, evaluateToolCall, executeToolCall, authorizeToolCall, createApprovalGrants, createExecutionReceipts } = require('../..');

const LIB = `${path.join(__dirname, '..', '..', 'lib')}${path.sep}`;
const AGENT = 'Adoption agent';
const TOOL = 'pay';
const schema = z.object({ to: z.string(), amount: z.number() });
const asyncSchema = z.object({ to: z.string(), amount: z.number() }).refine(async () => true);

/** Runs the three steps (and authorizeToolCall) once; returns what a caller sees. */
async function steps(grants, receipts, id) {
  const rows = [];
  for (const s of [schema, asyncSchema, async (value) => value]) {
    const prepared = await prepareToolCallAsync({
      agentName: AGENT,
      toolName: TOOL,
      rawArguments: '{"to":"a","amount":1}',
      schema: s,
      runId: 'run',
      toolCallId: `${id}-${rows.length}`,
    });
    const decision = await evaluateToolCall({ prepared, policy: grants.policy(async () => ({ decision: 'allow', reason: 'ok' })) });
    const result = await executeToolCall(decision, async (args) => args.amount + 1, { grants, receipts });
    rows.push([prepared.argsCanonicalJson, decision.decision, result]);
  }
  const prepared = await prepareToolCallAsync({
    agentName: AGENT,
    toolName: TOOL,
    rawArguments: '{"to":"b","amount":2}',
    schema: asyncSchema,
    runId: 'run',
    toolCallId: `${id}-auth`,
  });
  const outcome = await authorizeToolCall({
    prepared,
    policy: async () => ({ decision: 'allow', reason: 'ok' }),
    execute: async (args) => args.amount * 10,
    grants,
    receipts,
  });
  rows.push([outcome.decision, outcome.result]);
  return rows;
}

/**
 * The frame that made the lookup (the one below the getter or trap), when it is the
 * package's lib/; else none. (Code the package calls, a schema's own awaits, has the
 * package's frames further down.)
 */
function packageFrames(stack) {
  const lines = String(stack)
    .split('\n')
    .slice(1)
    .filter((line) => !line.includes(__filename) && !line.includes('(native)') && !line.includes('<anonymous>'));
  return lines.length > 0 && lines[0].includes(LIB) ? [lines[0]] : [];
}

async function underTampering(install) {
  const grants = createApprovalGrants();
  const receipts = createExecutionReceipts();
  const before = await steps(grants, receipts, 'plain');
  const reached = [];
  const original = Object.getOwnPropertyDescriptor(Promise.prototype, 'constructor');
  const restore = install((stack) => {
    const frames = packageFrames(stack);
    if (frames.length > 0) reached.push(frames[0].trim());
  });
  let after;
  try {
    after = await steps(grants, receipts, 'tampered');
  } finally {
    restore();
    Object.defineProperty(Promise.prototype, 'constructor', original);
  }
  return { before, after, reached };
}

test('a getter on Promise.prototype.constructor never runs inside the package', async () => {
  const { before, after, reached } = await underTampering((seen) => {
    Object.defineProperty(Promise.prototype, 'constructor', {
      configurable: true,
      get() {
        seen(new Error('lookup').stack);
        return Promise;
      },
    });
    return () => {};
  });
  assert.deepEqual(before, [
    ['{"amount":1,"to":"a"}', 'allow', 2],
    ['{"amount":1,"to":"a"}', 'allow', 2],
    ['{"amount":1,"to":"a"}', 'allow', 2],
    ['allow', 20],
  ]);
  assert.deepEqual(after, before);
  assert.deepEqual(reached, [], 'the getter ran in a frame of the package');
});

test('Promise.prototype.constructor deleted with a Proxy behind it: no trap runs inside the package', async () => {
  const proto = Object.getPrototypeOf(Promise.prototype);
  const { before, after, reached } = await underTampering((seen) => {
    delete Promise.prototype.constructor;
    const trap = (name) =>
      function (...args) {
        seen(new Error(name).stack);
        return Reflect[name](...args);
      };
    Object.setPrototypeOf(
      Promise.prototype,
      new Proxy(proto, { get: trap('get'), getOwnPropertyDescriptor: trap('getOwnPropertyDescriptor'), has: trap('has') }),
    );
    return () => Object.setPrototypeOf(Promise.prototype, proto);
  });
  assert.deepEqual(after, before);
  assert.deepEqual(reached, [], 'a trap ran in a frame of the package');
});
