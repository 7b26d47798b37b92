'use strict';
// tool-argument-snapshot: RFC-0016 authorized tool-argument snapshots (RFC 8785 JCS).

const nodeModule = require('node:module');
const { existsSync, readFileSync } = require('node:fs');
const { compileFunction } = require('node:vm');
const { sep, toNamespacedPath } = require('node:path');

// The snapshot core (lib/snapshot/, lib/native.js, lib/errors.js, lib/input.js,
// lib/primordials.js, lib/selftest.js, lib/lazy.js and the addon) is loaded here, file
// by file, without Node's module resolver; everything else goes through require() as
// before. Why: the resolver runs its path functions over every character of every path
// it resolves (path.resolve three times per module: the request, the real path, the
// module's node_modules list), and a dozen modules at install-length paths make them hot
// enough for the engine to load its optimizing compiler (Maglev on Node 26, TurboFan on
// Node 20): +2.7 to +3.7 MiB of RSS for a compile nobody needed (docs/performance.md).
// Each file is still a module of its own: compiled with the CommonJS wrapper under its
// own file name (stack traces name it), a Module in require.cache under the path the
// resolver gives it, so that a later require() of it (a module loaded at its first use,
// a test) gets this same module, never a second copy. A file already in require.cache is
// taken from there. What this resolves itself is only a relative request to a file of
// this package ('./x' or '../x' naming x.js or x/index.js) and the addon by its absolute
// path; anything else (built-ins, the platform package) goes to require() as ever.
const ReflectApply = Reflect.apply;
const PACKAGE_PREFIX = `${__dirname}${sep}`;
const CJS_PARAMETERS = ['exports', 'require', 'module', '__filename', '__dirname'];

/** The file a relative request from `dir` names, or undefined for the resolver to find. */
function packageFile(dir, request) {
  const parts = dir.split(sep);
  for (const part of request.split('/')) {
    if (part === '..') parts.pop();
    else if (part !== '.' && part !== '') parts.push(part);
  }
  const base = parts.join(sep);
  // A module this loader (or require()) already loaded is known to exist: no file system call.
  if (base.endsWith('.js')) return require.cache[base] !== undefined || existsSync(base) ? base : undefined;
  if (require.cache[`${base}.js`] !== undefined || existsSync(`${base}.js`)) return `${base}.js`;
  if (existsSync(`${base}${sep}index.js`) && !existsSync(`${base}${sep}package.json`)) return `${base}${sep}index.js`;
  return undefined;
}

/** The exports of the module in `filename` (a .js file or the addon), loaded once, a child of `parent`. */
function loadFile(filename, parent) {
  const cached = require.cache[filename];
  if (cached !== undefined) return cached.exports;
  const mod = new nodeModule(filename, parent);
  mod.filename = filename;
  require.cache[filename] = mod;
  let done = false;
  try {
    if (filename.endsWith('.node')) {
      process.dlopen(mod, toNamespacedPath(filename));
    } else {
      const dir = filename.slice(0, filename.lastIndexOf(sep));
      const body = compileFunction(readFileSync(filename, 'utf8'), CJS_PARAMETERS, { filename });
      ReflectApply(body, mod.exports, [mod.exports, fileRequire(mod, dir), mod, filename, dir]);
    }
    done = true;
  } finally {
    if (!done) delete require.cache[filename];
  }
  mod.loaded = true;
  return mod.exports;
}

/** The `require` of a core module: its package's files by loadFile, anything else by Node's resolver from that file. */
function fileRequire(mod, dir) {
  let resolver;
  const viaNode = (request) => {
    if (resolver === undefined) resolver = nodeModule.createRequire(mod.filename);
    return resolver(request);
  };
  return function require(request) {
    if (request.startsWith('node:')) return builtin(request);
    if (request.startsWith('./') || request.startsWith('../')) {
      const filename = packageFile(dir, request);
      return filename === undefined ? viaNode(request) : loadFile(filename, mod);
    }
    if (request.endsWith('.node') && request.startsWith(PACKAGE_PREFIX) && existsSync(request)) return loadFile(request, mod);
    return viaNode(request);
  };
}

/** A built-in module (node:x): the same for every requiring module. */
function builtin(request) {
  return require(request);
}

// Only under Node's own CommonJS loader (this module is in its require.cache): a module
// system of its own (a test runner's registry, which may run each file in a context of its
// own) gets every file by its own require(), as before.
const nodeLoader = module instanceof nodeModule && require.cache[__filename] === module;
const core = (relative, viaRequire) => (nodeLoader ? loadFile(`${PACKAGE_PREFIX}${relative.split('/').join(sep)}`, module) : viaRequire());

