'use strict';
// The reason of a resumed approval the gate denied, carried to the UI message
// (docs/adapters/ai.md, "Resuming"). When the SDK replays an approved call from the messages
// and the gate's approval hook denies it (proposal_changed, call_already_executed, a
// policy's deny...), streamText writes a bare `tool-output-denied` chunk to the UI message
// stream: the UI part becomes output-denied, its approval still approved, with no reason.
// `gate.uiMessageStream(stream)` writes before that chunk the one the SDK writes itself when
// its approval hook denies a new call: `tool-approval-response` { approvalId, approved:
// false, reason }, so the part reads `approval: { id, approved: false, reason: <code> }`
// (and the model sees the code once the UI messages come back). Codes only, never a payload.

const {
  ArrayIsArray,
  isProxy,
  MapIteratorNext,
  MapPrototypeDelete,
  MapPrototypeGet,
  MapPrototypeKeys,
  MapPrototypeSet,
  SafeMap,
  SafeSet,
  SetPrototypeAdd,
  SetPrototypeHas,
} = require('../gate/primordials');
const { ReadableStreamPrototypePipeThrough, SafeTransformStream } = require('../gate/streams');
const { invalidArgument, own, ownArray, isId, isWellFormedString } = require('../gate/read');

/** How many denials a gate remembers until its stream writes them (the oldest go first). */
const MAX_DENIALS = 1024;

/**
 * The approval id of the request of `toolCallId` that `messages` (the SDK's model messages)
 * answer: the call is a resumed approval. Undefined when no answered request names it (a
 * call the provider makes now, whose denial the SDK already sends with its reason).
 */
function answeredApprovalId(messages, toolCallId) {
  if (!ArrayIsArray(messages) || isProxy(messages)) return undefined;
  const requested = new SafeMap();
  const answered = new SafeSet();
  for (let i = 0; i < messages.length; i++) {
    const content = ownArray(messages[i], 'content');
    for (let j = 0; j < content.length; j++) {
      const type = own(content[j], 'type');
      const approvalId = own(content[j], 'approvalId');
      if (!isId(approvalId)) continue;
      if (type === 'tool-approval-request' && own(content[j], 'toolCallId') === toolCallId) MapPrototypeSet(requested, approvalId, true);
      else if (type === 'tool-approval-response') SetPrototypeAdd(answered, approvalId);
    }
  }
  let found;
  const ids = MapPrototypeKeys(requested);
  for (let next = MapIteratorNext(ids); !next.done; next = MapIteratorNext(ids)) {
    if (SetPrototypeHas(answered, next.value)) found = next.value;
  }
  return found;
}

function createDenials() {
  /** toolCallId -> { approvalId, reason } of resumed approvals the gate denied. */
  const byCall = new SafeMap();
  let count = 0;

  function forget(toolCallId) {
    if (MapPrototypeDelete(byCall, toolCallId)) count -= 1;
  }

  /** Remembers a denial of the approval hook (`args`: the hook's arguments) when the call is a resumed approval. */
  function record(args, toolCallId, reason) {
    if (!isId(toolCallId) || !isWellFormedString(reason)) return;
    const approvalId = answeredApprovalId(own(args, 'messages'), toolCallId);
    if (approvalId === undefined) return;
    forget(toolCallId);
    MapPrototypeSet(byCall, toolCallId, { approvalId, reason });
    count += 1;
    if (count > MAX_DENIALS) forget(MapIteratorNext(MapPrototypeKeys(byCall)).value);
  }

  /**
   * `stream` (the SDK's UI message stream: `result.toUIMessageStream(...)`) with the reason
   * of each resumed approval this gate denied: a `tool-approval-response` chunk (approved
   * false, the code as reason) before its `tool-output-denied` chunk. Every other chunk
   * passes as it is.
   */
  function uiMessageStream(stream) {
    if (stream === null || typeof stream !== 'object' || isProxy(stream))
      throw invalidArgument("uiMessageStream expects the SDK's UI message stream (result.toUIMessageStream())");
    const responded = new SafeSet();
    const transform = new SafeTransformStream({
      transform(chunk, controller) {
        const type = own(chunk, 'type');
        if (type === 'tool-approval-response') {
          const approvalId = own(chunk, 'approvalId');
          if (isId(approvalId)) SetPrototypeAdd(responded, approvalId);
        } else if (type === 'tool-output-denied') {
          const toolCallId = own(chunk, 'toolCallId');
          const denial = isId(toolCallId) ? MapPrototypeGet(byCall, toolCallId) : undefined;
          if (denial !== undefined) {
            forget(toolCallId);
            // The SDK's own denial of this request passed already: it says why.
            if (!SetPrototypeHas(responded, denial.approvalId)) {
              controller.enqueue({ type: 'tool-approval-response', approvalId: denial.approvalId, approved: false, reason: denial.reason });
            }
          }
        }
        controller.enqueue(chunk);
      },
    });
    return ReadableStreamPrototypePipeThrough(stream, transform);
  }

  return { record, uiMessageStream };
}

module.exports = { createDenials };
