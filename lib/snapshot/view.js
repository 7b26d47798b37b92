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
// properties. Snapshots whose views copying would not speed up (decided from the shape
// of the value when the snapshot is made, see Shape::worth_a_template in
// src/jcs/tape.rs) parse every view instead.

const P = require('../primordials');

const {
  JSONParse, ObjectKeys, ObjectHasOwn, ObjectPrototypeLookupGetter, ArrayIsArray,
  ArrayPrototype, ArrayPrototypeSlice, ArrayPrototypeToSpliced, SafeArray, speciesGetter,
} = P;

/** Marks a snapshot whose views are parsed from its JSON every time. */
const PARSE_EACH_TIME = Symbol('parse each time');

/**
 * Parses canonical JSON for a snapshot's first view, for a snapshot whose walk found no
 * object too wide to copy. Returns the template to keep and that first view, a copy.
 */
function firstView(json) {
  const parsed = JSONParse(json);
  if (typeof parsed !== 'object' || parsed === null) return { template: parsed, view: parsed };
  try {
    return { template: parsed, view: copy(parsed, speciesUntouched()) };
  } catch {
    // Copying recurses once per level; on a thread with little stack left, a deep
    // template is not kept and views are parsed (JSON.parse does not recurse). The copy
    // runs no foreign code, so nothing else can be thrown here; the error is not read.
    return { template: PARSE_EACH_TIME, view: parsed };
  }
}

/**
 * Whether slice would create its copy with the original Array constructor: an own data
 * property `constructor` of Array.prototype holding Array (read only after the getter
 * lookup found none, so the read runs nothing), and Array's own species getter.
 */
function speciesUntouched() {
  return ObjectHasOwn(ArrayPrototype, 'constructor') && ObjectPrototypeLookupGetter(ArrayPrototype, 'constructor') === undefined &&
    ArrayPrototype.constructor === SafeArray && ObjectHasOwn(SafeArray, P.SymbolSpecies) &&
    ObjectPrototypeLookupGetter(SafeArray, P.SymbolSpecies) === speciesGetter;
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
  } catch {
    return JSONParse(json);
  }
}

module.exports = { firstView, view, PARSE_EACH_TIME };
