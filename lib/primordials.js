'use strict';
// Every built-in the package calls on a value's behalf, captured when the package
// loads. Later monkey-patching of Object, Reflect, Array, JSON, Set, String.prototype or
// Function.prototype.call cannot change a decision or an output, and no method is ever
// looked up on a user value.
//
// This is also where the modules loaded at their first use (grants, receipts, stores,
// seals, Cedar, diff, json-schema: see index.js) take their built-ins from: they are
// captured here, when the package loads, so that a built-in patched after the package's
// require and before such a module's first use is never the one it calls. Such a module
// captures nothing from the global object itself.

const { types } = require('node:util');
const { AsyncLocalStorage } = require('node:async_hooks');
const nodeModule = require('node:module');
const nodePath = require('node:path');

const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);

/**
 * A Set whose methods are its own prototype's, copied from Set.prototype at load and
 * frozen: `set.has(v)` is an ordinary, fast method call that later patching of
 * Set.prototype cannot reach.
 */
class SafeSet extends Set {
  constructor() {
    super();
  }
}
for (const key of ['has', 'add', 'delete', 'clear']) {
  Object.defineProperty(SafeSet.prototype, key, { __proto__: null, value: Set.prototype[key], writable: false, enumerable: false, configurable: false });
}
Object.defineProperty(SafeSet.prototype, 'size', {
  __proto__: null,
  get: Object.getOwnPropertyDescriptor(Set.prototype, 'size').get,
  enumerable: false,
  configurable: false,
});
Object.freeze(SafeSet.prototype);
Object.freeze(SafeSet);

const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);

