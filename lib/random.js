'use strict';
// randomUUID of the package: RFC 9562 version 4 UUIDs from the operating system's
// randomness through the addon, so that a process that needs ids (the framework adapters
// name their runs and sessions with them) never loads node:crypto for them. Loaded at the
// first call (index.js); the addon's functions are a frozen record captured when the
// package loaded (lib/native.js).

const { binding } = require('./native');

const randomUuid = binding.randomUuid;

/** A random RFC 9562 version 4 UUID, lowercase 8-4-4-4-12, as `crypto.randomUUID()` makes them. */
function randomUUID() {
  return randomUuid();
}

module.exports = { randomUUID };
