'use strict';
// What the Mastra gate's `pending` reviews: the tool calls of suspended runs and approval
// requests, each (run id, call id) once, read as own data (a Proxy refused unread).

const { ArrayIsArray, ArrayPrototypePush, isProxy, MapPrototypeGet, MapPrototypeSet, SafeMap } = require('../gate/primordials');
const { invalidArgument, own, ownArray, isId } = require('../gate/read');
const { approvalRef } = require('./requests');

/**
 * The calls `pending` looks at, once each: the tool calls of suspended runs (`{ runs }` of
 * listSuspendedRuns, or runs), and approval requests as approve takes them.
 */
function pendingRefs(source) {
  const usage = 'pending expects what agent.listSuspendedRuns() resolves, a run of it, approval requests, or an array of these';
  if (source === null || typeof source !== 'object' || isProxy(source)) throw invalidArgument(usage);
  const runs = own(source, 'runs');
  const items = ArrayIsArray(runs) && !isProxy(runs) ? runs : ArrayIsArray(source) ? source : [source];
  const refs = [];
  const seen = new SafeMap();
  const add = (ref) => {
    const id = `${ref.runId.length}:${ref.runId}${ref.toolCallId}`;
    if (MapPrototypeGet(seen, id) !== undefined) return;
    MapPrototypeSet(seen, id, true);
    ArrayPrototypePush(refs, ref);
  };
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item === null || typeof item !== 'object' || isProxy(item)) throw invalidArgument(usage);
    if (own(item, 'toolCalls') === undefined) {
      add(approvalRef(item, 'pending'));
      continue;
    }
    // A suspended run: its tool calls that wait for an approval.
    const runId = own(item, 'runId');
    if (!isId(runId)) throw invalidArgument(usage);
    const calls = ownArray(item, 'toolCalls');
    for (let j = 0; j < calls.length; j++) {
      const toolCallId = own(calls[j], 'toolCallId');
      if (isId(toolCallId) && own(calls[j], 'requiresApproval') !== false) add({ runId, toolCallId, grantScope: undefined });
    }
  }
  return refs;
}

module.exports = { pendingRefs };
