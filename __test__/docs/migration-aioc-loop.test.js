'use strict';
// docs/migration-from-aioc.md gives aioc's tool step as a patch of aioc 0.2.8: the call is
// prepared by the package, aioc's own evaluateToolPolicy (aioc's policy input and result
// normalisation) is the policy the package evaluates, the record carries what the package
// decided, and the package executes. This test re-implements that step as the patch writes
// it (aioc's helpers written from the page's description of aioc 0.2.8's rules, not taken
// from aioc), checks that the page's diff has the step's decisive lines, and runs the page's
// own table of policy results through it: each must be recorded as aioc's deny with the
// page's reason and the tool must never run, while the package alone (the real package is
// the oracle) runs the tool for every one of them. With aioc itself, the patch is applied
// and aioc's own suites run in docs/migration-aioc-patch.test.js (TAS_AIOC_DIR).

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { z } = require('zod');
const snapshots = require('../..');

const PAGE = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'migration-from-aioc.md'), 'utf8');
/** The added and the removed lines of the page's diff blocks, without their +/- marks. */
const DIFF = [...PAGE.matchAll(/^```diff\n([\s\S]*?)^```$/gm)].map((m) => m[1]).join('');
const ADDED = DIFF.split('\n')
  .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
  .map((l) => l.slice(1));
const REMOVED = DIFF.split('\n')
  .filter((l) => l.startsWith('-') && !l.startsWith('---'))
  .map((l) => l.slice(1));

