'use strict';
// Elicitation (opt-in): the gate asks the very client being gated, a convenience for a
// person at that client, not an independent approval. An accepted ask becomes a one-use
// grant under a scope of its own, and the call is evaluated again in it.

const { own, ownDataCopy, setData } = require('../gate/read');
const { ReflectApply, randomUUID } = require('../gate/primordials');
const { evaluateToolCall } = require('tool-argument-snapshot');
const { approvalProposal } = require('./results');

/** How long the grant of an accepted elicitation lives if its call never spends it. */
const ELICITED_GRANT_TTL_MS = 5 * 60 * 1000;

/** Asks the client: true when a person there accepted, false when declined, undefined without an answer. */
async function elicitApproval(server, decision, extra) {
  const capabilities = typeof server.getClientCapabilities === 'function' ? server.getClientCapabilities() : undefined;
  const elicit = capabilities !== undefined && capabilities !== null ? capabilities.elicitation : undefined;
  if (elicit === undefined || elicit === null) return undefined;
  let answer;
  try {
    answer = await server.elicitInput(
      {
        mode: 'form',
        message: `Approve ${decision.toolName} with ${decision.argsCanonicalJson}? (${decision.reason}; proposal ${decision.proposalHash})`,
        requestedSchema: { type: 'object', properties: { approve: { type: 'boolean', title: 'Approve this exact call' } }, required: ['approve'] },
      },
      { relatedRequestId: extra.requestId },
    );
  } catch {
    // No answer (a client that cannot elicit, a closed connection): no approval.
    return undefined;
  }
  return answer.action === 'accept' && answer.content !== undefined && answer.content !== null && answer.content.approve === true;
}

/**
 * The decision after asking about a require_approval `decision`: `{ declined: true }`, or
 * `{ decision }` (the same one when there was no answer, else the evaluation under the grant).
 */
async function elicitedDecision(server, grants, call) {
  const { prepared, policy, policyContext, toolCallId, extra } = call;
  let decision = call.decision;
  const approved = await elicitApproval(server, decision, extra);
  if (approved === false) return { __proto__: null, declined: true, decision };
  if (approved === true) {
    // The person's yes is for this call only: granted under a scope no other evaluation
    // has (not the call's own scope, which an identical call of another client or
    // session could share and spend first), then this call is evaluated again in it.
    const elicited = `elicitation:${randomUUID()}`;
    const sealing = own(grants, 'sealing') === true;
    const grantOptions = { uses: 1, ttlMs: ELICITED_GRANT_TTL_MS };
    if (!sealing) setData(grantOptions, 'scope', elicited);
    await ReflectApply(own(grants, 'grant'), grants, [approvalProposal(grants, decision, elicited), grantOptions]);
    const elicitedContext = ownDataCopy(policyContext);
    setData(elicitedContext, 'grantScope', elicited);
    const asked = decision;
    decision = await evaluateToolCall({ prepared, policy, policyContext: elicitedContext, toolCallId });
    if (decision.decision !== 'allow') {
      // Not run after all (a store failure, a deny): the unused grant goes now.
      try {
        await ReflectApply(own(grants, 'revoke'), grants, [
          { agentName: asked.agentName, toolName: asked.toolName, proposalHash: asked.proposalHash, scope: elicited },
        ]);
      } catch {
        // It expires (ELICITED_GRANT_TTL_MS); nobody else can name its scope.
      }
    }
  }
  return { __proto__: null, declined: false, decision };
}

module.exports = { elicitedDecision };
