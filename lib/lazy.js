'use strict';
// Modules a process may never use (grants, receipts, stores, seals, Cedar, diff,
// json-schema) are loaded at their first use, not when the package loads: `lazy(load)`
// is a function that runs `load` once, at its first call, and then returns what it
// returned. Such modules take their built-ins from ./primordials.js, captured when the
// package loads, never from the global object at their own load.

/** A function returning `load()`, which runs at the first call only. */
function lazy(load) {
  let loaded;
  let done = false;
  return function module() {
    if (!done) {
      loaded = load();
      done = true;
    }
    return loaded;
  };
}

module.exports = { lazy };
