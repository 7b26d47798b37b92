'use strict';
// The CallToolResults the gate answers with: every failure `isError: true` with
// payload-free structuredContent (a stage error, a deny, an approval to ask for).

const { own } = require('../gate/read');
const { JSONStringify, ReflectApply, SafeString } = require('../gate/primordials');
const { createSnapshot } = require('tool-argument-snapshot');

/** The payload-free result of a call that failed at stage json, schema or snapshot. */
function stageResult(toolName, error) {
  const { stage, code } = error;
  return {
    content: [{ type: 'text', text: `The arguments of tool ${JSONStringify(toolName)} were refused at stage ${stage} [${code}].` }],
    structuredContent: { toolName, stage, code },
    isError: true,
  };
}

function denyResult(reason, decidedBy) {
  return {
    content: [{ type: 'text', text: `The tool call was denied [${reason}].` }],
    structuredContent: { decision: 'deny', reason, decidedBy },
    isError: true,
  };
}

/** What the SDK answers when a tool handler throws (its createToolError). */
function toolErrorResult(error) {
  const message = error !== null && typeof error === 'object' && typeof error.message === 'string' ? error.message : SafeString(error);
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** The arguments of a message that reached the handler as an object: strict JSON data, or a stage error. */
function objectArguments(agentName, toolName, value) {
  return createSnapshot({ agentName, toolName, value: value === undefined ? {} : value }).argsCanonicalJson;
}

/** The proposal a require_approval result carries: sealed when the grants have keys. */
function approvalProposal(grants, decision, scope) {
  const proposal = decision.proposal;
  if (grants !== undefined && own(grants, 'sealing') === true) {
    return ReflectApply(own(grants, 'seal'), grants, [proposal, scope === null ? undefined : { scope }]);
  }
  return { agentName: proposal.agentName, toolName: proposal.toolName, argsCanonicalJson: proposal.argsCanonicalJson, proposalHash: proposal.proposalHash };
}

/**
 * The answer to a call that needs an approval. `request`: where it was kept for a reviewer
 * (`{ kept, pendingId }`, adapters/mcp/proposals.js), or undefined when the grants keep no
 * proposals. A kept request's seal is the one the answer carries: one seal per request.
 */
function approvalResult(grants, decision, toolCallId, scope, request) {
  if (request === undefined) {
    return {
      content: [{ type: 'text', text: `The tool call needs an approval [${decision.reason}]; proposal ${decision.proposalHash}.` }],
      structuredContent: {
        decision: 'require_approval',
        reason: decision.reason,
        decidedBy: 'policy',
        toolName: decision.toolName,
        toolCallId,
        proposalHash: decision.proposalHash,
        scope,
        proposal: approvalProposal(grants, decision, scope),
      },
      isError: true,
    };
  }
  const { kept, pendingId } = request;
  const proposal = own(grants, 'sealing') === true ? kept : approvalProposal(grants, decision, scope);
  return {
    content: [{ type: 'text', text: `The tool call needs an approval [${decision.reason}]; proposal ${decision.proposalHash}, pending id ${pendingId}.` }],
    structuredContent: {
      decision: 'require_approval',
      reason: decision.reason,
      decidedBy: 'policy',
      toolName: decision.toolName,
      toolCallId,
      proposalHash: decision.proposalHash,
      scope,
      proposal,
      pendingId,
    },
    isError: true,
  };
}

module.exports = { stageResult, denyResult, toolErrorResult, objectArguments, approvalProposal, approvalResult };
