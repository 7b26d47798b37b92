'use strict';
// Every built-in the package calls on a value's behalf, captured when the package
// loads. Later monkey-patching of Object, Reflect, Array, JSON, Set, String.prototype or
// Function.prototype.call cannot change a decision or an output, and no method is ever
// looked up on a user value.

const { types } = require('node:util');

const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);

module.exports = Object.freeze({
  ObjectGetPrototypeOf: Object.getPrototypeOf,
  ObjectGetOwnPropertyNames: Object.getOwnPropertyNames,
  ObjectGetOwnPropertySymbols: Object.getOwnPropertySymbols,
  ObjectGetOwnPropertyDescriptor: Object.getOwnPropertyDescriptor,
  ObjectHasOwn: Object.hasOwn,
  ObjectFreeze: Object.freeze,
  ObjectDefineProperty: Object.defineProperty,
  ObjectKeys: Object.keys,
  ObjectPrototype: Object.prototype,
  ArrayIsArray: Array.isArray,
  ArrayPrototype: Array.prototype,
  ArrayPrototypeSlice: uncurryThis(Array.prototype.slice),
  ArrayPrototypeToSpliced: uncurryThis(Array.prototype.toSpliced),
  SafeArray: Array,
  SymbolSpecies: Symbol.species,
  speciesGetter: Object.getOwnPropertyDescriptor(Array, Symbol.species).get,
  JSONParse: JSON.parse,
  SafeSet: Set,
  SetPrototypeHas: uncurryThis(Set.prototype.has),
  SetPrototypeAdd: uncurryThis(Set.prototype.add),
  SetPrototypeClear: uncurryThis(Set.prototype.clear),
  SafeWeakSet: WeakSet,
  WeakSetPrototypeHas: uncurryThis(WeakSet.prototype.has),
  WeakSetPrototypeAdd: uncurryThis(WeakSet.prototype.add),
  SafeWeakMap: WeakMap,
  WeakMapPrototypeGet: uncurryThis(WeakMap.prototype.get),
  WeakMapPrototypeSet: uncurryThis(WeakMap.prototype.set),
  StringPrototypeSlice: uncurryThis(String.prototype.slice),
  StringPrototypeCharCodeAt: uncurryThis(String.prototype.charCodeAt),
  StringPrototypeIsWellFormed: uncurryThis(String.prototype.isWellFormed),
  StringFromCharCode: String.fromCharCode,
  TypedArrayPrototypeSet: uncurryThis(Object.getPrototypeOf(Uint8Array.prototype).set),
  SafeUint8Array: Uint8Array,
  SafeUint32Array: Uint32Array,
  SafeFloat64Array: Float64Array,
  isProxy: types.isProxy,
  structuredClone: globalThis.structuredClone,
  // Objects whose internal slots make them something other than a plain record, even
  // when their prototype has been reset to Object.prototype or null.
  slotChecks: Object.freeze([
    types.isDate, types.isRegExp, types.isMap, types.isSet, types.isWeakMap, types.isWeakSet,
    types.isAnyArrayBuffer, types.isArrayBufferView, types.isBoxedPrimitive, types.isNativeError,
    types.isPromise, types.isGeneratorObject, types.isMapIterator, types.isSetIterator,
    types.isModuleNamespaceObject, types.isArgumentsObject, types.isExternal,
  ]),
});
