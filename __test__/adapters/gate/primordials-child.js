'use strict';
// The child of the new gates' patched-built-ins test (adapters/claude-agent-sdk/claude-agent-sdk.test.js):
// loads both gates, decides the same calls on pristine built-ins and with lying ones
// installed after load (each throws when called), and prints the two sets of answers.

const { createToolGate: claudeGate } = require('tool-argument-snapshot/claude-agent-sdk');
const { createToolGate: genkitGate } = require('tool-argument-snapshot/genkit');

const policy = (input) => (input.parsedArguments.amount <= 100 ? { decision: 'allow', reason: 'small' } : { decision: 'deny', reason: 'large' });
const claude = claudeGate({ agentName: 'ops', policy, receipts: false });
const genkit = genkitGate({ agentName: 'ops', tools: { transfer: { description: 'x', execute: (args) => `sent ${args.amount}` } }, policy, receipts: false });
const hook = genkit.middleware.instantiate({ config: { runId: 'r' } }).tool;

async function answers() {
  const out = [];
  for (const [id, amount] of [
    ['t1', 5],
    ['t2', 500],
  ]) {
    const c = await claude.preToolUse(
      { hook_event_name: 'PreToolUse', session_id: 's', tool_use_id: id, tool_name: 'Pay', tool_input: { amount, to: 'bob' } },
      id,
    );
    out[out.length] = [c.hookSpecificOutput.permissionDecision, c.hookSpecificOutput.permissionDecisionReason];
    const g = await hook({ toolRequest: { name: 'transfer', ref: id, input: { amount, to: 'bob' } } }, {}, async () => null);
    out[out.length] = g.toolResponse.output;
  }
  return out;
}

(async () => {
  const before = await answers();
  const saved = [];
  const lie = (object, name) => {
    saved[saved.length] = [object, name, object[name]];
    object[name] = function lying() {
      throw new Error(`patched ${name} was called`);
    };
  };
  for (const name of ['push', 'map', 'slice', 'splice', 'includes', 'join']) lie(Array.prototype, name);
  for (const name of ['keys', 'getOwnPropertyNames', 'getOwnPropertyDescriptor', 'defineProperty', 'freeze', 'hasOwn']) lie(Object, name);
  for (const name of ['slice', 'startsWith', 'charCodeAt', 'split']) lie(String.prototype, name);
  lie(Map.prototype, 'get');
  lie(Map.prototype, 'set');
  lie(JSON, 'parse');
  lie(JSON, 'stringify');
  lie(Reflect, 'apply');
  let after;
  let failure;
  try {
    after = await answers();
  } catch (error) {
    failure = String(error && error.stack);
  }
  for (let i = saved.length - 1; i >= 0; i--) saved[i][0][saved[i][1]] = saved[i][2];
  process.stdout.write(JSON.stringify({ before, after, failure }) + '\n');
})();
