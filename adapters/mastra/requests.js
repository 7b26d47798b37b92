'use strict';
// What a Mastra gate accepts and answers outside a run: approval requests (a run and call
// id, a tool-call-approval chunk, a suspended result), the errors of calls it cannot pair
// or approve, and the default answers to the model for calls that do not run.

const { ToolArgumentsValidationError } = require('tool-argument-snapshot');
const { isProxy } = require('../gate/primordials');
const { invalidArgument, own, isWellFormedString, isId } = require('../gate/read');
const { noPendingProposalError } = require('../gate/proposals');

/**
 * Invalid input (stage json) of a call that cannot be paired with its own provider text:
 * `missing_call_id`, `duplicate_call_id` (the response used the id twice), `unpaired_call`
 * (texts of concurrent runs share the id and the run's arguments do not single one out),
 * `no_provider_text` (no text was recorded: a model the gate does not wrap, a call made
 * outside an agent run, nothing kept for a resumed call).
 */
function callError(toolName, code) {
  return new ToolArgumentsValidationError('json', toolName, code);
}

/** `approve` or `decline` found no proposal waiting for this call (code TAS_NO_PENDING_PROPOSAL). */
function notPendingError() {
  return noPendingProposalError(
    'no proposal is waiting for approval for this tool call of this run (approved, declined, expired, or never asked under this agent and grant scope)',
  );
}

/**
 * What `approve`, `decline` and `keptProposal` accept: `{ runId, toolCallId, grantScope? }`
 * (also what `agent.approveToolCall` takes), a `tool-call-approval` chunk of Mastra's stream
 * (`{ runId, payload: { toolCallId } }`), or a suspended generate result
 * (`{ runId, suspendPayload: { toolCallId } }`). Read as own data properties.
 */
function approvalRef(request, what) {
  const usage = `${what} expects { runId, toolCallId, grantScope? }, a tool-call-approval chunk or a suspended generate result`;
  if (request === null || typeof request !== 'object' || isProxy(request)) throw invalidArgument(usage);
  const runId = own(request, 'runId');
  let toolCallId = own(request, 'toolCallId');
  if (toolCallId === undefined) {
    const payload = own(request, 'payload') ?? own(request, 'suspendPayload');
    if (payload !== null && typeof payload === 'object' && !isProxy(payload)) toolCallId = own(payload, 'toolCallId');
  }
  const grantScope = own(request, 'grantScope');
  if (!isId(runId) || !isId(toolCallId)) throw invalidArgument(usage);
  if (grantScope !== undefined && grantScope !== null && !isWellFormedString(grantScope))
    throw invalidArgument(`${what}: grantScope must be a well-formed string`);
  return { runId, toolCallId, grantScope };
}

function defaultNotExecutedOutput(info) {
  return {
    error: true,
    message: `The tool call was not executed (${info.decision}: ${info.reason}).`,
    decision: info.decision,
    reason: info.reason,
    decidedBy: info.decidedBy,
  };
}

function defaultInvalidInputOutput(error) {
  // The package's message names the tool, the stage and the code, never the payload. The
  // shape is Mastra's own for invalid tool input (`isValidationError` recognizes it).
  const message = `${error.message} Please call the tool again with valid arguments.`;
  return { error: true, message, validationErrors: { errors: [message], fields: {} }, stage: error.stage, code: error.code };
}

module.exports = { callError, notPendingError, approvalRef, defaultNotExecutedOutput, defaultInvalidInputOutput };
