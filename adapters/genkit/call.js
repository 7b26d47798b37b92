'use strict';
// Deciding and running one call of a Genkit gate's tools, in its generate middleware's
// `tool` hook: the tool request's input prepared on its snapshot, the policy, then the
// tool's execute on a fresh view, a refusal answered as the tool's output, or Genkit's own
// interrupt carrying the approval request.

const {
  prepareToolCallAsync,
  canonicalize,
  isToolArgumentsValidationError,
  isSnapshotDomainError,
  ToolArgumentsValidationError,
} = require('tool-argument-snapshot');
const { ReflectApply } = require('../gate/primordials');
const { own, setData, isId } = require('../gate/read');
const { decideCall } = require('../gate/decide');
const { authorizeCall } = require('../gate/authorize');
const { executeDecision, isGrantUnavailable } = require('../gate/execute');
const { receiptKey } = require('../gate/receipts');
const { executeOptions, receiptRefusalCode, replayCode } = require('../gate/replays');
const { keepOptions } = require('../gate/proposals');
const { APPROVED_WITHOUT_GRANT } = require('../gate/warnings');
const { keyOf, configString } = require('./options');

/** Where the gate's interrupt keeps what it says (the approval request) in Genkit's interrupt metadata. */
const META_KEY = 'tool-argument-snapshot';

function notExecutedOutput(decision, reason, decidedBy) {
  const message =
    decision === 'require_approval'
      ? `The tool call was not executed: it waits for a reviewer's approval (${reason}).`
      : `The tool call was not executed (${decision}: ${reason}).`;
  return { error: true, message, decision, reason, decidedBy };
}

function invalidInputOutput(error) {
  return {
    error: true,
    message: `${own(error, 'message')} Please call the tool again with valid arguments.`,
    stage: own(error, 'stage'),
    code: own(error, 'code'),
  };
}

function toolResponse(toolRequest, output) {
  const response = { name: own(toolRequest, 'name'), output };
  const ref = own(toolRequest, 'ref');
  if (ref !== undefined) setData(response, 'ref', ref);
  return { toolResponse: response };
}

/**
 * The prepared call of a tool request: the object Genkit's model plugin parsed from the
 * provider's arguments, in its RFC 8785 form (a getter, a Proxy or a non-JSON value is
 * refused unread), the tool's schema run once. Rejects with a ToolArgumentsValidationError.
 */
async function prepareRequest(gate, entry, toolRequest, ref, runId) {
  const { agentName, includePath } = gate;
  let rawArguments;
  try {
    rawArguments = canonicalize(own(toolRequest, 'input') ?? {}, { includePath });
  } catch (error) {
    if (!isSnapshotDomainError(error)) throw error;
    throw new ToolArgumentsValidationError('snapshot', entry.toolName, own(error, 'code'));
  }
  const prepareInput = { agentName, toolName: entry.toolName, rawArguments, schema: entry.schema, includePath, toolCallId: ref };
  if (runId !== undefined) setData(prepareInput, 'runId', runId);
  return prepareToolCallAsync(prepareInput);
}

/**
 * The middleware's tool hook for one of the gate's tools (decide, then run, refuse or
 * interrupt), over the gate's record; `ToolInterruptError` is Genkit's, `notice` the gate's
 * approved-without-grant warning.
 */
