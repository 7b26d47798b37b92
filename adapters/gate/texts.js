'use strict';
// Provider raw text: what a wrapped language model's responses carry as each tool call's
// `input`, recorded per gate in bounded lists, the ids a response uses counted, a stream's
// tool calls held until its response is complete, and a text's lenient parse.

const {
  ArrayPrototypePush, ArrayPrototypeSplice, JSONParse, MapIteratorNext, MapPrototypeDelete, MapPrototypeGet,
  MapPrototypeKeys, MapPrototypeSet, ReadableStreamPrototypePipeThrough, SafeMap, SafeTransformStream, StringPrototypeTrim,
} = require('./primordials');
const { own, isId, ownDataCopy, setData } = require('./read');

/** Recorded items per gate before the oldest is dropped: only calls the framework never runs pile up. */
const MAX_PENDING = 4096;

/** Lists of items by key, oldest first, at most MAX_PENDING items in all (past that, the first item of the oldest key goes). */
class BoundedLists {
  #lists = new SafeMap();
  #size = 0;

  add(key, item) {
    let list = MapPrototypeGet(this.#lists, key);
    if (list === undefined) {
      list = [];
      MapPrototypeSet(this.#lists, key, list);
    }
    ArrayPrototypePush(list, item);
    if (++this.#size > MAX_PENDING) {
      const step = MapIteratorNext(MapPrototypeKeys(this.#lists));
      this.removeAt(step.value, 0);
    }
  }

  /** The items of `key`, oldest first (read them, never change them), or undefined. */
  list(key) {
    return MapPrototypeGet(this.#lists, key);
  }

  /** Removes and returns the first item of `key` that `matches` (any, if undefined; the newest if `newest`). */
  take(key, matches, newest) {
    const list = MapPrototypeGet(this.#lists, key);
    if (list === undefined) return undefined;
    if (newest) return this.removeAt(key, list.length - 1);
    for (let i = 0; i < list.length; i++) {
      if (matches === undefined || matches(list[i])) return this.removeAt(key, i);
    }
    return undefined;
  }

  /** Removes `item` from the items of `key` (its first occurrence). */
  remove(key, item) {
    this.take(key, (candidate) => candidate === item);
  }

  removeAt(key, index) {
    const list = MapPrototypeGet(this.#lists, key);
    const item = ArrayPrototypeSplice(list, index, 1)[0];
    this.#size--;
    if (list.length === 0) MapPrototypeDelete(this.#lists, key);
    return item;
  }
}

/**
 * How many times each call id stands in one complete response: its `tool-call` parts and
 * `otherIds` (the ids of calls passed on without being held). An id used twice marks a
 * call no approval, resume or kept proposal can tell apart (`duplicate_call_id`).
 */
function callIdUses(parts, otherIds) {
  const uses = new SafeMap();
  const count = (id) => {
    if (isId(id)) MapPrototypeSet(uses, id, (MapPrototypeGet(uses, id) ?? 0) + 1);
  };
  for (let i = 0; i < parts.length; i++) if (own(parts[i], 'type') === 'tool-call') count(own(parts[i], 'toolCallId'));
  for (let i = 0; i < otherIds.length; i++) count(otherIds[i]);
  return uses;
}

/**
 * The stream result of a model's doStream with its stream piped through a recorder: the
 * chunks `isHeld` selects (gated tool calls) are held until the response is complete (its
 * `finish` chunk, or its end), handed to `recordResponse(calls, otherIds)`, and passed on
 * right before `finish`, so an id used twice is known before the framework sees either call.
 */
function recordingResult(result, isHeld, recordResponse) {
  let held = [];
  let otherIds = [];
  const release = (controller) => {
    const calls = held;
    recordResponse(calls, otherIds);
    held = [];
    otherIds = [];
    for (let i = 0; i < calls.length; i++) controller.enqueue(calls[i]);
  };
  const recording = new SafeTransformStream({
    transform(chunk, controller) {
      if (isHeld(chunk)) {
        ArrayPrototypePush(held, chunk);
        return;
      }
      const type = chunk !== null && typeof chunk === 'object' ? own(chunk, 'type') : undefined;
      // Another tool's call is passed on at once; its id still counts for the response.
      if (type === 'tool-call') ArrayPrototypePush(otherIds, own(chunk, 'toolCallId'));
      else if (type === 'finish') release(controller);
      controller.enqueue(chunk);
    },
    flush(controller) {
      release(controller);
    },
  });
  const copy = ownDataCopy(result);
  setData(copy, 'stream', ReadableStreamPrototypePipeThrough(own(result, 'stream'), recording));
  return copy;
}

/**
 * The lenient parse of a record's `text` (what the framework's own JSON.parse makes of it;
 * blank is `{}`), cached on the record as `lenient`: `{ value }`, or null when it does not parse.
 */
function lenientParse(record) {
  if (record.lenient === undefined) {
    try {
      record.lenient = { value: StringPrototypeTrim(record.text) === '' ? {} : JSONParse(record.text) };
    } catch {
      record.lenient = null;
    }
  }
  return record.lenient;
}

module.exports = { MAX_PENDING, BoundedLists, callIdUses, recordingResult, lenientParse };
