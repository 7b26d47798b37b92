'use strict';
// What kind of object a value is, told without running any of its code: the engine
// types that make an object something other than a plain record even under a reset
// prototype (brand checks through util.types), and, for an empty object, whether it is
// an ordinary one (a hook-free structured clone).

const { binding } = require('../native');
const P = require('../primordials');

const {
  ObjectGetPrototypeOf,
  ObjectGetOwnPropertyNames,
  ObjectGetOwnPropertySymbols,
  ObjectGetOwnPropertyDescriptor,
  ObjectHasOwn,
  ObjectPrototype,
  FunctionPrototypeToString,
  StringPrototypeEndsWith,
  structuredClone,
  isDate,
  isRegExp,
  isMap,
  isSet,
  isWeakMap,
  isWeakSet,
  isAnyArrayBuffer,
  isArrayBufferView,
  isBoxedPrimitive,
  isNativeError,
  isPromise,
  isGeneratorObject,
  isMapIterator,
  isSetIterator,
  isModuleNamespaceObject,
  isArgumentsObject,
} = P;

// A runtime without util.types.isExternal (Deno) asks napi_typeof through the binding:
// the check is never dropped.
const isExternal = typeof P.isExternal === 'function' ? P.isExternal : binding.isExternal;

/** The engine types an object's prototype cannot tell and that must precede key listing. */
function hasSlotsBeforeKeys(value) {
  return (
    isMap(value) ||
    isSet(value) ||
    isWeakMap(value) ||
    isWeakSet(value) ||
    isAnyArrayBuffer(value) ||
    isArrayBufferView(value) ||
    isBoxedPrimitive(value) ||
    isPromise(value) ||
    isGeneratorObject(value) ||
    isMapIterator(value) ||
    isSetIterator(value) ||
    isModuleNamespaceObject(value) ||
    isExternal(value)
  );
}

/** The four engine types Object.prototype.toString also names. */
function hasTaggedSlots(value) {
  return isDate(value) || isRegExp(value) || isNativeError(value) || isArgumentsObject(value);
}

// The well-known symbols: no structured clone implementation looks a hook up under
// one of them (Object.prototype[Symbol.toPrimitive] or [Symbol.iterator] are common
// polyfill territory and must not make every empty object fail).
const WELL_KNOWN_SYMBOLS = [];
{
  const names = ObjectGetOwnPropertyNames(P.SafeSymbol);
  for (let i = 0; i < names.length; i++) {
    const descriptor = ObjectGetOwnPropertyDescriptor(P.SafeSymbol, names[i]);
    if (ObjectHasOwn(descriptor, 'value') && typeof descriptor.value === 'symbol') {
      P.ObjectDefineProperty(WELL_KNOWN_SYMBOLS, WELL_KNOWN_SYMBOLS.length, { __proto__: null, value: descriptor.value, enumerable: true });
    }
  }
  P.ObjectFreeze(WELL_KNOWN_SYMBOLS);
}

/**
 * Whether this runtime's structuredClone is written in JavaScript (Deno's is). Called
 * with one argument, Deno's converts the default `transfer: []` with the live
 * Array.prototype[Symbol.iterator] and %ArrayIteratorPrototype%.next; handed a transfer
 * list that is an iterable of its own (its own iterator method and `next`, yielding
 * nothing), it converts that instead and clones with the native operation, calling no
 * built-in an application could have replaced. Node's and Bun's are native code.
 */
const CLONE_IN_JAVASCRIPT = !StringPrototypeEndsWith(FunctionPrototypeToString(structuredClone), '{ [native code] }');
/**
 * @type {any} an iterable of no element (its iterator is defined below), which the transfer
 * option takes as a WebIDL sequence; TypeScript's libraries type that option as an array.
 */
const NO_TRANSFER = { __proto__: null };
{
  const done = { __proto__: null, done: true, value: undefined };
  const iterator = { __proto__: null };
  P.ObjectDefineProperty(iterator, 'next', { __proto__: null, value: () => done });
  P.ObjectDefineProperty(NO_TRANSFER, P.SymbolIterator, { __proto__: null, value: () => iterator });
  P.ObjectFreeze(iterator);
  P.ObjectFreeze(done);
  P.ObjectFreeze(NO_TRANSFER);
}
const CLONE_OPTIONS = P.ObjectFreeze({ __proto__: null, transfer: NO_TRANSFER });

function isWellKnown(symbol) {
  for (let i = 0; i < WELL_KNOWN_SYMBOLS.length; i++) {
    if (WELL_KNOWN_SYMBOLS[i] === symbol) return true;
  }
  return false;
}

/**
 * Whether structured cloning can classify an empty object without running code: the
 * object has no own property (so no getter to call), and the clone hooks a runtime looks
 * up on a host object's prototype chain (Node's messaging symbols, Deno's host-object
 * brand: all symbol-keyed, none well-known) can find nothing callable on
 * Object.prototype, the only object left on that chain.
 */
function cloneRunsNoCode() {
  const symbols = ObjectGetOwnPropertySymbols(ObjectPrototype);
  for (let i = 0; i < symbols.length; i++) {
    if (isWellKnown(symbols[i])) continue;
    const descriptor = ObjectGetOwnPropertyDescriptor(ObjectPrototype, symbols[i]);
    if (!ObjectHasOwn(descriptor, 'value') || typeof descriptor.value === 'function') return false;
  }
  return true;
}

/**
 * For an object without own properties whose prototype is Object.prototype or null,
 * whether it is an ordinary object. Engine objects that no other check names (WeakRef,
 * FinalizationRegistry, Intl objects, iterators, every WebAssembly object, Node host
 * objects) either refuse structured cloning or clone into an object of their own kind,
 * with their type's prototype; an ordinary object clones into a plain `{}`. When
 * Object.prototype carries a function or an accessor under a symbol key that is not a
 * well-known symbol, cloning could call it: the object is then refused (fail closed)
 * instead of classified.
 */
function isOrdinaryWhenEmpty(value) {
  if (!cloneRunsNoCode()) return false;
  try {
    const clone = CLONE_IN_JAVASCRIPT ? structuredClone(value, CLONE_OPTIONS) : structuredClone(value);
    return ObjectGetPrototypeOf(clone) === ObjectPrototype;
  } catch {
    return false;
  }
}

module.exports = { hasSlotsBeforeKeys, hasTaggedSlots, isOrdinaryWhenEmpty };
