'use strict';
// Reading what applications and frameworks hand a gate: own data properties only (no
// getter runs, nothing inherited counts, a Proxy is refused unread), and the TypeError
// (code ERR_INVALID_ARG_TYPE) for a bad argument, which never quotes a payload.

const {
  ArrayIsArray,
  isProxy,
  ObjectDefineProperty,
  ObjectGetOwnPropertyDescriptor,
  ObjectGetOwnPropertyNames,
  ObjectHasOwn,
  ObjectPrototypeLookupGetter,
  SafeTypeError,
  StringPrototypeIsWellFormed,
} = require('./primordials');

/** A TypeError for a bad argument of an adapter (never about the payload). */
function invalidArgument(message) {
  const error = new SafeTypeError(message);
  ObjectDefineProperty(error, 'code', { __proto__: null, value: 'ERR_INVALID_ARG_TYPE', enumerable: true, writable: false, configurable: true });
  return error;
}

/** An own data property of `object`, or undefined (getters, inherited values and Proxies never count). */
function own(object, key) {
  if (object === null || (typeof object !== 'object' && typeof object !== 'function') || isProxy(object)) return undefined;
  // An own field only: __lookupGetter__ then stops at it (no walk of the prototype chain),
  // and no descriptor object is made; an own accessor without a getter reads undefined.
  if (!ObjectHasOwn(object, key) || ObjectPrototypeLookupGetter(object, key) !== undefined) return undefined;
  return object[key];
}

/**
 * An own data property of an options object, or undefined when absent; an own accessor
 * (a getter) is refused with `message`, never run: for an option whose absence means a
 * default (receipts, a run id), a getter silently read as absent would weaken the
 * guarantee the application asked for (its durable receipts replaced by memory ones).
 */
function ownOption(object, key, message) {
  if (object === null || (typeof object !== 'object' && typeof object !== 'function') || isProxy(object)) return undefined;
  const descriptor = ObjectGetOwnPropertyDescriptor(object, key);
  if (descriptor === undefined) return undefined;
  if (!ObjectHasOwn(descriptor, 'value')) throw invalidArgument(message);
  return descriptor.value;
}

/** The elements of an own data array property, or an empty list. */
function ownArray(object, key) {
  const value = own(object, key);
  return ArrayIsArray(value) && !isProxy(value) ? value : [];
}

/** Defines a data property (an assignment could reach a setter on Object.prototype). */
function setData(object, key, value) {
  ObjectDefineProperty(object, key, { __proto__: null, value, enumerable: true, writable: true, configurable: true });
}

/** A new record of the own enumerable data properties of `object` (no getter runs). */
function ownDataCopy(object) {
  const copy = {};
  if (object === null || typeof object !== 'object' || isProxy(object)) return copy;
  const names = ObjectGetOwnPropertyNames(object);
  for (let i = 0; i < names.length; i++) {
    const descriptor = ObjectGetOwnPropertyDescriptor(object, names[i]);
    if (descriptor.enumerable && ObjectHasOwn(descriptor, 'value')) setData(copy, names[i], descriptor.value);
  }
  return copy;
}

/** An options object of an adapter: undefined or null (none), else an object that is not a Proxy. */
function readOptions(options, what) {
  if (options === undefined || options === null) return null;
  if (typeof options !== 'object' || isProxy(options)) throw invalidArgument(`${what} must be an object`);
  return options;
}

function isWellFormedString(value) {
  return typeof value === 'string' && StringPrototypeIsWellFormed(value);
}

/** A call id, run id or name: a non-empty well-formed string. */
function isId(value) {
  return isWellFormedString(value) && value !== '';
}

module.exports = { invalidArgument, own, ownOption, ownArray, setData, ownDataCopy, readOptions, isWellFormedString, isId };
