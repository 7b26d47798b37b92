'use strict';
// Provider raw text: what a wrapped language model's responses carry as each tool call's
// `input`, recorded per gate in bounded lists, the ids a response uses counted, and a text's
// lenient parse (a stream's tool calls held until its response is complete: recording.js).

const {
  ArrayPrototypePush,
  ArrayPrototypeSplice,
  JSONParse,
  MapIteratorNext,
  MapPrototypeDelete,
  MapPrototypeGet,
  MapPrototypeKeys,
  MapPrototypeSet,
  SafeMap,
  StringPrototypeTrim,
} = require('./primordials');
const { own, isId } = require('./read');

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

module.exports = { MAX_PENDING, BoundedLists, callIdUses, lenientParse };
