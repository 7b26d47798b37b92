'use strict';
// The conformance run's own harness: no node:test, no node:assert, nothing a runtime
// might implement differently, so that the same file gives the same verdicts under Node,
// Bun and Deno. Checks run one after the other (async ones awaited); a failure prints
// its id and message; `skip` records a visible skip with its reason. The run ends with
// one line, `conformance: N passed, N failed, N skipped`, and a non-zero exit code when
// anything failed.

const { RUNTIME, KNOWN_BUGS } = require('./runtime.cjs');

class ConformanceFailure extends Error {}

function fail(message) {
  throw new ConformanceFailure(message);
}

function show(value) {
  if (typeof value === 'string') return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}...` : value);
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol' || typeof value === 'function') return typeof value;
  if (value === null || value === undefined) return String(value);
  try {
    const text = JSON.stringify(value);
    return text === undefined ? typeof value : text.length > 200 ? `${text.slice(0, 200)}...` : text;
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** Name, code and stage of a thrown value, for messages. */
function describeError(error) {
  if (error === null || typeof error !== 'object') return `a thrown ${typeof error}`;
  const own = (key) => {
    const d = Object.getOwnPropertyDescriptor(error, key);
    return d && Object.hasOwn(d, 'value') ? d.value : undefined;
  };
  const name = own('name') ?? error.constructor?.name ?? 'object';
  return `${name} (code ${show(own('code'))}, stage ${show(own('stage'))}): ${String(own('message') ?? '').slice(0, 160)}`;
}

/**
 * Structural equality of JSON-domain values: same primitive (negative zero told apart),
 * or objects and arrays with the same prototype and the same own enumerable data
 * properties, recursively. Accessors and non-enumerable properties never match.
 */
function deepEqual(a, b, path = '') {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return Object.is(a, b) ? null : `${path || '(root)'}: ${show(a)} !== ${show(b)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${path || '(root)'}: array vs object`;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${path || '(root)'}: different prototypes`;
  const namesA = Object.getOwnPropertyNames(a).sort();
  const namesB = Object.getOwnPropertyNames(b).sort();
  if (namesA.length !== namesB.length || namesA.some((name, i) => name !== namesB[i])) {
    return `${path || '(root)'}: keys ${show(namesA)} vs ${show(namesB)}`;
  }
  for (const name of namesA) {
    if (Array.isArray(a) && name === 'length') continue;
    const da = Object.getOwnPropertyDescriptor(a, name);
    const db = Object.getOwnPropertyDescriptor(b, name);
    if (!Object.hasOwn(da, 'value') || !Object.hasOwn(db, 'value')) return `${path}/${name}: an accessor`;
    if (!da.enumerable || !db.enumerable) return `${path}/${name}: not enumerable`;
    const inner = deepEqual(da.value, db.value, `${path}/${name}`);
    if (inner !== null) return inner;
  }
  return null;
}

const assert = {
  ok(value, message) {
    if (!value) fail(message);
  },
  equal(actual, expected, message) {
    if (!Object.is(actual, expected)) fail(`${message}: got ${show(actual)}, expected ${show(expected)}`);
  },
  notEqual(actual, unexpected, message) {
    if (Object.is(actual, unexpected)) fail(`${message}: got ${show(actual)}`);
  },
  deepEqual(actual, expected, message) {
    const difference = deepEqual(actual, expected);
    if (difference !== null) fail(`${message}: ${difference}`);
  },
  match(text, pattern, message) {
    if (typeof text !== 'string' || !pattern.test(text)) fail(`${message}: ${show(text)} does not match ${pattern}`);
  },
  /** Runs fn; returns the thrown value, or fails if nothing was thrown. */
  throws(fn, message) {
    try {
      fn();
    } catch (error) {
      return error;
    }
    return fail(`${message}: nothing was thrown`);
  },
  async rejects(promiseOrFn, message) {
    try {
      await (typeof promiseOrFn === 'function' ? promiseOrFn() : promiseOrFn);
    } catch (error) {
      return error;
    }
    return fail(`${message}: the promise resolved`);
  },
  /** The error is an instance of `Class` with the given own data fields. */
  error(error, Class, fields, message) {
    if (!(error instanceof Class)) fail(`${message}: expected ${Class.name}, got ${describeError(error)}`);
    for (const key of Object.keys(fields)) {
      const d = Object.getOwnPropertyDescriptor(error, key);
      const value = d && Object.hasOwn(d, 'value') ? d.value : undefined;
      if (!Object.is(value, fields[key])) fail(`${message}: ${key} is ${show(value)}, expected ${show(fields[key])} (${describeError(error)})`);
    }
  },
};

/** try/catch as a value: { ok: true, value } or { ok: false, error }. */
function attempt(fn) {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

const queue = [];
const counts = { passed: 0, failed: 0, skipped: 0 };
const VERBOSE = process.argv.includes('--verbose');
const FILTER = (() => {
  const at = process.argv.indexOf('--only');
  return at === -1 ? null : process.argv[at + 1];
})();

/** Registers a check; `fn` may be async. */
function check(id, fn) {
  queue.push({ id, fn });
}

/** Registers a visible skip. */
function skip(id, reason) {
  queue.push({ id, skip: reason });
}

function out(line) {
  process.stdout.write(`${line}\n`);
}

async function run() {
  out(`conformance: ${RUNTIME.name} ${RUNTIME.version} (${RUNTIME.engine})`);
  for (const item of queue) {
    if (FILTER !== null && !item.id.includes(FILTER)) continue;
    if (item.skip !== undefined) {
      counts.skipped++;
      out(`skip ${item.id}: ${item.skip}`);
      continue;
    }
    try {
      const result = await item.fn();
      if (result && result.skip !== undefined) {
        counts.skipped++;
        out(`skip ${item.id}: ${result.skip}`);
        continue;
      }
      counts.passed++;
      if (Object.hasOwn(KNOWN_BUGS, item.id)) out(`note ${item.id}: the known bug listed in runtime.cjs no longer occurs on ${RUNTIME.name}`);
      else if (VERBOSE) out(`ok ${item.id}`);
    } catch (error) {
      const message =
        error instanceof ConformanceFailure
          ? error.message
          : `threw ${describeError(error)}\n    ${String(error && error.stack)
              .split('\n')
              .slice(1, 4)
              .join('\n    ')}`;
      const known = Object.hasOwn(KNOWN_BUGS, item.id) ? KNOWN_BUGS[item.id] : null;
      if (known !== null && known.failure.test(message)) {
        // A package bug on this runtime, described in runtime.cjs and the README, failing
        // exactly as described: shown as a skip with the reason and the failure, like
        // node:test's todo. Any other failure of the same check fails the run.
        counts.skipped++;
        out(`skip ${item.id}: known bug on ${RUNTIME.name}: ${known.reason} (still fails: ${message})`);
        continue;
      }
      counts.failed++;
      out(`not ok ${item.id}: ${message}`);
    }
  }
  out(`conformance: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  process.exitCode = counts.failed === 0 ? 0 : 1;
}

module.exports = { RUNTIME, assert, attempt, check, skip, run, fail, show, describeError, deepEqual };