const { canonicalize, createSnapshot, decodeView, proposalHash, verifySnapshot, MAX_DEPTH } = core('lib/snapshot/index.js', () => require('./lib/snapshot'));
const {
  SnapshotDomainError,
  ToolArgumentsValidationError,
  ToolCallNotAllowedError,
  ApprovalGrantError,
  ERROR_CODES,
  isSnapshotDomainError,
  isToolArgumentsValidationError,
  isToolCallNotAllowedError,
  isApprovalGrantError,
  RUNTIME_REASONS,
  CedarPolicyError,
  isCedarPolicyError,
} = core('lib/errors.js', () => require('./lib/errors'));
const { checkEngine } = core('lib/selftest.js', () => require('./lib/selftest'));
const { lazy } = core('lib/lazy.js', () => require('./lib/lazy'));

// What a process may never use is loaded at its first call: the run loop (decodeRequest
// to authorizeToolCall), grants and seals, receipts, the stores and openGrantStore, diff,
// json-schema (and ajv), Cedar, randomUUID. Each export is a plain function (a data property, as
// before) whose call loads its module once and hands over; those modules take their
// built-ins from lib/primordials.js, captured now. Loading fewer modules matters beyond
// their own code: every module Node loads runs its resolver's path functions, and once
// those are hot the engine's optimizing compiler itself is loaded (docs/performance.md).
const run = lazy(() => require('./lib/run'));
const grants = lazy(() => require('./lib/grants'));
const receipts = lazy(() => require('./lib/receipts'));
const sqlite = lazy(() => require('./lib/stores/sqlite'));
const postgres = lazy(() => require('./lib/stores/postgres'));
const redis = lazy(() => require('./lib/stores/redis'));
const open = lazy(() => require('./lib/stores/open'));
const diff = lazy(() => require('./lib/diff'));
const jsonSchema = lazy(() => require('./lib/json-schema/index'));
const cedar = lazy(() => require('./lib/cedar'));
const random = lazy(() => require('./lib/random'));

function decodeRequest(text, options) {
  return run().decodeRequest(text, options);
}
function isArgumentsText(value) {
  return run().isArgumentsText(value);
}
function prepareToolCall(options) {
  return run().prepareToolCall(options);
}
function prepareToolCallAsync(options) {
  return run().prepareToolCallAsync(options);
}
function evaluateToolCall(options) {
  return run().evaluateToolCall(options);
}
function executeToolCall(decision, execute, options) {
  return run().executeToolCall(decision, execute, options);
}
function authorizeToolCall(options) {
  return run().authorizeToolCall(options);
}
function createApprovalGrants(options) {
  return grants().createApprovalGrants(options);
}
function createExecutionReceipts(options) {
  return receipts().createExecutionReceipts(options);
}
function createSqliteGrantStore(options) {
  return sqlite().createSqliteGrantStore(options);
}
function createPostgresGrantStore(options) {
  return postgres().createPostgresGrantStore(options);
}
function createRedisGrantStore(options) {
  return redis().createRedisGrantStore(options);
}
function openGrantStore(url, options) {
  return open().openGrantStore(url, options);
}
function diffSnapshots(approved, proposed, options) {
  return diff().diffSnapshots(approved, proposed, options);
}
function fromJsonSchema(schema, options) {
  return jsonSchema().fromJsonSchema(schema, options);
}
function createCedarPolicy(options) {
  return cedar().createCedarPolicy(options);
}
function randomUUID() {
  return random().randomUUID();
}

checkEngine(canonicalize, createSnapshot);

module.exports = {
  canonicalize,
  createSnapshot,
  decodeView,
  proposalHash,
  verifySnapshot,
  decodeRequest,
  isArgumentsText,
  prepareToolCall,
  prepareToolCallAsync,
  evaluateToolCall,
  executeToolCall,
  authorizeToolCall,
  RUNTIME_REASONS,
  createApprovalGrants,
  createExecutionReceipts,
  createSqliteGrantStore,
  createPostgresGrantStore,
  createRedisGrantStore,
  openGrantStore,
  diffSnapshots,
  fromJsonSchema,
  createCedarPolicy,
  randomUUID,
  CedarPolicyError,
  isCedarPolicyError,
  SnapshotDomainError,
  ToolArgumentsValidationError,
  ToolCallNotAllowedError,
  ApprovalGrantError,
  isSnapshotDomainError,
  isToolArgumentsValidationError,
  isToolCallNotAllowedError,
  isApprovalGrantError,
  ERROR_CODES,
  MAX_DEPTH,
};
