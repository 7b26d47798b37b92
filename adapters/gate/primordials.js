'use strict';
// The built-ins every framework gate calls, captured once when the first adapter loads:
// later patching of Object, Array, Map, String.prototype, or Promise changes (the web streams: streams.js)
// nothing the gates decide. Adapters take what they need from this one frozen record.
//
// Why the adapters keep their own record instead of lib/primordials.js: an adapter uses only
// the package's public API (the subpath's exports and `tool-argument-snapshot` itself), and
// lib/ is not part of it, so the gates capture their built-ins here, in their own floor.
//
// Each subpath's entry (adapters/<name>/entry.js) loads this record when it is required and
// the gate's own modules at the first call of its export: a module loaded then takes
// every built-in it uses from here (captured at the subpath's require), never from the
// global object at its own load. Ids come from the package's randomUUID (the addon's OS
// randomness), captured by ./ids.js when the subpath loads, after its framework check:
// node:crypto's module graph is never loaded for them.

const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
const { isProxy } = require('node:util').types;
const { Buffer } = require('node:buffer');

/** A random RFC 9562 version 4 UUID: the package's randomUUID, as ./ids.js captured it when the subpath loaded. */
function randomUUID() {
  return require('./ids').randomUUID();
}

module.exports = Object.freeze({
  __proto__: null,
  uncurryThis,
  isProxy,
  randomUUID,
  ArrayIsArray: Array.isArray,
  ArrayPrototypeIncludes: uncurryThis(Array.prototype.includes),
  ArrayPrototypePush: uncurryThis(Array.prototype.push),
  ArrayPrototypeSlice: uncurryThis(Array.prototype.slice),
  ArrayPrototypeSplice: uncurryThis(Array.prototype.splice),
  ArrayPrototypeUnshift: uncurryThis(Array.prototype.unshift),
  BufferConcat: Buffer.concat,
  BufferFrom: Buffer.from,
  BufferPrototypeIndexOf: uncurryThis(Buffer.prototype.indexOf),
  BufferPrototypeSubarray: uncurryThis(Buffer.prototype.subarray),
  BufferPrototypeToString: uncurryThis(Buffer.prototype.toString),
  DateNow: Date.now,
  DecodeURIComponent: decodeURIComponent,
  JSONParse: JSON.parse,
  JSONStringify: JSON.stringify,
  MapIteratorNext: uncurryThis(Object.getPrototypeOf(new Map().keys()).next),
  MapPrototypeDelete: uncurryThis(Map.prototype.delete),
  MapPrototypeGet: uncurryThis(Map.prototype.get),
  MapPrototypeHas: uncurryThis(Map.prototype.has),
  MapPrototypeKeys: uncurryThis(Map.prototype.keys),
  MapPrototypeSet: uncurryThis(Map.prototype.set),
  NumberIsFinite: Number.isFinite,
  NumberIsNaN: Number.isNaN,
  NumberParseInt: Number.parseInt,
  ObjectDefineProperty: Object.defineProperty,
  ObjectFreeze: Object.freeze,
  ObjectGetOwnPropertyDescriptor: Object.getOwnPropertyDescriptor,
  ObjectGetOwnPropertyNames: Object.getOwnPropertyNames,
  ObjectGetPrototypeOf: Object.getPrototypeOf,
  ObjectHasOwn: Object.hasOwn,
  ObjectPrototypeLookupGetter: uncurryThis(Object.prototype.__lookupGetter__),
  ObjectIsExtensible: Object.isExtensible,
  ObjectKeys: Object.keys,
  ObjectPrototype: Object.prototype,
  ObjectPrototypeToString: uncurryThis(Object.prototype.toString),
  ProcessEmitWarning: process.emitWarning,
  PromisePrototypeThen: uncurryThis(Promise.prototype.then),
  PromiseResolve: Promise.resolve.bind(Promise),
  ReflectApply: Reflect.apply,
  RegExpPrototypeTest: uncurryThis(RegExp.prototype.test),
  SafeError: Error,
  SafeMap: Map,
  SafePromise: Promise,
  SafeSet: Set,
  SafeString: String,
  SafeTextDecoder: TextDecoder,
  SafeTypeError: TypeError,
  SafeWeakMap: WeakMap,
  SafeWeakSet: WeakSet,
  SetPrototypeAdd: uncurryThis(Set.prototype.add),
  SetPrototypeHas: uncurryThis(Set.prototype.has),
  StringPrototypeCharCodeAt: uncurryThis(String.prototype.charCodeAt),
  StringPrototypeIndexOf: uncurryThis(String.prototype.indexOf),
  StringPrototypeIsWellFormed: uncurryThis(String.prototype.isWellFormed),
  StringPrototypeReplaceAll: uncurryThis(String.prototype.replaceAll),
  StringPrototypeSlice: uncurryThis(String.prototype.slice),
  StringPrototypeSplit: uncurryThis(String.prototype.split),
  StringPrototypeStartsWith: uncurryThis(String.prototype.startsWith),
  StringPrototypeTrim: uncurryThis(String.prototype.trim),
  TextDecoderPrototypeDecode: uncurryThis(TextDecoder.prototype.decode),
  WeakMapPrototypeGet: uncurryThis(WeakMap.prototype.get),
  WeakMapPrototypeSet: uncurryThis(WeakMap.prototype.set),
  WeakSetPrototypeAdd: uncurryThis(WeakSet.prototype.add),
  WeakSetPrototypeDelete: uncurryThis(WeakSet.prototype.delete),
  WeakSetPrototypeHas: uncurryThis(WeakSet.prototype.has),
});
