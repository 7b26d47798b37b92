'use strict';
// How every entry point reads what it is given: options, inputs and results are read
// as own data properties (an inherited field, an accessor and a missing field all read
// as absent, and no getter ever runs); a Proxy input is refused unread; fields the
// package writes are defined, never assigned, so no setter on Object.prototype runs.

const { invalidArgument } = require('./errors');
const P = require('./primordials');

const { ObjectDefineProperty, ObjectHasOwn, ObjectPrototypeLookupGetter, StringPrototypeIsWellFormed, isProxy } = P;

/**
 * The value of an own data property, or undefined: an inherited field, an accessor (never
 * called) and a missing field all read as absent. `object` must not be a Proxy.
 */
function own(object, key) {
  // An own field only: __lookupGetter__ then stops at it (it never walks the prototype
  // chain), and no descriptor object is made. An own accessor without a getter reads as
  // undefined, as it is: no code runs either way.
  if (!ObjectHasOwn(object, key) || ObjectPrototypeLookupGetter(object, key) !== undefined) return undefined;
  return object[key];
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

/**
 * The descriptor defineField passes: one null-prototype object for every call (a literal
 * per call is a dictionary-mode allocation), its value set for the call and cleared after
 * it (defining a property of the package's objects runs no code in between).
 */
const FIELD = { __proto__: null, value: undefined, writable: true, enumerable: true, configurable: true };

/** Defines a writable, enumerable data field: setters on Object.prototype are never reached. */
function defineField(target, key, value) {
  FIELD.value = value;
  try {
    ObjectDefineProperty(target, key, FIELD);
  } finally {
    FIELD.value = undefined;
  }
}

module.exports = { own, requireInput, optionalInput, requireString, defineField };
