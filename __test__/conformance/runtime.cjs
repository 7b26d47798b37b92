'use strict';
// Which runtime runs the conformance suite, how to start a child script under that same
// runtime, and the verdicts that knowingly differ from Node's on it.

/* global Bun, Deno */

function detect() {
  if (typeof Bun !== 'undefined' && Bun && typeof Bun.version === 'string') {
    return { name: 'bun', version: Bun.version, engine: 'JavaScriptCore' };
  }
  if (typeof Deno !== 'undefined' && Deno && Deno.version && typeof Deno.version.deno === 'string') {
    return { name: 'deno', version: Deno.version.deno, engine: `V8 ${Deno.version.v8}` };
  }
  return { name: 'node', version: process.versions.node, engine: `V8 ${process.versions.v8}` };
}

const RUNTIME = detect();

/** Deno permissions the package needs (read its files, load the addon) and the suite's children. */
const DENO_FLAGS = ['--no-prompt', '--no-remote', '--allow-read', '--allow-ffi', '--allow-env', '--allow-run'];
/** Bun: never install a missing package from the network while running. */
const BUN_FLAGS = ['--no-install'];

/** [command, args] that run `script` with `args` under the runtime running this file. */
function childCommand(script, args) {
  if (RUNTIME.name === 'deno') return [Deno.execPath(), ['run', ...DENO_FLAGS, script, ...args]];
  if (RUNTIME.name === 'bun') return [process.execPath, [...BUN_FLAGS, script, ...args]];
  return [process.execPath, [script, ...args]];
}

/**
 * Verdicts that may differ from Node's, per runtime, each because the runtime's own
 * object differs (never because the package decides differently). Keyed by check id;
 * `verdict` is what the runtime gives instead of Node's. A difference can only ever be
 * another rejection: the harness fails any accept where Node rejects, whatever this
 * table says. docs/runtimes.md ("Where the runtimes differ") lists the same entries, and
 * __test__/conformance/runtimes.test.js checks that it names each one with its verdict.
 */
const DIFFERENCES = {
  bun: {
    'host objects: process.env': {
      verdict: { code: 'accessor_property' },
      why: "Bun's process.env inherits from Object.prototype and holds accessors for Bun's own variables (TZ, NODE_TLS_REJECT_UNAUTHORIZED, BUN_CONFIG_VERBOSE_FETCH); Node's has its own prototype",
    },
    'host objects: globalThis': {
      verdict: { code: 'symbol_key' },
      why: "Bun 1.4's global object inherits directly from Object.prototype, so its keys are checked: it holds a symbol-keyed property (the package's own registry of grant evaluations, shared by every copy of the package in the process), and its first own property, Infinity, is not enumerable; Node's has its own prototype (so do Bun 1.2 and 1.3's)",
    },
    'hostile: codes: a node:vm global whose sandbox calls the package again while its keys are listed': {
      verdict: { code: 'non_enumerable_property' },
      why: "Bun's node:vm context global is an ordinary global object: listing its keys runs none of the sandbox's Proxy traps (Node's forwards them), so nothing re-enters the package, and its first own key (undefined) is not enumerable",
    },
  },
  deno: {},
  node: {},
};

/**
 * Package bugs known on one runtime, by check id: such a check still runs, and a failure
 * whose message matches `failure` is reported as a skip with `reason` (node:test's todo);
 * any other failure of it fails the run.
 */
const KNOWN_BUGS = {
  bun: {},
  deno: {},
  node: {},
};

module.exports = {
  RUNTIME,
  DENO_FLAGS,
  BUN_FLAGS,
  childCommand,
  DIFFERENCES: DIFFERENCES[RUNTIME.name] || {},
  KNOWN_BUGS: KNOWN_BUGS[RUNTIME.name] || {},
};