function gatedCallOf(gate, ToolInterruptError, notice) {
  const { agentName, receipts, scopeOption, proposalTtlMs, onDecision, store } = gate;
  return async function gatedCall(entry, req, ctx, config) {
    const toolRequest = own(req, 'toolRequest');
    const ref = own(toolRequest, 'ref');
    if (!isId(ref)) return toolResponse(toolRequest, invalidInputOutput(new ToolArgumentsValidationError('json', entry.toolName, 'missing_call_id')));
    let runId;
    let scope;
    try {
      runId = configString(config, 'runId');
      scope = configString(config, 'grantScope') ?? scopeOption ?? null;
    } catch {
      return toolResponse(toolRequest, notExecutedOutput('deny', 'invalid_middleware_config', 'runtime'));
    }
    // A restart the caller marked (`resumed`): it is prepared and decided like any call;
    // only a grant of this exact hash lets it run.
    const resumed = own(own(req, 'metadata'), 'resumed') !== undefined;
    let prepared;
    try {
      prepared = await prepareRequest(gate, entry, toolRequest, ref, runId);
    } catch (error) {
      if (isToolArgumentsValidationError(error)) return toolResponse(toolRequest, invalidInputOutput(error));
      throw error;
    }
    const policyContext = { toolCallId: ref, argumentsSource: 'genkit_input', resume: resumed };
    if (runId !== undefined) setData(policyContext, 'runId', runId);
    if (scope !== null) setData(policyContext, 'grantScope', scope);
    const info = { toolCallId: ref, runId: runId ?? null, argumentsSource: 'genkit_input', resume: resumed };
    const handler = (view) => ReflectApply(entry.execute, undefined, [view, ctx]);
    let decision;
    if (onDecision === undefined) {
      // No observer waits between the decision and the run: one step (authorizeToolCall), so
      // a call relying on a grant makes one store call before its handler (issue 35: the
      // receipt's claim takes the use).
      const settled = await authorizeCall(prepared, entry.policy, policyContext, ref, handler, runId === undefined ? undefined : executeOptions(receipts));
      if (settled.decision === undefined) {
        if (!settled.ran) return toolResponse(toolRequest, notExecutedOutput('deny', settled.code, 'runtime'));
        if (settled.threw === true) throw settled.error;
        return toolResponse(toolRequest, settled.result === undefined ? null : settled.result);
      }
      decision = settled.decision;
    } else {
      decision = await decideCall(prepared, entry.policy, policyContext, ref, onDecision, info);
    }
    if (decision.decision === 'deny') return toolResponse(toolRequest, notExecutedOutput('deny', decision.reason, decision.decidedBy));
    if (decision.decision === 'require_approval') {
      if (resumed) {
        // A restart no grant allows: approved the Genkit way only (`resumed: { toolApproved:
        // true }`), or restarted with other arguments than the approved ones (an edited
        // history, `replaceInput`). Not run. (It is answered, not interrupted again: Genkit
        // 1.42 fails a generate whose restarted tool interrupts.)
        // A restart of a call that already ran (its grant spent): its receipt's code.
        const code = runId === undefined ? undefined : await replayCode(receipts, receiptKey(agentName, runId, ref), prepared.proposalHash);
        if (code !== undefined) return toolResponse(toolRequest, notExecutedOutput('deny', code, 'runtime'));
        notice();
        return toolResponse(toolRequest, notExecutedOutput('deny', APPROVED_WITHOUT_GRANT, 'runtime'));
      }
      let kept;
      try {
        kept = await store.keep(keyOf(gate, scope, runId, ref), decision.proposal, keepOptions(scope, proposalTtlMs));
      } catch {
        return toolResponse(toolRequest, notExecutedOutput('deny', 'grant_store_unavailable', 'runtime'));
      }
      const said = { proposal: kept ?? decision.proposal, reason: decision.reason, decidedBy: decision.decidedBy, runId: runId ?? null };
      if (scope !== null) setData(said, 'grantScope', scope);
      // Genkit's interrupt: the generate ends `interrupted`, the request listed in
      // `response.interrupts` with this metadata (the approval request, with its proposal).
      throw new ToolInterruptError({ [META_KEY]: said });
    }
    try {
      const output = await executeDecision(decision, handler, runId === undefined ? undefined : executeOptions(receipts));
      return toolResponse(toolRequest, output === undefined ? null : output);
    } catch (error) {
      if (isGrantUnavailable(error)) return toolResponse(toolRequest, notExecutedOutput('deny', 'grant_unavailable', 'runtime'));
      const code = receiptRefusalCode(error);
      if (code !== undefined) return toolResponse(toolRequest, notExecutedOutput('deny', code, 'runtime'));
      throw error;
    }
  };
}

module.exports = { META_KEY, notExecutedOutput, gatedCallOf };