/** The rows of the page's table: a policy result (a JS literal), what the package alone does, aioc's reason. */
function pageCases() {
  const section = PAGE.slice(PAGE.indexOf("### Why aioc's normalisation stays"), PAGE.indexOf('### Errors:'));
  const rows = [...section.matchAll(/^\| `(\{[^`]+\})` \| (allow|deny) \| deny, `([a-z_A-Z]+)`/gm)];
  return rows.map(([, literal, alone, reason]) => ({ literal, alone, reason, result: new Function(`return (${literal});`)() }));
}

// ---- aioc's helpers, as the page describes aioc 0.2.8 -----------------------------------

class AIOCError extends Error {
  constructor(message) {
    super(message);
    this.name = new.target.name;
  }
}
class ToolCallError extends AIOCError {}
// The patch's error, as the page's table of its fields describes it.
class ToolArgumentsValidationError extends ToolCallError {
  constructor(error) {
    super(error.message);
    this.cause = error;
    for (const field of ['stage', 'code', 'toolName', 'path', 'issueCount', 'issueCodes', 'issuePaths']) this[field] = error[field];
  }
}
class ToolCallPolicyDeniedError extends ToolCallError {}
class ToolCallApprovalRequiredError extends ToolCallError {}

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
  return (
    DECISIONS.includes(value.decision) &&
    typeof value.reason === 'string' &&
    value.reason.trim() !== '' &&
    absentOr('publicReason', (v) => typeof v === 'string') &&
    absentOr('expiresAt', (v) => typeof v === 'string') &&
    absentOr('resultMode', (v) => v === 'throw' || v === 'tool_result')
  );
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

// aioc 0.2.8's builder with the patch's `fingerprint` parameter: 0.2.8's key order.
function buildSuspendedToolProposal(params) {
  const { argsCanonicalJson, proposalHash } = params.fingerprint;
  return {
    timestamp: new Date().toISOString(),
    kind: 'tool',
    runId: params.runId,
    turn: params.turn,
    callId: params.callId,
    agentName: params.agentName,
    proposalHash,
    reason: params.policyResult.reason,
    publicReason: params.policyResult.publicReason,
    policyVersion: params.policyResult.policyVersion,
    expiresAt: params.policyResult.expiresAt,
    metadata: params.policyResult.metadata,
    toolName: params.toolName,
    rawArguments: params.rawArguments,
    parsedArguments: params.parsedArguments,
    argsCanonicalJson,
  };
}

// ---- the patched tool step ---------------------------------------------------------------

/** aioc's evaluateToolPolicy with the patch: 0.2.8's policy input, from the package's. */
async function evaluateToolPolicy(agent, call, snapshot, runContext, turn, policies) {
  const policy = policies?.toolPolicy;
  if (!policy) return createDeniedPolicyResult('policy_not_configured');
  const { parsedArguments, proposalHash, argsCanonicalJson } = snapshot;
  let rawResult;
  try {
    rawResult = await policy({
      agentName: agent.name,
      toolName: call.name,
      rawArguments: call.arguments,
      parsedArguments,
      proposalHash,
      argsCanonicalJson,
      runContext,
      turn,
    });
  } catch (error) {
    return createDeniedPolicyResult('policy_error', toErrorMetadata(error));
  }
  if (hasDeprecatedDenyMode(rawResult)) return createDeprecatedDenyModeResult(rawResult.denyMode);
  if (!isPolicyResultShape(rawResult)) return createDeniedPolicyResult('invalid_policy_result');
  return materializePolicyResult(rawResult);
}

/** aioc's executeToolCall as the patch writes it; `world` holds the record, the proposals and the tool's runs. */
async function executeToolCall(agent, runId, call, runContext, turn, policies, world) {
  const definition = agent.tools.find((tool) => tool.name === call.name);
  if (!definition) throw new ToolCallError(`Tool "${call.name}" is not registered.`);
  let prepared;
  try {
    prepared = snapshots.prepareToolCall({
      agentName: agent.name,
      toolName: call.name,
      rawArguments: call.arguments,
      schema: definition.parameters,
      toolCallId: call.callId,
    });
  } catch (error) {
    throw snapshots.isToolArgumentsValidationError(error) ? new ToolArgumentsValidationError(error) : error;
  }
  const decision = await snapshots.evaluateToolCall({
    prepared,
    policy: (snapshot) => evaluateToolPolicy(agent, call, snapshot, runContext, turn, policies),
  });
  const policyResult =
    decision.decidedBy === 'policy'
      ? { ...decision.policyResult, decision: decision.decision, reason: decision.reason }
      : createDeniedPolicyResult(decision.reason);
  // emitPolicyDecision: the record, then the logger (which aioc awaits).
  world.record.push({ callId: call.callId, decision: policyResult.decision, reason: policyResult.reason });
  await world.logger();
  if (policyResult.decision !== 'allow') {
    const suspendedProposal =
      decision.decision === 'require_approval'
        ? buildSuspendedToolProposal({
            runId,
            agentName: agent.name,
            turn,
            callId: call.callId,
            toolName: call.name,
            rawArguments: call.arguments,
            parsedArguments: decision.proposal.parsedArguments,
            fingerprint: decision.proposal,
            policyResult,
          })
        : undefined;
    if (suspendedProposal) world.proposals.push(suspendedProposal);
    return handleBlockedPolicyResult({ toolName: call.name, policyResult, suspendedProposal });
  }
  const toolOutput = await snapshots.executeToolCall(decision, (args) => definition.execute(args, runContext));
  return { status: 'ok', code: null, data: toolOutput };
}

// ---- a world to run it in ---------------------------------------------------------------

function setup(toolPolicy, logger = async () => {}) {
  const world = { record: [], proposals: [], runs: [], logger };
  const agent = {
    name: 'Billing agent',
    tools: [
      {
        name: 'pay',
        parameters: z.object({ to: z.string(), cents: z.number().int(), memo: z.string().default('') }),
        execute: (args) => {
          world.runs.push(args);
          return { paid: args.cents };
        },
      },
    ],
  };
  const policies = toolPolicy === undefined ? undefined : { toolPolicy };
  const call = { callId: 'call_1', name: 'pay', arguments: '{"to":"bob","cents":500}' };
  const step = (over = {}) => executeToolCall(agent, 'run_1', { ...call, ...over }, { context: { userId: 'u1' } }, 1, policies, world);
  return { world, step };
}

test('the page lists the policy results aioc 0.2.8 denies and the package alone runs (at least the four of the issue)', () => {
  const cases = pageCases();
  assert.ok(cases.length >= 4, `${cases.length} rows parsed from the page`);
  for (const c of cases) assert.equal(c.alone, 'allow', c.literal);
  assert.deepEqual([...new Set(cases.map((c) => c.reason))].sort(), ['deprecated_policy_field_denyMode', 'invalid_policy_result']);
});

for (const c of pageCases()) {
  test(`${c.literal}: the package alone runs the tool; the patched step records aioc's deny (${c.reason}) and never runs it`, async () => {
    // The oracle for "the package alone": the real package with the result handed to it directly.
    const prepared = snapshots.prepareToolCall({ agentName: 'Billing agent', toolName: 'pay', rawArguments: '{"to":"bob","cents":500}' });
    const alone = await snapshots.evaluateToolCall({ prepared, policy: () => ({ ...c.result }) });
    assert.equal(alone.decision, 'allow');
    let ranAlone = 0;
    await snapshots.executeToolCall(alone, () => ranAlone++);
    assert.equal(ranAlone, 1, "without aioc's normalisation the tool runs");

    const { world, step } = setup(() => ({ ...c.result }));
    await assert.rejects(step(), (error) => error instanceof ToolCallPolicyDeniedError && error instanceof AIOCError);
    assert.deepEqual(world.record, [{ callId: 'call_1', decision: 'deny', reason: c.reason }]);
    assert.deepEqual(world.runs, [], 'the tool never ran');
  });
}

