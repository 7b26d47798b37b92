'use strict';
// tool-argument-snapshot/restate: RFC-0016 for AI SDK tools that run as steps of a Restate
// service, virtual object or workflow (@restatedev/restate-sdk 1.17, with the model call
// made durable by @restatedev/vercel-ai-middleware's durableCalls). docs/adapters/durable-engines.md.
//
// Per tool call, in the handler (steps.js):
//   1. the provider's text, from the model response Restate journaled (gate.model records
//      it outside durableCalls), prepared: strict decoding, the tool's schema once, the
//      snapshot (the SDK validates nothing: its input schema passes the value through);
//   2. one `ctx.run` step decides and executes: the call's receipt first, then the policy
//      on its own view, then the tool's execute on a fresh view through executeToolCall,
//      with the receipt keyed { agentName, runId: `${invocation id}/${model step}`, toolCallId };
//   3. on require_approval: an awakeable whose id goes to the reviewer with the proposal
//      (sealed with a key ring), in a step; the reviewer's answer carries the proposal back;
//      a step grants it (the seal verifies); a step decides again on the same prepared call
//      and executes.
// A step whose process dies after the tool's side effect is attempted again by Restate:
// its receipt says the call ran (completed: the kept result or call_already_executed) or may
// have (claimed, no outcome: outcome_unknown), so the handler never runs twice.

const { requirePeer } = require('../gate/peer');
const { ObjectFreeze } = require('../gate/primordials');
const { invalidArgument, own, setData, ownDataCopy } = require('../gate/read');
const { executorMaker } = require('./steps');

const ADAPTER = 'restate';

let loaded;
/** The peers, loaded on first use: the Restate SDK (TerminalError) and the AI SDK. */
function peers() {
  if (loaded === undefined) {
    const restate = requirePeer(ADAPTER, '@restatedev/restate-sdk', 'the Restate TypeScript SDK', () => require('@restatedev/restate-sdk'));
    const ai = requirePeer(ADAPTER, 'ai', 'the Vercel AI SDK 7', () => require('ai'));
    const calls = require('../durable/calls');
    const { receiptKey } = require('../gate/receipts');
    const { readTools } = require('../ai/schema');
    const { createRecorder } = require('../durable/record');
    loaded = { restate, ai, calls, receiptKey, readTools, createRecorder };
  }
  return loaded;
}

/** What the reviewer's side is given: `approvals.request` must be a function. */
function readApprovals(opts) {
  const approvals = own(opts, 'approvals');
  if (approvals === undefined) return undefined;
  const request = own(approvals, 'request');
  if (typeof request !== 'function')
    throw invalidArgument('options.approvals must be { request(approvalRequest) } (a function that sends the request to the reviewer)');
  return { request };
}

/**
 * A gate for one invocation of a Restate handler. `ctx` is the handler's context; options
 * are the AI SDK gate's (agentName, tools, policy, grants, receipts, grantScope, onDecision,
 * jsonSchemaOptions) and `approvals: { request }`.
 */
function createRestateToolGate(ctx, options) {
  const { restate, ai, calls, receiptKey, readTools, createRecorder } = peers();
  if (ctx === null || typeof ctx !== 'object' || typeof ctx.run !== 'function' || typeof ctx.awakeable !== 'function' || typeof ctx.request !== 'function') {
    throw invalidArgument("createRestateToolGate expects the Restate handler's context as its first argument");
  }
  const gate = calls.readDurableOptions(options, ADAPTER, readTools);
  // A step attempt that finds its call claimed and not completed follows an attempt Restate
  // gave up on (one attempt of an invocation runs at a time): outcome_unknown, at once.
  gate.claimOfDeadAttempt = true;
  const approvals = readApprovals(gate.opts);
  const invocationId = own(ctx.request(), 'id');
  if (!calls.isKeyPart(invocationId)) throw invalidArgument('the Restate context has no invocation id');
  const recorder = createRecorder((toolName) => calls.guardedEntry(gate.byName, toolName) !== undefined);

  const executorFor = executorMaker({ ctx, gate, restate, calls, receiptKey, approvals, recorder, invocationId });

  const tools = {};
  for (let i = 0; i < gate.entries.length; i++) {
    const entry = gate.entries[i];
    if (!entry.guarded) {
      setData(tools, entry.toolName, entry.target);
      continue;
    }
    const copy = ownDataCopy(entry.target);
    const original = entry.inputSchema;
    // The JSON Schema the model is shown; the SDK validates nothing (the schema runs once, in
    // the package, on the provider's text).
    setData(
      copy,
      'inputSchema',
      ai.jsonSchema(() => ai.asSchema(original).jsonSchema, { validate: (value) => ({ success: true, value }) }),
    );
    setData(copy, 'execute', executorFor(entry));
    // The policy decides what needs approval.
    delete copy.needsApproval;
    setData(tools, entry.toolName, ObjectFreeze(copy));
  }

  /** The model, recording the provider's texts: wrap the model durableCalls made durable. */
  function model(languageModel) {
    return ai.wrapLanguageModel({ model: languageModel, middleware: recorder.middleware });
  }

  return ObjectFreeze({ tools: ObjectFreeze(tools), model, middleware: recorder.middleware, grants: gate.grants, receipts: gate.receipts, invocationId });
}

module.exports = { createRestateToolGate };
