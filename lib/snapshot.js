'use strict';
// The snapshot API of RFC-0016: canonicalize, createSnapshot, decodeView, proposalHash.

const { binding } = require('./native');
const { SnapshotDomainError, ToolArgumentsValidationError, WalkFailure, invalidArgument, nativeFailure, FAILED } = require('./errors');
const { canonicalJson, hashedCanonicalJson } = require('./walk');
const { firstView, view, PARSE_EACH_TIME } = require('./view');
const P = require('./primordials');

const { ObjectFreeze, ObjectGetOwnPropertyDescriptor, ObjectHasOwn, JSONParse, WeakMapPrototypeGet, WeakMapPrototypeSet, StringPrototypeIsWellFormed, isProxy } = P;

// Native flags: the constants of src/binding.rs.
const FLAG_PATH = 2;
const FLAG_REJECT_NEGATIVE_ZERO = 4;
// checkJson results: the constants of src/binding.rs.
const JSON_BLANK = 1;

/**
 * Snapshots made by createSnapshot, each with its view template (made at the first
 * decodeView). decodeView trusts their JSON without checking it again.
 */
const SNAPSHOTS = new P.SafeWeakMap();
const NO_TEMPLATE = Symbol('no template yet');

function requireName(value, what) {
  if (typeof value !== 'string' || !StringPrototypeIsWellFormed(value)) {
    throw invalidArgument(`${what} must be a well-formed string`);
  }
  return value;
}

function readOptions(options) {
  if (options === undefined || options === null) return false;
  if (typeof options !== 'object') throw invalidArgument('options must be an object');
  return options.includePath === true;
}

function canonicalize(value, options) {
  const includePath = readOptions(options);
  try {
    return canonicalJson(value, includePath);
  } catch (error) {
    if (error instanceof WalkFailure) throw new SnapshotDomainError(error.code, error.path);
    throw error;
  }
}

function createSnapshot(input) {
  if (input === null || typeof input !== 'object') throw invalidArgument('createSnapshot expects { agentName, toolName, value }');
  const agentName = requireName(input.agentName, 'agentName');
  const toolName = requireName(input.toolName, 'toolName');
  const includePath = input.includePath === true;
  let hashAndJson;
  try {
    hashAndJson = hashedCanonicalJson(input.value, includePath, agentName, toolName);
  } catch (error) {
    if (error instanceof WalkFailure) throw new ToolArgumentsValidationError('snapshot', toolName, error.code, error.path);
    throw error;
  }
  const snapshot = ObjectFreeze({
    agentName,
    toolName,
    argsCanonicalJson: hashAndJson[1],
    proposalHash: hashAndJson[0],
  });
  WeakMapPrototypeSet(SNAPSHOTS, snapshot, { template: hashAndJson[2] ? NO_TEMPLATE : PARSE_EACH_TIME });
  return snapshot;
}

/** Strict-decodes text that must hold a snapshot value, then builds it with JSON.parse. */
function decodeText(text, includePath) {
  const status = binding.checkJson(text, FLAG_REJECT_NEGATIVE_ZERO | (includePath ? FLAG_PATH : 0));
  if (status === FAILED) {
    const failure = nativeFailure(includePath);
    throw new SnapshotDomainError(failure.code, failure.path);
  }
  if (status === JSON_BLANK) throw new SnapshotDomainError('invalid_json', includePath ? '' : undefined);
  return JSONParse(text);
}

function decodeView(source, options) {
  if (typeof source === 'object' && source !== null) {
    const state = WeakMapPrototypeGet(SNAPSHOTS, source);
    if (state !== undefined) {
      if (state.template === NO_TEMPLATE) {
        const first = firstView(source.argsCanonicalJson);
        state.template = first.template;
        return first.view;
      }
      return view(state.template, source.argsCanonicalJson);
    }
  }
  const includePath = readOptions(options);
  if (typeof source === 'string') return decodeText(source, includePath);
  if (typeof source === 'object' && source !== null && !isProxy(source)) {
    // A snapshot that came back from storage: read its JSON without running its code.
    const descriptor = ObjectGetOwnPropertyDescriptor(source, 'argsCanonicalJson');
    if (descriptor !== undefined && ObjectHasOwn(descriptor, 'value') && typeof descriptor.value === 'string') {
      return decodeText(descriptor.value, includePath);
    }
  }
  throw invalidArgument('decodeView expects a ToolArgumentSnapshot or its argsCanonicalJson string');
}

function proposalHash(input) {
  if (input === null || typeof input !== 'object') throw invalidArgument('proposalHash expects { agentName, toolName, argsCanonicalJson }');
  const agentName = requireName(input.agentName, 'agentName');
  const toolName = requireName(input.toolName, 'toolName');
  const argsCanonicalJson = requireName(input.argsCanonicalJson, 'argsCanonicalJson');
  const hash = binding.hashProposal(agentName, toolName, argsCanonicalJson);
  if (typeof hash !== 'string') throw new SnapshotDomainError(nativeFailure(false).code, undefined);
  return hash;
}

module.exports = { canonicalize, createSnapshot, decodeView, proposalHash };
