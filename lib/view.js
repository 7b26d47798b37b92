'use strict';
// Views of a snapshot. The canonical JSON is parsed once, with the JSON.parse captured
// at load, into a private template that is never handed out; every view is then a fresh
// copy of it. Strings and numbers are immutable, so copies share them safely; every
// object and array of a view is new, so views share no reference with each other.
//
// Copying runs no foreign code: objects are copied with spread (CreateDataProperty: no
// setter runs, not even for an own "__proto__" key), arrays with Array.prototype.slice
// while Array's species lookup is untouched (otherwise with toSpliced, which never
// consults it), and nested containers are then written over the copy's own data
// properties. Templates that copying would not speed up (objects with hundreds of keys,
// which V8 keeps as dictionaries) are not kept: their views are parsed each time.

const P = require('./primordials');

const {
  JSONParse, ObjectKeys, ObjectGetOwnPropertyDescriptor, ObjectHasOwn, ArrayIsArray,
  ArrayPrototype, ArrayPrototypeSlice, ArrayPrototypeToSpliced, SafeArray, speciesGetter,
} = P;

const SPREAD_LIMIT = 512;
/** Marks a snapshot whose views are parsed from its JSON every time. */
const PARSE_EACH_TIME = Symbol('parse each time');

function copyable(container) {
  const isArray = ArrayIsArray(container);
  const keys = isArray ? null : ObjectKeys(container);
  if (!isArray && keys.length > SPREAD_LIMIT) return false;
  const count = isArray ? container.length : keys.length;
  for (let i = 0; i < count; i++) {
    const child = isArray ? container[i] : container[keys[i]];
    if (typeof child === 'object' && child !== null && !copyable(child)) return false;
  }
  return true;
}

/**
 * Parses canonical JSON for a snapshot's first view. Returns the template to keep
 * (PARSE_EACH_TIME when copies would be slower than parsing) and that first view: a
 * copy of the template, or the parsed value itself when no template is kept.
 */
function firstView(json) {
  const parsed = JSONParse(json);
  if (typeof parsed !== 'object' || parsed === null) return { template: parsed, view: parsed };
  try {
    if (!copyable(parsed)) return { template: PARSE_EACH_TIME, view: parsed };
    return { template: parsed, view: copy(parsed, speciesUntouched()) };
  } catch (error) {
    // Copying recurses once per level; on a thread with little stack left, a deep
    // template is not kept and views are parsed (JSON.parse does not recurse).
    if (error instanceof RangeError) return { template: PARSE_EACH_TIME, view: parsed };
    throw error;
  }
}

/** Whether slice would create its copy with the original Array constructor. */
function speciesUntouched() {
  const constructor = ObjectGetOwnPropertyDescriptor(ArrayPrototype, 'constructor');
  if (constructor === undefined || !ObjectHasOwn(constructor, 'value') || constructor.value !== SafeArray) return false;
  const species = ObjectGetOwnPropertyDescriptor(SafeArray, P.SymbolSpecies);
  return species !== undefined && species.get === speciesGetter;
}

function copy(template, fastArrays) {
  if (ArrayIsArray(template)) {
    const out = fastArrays ? ArrayPrototypeSlice(template) : ArrayPrototypeToSpliced(template, 0, 0);
    for (let i = 0; i < out.length; i++) {
      const child = out[i];
      if (typeof child === 'object' && child !== null) out[i] = copy(child, fastArrays);
    }
    return out;
  }
  const out = { ...template };
  const keys = ObjectKeys(out);
  for (let i = 0; i < keys.length; i++) {
    const child = out[keys[i]];
    if (typeof child === 'object' && child !== null) out[keys[i]] = copy(child, fastArrays);
  }
  return out;
}

/** A fresh view from a template made by firstView for `json`. */
function view(template, json) {
  if (template === PARSE_EACH_TIME) return JSONParse(json);
  if (typeof template !== 'object' || template === null) return template;
  try {
    return copy(template, speciesUntouched());
  } catch (error) {
    if (error instanceof RangeError) return JSONParse(json);
    throw error;
  }
}

module.exports = { firstView, view, PARSE_EACH_TIME };
