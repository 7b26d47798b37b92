'use strict';
// What a reviewer is shown for the middleware's interrupts: the proposals kept in the
// grants' store for the calls of a thread's state, verified, never the interrupt value's
// text (a checkpointer keeps that value, and whoever can write the checkpoints can edit it).

const { invalidArgument, own, ownArray, setData, isWellFormedString } = require('../../gate/read');
const { NO_PENDING_PROPOSAL } = require('../../gate/proposals');
const { ArrayPrototypePush, ObjectFreeze, isProxy } = require('../../gate/primordials');
const { api } = require('../gate/core');
const { verifiedKept, withRefused } = require('../gate/proposals');
const { toolEntry } = require('../gate/options');
const { threadIdOf } = require('../gate/receipts');
const { lastAIMessage } = require('./task');

const { decodeView } = api;

/**
 * The run a call's proposal is kept under: the thread and the message (call ids repeat
 * across messages of some providers), each length-prefixed so that no thread and message
 * pair spells another's (`a:b` + `c` and `a` + `b:c` are different runs).
 */
function keptRunOf(threadId, ai) {
  const id = own(ai, 'id');
  const messageId = isWellFormedString(id) ? id : '';
  return `langgraph ${threadId.length}:${threadId} ${messageId.length}:${messageId}`;
}

/**
 * `pending(state)` of one middleware (`gate`: its read options): for a LangGraph
 * StateSnapshot (`await agent.graph.getState(config)`), the proposals kept for the calls its
 * interrupts ask about, each verified (the key ring's signature and expiry when sealed,
 * else the hash recomputed) and frozen: `{ interruptId, toolCallId, agentName, toolName,
 * argsCanonicalJson, proposalHash, parsedArguments, sealed? }`. A call whose kept record
 * does not verify, whose interrupt carries another proposal than the one kept
 * (`proposal_changed`), or for which nothing is kept (`TAS_NO_PENDING_PROPOSAL`) is in the
 * list's `refused` with its code: `{ interruptId, toolCallId, code }`, no field of a record.
 */
function createPending(gate) {
  const { agentName, grants, tools } = gate;

  return async function pending(state) {
    if (state === null || typeof state !== 'object' || isProxy(state))
      throw invalidArgument('pending expects a LangGraph StateSnapshot (await agent.graph.getState(config))');
    const threadId = threadIdOf(own(state, 'config'));
    if (threadId === undefined) throw invalidArgument('pending expects a LangGraph StateSnapshot of a thread (its config.configurable.thread_id)');
    const ai = lastAIMessage(ownArray(own(state, 'values'), 'messages'));
    const found = [];
    const refused = [];
    if (ai === undefined) return withRefused(found, refused);
    const runId = keptRunOf(threadId, ai);
    const tasks = ownArray(state, 'tasks');
    for (let t = 0; t < tasks.length; t++) {
      const interrupts = ownArray(tasks[t], 'interrupts');
      for (let i = 0; i < interrupts.length; i++) {
        const interruptId = own(interrupts[i], 'id');
        const value = own(interrupts[i], 'value');
        const actions = ownArray(value, 'actionRequests');
        const carried = ownArray(value, 'proposals');
        for (let a = 0; a < actions.length; a++) {
          const toolCallId = own(actions[a], 'toolCallId');
          // humanInTheLoopMiddleware's requests (no toolCallId), and other middleware's tools, are not this one's to list.
          if (!isWellFormedString(toolCallId) || toolCallId === '' || toolEntry(tools, own(actions[a], 'name')) === undefined) continue;
          const { kept, code } = await verifiedKept(grants, { runId, toolCallId });
          const refuse = (reason) => ArrayPrototypePush(refused, ObjectFreeze({ interruptId, toolCallId, code: reason }));
          if (code !== undefined) {
            refuse(code);
            continue;
          }
          // Another middleware's interrupt (another agent) is not this one's to list.
          if (kept !== undefined && own(kept, 'agentName') !== agentName) continue;
          if (kept === undefined) {
            refuse(NO_PENDING_PROPOSAL);
            continue;
          }
          if (own(kept, 'toolName') !== own(actions[a], 'name') || own(carried[a], 'proposalHash') !== own(kept, 'proposalHash')) {
            refuse('proposal_changed');
            continue;
          }
          const fields = {
            interruptId,
            toolCallId,
            agentName,
            toolName: own(kept, 'toolName'),
            argsCanonicalJson: own(kept, 'argsCanonicalJson'),
            proposalHash: own(kept, 'proposalHash'),
            parsedArguments: decodeView(own(kept, 'argsCanonicalJson')),
          };
          if (grants.sealing) setData(fields, 'sealed', kept);
          ArrayPrototypePush(found, ObjectFreeze(fields));
        }
      }
    }
    return withRefused(found, refused);
  };
}

module.exports = { keptRunOf, createPending };
