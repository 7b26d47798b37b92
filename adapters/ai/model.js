'use strict';
// The language-model middleware of a gate: it records the `input` text of every guarded
// tool call the provider returns (generate and stream), unchanged, with the ids a response
// uses, so validate can pair the SDK's value with its provider text.

const sdk = require('./sdk');
const { ArrayIsArray, isProxy, MapPrototypeGet, ObjectFreeze } = require('../gate/primordials');
const { own, isId } = require('../gate/read');
const { callIdUses } = require('../gate/texts');
const { recordingResult } = require('../gate/recording');

function createModel(gate) {
  const { texts, textsById } = gate;

  /** Whether a content part (or stream chunk) is a call of a guarded tool that this process runs. */
  function guardedCall(part) {
    if (part === null || typeof part !== 'object' || own(part, 'type') !== 'tool-call') return false;
    return gate.guardedEntry(own(part, 'toolName')) !== undefined && typeof own(part, 'input') === 'string' && own(part, 'providerExecuted') !== true;
  }

  /**
   * Records the guarded tool calls of one complete model response: `parts` (its content
   * parts, or the guarded calls of a stream) and `otherIds`, the ids of its other calls. A
   * call whose id another call of the response also has is recorded as a duplicate:
   * validate answers each as invalid input (`duplicate_call_id`).
   */
  function recordResponse(parts, otherIds) {
    const uses = callIdUses(parts, otherIds);
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (!guardedCall(part)) continue;
      const toolCallId = own(part, 'toolCallId');
      const id = isId(toolCallId) ? toolCallId : undefined;
      const duplicate = id !== undefined && MapPrototypeGet(uses, id) > 1;
      const text = own(part, 'input');
      texts.add(own(part, 'toolName'), { text, id, duplicate, lenient: undefined });
      if (id !== undefined && !duplicate) textsById.add(id, text);
    }
  }

  const middleware = ObjectFreeze({
    specificationVersion: 'v4',
    async wrapGenerate({ doGenerate }) {
      const result = await doGenerate();
      const content = own(result, 'content');
      if (ArrayIsArray(content) && !isProxy(content)) recordResponse(content, []);
      return result;
    },
    async wrapStream({ doStream }) {
      // The guarded calls of the response are held until it is complete, recorded
      // together, and passed on right before `finish`.
      return recordingResult(await doStream(), guardedCall, recordResponse);
    },
  });

  function model(languageModel) {
    return sdk().wrapLanguageModel({ model: languageModel, middleware });
  }

  return { middleware, model };
}

module.exports = { createModel };
