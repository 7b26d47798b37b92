'use strict';
// The tool calls of a model message, each paired with the provider's own argument text by id
// where that pairing is unambiguous, or with the problem that makes it invalid input.

const { invalidArgument, own, ownArray } = require('../../gate/read');
const { isId: isCallId } = require('../../gate/read');
const { ObjectFreeze, ArrayIsArray, ArrayPrototypePush, SafeMap, MapPrototypeGet, MapPrototypeSet, isProxy } = require('../../gate/primordials');

/** Invalid input about the call itself (its id or its pairing), never about the arguments. */
const CALL_PROBLEMS = ObjectFreeze({
  __proto__: null,
  missing_call_id: 'the tool call has no id: it cannot be paired with its text, answered or approved',
  duplicate_call_id: 'two tool calls of the message share this id: their texts cannot be told apart, answered or approved one by one',
  unpaired_call: "the message has provider texts, but none with this call's id and tool name: its arguments exist only in LangChain's parsed copy",
});

/** Counts how often each id occurs. */
function countIds(map, id) {
  if (!isCallId(id)) return;
  MapPrototypeSet(map, id, (MapPrototypeGet(map, id) ?? 0) + 1);
}

/**
 * The provider's own argument strings of an OpenAI-style message
 * (`additional_kwargs.tool_calls[].function.arguments`), in the provider's order.
 */
function providerTexts(message) {
  const texts = [];
  const rawCalls = ownArray(own(message, 'additional_kwargs'), 'tool_calls');
  for (let i = 0; i < rawCalls.length; i++) {
    const fn = own(rawCalls[i], 'function');
    ArrayPrototypePush(texts, { id: own(rawCalls[i], 'id'), name: own(fn, 'name'), text: own(fn, 'arguments') });
  }
  return texts;
}

/**
 * The tool calls of a message, in order, each paired with where its arguments come from:
 * `provider_text` (the provider's own string) or `object` (a parsed object, no text), or
 * with the problem that makes it invalid input.
 *
 * Calls are paired with the provider's texts by id, and only where that pairing is
 * unambiguous: a call without an id is `missing_call_id`; an id that two calls (or two
 * provider texts) share is `duplicate_call_id` for every call that has it, because
 * LangChain answers, resumes and approves calls by id (keeping the first text per id ran
 * one call's arguments for another); a call of a message that has provider texts but
 * none with its id and tool name is `unpaired_call` (its arguments exist only in
 * LangChain's parsed copy, edited after the provider sent them).
 */
function toolCallsOf(message) {
  if (message === null || typeof message !== 'object' || isProxy(message)) throw invalidArgument('run expects an AIMessage (or an AIMessageChunk)');
  const entries = [];
  const toolCalls = own(message, 'tool_calls');
  if (ArrayIsArray(toolCalls) && !isProxy(toolCalls)) {
    for (let i = 0; i < toolCalls.length; i++) {
      ArrayPrototypePush(entries, {
        id: own(toolCalls[i], 'id'),
        name: own(toolCalls[i], 'name'),
        text: undefined,
        args: own(toolCalls[i], 'args'),
        position: i,
      });
    }
    // Calls whose text the integration could not parse keep that text as `args`.
    const invalid = ownArray(message, 'invalid_tool_calls');
    for (let i = 0; i < invalid.length; i++) {
      const args = own(invalid[i], 'args');
      ArrayPrototypePush(entries, {
        id: own(invalid[i], 'id'),
        name: own(invalid[i], 'name'),
        text: typeof args === 'string' ? args : '',
        args: undefined,
        position: -1,
      });
    }
  } else {
    // An AIMessageChunk computes tool_calls lazily from its chunks: read the chunks, whose
    // `args` is the concatenated provider text.
    const chunks = ownArray(message, 'tool_call_chunks');
    for (let i = 0; i < chunks.length; i++) {
      const args = own(chunks[i], 'args');
      ArrayPrototypePush(entries, {
        id: own(chunks[i], 'id'),
        name: own(chunks[i], 'name'),
        text: typeof args === 'string' ? args : '',
        args: undefined,
        position: i,
      });
    }
  }

  const texts = providerTexts(message);
  const textCount = new SafeMap();
  const textById = new SafeMap();
  for (let i = 0; i < texts.length; i++) {
    countIds(textCount, texts[i].id);
    if (isCallId(texts[i].id)) MapPrototypeSet(textById, texts[i].id, texts[i]);
  }
  const callCount = new SafeMap();
  for (let i = 0; i < entries.length; i++) countIds(callCount, entries[i].id);

  const calls = [];
  for (let i = 0; i < entries.length; i++) {
    const { id, name, text, args, position } = entries[i];
    if (typeof name !== 'string') continue;
    const call = { id: isCallId(id) ? id : undefined, name, argumentsSource: 'object', text: undefined, args: undefined, problem: undefined, position };
    ArrayPrototypePush(calls, call);
    if (call.id === undefined) {
      call.problem = 'missing_call_id';
      continue;
    }
    if (MapPrototypeGet(callCount, id) > 1 || (MapPrototypeGet(textCount, id) ?? 0) > 1) {
      call.problem = 'duplicate_call_id';
      continue;
    }
    const provided = MapPrototypeGet(textById, id);
    if (provided !== undefined && provided.name === name && typeof provided.text === 'string') {
      call.argumentsSource = 'provider_text';
      call.text = provided.text;
    } else if (typeof text === 'string') {
      call.argumentsSource = 'provider_text';
      call.text = text;
    } else if (texts.length > 0) {
      call.problem = 'unpaired_call';
    } else {
      call.args = args;
    }
  }
  return calls;
}

module.exports = { CALL_PROBLEMS, isCallId, toolCallsOf };
