'use strict';
// Promises the package receives (from a schema, a policy, a grants object). The engine's
// `then` looks up `constructor` and then `Symbol.species` on the promise: a getter or a
// Proxy there would run code. A promise is only ever attached to when that lookup is
// answered by data the engine put there (or by an own `constructor: undefined` the
// package defines for the duration of the call); a non-native thenable's `then` is
// never called.

const { invalidArgument } = require('./errors');
const P = require('./primordials');

const {
  ObjectDefineProperty,
  ObjectFreeze,
  ObjectGetOwnPropertyDescriptor,
  ObjectHasOwn,
  ObjectGetPrototypeOf,
  ObjectPrototypeLookupGetter,
  ObjectPrototypeLookupSetter,
  isProxy,
} = P;
// Captured when the package loaded (the run loop loads at its first use).
const { isPromise, SafePromise, PromisePrototype, PromisePrototypeThen, promiseSpeciesGetter, SymbolSpecies, ObjectIsExtensible, ReflectDeleteProperty } = P;

/**
 * Whether %Promise.prototype%'s `constructor` is a data property holding %Promise% and
 * %Promise%'s species getter is the engine's: then a native promise without an own
 * `constructor`, whose prototype is %Promise.prototype%, is attached to and awaited
 * running only engine code. Read without a descriptor object: each own-property test
 * comes first, so the getter and setter lookups stop at that own property.
 */
function promiseDefaultsIntact() {
  return (
    ObjectHasOwn(PromisePrototype, 'constructor') &&
    ObjectPrototypeLookupGetter(PromisePrototype, 'constructor') === undefined &&
    ObjectPrototypeLookupSetter(PromisePrototype, 'constructor') === undefined &&
    PromisePrototype.constructor === SafePromise &&
    ObjectHasOwn(SafePromise, SymbolSpecies) &&
    ObjectPrototypeLookupGetter(SafePromise, SymbolSpecies) === promiseSpeciesGetter
  );
}

/** Whether Promise.prototype.then on this native promise would run only engine code. */
function thenIsHookFree(promise) {
  // The common case: a promise of the engine's own making, its prototype untouched.
  if (ObjectGetPrototypeOf(promise) === PromisePrototype && !ObjectHasOwn(promise, 'constructor')) return promiseDefaultsIntact();
  let object = promise;
  // SpeciesConstructor(promise): the first `constructor` on the chain, then its species.
  for (let depth = 0; depth < 1024; depth++) {
    if (object === null) return true; // no constructor: the default, %Promise%
    if (isProxy(object)) return false;
    const descriptor = ObjectGetOwnPropertyDescriptor(object, 'constructor');
    if (descriptor !== undefined) {
      if (!ObjectHasOwn(descriptor, 'value')) return false;
      const constructor = descriptor.value;
      if (constructor === undefined) return true;
      if (constructor !== SafePromise) return false;
      const species = ObjectGetOwnPropertyDescriptor(SafePromise, SymbolSpecies);
      return species !== undefined && species.get === promiseSpeciesGetter;
    }
    object = ObjectGetPrototypeOf(object);
  }
  return false;
}

/**
 * Attaches reactions to a native promise without running any code of it. When the
 * constructor lookup could reach code, an own `constructor: undefined` shadows it for the
 * duration of the call (then the promise's own property, if any, is put back as it was):
 * `then` then uses the engine's %Promise%. Returns false, attaching nothing, when even
 * that is impossible: a non-extensible promise without an own configurable `constructor`,
 * or one with a non-configurable own accessor, whose lookup would run code.
 */
function attach(promise, onFulfilled, onRejected) {
  if (thenIsHookFree(promise)) {
    PromisePrototypeThen(promise, onFulfilled, onRejected);
    return true;
  }
  const saved = ObjectGetOwnPropertyDescriptor(promise, 'constructor');
  if (saved === undefined ? !ObjectIsExtensible(promise) : !saved.configurable) return false;
  ObjectDefineProperty(promise, 'constructor', { __proto__: null, value: undefined, writable: false, enumerable: false, configurable: true });
  try {
    PromisePrototypeThen(promise, onFulfilled, onRejected);
  } finally {
    if (saved === undefined) ReflectDeleteProperty(promise, 'constructor');
    else ObjectDefineProperty(promise, 'constructor', nullPrototype(saved));
  }
  return true;
}

