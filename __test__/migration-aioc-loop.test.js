'use strict';
// docs/migration-from-aioc.md gives aioc's tool step as code: aioc's policy wrapped in aioc's
// own result normalisation, evaluated by the package, recorded, and executed only when aioc's
// result and the package's decision both allow. This test re-implements that loop as the page
// writes it (aioc's helpers written from the page's description of aioc 0.2.8's rules, not
// taken from aioc) and runs the page's own table of policy results through it: each must be
// recorded as aioc's deny with the page's reason and the tool must never run, while the
// package alone (the real package is the oracle) runs the tool for every one of them.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { z } = require('zod');
const {
  prepareToolCall, evaluateToolCall, executeToolCall: executeSnapshotCall, isToolArgumentsValidationError,
} = require('..');

const PAGE = fs.readFileSync(path.join(__dirname, '..', 'docs', 'migration-from-aioc.md'), 'utf8');

/** The rows of the page's table: a policy result (a JS literal), what the package alone does, aioc's reason. */
function pageCases() {
  const section = PAGE.slice(PAGE.indexOf("### Why aioc's normalisation stays"), PAGE.indexOf('### Errors:'));
  const rows = [...section.matchAll(/^\| `(\{[^`]+\})` \| (allow|deny) \| deny, `([a-z_A-Z]+)`/gm)];
  return rows.map(([, literal, alone, reason]) => ({ literal, alone, reason, result: new Function(`return (${literal});`)() }));
}

// ---- aioc's helpers, as the page describes aioc 0.2.8 -----------------------------------

class AIOCError extends Error {}
class ToolCallError extends AIOCError {}
class ToolCallPolicyDeniedError extends ToolCallError {}
class ToolCallApprovalRequiredError extends ToolCallError {}
class ToolArgumentsRejectedError extends ToolCallError {
  constructor(error) {
    super(error.message);
    this.name = 'ToolArgumentsRejectedError';
    this.stage = error.stage;
    this.code = error.code;
    this.cause = error;
  }
}

function createDeniedPolicyResult(reason, metadata) {
  return { decision: 'deny', reason, resultMode: 'throw', metadata };
}

function hasDeprecatedDenyMode(value) {
  return typeof value === 'object' && value !== null && 'denyMode' in value;
}

function createDeprecatedDenyModeResult(receivedValue) {
  return createDeniedPolicyResult('deprecated_policy_field_denyMode', { receivedValue });
}

const DECISIONS = ['allow', 'deny', 'require_approval'];
function isPolicyResultShape(value) {
  if (typeof value !== 'object' || value === null) return false;
  const absentOr = (field, ok) => value[field] === undefined || ok(value[field]);
  return DECISIONS.includes(value.decision) &&
    typeof value.reason === 'string' && value.reason.trim() !== '' &&
    absentOr('publicReason', (v) => typeof v === 'string') &&
    absentOr('expiresAt', (v) => typeof v === 'string') &&
    absentOr('resultMode', (v) => v === 'throw' || v === 'tool_result');
}

function materializePolicyResult(result) {
  if (result.decision === 'allow' || result.resultMode !== undefined) return result;
  return { ...result, resultMode: 'throw' };
}

function toErrorMetadata(error) {
  return error instanceof Error ? { errorName: error.name, errorMessage: error.message } : { errorName: 'Error', errorMessage: String(error) };
}

function handleBlockedPolicyResult({ toolName, policyResult, suspendedProposal }) {
  if (policyResult.resultMode === 'tool_result') {
    return { status: policyResult.decision === 'require_approval' ? 'approval_required' : 'denied', code: policyResult.reason, data: null };
  }
  if (policyResult.decision === 'require_approval') {
    const error = new ToolCallApprovalRequiredError(`Tool "${toolName}" requires approval.`);
    error.suspendedProposal = suspendedProposal;
    throw error;
  }
  throw new ToolCallPolicyDeniedError(`Tool "${toolName}" denied: ${policyResult.reason}`);
}

// ---- the page's tool step ------------------------------------------------------------

async function aiocToolPolicy(policies, input) {
  const policy = policies?.toolPolicy;
  if (!policy) return createDeniedPolicyResult('policy_not_configured');
  let rawResult;
  try {
    rawResult = await policy(input);
  } catch (error) {
    return createDeniedPolicyResult('policy_error', toErrorMetadata(error));
  }
  if (hasDeprecatedDenyMode(rawResult)) return createDeprecatedDenyModeResult(rawResult.denyMode);
  if (!isPolicyResultShape(rawResult)) return createDeniedPolicyResult('invalid_policy_result');
  return materializePolicyResult(rawResult);
}

function suspendedFrom(runId, turn, callId, proposal, policyResult) {
  return {
    kind: 'tool', runId, turn, callId, agentName: proposal.agentName, toolName: proposal.toolName,
    rawArguments: proposal.rawArguments, parsedArguments: proposal.parsedArguments,
    argsCanonicalJson: proposal.argsCanonicalJson, proposalHash: proposal.proposalHash, reason: policyResult.reason,
  };
}

/** aioc's tool step as the page writes it; `world` holds the record, the proposals and the tool's runs. */
async function executeToolCall(agent, runId, call, runContext, turn, policies, world) {
  const definition = agent.tools.find((tool) => tool.name === call.name);
  if (!definition) throw new ToolCallError(`Tool "${call.name}" is not registered.`);
  let prepared;
  try {
    prepared = prepareToolCall({ agentName: agent.name, toolName: call.name, rawArguments: call.arguments, schema: definition.parameters, toolCallId: call.callId });
  } catch (error) {
    if (isToolArgumentsValidationError(error)) throw new ToolArgumentsRejectedError(error);
    throw error;
  }
  const decision = await evaluateToolCall({
    prepared,
    policy: (input) => aiocToolPolicy(policies, input),
    policyContext: { runContext, turn },
  });
  const policyResult = decision.decidedBy === 'policy' ? decision.policyResult : createDeniedPolicyResult(decision.reason);
  world.record.push({ callId: call.callId, decision: policyResult.decision, reason: policyResult.reason });
  if (policyResult.decision !== 'allow' || decision.decision !== 'allow') {
    const suspendedProposal = decision.decision === 'require_approval' ? suspendedFrom(runId, turn, call.callId, decision.proposal, policyResult) : undefined;
    if (suspendedProposal) world.proposals.push(suspendedProposal);
    return handleBlockedPolicyResult({ toolName: call.name, policyResult, suspendedProposal });
  }
  const toolOutput = await executeSnapshotCall(decision, (args) => definition.execute(args, runContext));
  return { status: 'ok', code: null, data: toolOutput };
}

// ---- a world to run it in ---------------------------------------------------------------

function setup(toolPolicy) {
  const world = { record: [], proposals: [], runs: [] };
  const agent = {
    name: 'Billing agent',
    tools: [{
      name: 'pay',
      parameters: z.object({ to: z.string(), cents: z.number().int(), memo: z.string().default('') }),
      execute: (args) => {
        world.runs.push(args);
        return { paid: args.cents };
      },
    }],
  };
  const policies = toolPolicy === undefined ? undefined : { toolPolicy };
  const call = { callId: 'call_1', name: 'pay', arguments: '{"to":"bob","cents":500}' };
  const step = (over = {}) => executeToolCall(agent, 'run_1', { ...call, ...over }, { context: { userId: 'u1' } }, 1, policies, world);
  return { world, step };
}

test("the page lists the policy results aioc 0.2.8 denies and the package alone runs (at least the four of the issue)", () => {
  const cases = pageCases();
  assert.ok(cases.length >= 4, `${cases.length} rows parsed from the page`);
  for (const c of cases) assert.equal(c.alone, 'allow', c.literal);
  assert.deepEqual([...new Set(cases.map((c) => c.reason))].sort(), ['deprecated_policy_field_denyMode', 'invalid_policy_result']);
});

for (const c of pageCases()) {
  test(`${c.literal}: the package alone runs the tool; the page's loop records aioc's deny (${c.reason}) and never runs it`, async () => {
    // The oracle for "the package alone": the real package with the result handed to it directly.
    const prepared = prepareToolCall({ agentName: 'Billing agent', toolName: 'pay', rawArguments: '{"to":"bob","cents":500}' });
    const alone = await evaluateToolCall({ prepared, policy: () => ({ ...c.result }) });
    assert.equal(alone.decision, 'allow');
    let ranAlone = 0;
    await executeSnapshotCall(alone, () => ranAlone++);
    assert.equal(ranAlone, 1, 'without aioc\'s normalisation the tool runs');

    const { world, step } = setup(() => ({ ...c.result }));
    await assert.rejects(step(), (error) => error instanceof ToolCallPolicyDeniedError && error instanceof AIOCError);
    assert.deepEqual(world.record, [{ callId: 'call_1', decision: 'deny', reason: c.reason }]);
    assert.deepEqual(world.runs, [], 'the tool never ran');
  });
}

test('the loop runs a valid allow once, with the schema output, and records it', async () => {
  let seen;
  const { world, step } = setup((input) => {
    seen = input;
    return { decision: 'allow', reason: 'small payment' };
  });
  assert.deepEqual(await step(), { status: 'ok', code: null, data: { paid: 500 } });
  assert.deepEqual(world.runs, [{ to: 'bob', cents: 500, memo: '' }]);
  assert.deepEqual(world.record, [{ callId: 'call_1', decision: 'allow', reason: 'small payment' }]);
  // What the policy sees: aioc's fields, plus requestedArguments (the model's, before the schema).
  assert.deepEqual(seen.parsedArguments, { to: 'bob', cents: 500, memo: '' });
  assert.deepEqual(seen.requestedArguments, { to: 'bob', cents: 500 });
  assert.equal(seen.rawArguments, '{"to":"bob","cents":500}');
  assert.equal(seen.turn, 1);
  assert.deepEqual(seen.runContext, { context: { userId: 'u1' } });
  assert.equal(seen.proposalHash, prepareToolCall({ agentName: 'Billing agent', toolName: 'pay', rawArguments: '{"to":"bob","cents":500,"memo":""}' }).proposalHash);
});

test("aioc's other results: approval suspends with the evaluated fingerprint; tool_result is an envelope; throwing, missing and mutating policies are recorded denies", async () => {
  const approval = setup(() => ({ decision: 'require_approval', reason: 'large' }));
  await assert.rejects(approval.step(), ToolCallApprovalRequiredError);
  assert.equal(approval.world.proposals.length, 1);
  const [proposal] = approval.world.proposals;
  assert.equal(proposal.argsCanonicalJson, '{"cents":500,"memo":"","to":"bob"}');
  assert.equal(proposal.proposalHash, prepareToolCall({ agentName: 'Billing agent', toolName: 'pay', rawArguments: proposal.argsCanonicalJson }).proposalHash);
  assert.deepEqual(approval.world.runs, []);

  const envelope = setup(() => ({ decision: 'deny', reason: 'blocked', resultMode: 'tool_result' }));
  assert.deepEqual(await envelope.step(), { status: 'denied', code: 'blocked', data: null });

  const throwing = setup(() => {
    throw new RangeError('policy bug');
  });
  await assert.rejects(throwing.step(), ToolCallPolicyDeniedError);
  assert.deepEqual(throwing.world.record, [{ callId: 'call_1', decision: 'deny', reason: 'policy_error' }]);

  const none = setup(undefined);
  await assert.rejects(none.step(), ToolCallPolicyDeniedError);
  assert.deepEqual(none.world.record, [{ callId: 'call_1', decision: 'deny', reason: 'policy_not_configured' }]);

  const mutating = setup((input) => {
    input.parsedArguments.cents = 1;
    return { decision: 'allow', reason: 'looks fine' };
  });
  await assert.rejects(mutating.step(), ToolCallPolicyDeniedError);
  assert.deepEqual(mutating.world.record, [{ callId: 'call_1', decision: 'deny', reason: 'policy_mutated_arguments' }], 'the runtime deny is what aioc records');
  assert.deepEqual(mutating.world.runs, []);

  const inherited = setup(() => Object.create({ decision: 'allow', reason: 'from a prototype' }));
  await assert.rejects(inherited.step(), ToolCallPolicyDeniedError);
  assert.deepEqual(inherited.world.record, [{ callId: 'call_1', decision: 'deny', reason: 'invalid_policy_result' }], 'the page: an inherited allow is now a runtime deny');
  assert.deepEqual(inherited.world.runs, []);
});

test('arguments the package refuses are an AIOCError (ToolCallError) with the stage and code, before any policy', async () => {
  let asked = 0;
  const { world, step } = setup(() => {
    asked++;
    return { decision: 'allow', reason: 'ok' };
  });
  for (const [args, stage, code] of [['{"to":"bob","cents":500', 'json', 'invalid_json'], ['{"to":"bob","cents":"500"}', 'schema', 'schema_error'], ['{"to":"bob","to":"eve","cents":5}', 'json', 'duplicate_key']]) {
    await assert.rejects(step({ arguments: args }), (error) => {
      assert.ok(error instanceof ToolCallError && error instanceof AIOCError, 'an AIOCError');
      assert.equal(error.stage, stage);
      assert.equal(error.code, code);
      assert.ok(isToolArgumentsValidationError(error.cause));
      assert.ok(!error.message.includes('eve') && !error.message.includes('"500"'), error.message);
      return true;
    });
  }
  assert.equal(asked, 0, 'no policy saw refused arguments');
  assert.deepEqual(world.record, []);
  assert.deepEqual(world.runs, []);
});

test("the page's code is the loop above: its decisive lines and its imports (real exports, collisions aliased)", () => {
  for (const line of [
    'if (!policy) return createDeniedPolicyResult("policy_not_configured");',
    'return createDeniedPolicyResult("policy_error", toErrorMetadata(error));',
    'if (hasDeprecatedDenyMode(rawResult)) return createDeprecatedDenyModeResult(rawResult.denyMode);',
    'if (!isPolicyResultShape(rawResult)) return createDeniedPolicyResult("invalid_policy_result");',
    'return materializePolicyResult(rawResult);',
    'policy: (input) => aiocToolPolicy(policies, input),',
    'const policyResult: PolicyResult = decision.decidedBy === "policy" ? decision.policyResult : createDeniedPolicyResult(decision.reason);',
    'if (policyResult.decision !== "allow" || decision.decision !== "allow") {',
    'const toolOutput = await executeSnapshotCall(decision, (args) => definition.execute(args, runContext));',
    'if (isToolArgumentsValidationError(error)) throw new ToolArgumentsRejectedError(error);',
  ]) {
    assert.ok(PAGE.includes(`+${line}`) || PAGE.includes(`+  ${line}`) || PAGE.includes(`+    ${line}`), `the page has: ${line}`);
  }
  const block = /\+import \{\n((?:\+ .*\n)+)\+\} from "tool-argument-snapshot";/.exec(PAGE);
  assert.ok(block, 'the import of the package');
  const declarations = fs.readFileSync(path.join(__dirname, '..', 'index.d.ts'), 'utf8');
  const pkg = require('..');
  const imported = block[1].split('\n').filter(Boolean).map((l) => l.replace(/^\+\s*/, '').replace(/,$/, ''));
  const aliases = {};
  for (const entry of imported) {
    const m = /^(type )?(\w+)(?: as (\w+))?$/.exec(entry);
    assert.ok(m, entry);
    if (m[1]) assert.match(declarations, new RegExp(`export (?:interface|type) ${m[2]}\\b`), `${m[2]} is a type of index.d.ts`);
    else assert.equal(typeof pkg[m[2]], 'function', `${m[2]} is exported`);
    if (m[3]) aliases[m[2]] = m[3];
  }
  // The collisions the page names are imported under another name (PolicyDecision is not needed).
  for (const name of ['executeToolCall', 'ToolPolicyInput', 'SuspendedToolProposal']) assert.ok(aliases[name] && aliases[name] !== name, `${name} is aliased`);
  for (const name of ['executeToolCall', 'ToolPolicyInput', 'SuspendedToolProposal', 'PolicyDecision']) assert.match(PAGE, new RegExp(`\\| \`${name}\` \\(`), `the collision table names ${name}`);
});
