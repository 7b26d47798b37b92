'use strict';
// Provider texts of gated tool calls by call id, each taken once by the execute of its
// call: only a text whose lenient parse is the arguments Mastra parsed for the call, so a
// resumed call or another run whose provider reuses the id never takes one not its own.

const { ArrayPrototypePush, ObjectFreeze } = require('../gate/primordials');
const { BoundedLists, lenientParse } = require('../gate/texts');
const { sameArguments } = require('../gate/same-data');

/** What `take` answers when the response used the call id twice. */
const DUPLICATE = ObjectFreeze({ code: 'duplicate_call_id' });
/** What `take` answers when texts of several responses share the id and none is the run's for sure. */
const UNPAIRED = ObjectFreeze({ code: 'unpaired_call' });

/**
 * Whether a recorded text is the one Mastra parsed to `args`: its lenient parse is the same
 * arguments, or it does not parse at all (Mastra repairs or drops such text; the strict
 * decode then refuses it).
 */
function lenientMatches(record, args) {
  const lenient = lenientParse(record);
  return lenient === null || sameArguments(lenient.value, args, 0);
}

class RecordedTexts {
  #byId = new BoundedLists();

  add(toolCallId, record) {
    this.#byId.add(toolCallId, record);
  }

  /**
   * The recorded text of the call `toolCallId` of `toolName` whose arguments Mastra parsed
   * as `args`: undefined when none is, DUPLICATE when the id was used twice in one
   * response, UNPAIRED when texts of several responses (concurrent runs) share it, parse to
   * these arguments and differ. What it answers, it removes.
   */
  take(toolCallId, toolName, args) {
    const list = this.#byId.list(toolCallId);
    if (list === undefined) return undefined;
    const candidates = [];
    for (let i = 0; i < list.length; i++) if (list[i].toolName === toolName) ArrayPrototypePush(candidates, list[i]);
    if (candidates.length === 0) return undefined;
    for (let i = 0; i < candidates.length; i++) {
      if (candidates[i].duplicate) {
        // The response used this id twice (Mastra runs one of them): every call of it goes.
        const response = candidates[i].response;
        for (let j = list.length - 1; j >= 0; j--) if (list[j].response === response) this.#byId.removeAt(toolCallId, j);
        return DUPLICATE;
      }
    }
    // This run's call is the one whose text parses to the arguments Mastra parsed for it.
    const matching = [];
    for (let i = 0; i < candidates.length; i++) if (lenientMatches(candidates[i], args)) ArrayPrototypePush(matching, candidates[i]);
    if (matching.length === 0) return undefined;
    for (let i = 1; i < matching.length; i++) {
      if (matching[i].text !== matching[0].text) {
        for (let j = 0; j < matching.length; j++) this.#byId.remove(toolCallId, matching[j]);
        return UNPAIRED;
      }
    }
    this.#byId.remove(toolCallId, matching[0]);
    return matching[0];
  }
}

module.exports = { RecordedTexts, DUPLICATE, UNPAIRED };