/** A copy of a property descriptor with no prototype (defineProperty reads no inherited field). */
function nullPrototype(descriptor) {
  const copy = { __proto__: null, enumerable: descriptor.enumerable, configurable: descriptor.configurable };
  if (ObjectHasOwn(descriptor, 'value')) {
    copy.value = descriptor.value;
    copy.writable = descriptor.writable;
  } else {
    copy.get = descriptor.get;
    copy.set = descriptor.set;
  }
  return copy;
}

function ignore() {}

/** Handles a native promise's rejection (and ignores its value) without running its code. */
function handleRejection(promise) {
  return attach(promise, ignore, ignore);
}

/**
 * Whether `await` of a promise of the package's own would look up only data the engine
 * put there: the promise has no own `constructor` and its prototype is %Promise.prototype%
 * whose own `constructor` is a data property holding %Promise% (then PromiseResolve
 * returns the promise as it is and nothing else is looked up). Read without running any
 * code: the own-property test comes before the getter lookup, so the lookup never walks
 * past %Promise.prototype%.
 */
function awaitLooksUpNothing(promise) {
  return (
    ObjectGetPrototypeOf(promise) === PromisePrototype &&
    !ObjectHasOwn(promise, 'constructor') &&
    ObjectHasOwn(PromisePrototype, 'constructor') &&
    ObjectPrototypeLookupGetter(PromisePrototype, 'constructor') === undefined &&
    PromisePrototype.constructor === SafePromise
  );
}

/**
 * A promise of the package's own, to be awaited at once (no other code runs between this
 * call and the await), that `await` adopts without running any code: as it is when its
 * `constructor` lookup reaches only the engine's data (awaitLooksUpNothing, ~30 ns), else
 * with an own `constructor` %Promise% defined on it (~230 ns), so PromiseResolve returns it
 * as it is.
 */
function ours(promise) {
  if (awaitLooksUpNothing(promise)) return promise;
  ObjectDefineProperty(promise, 'constructor', OWN_CONSTRUCTOR);
  return promise;
}

/**
 * ours() for a promise kept and awaited later, perhaps after other code ran (which could
 * have changed %Promise.prototype% meanwhile): its own `constructor` is always defined.
 */
function oursKept(promise) {
  ObjectDefineProperty(promise, 'constructor', OWN_CONSTRUCTOR);
  return promise;
}
// One frozen descriptor for every call: a null-prototype literal per call is a
// dictionary-mode allocation that cost more than the definition itself.
const OWN_CONSTRUCTOR = ObjectFreeze({ __proto__: null, value: SafePromise, writable: false, enumerable: false, configurable: false });

/** A null-prototype box: resolving a promise with it looks up no `then`. */
function box(ok, value) {
  return { __proto__: null, ok, value };
}

const UNATTACHABLE = 'the promise cannot be awaited without running code of its prototype chain';

/** Settles a native promise to a box ({ ok, value }), running none of its code. */
function settleNative(promise) {
  return ours(
    new SafePromise((resolve) => {
      const attached = attach(
        promise,
        (value) => resolve(box(true, value)),
        (error) => resolve(box(false, error)),
      );
      if (!attached) resolve(box(false, invalidArgument(UNATTACHABLE)));
    }),
  );
}

/**
 * Whether a value is a thenable other than a native promise, told without running code:
 * a function-valued data property `then` on it or its prototype chain (no Proxy on it).
 */
function isThenable(value) {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  let object = value;
  for (let depth = 0; depth < 1024 && object !== null; depth++) {
    if (isProxy(object)) return false;
    const descriptor = ObjectGetOwnPropertyDescriptor(object, 'then');
    if (descriptor !== undefined) return ObjectHasOwn(descriptor, 'value') && typeof descriptor.value === 'function';
    object = ObjectGetPrototypeOf(object);
  }
  return false;
}

/** Awaits what a schema method returned (a native promise; anything else as it is). */
async function settled(result) {
  return isPromise(result) ? await settleNative(result) : box(true, result);
}

/**
 * Calls `fn(argument)`: a box `{ ok: true, value }` with what it returned, or
 * `{ ok: false, value: error }` if it threw; a native promise it returned becomes a
 * promise of such a box (settled without running any of its code). Any other value, a
 * thenable or a Proxy included, is taken as it is: its `then` is never read.
 */
function settle(fn, argument) {
  let result;
  try {
    result = fn(argument);
  } catch (error) {
    return box(false, error);
  }
  return isPromise(result) ? settleNative(result) : box(true, result);
}

module.exports = { attach, handleRejection, ours, oursKept, box, settleNative, isThenable, settled, settle, isPromise, thenIsHookFree, SafePromise };
