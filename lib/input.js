'use strict';
// How every entry point reads what it is given: options, inputs and results are read
// as own data properties (an inherited field, an accessor and a missing field all read
// as absent, and no getter ever runs); a Proxy input is refused unread; fields the
// package writes are defined, never assigned, so no setter on Object.prototype runs.

const { invalidArgument } = require('./errors');
const P = require('./primordials');

const { ObjectDefineProperty, ObjectGetOwnPropertyDescriptor, ObjectHasOwn, StringPrototypeIsWellFormed, isProxy } = P;

/**
 * The value of an own data property, or undefined: an inherited field, an accessor (never
 * called) and a missing field all read as absent. `object` must not be a Proxy.
 */
function own(object, key) {
  // An absent field (the common case for options) costs no descriptor object.
  if (!ObjectHasOwn(object, key)) return undefined;
  const descriptor = ObjectGetOwnPropertyDescriptor(object, key);
  return descriptor !== undefined && ObjectHasOwn(descriptor, 'value') ? descriptor.value : undefined;
}

/** An input or options object of the API, or a TypeError: a Proxy is refused unread. */
function requireInput(input, message) {
  if (input === null || typeof input !== 'object' || isProxy(input)) throw invalidArgument(message);
  return input;
}

/** Options that may be absent (undefined or null: null is returned), else requireInput. */
function optionalInput(options, message) {
  if (options === undefined || options === null) return null;
  return requireInput(options, message);
}

function requireString(value, what, wellFormed) {
  if (typeof value !== 'string' || (wellFormed && !StringPrototypeIsWellFormed(value))) {
    throw invalidArgument(`${what} must be a ${wellFormed ? 'well-formed ' : ''}string`);
  }
  return value;
}

/** Defines a writable, enumerable data field: setters on Object.prototype are never reached. */
function defineField(target, key, value) {
  ObjectDefineProperty(target, key, { __proto__: null, value, writable: true, enumerable: true, configurable: true });
}

module.exports = { own, requireInput, optionalInput, requireString, defineField };
