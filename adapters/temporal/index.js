'use strict';
// tool-argument-snapshot/temporal: RFC-0016 for AI SDK tools that run as Temporal activities
// (@temporalio/ai-sdk 1.23: the workflow runs the agent loop, the model call is an
// activity, each tool call an activity). This is the worker's side: the activities that
// decide and execute. The workflow's side (recording the provider's text, calling these
// activities, waiting for the reviewer's signal) is tool-argument-snapshot/temporal/workflow,
// which loads in the workflow sandbox. docs/adapters/durable-engines.md.
//
// runToolCall({ toolName, toolCallId, rawArguments }) prepares the provider's text (strict
// decoding, the tool's schema once, the snapshot), reads the call's receipt, asks the policy
// on its own view and runs the tool's execute on a fresh view through executeToolCall. The
// receipt's key is the activity's own identity: { agentName, runId: `${workflowId}/${runId}`,
// toolCallId: activityId }, which every retry of the activity keeps. So an activity whose
// side effect ran and whose completion Temporal never recorded (the worker died) is retried
// by Temporal and runs nothing: its receipt says the call ran, or may have.

const { requirePeer } = require('../gate/peer');
const { ObjectFreeze } = require('../gate/primordials');
const { invalidArgument, own, isId } = require('../gate/read');

const ADAPTER = 'temporal';

let loaded;
/** The peers, loaded on first use: @temporalio/activity (the activity's info, ApplicationFailure) and the AI SDK. */
function peers() {
  if (loaded === undefined) {
    const activity = requirePeer(ADAPTER, '@temporalio/activity', 'the Temporal activity SDK', () => require('@temporalio/activity'));
    requirePeer(ADAPTER, 'ai', 'the Vercel AI SDK 7', () => require('ai'));
    const calls = require('../durable/calls');
    const { receiptKey } = require('../gate/receipts');
    const { readTools } = require('../ai/schema');
    loaded = { activity, calls, receiptKey, readTools };
  }
  return loaded;
}

/**
 * The activities of a gate: `runToolCall` and `grantToolCall`. Options are the AI SDK
 * gate's (agentName, tools: AI SDK tools with their execute, policy, grants, receipts,
 * grantScope, onDecision, jsonSchemaOptions).
 */
function createToolActivities(options) {
  const { activity, calls, receiptKey, readTools } = peers();
  const gate = calls.readDurableOptions(options, ADAPTER, readTools);
  const { isToolArgumentsValidationError } = require('tool-argument-snapshot');

  /** The receipt's key from the activity's info: the workflow run and the activity id. */
  function keyOfActivity() {
    const info = activity.activityInfo();
    const execution = own(info, 'workflowExecution');
    const activityId = own(info, 'activityId');
    if (!isId(activityId))
      throw activity.ApplicationFailure.nonRetryable('tool-argument-snapshot/temporal: the activity has no id (call_id_required)', 'call_id_required');
    const workflowId = own(execution, 'workflowId');
    const runId = own(execution, 'runId');
    // A standalone activity (no workflow): its id alone.
    return ObjectFreeze(receiptKey(gate.agentName, isId(workflowId) && isId(runId) ? `${workflowId}/${runId}` : null, activityId));
  }

  async function runToolCall(request) {
    const toolName = own(request, 'toolName');
    const rawArguments = own(request, 'rawArguments');
    const providerToolCallId = own(request, 'toolCallId');
    const entry = calls.guardedEntry(gate.byName, toolName);
    if (entry === undefined) return { status: 'denied', reason: 'unknown_tool', decidedBy: 'runtime' };
    if (typeof rawArguments !== 'string') return { status: 'invalid', stage: 'json', code: 'no_provider_text' };
    const key = keyOfActivity();
    let prepared;
    try {
      prepared = await calls.prepareCall(gate, entry, rawArguments, key);
    } catch (error) {
      // Invalid input is the model's to correct, never a failure Temporal would retry.
      if (isToolArgumentsValidationError(error)) return { status: 'invalid', stage: error.stage, code: error.code };
      throw error;
    }
    const policyContext = { providerToolCallId: isId(providerToolCallId) ? providerToolCallId : null };
    const executeOptions = { toolCallId: isId(providerToolCallId) ? providerToolCallId : key.toolCallId, messages: [] };
    const outcome = await calls.attemptCall(gate, entry, prepared, key, policyContext, (view) => [view, executeOptions]);
    if (outcome.status === 'retry') {
      throw activity.ApplicationFailure.retryable(`tool-argument-snapshot/temporal: the call cannot be attempted now (${outcome.code})`, outcome.code);
    }
    return outcome;
  }

  /** Grants the reviewer's answer `{ answer, proposal }` (the proposal runToolCall asked for). */
  async function grantToolCall(request) {
    const asked = own(request, 'proposal');
    if (asked === null || typeof asked !== 'object') throw invalidArgument('grantToolCall expects { answer, proposal } with the proposal runToolCall answered');
    return calls.grantAnswer(gate, own(request, 'answer'), asked);
  }

  return ObjectFreeze({ runToolCall, grantToolCall });
}

module.exports = { createToolActivities };