test("a valid allow runs once with the schema output; the policy gets 0.2.8's input (its fields, in its order), parsedArguments in canonical key order", async () => {
  let seen;
  const { world, step } = setup((input) => {
    seen = input;
    return { decision: 'allow', reason: 'small payment' };
  });
  assert.deepEqual(await step(), { status: 'ok', code: null, data: { paid: 500 } });
  assert.deepEqual(world.runs, [{ to: 'bob', cents: 500, memo: '' }]);
  assert.deepEqual(world.record, [{ callId: 'call_1', decision: 'allow', reason: 'small payment' }]);
  // The page: "The policy input keeps 0.2.8's fields and key order"; no requestedArguments.
  assert.deepEqual(Object.keys(seen), ['agentName', 'toolName', 'rawArguments', 'parsedArguments', 'proposalHash', 'argsCanonicalJson', 'runContext', 'turn']);
  // The page: keys inside parsedArguments come in RFC 8785 order, for the policy and the handler.
  assert.deepEqual(Object.keys(seen.parsedArguments), ['cents', 'memo', 'to']);
  assert.deepEqual(Object.keys(world.runs[0]), ['cents', 'memo', 'to']);
  assert.equal(seen.argsCanonicalJson, '{"cents":500,"memo":"","to":"bob"}');
  assert.equal(seen.rawArguments, '{"to":"bob","cents":500}');
  assert.equal(seen.turn, 1);
  assert.deepEqual(seen.runContext, { context: { userId: 'u1' } });
  assert.equal(
    seen.proposalHash,
    snapshots.prepareToolCall({ agentName: 'Billing agent', toolName: 'pay', rawArguments: seen.argsCanonicalJson }).proposalHash,
  );
});

test("aioc's other results: approval suspends with the evaluated fingerprint in 0.2.8's key order; tool_result is an envelope; throwing, missing, mutating and inherited results are recorded denies", async () => {
  const approval = setup(() => ({ decision: 'require_approval', reason: 'large' }));
  await assert.rejects(approval.step(), ToolCallApprovalRequiredError);
  assert.equal(approval.world.proposals.length, 1);
  const [proposal] = approval.world.proposals;
  assert.deepEqual(Object.keys(proposal), [
    'timestamp',
    'kind',
    'runId',
    'turn',
    'callId',
    'agentName',
    'proposalHash',
    'reason',
    'publicReason',
    'policyVersion',
    'expiresAt',
    'metadata',
    'toolName',
    'rawArguments',
    'parsedArguments',
    'argsCanonicalJson',
  ]);
  assert.equal(proposal.argsCanonicalJson, '{"cents":500,"memo":"","to":"bob"}');
  assert.equal(
    proposal.proposalHash,
    snapshots.prepareToolCall({ agentName: 'Billing agent', toolName: 'pay', rawArguments: proposal.argsCanonicalJson }).proposalHash,
  );
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
  assert.deepEqual(
    mutating.world.record,
    [{ callId: 'call_1', decision: 'deny', reason: 'policy_mutated_arguments' }],
    'the runtime deny is what aioc records',
  );
  assert.deepEqual(mutating.world.runs, []);

  for (const [label, make] of [
    ['inherited', () => Object.create({ decision: 'allow', reason: 'from a prototype' })],
    [
      'a getter',
      () => ({
        get decision() {
          return 'allow';
        },
        reason: 'ok',
      }),
    ],
    ['a Proxy', () => new Proxy({ decision: 'allow', reason: 'ok' }, {})],
  ]) {
    const odd = setup(make);
    await assert.rejects(odd.step(), ToolCallPolicyDeniedError, label);
    assert.deepEqual(
      odd.world.record,
      [{ callId: 'call_1', decision: 'deny', reason: 'invalid_policy_result' }],
      `the page: ${label} allow is now a runtime deny`,
    );
    assert.deepEqual(odd.world.runs, [], label);
  }
});

test('the record says what the package decided: a deny the policy turns into an allow after returning is recorded as a deny and never runs', async () => {
  for (const [decision, resultMode] of [
    ['deny', 'tool_result'],
    ['require_approval', 'tool_result'],
  ]) {
    const { world, step } = setup(
      () => {
        const result = { decision, reason: 'no', resultMode };
        setImmediate(() => {
          result.decision = 'allow';
        });
        return result;
      },
      () => new Promise((resolve) => setTimeout(resolve, 5)),
    );
    const output = await step();
    assert.equal(output.status, decision === 'deny' ? 'denied' : 'approval_required');
    assert.deepEqual(world.record, [{ callId: 'call_1', decision, reason: 'no' }]);
    assert.deepEqual(world.runs, []);
  }
});

