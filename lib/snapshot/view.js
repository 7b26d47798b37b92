'use strict';
// Views of a snapshot. The canonical JSON is parsed once, with the JSON.parse captured
// at load, into a private template that is never handed out; every view is then a fresh
// copy of it. When numbers or long strings make up most of the JSON, the template is
// made instead from its skeleton (see templateFromSkeleton) and the numbers and strings
// the walk itself read and wrote to the tape: nothing is parsed twice, and the value is
// never read a second time. Strings and numbers are immutable, so copies share them
// safely; every object and array of a view is new, so views share no reference with each
// other.
//
// A template made from a skeleton comes with its plan, made while it is filled: for each
// container, where its nested containers are (a chain of { key, plan, next } records,
// null when there are none). Its copies follow the plan instead of looking at every
// member, so a long array of numbers is copied at once. (A parsed template has no plan:
// making one costs what it saves over the two views of a step.)
//
// Copying runs no foreign code: objects are copied with spread (CreateDataProperty: no
// setter runs, not even for an own "__proto__" key), arrays with toSpliced, which never
// consults Array's species (or with slice while that lookup is untouched, see
// copyArray), and nested containers are then written over the copy's own data
// properties. Plans are object literals (own data properties, defined, never assigned).
// Snapshots whose views copying would not speed up (decided from the shape of the value
// when the snapshot is made, see Shape::views in src/jcs/tape.rs) parse every view instead.

const P = require('../primordials');

const {
  JSONParse,
  ObjectKeys,
  ObjectHasOwn,
  ObjectPrototypeLookupGetter,
  ArrayIsArray,
  ArrayPrototype,
  ArrayPrototypeSlice,
  ArrayPrototypeToSpliced,
  SafeArray,
  speciesGetter,
  ObjectGetPrototypeOf,
  ObjectGetOwnPropertyNames,
  ObjectGetOwnPropertySymbols,
  ObjectPrototype,
  ReflectOwnKeys,
} = P;
const { ObjectIs } = P;
const { isOrdinaryWhenEmpty } = require('./classify');

/** Marks a snapshot whose views are parsed from its JSON every time. */
const PARSE_EACH_TIME = Symbol('parse each time');
/**
 * The same, for a value with no object too wide to copy: its views are parsed, but a
 * policy's view is a copy of a parse, made by copyRecording (see policyView).
 */
const PARSE_COPYABLE = Symbol('parse each time, copy for a policy');

/** A parsed template's plan: copies look at every member. */
const NO_PLAN = Symbol('no plan');

/** A value to copy for each view, with its plan (see above; null for a primitive). */
class Template {
  value;
  plan;
  /**
   * Policy views copied from this template whose mutation check has not run yet: their
   * records point into it (see policyView and takeTemplate).
   */
  checks;
  constructor(value, plan) {
    this.value = value;
    this.plan = plan;
    this.checks = 0;
  }
}
P.ObjectFreeze(Template.prototype);
P.ObjectFreeze(Template);

// ---------------------------------------------------------------------------------
// Wide flat objects. An object too wide to copy with spread (a V8 dictionary: spread and
// JSON.parse both add its members one by one, through the engine's slow paths) is built
// instead by plain stores into a null-prototype object, which is a dictionary from the
// start and whose stores reach no setter (nothing is inherited), and only then given
// Object.prototype: three to four times faster than JSON.parse of its JSON on V8 14. Its
// members come from the walk's own reads (./walk.js flatRoot: a root object wider than the
// native side's COPYABLE_KEYS whose members are all primitives), put in the canonical
// order the native side sorted them in (./canonical.js flatTemplate), so every view has
// the members of JSON.parse(argsCanonicalJson) in its order (integer-like keys are the
// engine's elements either way), each an own enumerable, writable, configurable data
// property ("__proto__" too: no accessor is inherited while it is stored), and the same
// primitives: the walk read what the canonical JSON was written from, and a finite
// double survives its shortest form exactly.

/** The members of a wide flat root, as the walk read them, in canonical key order. */
class FlatTemplate {
  keys;
  values;
  constructor(keys, values) {
    this.keys = keys;
    this.values = values;
  }
}
P.ObjectFreeze(FlatTemplate.prototype);
P.ObjectFreeze(FlatTemplate);

/** A view of a FlatTemplate: a new plain object with its members, in canonical order. */
function flatView(template) {
  const keys = template.keys;
  const values = template.values;
  const out = { __proto__: null };
  for (let i = 0; i < keys.length; i++) out[keys[i]] = values[i];
  P.ObjectSetPrototypeOf(out, ObjectPrototype);
  return out;
}