module.exports = Object.freeze({
  uncurryThis,
  ObjectGetPrototypeOf: Object.getPrototypeOf,
  ObjectGetOwnPropertyNames: Object.getOwnPropertyNames,
  ObjectGetOwnPropertySymbols: Object.getOwnPropertySymbols,
  ObjectGetOwnPropertyDescriptor: Object.getOwnPropertyDescriptor,
  ObjectHasOwn: Object.hasOwn,
  ObjectFreeze: Object.freeze,
  ObjectDefineProperty: Object.defineProperty,
  ObjectKeys: Object.keys,
  ReflectOwnKeys: Reflect.ownKeys,
  ObjectPrototype: Object.prototype,
  ObjectPrototypeToString: uncurryThis(Object.prototype.toString),
  ObjectPrototypeLookupGetter: uncurryThis(Object.prototype.__lookupGetter__),
  ObjectPrototypeLookupSetter: uncurryThis(Object.prototype.__lookupSetter__),
  SymbolToStringTag: Symbol.toStringTag,
  ArrayIsArray: Array.isArray,
  ArrayPrototype: Array.prototype,
  ArrayPrototypeSlice: uncurryThis(Array.prototype.slice),
  ArrayPrototypeToSpliced: uncurryThis(Array.prototype.toSpliced),
  SafeArray: Array,
  SymbolSpecies: Symbol.species,
  SafeSymbol: Symbol,
  SymbolIterator: Symbol.iterator,
  FunctionPrototypeToString: uncurryThis(Function.prototype.toString),
  StringPrototypeEndsWith: uncurryThis(String.prototype.endsWith),
  speciesGetter: Object.getOwnPropertyDescriptor(Array, Symbol.species).get,
  JSONParse: JSON.parse,
  SafeSet,
  SetPrototypeHas: uncurryThis(Set.prototype.has),
  SetPrototypeAdd: uncurryThis(Set.prototype.add),
  SetPrototypeClear: uncurryThis(Set.prototype.clear),
  SafeWeakSet: WeakSet,
  WeakSetPrototypeHas: uncurryThis(WeakSet.prototype.has),
  WeakSetPrototypeAdd: uncurryThis(WeakSet.prototype.add),
  SafeWeakMap: WeakMap,
  WeakMapPrototypeGet: uncurryThis(WeakMap.prototype.get),
  WeakMapPrototypeSet: uncurryThis(WeakMap.prototype.set),
  WeakMapPrototypeHas: uncurryThis(WeakMap.prototype.has),
  StringPrototypeSlice: uncurryThis(String.prototype.slice),
  StringPrototypeCharCodeAt: uncurryThis(String.prototype.charCodeAt),
  StringPrototypeIsWellFormed: uncurryThis(String.prototype.isWellFormed),
  StringFromCharCode: String.fromCharCode,
  TypedArrayPrototypeSet: uncurryThis(TypedArrayPrototype.set),
  SafeArrayBuffer: ArrayBuffer,
  SafeUint8Array: Uint8Array,
  SafeUint32Array: Uint32Array,
  SafeFloat64Array: Float64Array,
  isProxy: types.isProxy,
  structuredClone: globalThis.structuredClone,
  // Objects whose internal slots make them something other than a plain record, even
  // when their prototype has been reset to Object.prototype or null. lib/snapshot/walk.js calls
  // each from its own call site (one shared call site costs V8 its fast API calls).
  isDate: types.isDate,
  isRegExp: types.isRegExp,
  isMap: types.isMap,
  isSet: types.isSet,
  isWeakMap: types.isWeakMap,
  isWeakSet: types.isWeakSet,
  isAnyArrayBuffer: types.isAnyArrayBuffer,
  isArrayBufferView: types.isArrayBufferView,
  isBoxedPrimitive: types.isBoxedPrimitive,
  isNativeError: types.isNativeError,
  isPromise: types.isPromise,
  isGeneratorObject: types.isGeneratorObject,
  isMapIterator: types.isMapIterator,
  isSetIterator: types.isSetIterator,
  isModuleNamespaceObject: types.isModuleNamespaceObject,
  isArgumentsObject: types.isArgumentsObject,
  // Missing in Deno 2 (lib/snapshot/walk.js then asks the binding, which asks napi_typeof).
  isExternal: types.isExternal,
  isUint8Array: types.isUint8Array,

  // For the modules loaded at first use (and any other module of the package).
  ArrayFrom: Array.from,
  ArrayPrototypePush: uncurryThis(Array.prototype.push),
  ArrayPrototypeSplice: uncurryThis(Array.prototype.splice),
  ArrayPrototypeSort: uncurryThis(Array.prototype.sort),
  ObjectIsFrozen: Object.isFrozen,
  ObjectSetPrototypeOf: Object.setPrototypeOf,
  ObjectIs: Object.is,
  ReflectApply: Reflect.apply,
  JSONStringify: JSON.stringify,
  NumberIsFinite: Number.isFinite,
  NumberIsSafeInteger: Number.isSafeInteger,
  NumberParseInt: Number.parseInt,
  MathImul: Math.imul,
  DateNow: Date.now,
  SymbolFor: Symbol.for,
  SafeError: Error,
  SafeTypeError: TypeError,
  ErrorCaptureStackTrace: Error.captureStackTrace,
  SafePromise: Promise,
  PromisePrototype: Promise.prototype,
  PromisePrototypeThen: uncurryThis(Promise.prototype.then),
  promiseSpeciesGetter: Object.getOwnPropertyDescriptor(Promise, Symbol.species).get,
  PromiseReject: Promise.reject.bind(Promise),
  ObjectIsExtensible: Object.isExtensible,
  ReflectDeleteProperty: Reflect.deleteProperty,
  MathRandom: Math.random,
  NumberPrototypeToString: uncurryThis(Number.prototype.toString),
  SafeAsyncLocalStorage: AsyncLocalStorage,
  AsyncLocalStorageRun: uncurryThis(AsyncLocalStorage.prototype.run),
  AsyncLocalStorageGetStore: uncurryThis(AsyncLocalStorage.prototype.getStore),
  SafeMap: Map,
  MapPrototypeGet: uncurryThis(Map.prototype.get),
  MapPrototypeSet: uncurryThis(Map.prototype.set),
  MapPrototypeHas: uncurryThis(Map.prototype.has),
  MapPrototypeDelete: uncurryThis(Map.prototype.delete),
  MapPrototypeForEach: uncurryThis(Map.prototype.forEach),
  StringPrototypeIndexOf: uncurryThis(String.prototype.indexOf),
  StringPrototypeStartsWith: uncurryThis(String.prototype.startsWith),
  StringPrototypeToLowerCase: uncurryThis(String.prototype.toLowerCase),
  RegExpPrototypeTest: uncurryThis(RegExp.prototype.test),
  SafeTextEncoder: TextEncoder,
  TextEncoderPrototypeEncode: uncurryThis(TextEncoder.prototype.encode),
  TypedArrayPrototypeGetLength: uncurryThis(Object.getOwnPropertyDescriptor(TypedArrayPrototype, 'length').get),
  TypedArrayPrototypeSlice: uncurryThis(TypedArrayPrototype.slice),
  SafeSetTimeout: globalThis.setTimeout,
  SafeClearTimeout: globalThis.clearTimeout,
  SafeSetImmediate: globalThis.setImmediate,
  ProcessEmitWarning: process.emitWarning,
  ProcessCwd: process.cwd,
  process,
  createRequire: nodeModule.createRequire,
  PathJoin: nodePath.join,
});