test("refused arguments are aioc's ToolArgumentsValidationError (an AIOCError, a ToolCallError) with the package's stage, code, toolName and path, before any policy", async () => {
  let asked = 0;
  const { world, step } = setup(() => {
    asked++;
    return { decision: 'allow', reason: 'ok' };
  });
  for (const [args, stage, code] of [
    ['{"to":"bob","cents":500', 'json', 'invalid_json'],
    ['{"to":"bob","cents":"500"}', 'schema', 'schema_error'],
    ['{"to":"bob","to":"eve","cents":5}', 'json', 'duplicate_key'],
  ]) {
    await assert.rejects(step({ arguments: args }), (error) => {
      assert.ok(error instanceof ToolCallError && error instanceof AIOCError, 'an AIOCError');
      assert.equal(error.name, 'ToolArgumentsValidationError');
      assert.equal(error.stage, stage);
      assert.equal(error.code, code);
      assert.equal(error.toolName, 'pay');
      assert.ok('path' in error && error.path === undefined, 'path is a field, undefined without includePath');
      if (stage === 'schema') {
        assert.equal(error.issueCount, 1);
        assert.deepEqual(error.issueCodes, ['invalid_type']);
      }
      assert.ok(snapshots.isToolArgumentsValidationError(error.cause));
      assert.ok(!error.message.includes('eve') && !error.message.includes('"500"'), error.message);
      return true;
    });
  }
  assert.equal(asked, 0, 'no policy saw refused arguments');
  assert.deepEqual(world.record, []);
  assert.deepEqual(world.runs, []);
});

test("the page's diff is the step above: its decisive added lines, and 0.2.8's lines it removes", () => {
  for (const line of [
    '  const { parsedArguments, proposalHash, argsCanonicalJson } = snapshot;',
    '    prepared = snapshots.prepareToolCall({',
    '      schema: definition.parameters,',
    '    throw snapshots.isToolArgumentsValidationError(error)',
    '      ? new ToolArgumentsValidationError(error)',
    '  const decision = await snapshots.evaluateToolCall({',
    '      evaluateToolPolicy(agent, call, snapshot, runContext, turn, policies),',
    '    decision.decidedBy === "policy"',
    '          decision: decision.decision,',
    '          reason: decision.reason,',
    '      : createDeniedPolicyResult(decision.reason);',
    '      decision.decision === "require_approval"',
    '            parsedArguments: decision.proposal.parsedArguments,',
    '            fingerprint: decision.proposal,',
    '  const toolOutput = await snapshots.executeToolCall(decision, (args) =>',
    '  const { argsCanonicalJson, proposalHash } = params.fingerprint;',
    'export class ToolArgumentsValidationError extends ToolCallError {',
    '  readonly stage: snapshots.ToolArgumentsValidationError["stage"];',
    '  readonly code: snapshots.ToolArgumentsErrorCode;',
    '  readonly toolName: string;',
    '  readonly path?: string;',
  ]) {
    assert.ok(ADDED.includes(line), `the patch adds: ${line}`);
  }
  for (const line of [
    '  const validated = definition.parameters.parse(parsedArguments);',
    '  const { proposalHash, argsCanonicalJson } = createToolProposalFingerprint({',
    '  const { argsCanonicalJson, proposalHash } = createToolProposalFingerprint({',
    '                callItemArguments,',
  ]) {
    assert.ok(REMOVED.includes(line), `the patch removes: ${line}`);
  }
  // The execution condition is 0.2.8's, unchanged: a context line of the diff.
  assert.ok(DIFF.split('\n').includes('   if (policyResult.decision !== "allow") {'));
  // The error class comes right after ToolCallError, which it extends.
  assert.match(
    DIFF,
    /^ export class ToolCallError extends AIOCError \{\}\n \n\+\/\*\*\n(?:\+ \*.*\n)+\+export class ToolArgumentsValidationError extends ToolCallError \{$/m,
  );
  // The package's types the error uses exist.
  const declarations = fs.readFileSync(path.join(__dirname, '..', '..', 'lib', 'errors.d.ts'), 'utf8');
  assert.match(declarations, /export type ToolArgumentsErrorCode\b/);
  assert.match(
    declarations,
    /export declare class ToolArgumentsValidationError extends Error \{\n(?:.*\n)*?\s+readonly stage: 'json' \| 'schema' \| 'snapshot';/,
  );
  // The names the package shares with aioc are listed, and reached through the namespace only.
  for (const name of ['executeToolCall', 'ToolPolicyInput', 'SuspendedToolProposal', 'PolicyDecision', 'ToolArgumentsValidationError']) {
    assert.ok(PAGE.includes(`\`${name}\``), `the page names ${name}`);
  }
  assert.ok(ADDED.includes('import * as snapshots from "tool-argument-snapshot";'));
  assert.ok(ADDED.includes('import type * as snapshots from "tool-argument-snapshot";'));
});