/**
 * Parses canonical JSON for a snapshot's first view, for a snapshot whose walk found no
 * object too wide to copy. Returns the template to keep and that first view, a copy.
 */
function firstView(json) {
  const parsed = JSONParse(json);
  if (typeof parsed !== 'object' || parsed === null) return { template: new Template(parsed, null), view: parsed };
  try {
    startCopy();
    return { template: new Template(parsed, NO_PLAN), view: copyEach(parsed) };
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
  return (
    ObjectHasOwn(ArrayPrototype, 'constructor') &&
    ObjectPrototypeLookupGetter(ArrayPrototype, 'constructor') === undefined &&
    ArrayPrototype.constructor === SafeArray &&
    ObjectHasOwn(SafeArray, P.SymbolSpecies) &&
    ObjectPrototypeLookupGetter(SafeArray, P.SymbolSpecies) === speciesGetter
  );
}

// Arrays are copied with toSpliced, which never consults Array's species, until a view
// has copied FEW_ARRAYS of them; from then on with slice (about half the cost of a short
// array) when speciesUntouched says slice would use the original constructor. So a
// value with a few arrays skips that check (about 80 ns a view) and one with many pays
// it once. Reset by startCopy before every view (copying runs no foreign code, so no
// other copy can start in between).
const FEW_ARRAYS = 4;
let arraysCopied = 0;
let sliceSafe = false;

function startCopy() {
  arraysCopied = 0;
  sliceSafe = false;
}

/** A shallow copy of a template array (see above). */
function copyArray(node) {
  if (arraysCopied <= FEW_ARRAYS) {
    if (arraysCopied < FEW_ARRAYS) {
      arraysCopied += 1;
      return ArrayPrototypeToSpliced(node, 0, 0);
    }
    arraysCopied += 1;
    sliceSafe = speciesUntouched();
  }
  return sliceSafe ? ArrayPrototypeSlice(node) : ArrayPrototypeToSpliced(node, 0, 0);
}

/** A copy of a parsed template: every member is looked at. */
function copyEach(node) {
  if (ArrayIsArray(node)) {
    const out = copyArray(node);
    for (let i = 0; i < out.length; i++) {
      const child = out[i];
      if (typeof child === 'object' && child !== null) out[i] = copyEach(child);
    }
    return out;
  }
  const out = { ...node };
  const keys = ObjectKeys(out);
  for (let i = 0; i < keys.length; i++) {
    const child = out[keys[i]];
    if (typeof child === 'object' && child !== null) out[keys[i]] = copyEach(child);
  }
  return out;
}

/** A copy of a template that has a plan. */
function copy(node, plan) {
  const out = ArrayIsArray(node) ? copyArray(node) : { ...node };
  for (let step = plan; step !== null; step = step.next) out[step.key] = copy(node[step.key], step.plan);
  return out;
}

// ---------------------------------------------------------------------------------
// Policy views and the mutation check. A policy view is a copy of the template like any
// other, made by copyRecording, which also notes every container it makes, in the order
// it makes them, with the template node it copies and that node's keys. After the policy
// has answered, unchangedCopy tells whether the view is still exactly that copy: every
// container the very object the copy made, in the same place, with the same own keys in
// the same order, every member an own enumerable data property holding the template's
// primitive (Object.is) or the next container made, no symbol key, a plain prototype.
// Objects the package made are ordinary objects and arrays (no Proxy, no engine slots:
// an object's kind never changes), and no two places hold the same one, so such a view
// passes every check of the walk and canonicalizes to exactly the template's canonical
// JSON. It reads the view as the walk does (prototype and key lists first, a getter check
// before each read), so it runs none of the view's code. When it answers false, the
// caller canonicalizes the view (the walk): a false here decides nothing.

/** One container copyRecording made: the copy, its template node, the node's keys (null: an array). */
class Made {
  copy;
  node;
  keys;
  next;
  constructor(copy, node, keys) {
    this.copy = copy;
    this.node = node;
    this.keys = keys;
    this.next = null;
  }
}
P.ObjectFreeze(Made.prototype);
P.ObjectFreeze(Made);

/** A policy view and the containers it was made of (null: a primitive, or a parsed view). */
class PolicyView {
  view;
  made;
  /** The Template the view was copied from, until its check is done (releasePolicyView); else null. */
  template;
  /**
   * The parse the view was copied from when no template is kept (PARSE_COPYABLE): shown to
   * no one, so once the check is done it can be the execution view of the decision (see
   * spareOf); else null.
   */
  spare;
  constructor(view, made, template, spare) {
    this.view = view;
    this.made = made;
    this.template = template;
    this.spare = spare;
  }
}
P.ObjectFreeze(PolicyView.prototype);
P.ObjectFreeze(PolicyView);

let madeTail = null;
/** The first container copyRecording made since madeTail was last reset. */
let madeHead = null;

function noteMade(copy, node, keys) {
  const made = new Made(copy, node, keys);
  if (madeTail !== null) madeTail.next = made;
  else madeHead = made;
  madeTail = made;
  return made;
}

/** copyEach, noting each container made (see above). */
function copyRecording(node) {
  if (ArrayIsArray(node)) {
    const out = copyArray(node);
    noteMade(out, node, null);
    for (let i = 0; i < out.length; i++) {
      const child = out[i];
      if (typeof child === 'object' && child !== null) out[i] = copyRecording(child);
    }
    return out;
  }
  const out = { ...node };
  const keys = ObjectKeys(out);
  noteMade(out, node, keys);
  for (let i = 0; i < keys.length; i++) {
    const child = out[keys[i]];
    if (typeof child === 'object' && child !== null) out[keys[i]] = copyRecording(child);
  }
  return out;
}

/** A policy view of a template (a PolicyView), made as view() makes any view. */
function policyView(template, json) {
  // A policy's view of a wide object is parsed, as before: its mutation check then
  // canonicalizes it (a recorded copy of a dictionary would cost more than it saves).
  if (template === PARSE_EACH_TIME || template instanceof FlatTemplate) return new PolicyView(JSONParse(json), null, null, null);
  const value = template === PARSE_COPYABLE ? JSONParse(json) : template.value;
  if (typeof value !== 'object' || value === null) return new PolicyView(value, null, null, null);
  madeTail = null;
  try {
    startCopy();
    const copied = copyRecording(value);
    // The root container is the first one made. A Template's records point into it: it is
    // not handed out (takeTemplate) until the check is done.
    if (template === PARSE_COPYABLE) return new PolicyView(copied, madeHead, null, value);
    template.checks += 1;
    return new PolicyView(copied, madeHead, template, null);
  } catch {
    return new PolicyView(JSONParse(json), null, null, null);
  } finally {
    madeTail = null;
    madeHead = null;
  }
}

/** The first view of a snapshot without a template, as a PolicyView: firstView's template and view. */
function firstPolicyView(json) {
  const parsed = JSONParse(json);
  if (typeof parsed !== 'object' || parsed === null) return { template: new Template(parsed, null), view: new PolicyView(parsed, null, null, null) };
  const template = new Template(parsed, NO_PLAN);
  const made = policyView(template, json);
  return { template: made.made === null ? PARSE_EACH_TIME : template, view: made };
}

/** Marks the end of a policy view's check: its records no longer point into its template. */
function releasePolicyView(policy) {
  const template = policy.template;
  policy.spare = null;
  if (template !== null) {
    policy.template = null;
    policy.made = null;
    template.checks -= 1;
  }
}

/**
 * The parse a policy view was copied from (PARSE_COPYABLE), taken once its check is done:
 * nothing else holds it (the view's records are dropped with the view), and no one has seen
 * it. Null when there is none.
 */
function spareOf(policy) {
  const spare = policy.spare;
  policy.spare = null;
  policy.made = null;
  return spare;
}

/** What takeTemplate returns when the template cannot be handed out. */
const NOT_TAKEN = Symbol('not taken');

/**
 * The value of a template, handed out as an execution view instead of a copy of it, when
 * nothing else can reach it: a Template of a container (views are copied from it, never
 * handed out) whose policy views have all been checked (no record points into it). The
 * caller then drops the template from its snapshot, so no later view is copied from the
 * handed-out value; the next view parses anew. Else NOT_TAKEN.
 */
function takeTemplate(template) {
  if (!(template instanceof Template) || template.checks !== 0) return NOT_TAKEN;
  const value = template.value;
  if (typeof value !== 'object' || value === null) return NOT_TAKEN;
  return value;
}

/** The next container to compare in unchangedCopy. */
let cursor = null;

/** Whether `value`, found where the next container made belongs, is still that copy (see above). */
function sameContainer(value) {
  const made = cursor;
  if (made === null || value !== made.copy) return false;
  cursor = made.next;
  const node = made.node;
  const keys = made.keys;
  if (keys === null) {
    // As the walk's enterArray: every index an own enumerable property, nothing else.
    if (ObjectGetPrototypeOf(value) !== ArrayPrototype) return false;
    const count = value.length;
    if (count !== node.length) return false;
    const names = ObjectKeys(value);
    if (names.length !== count || (count !== 0 && names[count - 1] !== `${count - 1}`)) return false;
    if (ReflectOwnKeys(value).length !== count + 1) return false;
    for (let i = 0; i < count; i++) {
      if (ObjectPrototypeLookupGetter(value, i) !== undefined) return false;
      const expected = node[i];
      if (typeof expected === 'object' && expected !== null) {
        if (!sameContainer(value[i])) return false;
      } else if (!ObjectIs(value[i], expected)) {
        return false;
      }
    }
    return true;
  }
  const proto = ObjectGetPrototypeOf(value);
  if (proto !== ObjectPrototype && proto !== null) return false;
  if (ObjectGetOwnPropertySymbols(value).length !== 0) return false;
  const names = ObjectGetOwnPropertyNames(value);
  const count = keys.length;
  if (names.length !== count || ObjectKeys(value).length !== count) return false;
  // The walk asks an empty object to prove it ordinary: asked the same way here.
  if (count === 0) return isOrdinaryWhenEmpty(value);
  for (let i = 0; i < count; i++) {
    const key = keys[i];
    if (names[i] !== key || ObjectPrototypeLookupGetter(value, key) !== undefined) return false;
    const expected = node[key];
    if (typeof expected === 'object' && expected !== null) {
      if (!sameContainer(value[key])) return false;
    } else if (!ObjectIs(value[key], expected)) {
      return false;
    }
  }
  return true;
}

/**
 * Whether a policy view is still exactly the copy it was made as (see above); false also
 * when it cannot tell (a parsed view, or no stack left).
 */
function unchangedCopy(policy) {
  if (policy.made === null) return false;
  cursor = policy.made;
  try {
    return sameContainer(policy.view) && cursor === null;
  } catch {
    return false;
  } finally {
    cursor = null;
  }
}

/** What templateFromSkeleton returns when it could not make a template. */
const NO_SKELETON_TEMPLATE = Symbol('no skeleton template');

/**
 * The template of a snapshot from its skeleton (src/jcs/encoder.rs encode_skeleton_into:
 * the canonical JSON with each number written as its index in `numbers` and each long
 * string as minus one more than its index in `longStrings`) and the tape's numbers and
 * long strings, which are what the walk read from the value, once, and what the native
 * side encoded and hashed. The result is what JSON.parse of the canonical JSON gives,
 * members in the same order. The placeholders are replaced with plain stores into own
 * data properties of objects this function's JSON.parse just made, which reach no
 * setter. Returns NO_SKELETON_TEMPLATE if the thread's stack runs out (the fill recurses
 * once per level).
 */
function templateFromSkeleton(skeleton, numbers, longStrings) {
  const parsed = JSONParse(skeleton);
  if (typeof parsed === 'number') return new Template(parsed >= 0 ? numbers[parsed] : longStrings[-parsed - 1], null);
  if (typeof parsed !== 'object' || parsed === null) return new Template(parsed, null);
  try {
    return new Template(parsed, fill(parsed, numbers, longStrings));
  } catch {
    // Nothing but a stack overflow can be thrown here; the error is not read.
    return NO_SKELETON_TEMPLATE;
  }
}

/** Puts the numbers and long strings in `node`; returns its plan. */
function fill(node, numbers, longStrings) {
  let plan = null;
  if (ArrayIsArray(node)) {
    for (let i = node.length - 1; i >= 0; i--) {
      const child = node[i];
      if (typeof child === 'number') node[i] = child >= 0 ? numbers[child] : longStrings[-child - 1];
      else if (typeof child === 'object' && child !== null) plan = { key: i, plan: fill(child, numbers, longStrings), next: plan };
    }
    return plan;
  }
  const keys = ObjectKeys(node);
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i];
    const child = node[key];
    if (typeof child === 'number') node[key] = child >= 0 ? numbers[child] : longStrings[-child - 1];
    else if (typeof child === 'object' && child !== null) plan = { key, plan: fill(child, numbers, longStrings), next: plan };
  }
  return plan;
}

/** A fresh view from a template made by firstView or templateFromSkeleton for `json`. */
function view(template, json) {
  if (template === PARSE_EACH_TIME || template === PARSE_COPYABLE) return JSONParse(json);
  if (template instanceof FlatTemplate) return flatView(template);
  const value = template.value;
  if (typeof value !== 'object' || value === null) return value;
  try {
    startCopy();
    return template.plan === NO_PLAN ? copyEach(value) : copy(value, template.plan);
  } catch {
    return JSONParse(json);
  }
}

module.exports = {
  FlatTemplate,
  firstView,
  view,
  firstPolicyView,
  policyView,
  unchangedCopy,
  releasePolicyView,
  spareOf,
  takeTemplate,
  NOT_TAKEN,
  PolicyView,
  templateFromSkeleton,
  PARSE_EACH_TIME,
  PARSE_COPYABLE,
  NO_SKELETON_TEMPLATE,
};
