'use strict';
// The snapshot API of RFC-0016: canonicalize, createSnapshot, decodeView, proposalHash,
// verifySnapshot. Below it: the walk (./canonical.js, ./walk.js, ./tape-writer.js,
// ./classify.js) and the views (./view.js).

const { binding } = require('../native');
const { SnapshotDomainError, ToolArgumentsValidationError, WalkFailure, invalidArgument, nativeFailure, FAILED } = require('../errors');
const { own, requireInput } = require('../input');
const { canonicalJson, hashedCanonicalJson, hashedCanonicalText, TextFailure, VIEWS_FROM_SKELETON, MAX_DEPTH } = require('./canonical');
const {
  firstView,
  view,
  firstPolicyView,
  policyView,
  unchangedCopy,
  releasePolicyView,
  spareOf,
  takeTemplate,
  NOT_TAKEN,
  PolicyView,
  PARSE_EACH_TIME,
  PARSE_COPYABLE,
  NO_SKELETON_TEMPLATE,
  FlatTemplate,
} = require('./view');
const P = require('../primordials');

const { ObjectFreeze, JSONParse, StringPrototypeIsWellFormed, isProxy } = P;

// Native flags and checkJson results: the constants src/binding/mod.rs exports.
const { FLAG_PATH, FLAG_REJECT_NEGATIVE_ZERO, JSON_BLANK } = binding;

const NO_TEMPLATE = Symbol('no template yet');

/** Views copy a template parsed from the JSON at the first view (template character 1). */
const VIEWS_FROM_A_PARSE = 0x31;
/** Views are parsed; no object is too wide to copy (template character 3). */
const VIEWS_PARSED_COPYABLE = 0x33;

/** The template a snapshot starts with, from splitHashed's fields (./canonical.js). */
function initialTemplate(hashAndJson) {
  const views = hashAndJson[2];
  if (views === VIEWS_FROM_SKELETON) return hashAndJson[3] === NO_SKELETON_TEMPLATE ? NO_TEMPLATE : hashAndJson[3];
  // A wide flat root (template character 0): views built from the walk's reads.
  if (hashAndJson[3] instanceof FlatTemplate) return hashAndJson[3];
  if (views === VIEWS_FROM_A_PARSE) return NO_TEMPLATE;
  return views === VIEWS_PARSED_COPYABLE ? PARSE_COPYABLE : PARSE_EACH_TIME;
}

/** The base of SnapshotState: its constructor hands back the object it is given. */
class Stamp {
  constructor(object) {
    return object;
  }
}
ObjectFreeze(Stamp.prototype);
ObjectFreeze(Stamp);

/**
 * Snapshots made by createSnapshot, each with its view template (made at the first
 * decodeView): a private field stamped on the snapshot object itself (the constructor
 * returns the object it is given, so the field lands on it). decodeView trusts their JSON
 * without checking it again. A private field is invisible to every reflection API, a
 * Proxy or a copy lacks it, and freezing does not touch it; unlike a WeakMap entry, it
 * costs no ephemeron work in the garbage collector (about 4 % of a small call).
 */
class SnapshotState extends Stamp {
  #template;
  constructor(snapshot, template) {
    super(snapshot);
    this.#template = template;
  }

  /**
   * Whether `value` is a snapshot this package made or verified.
   * @returns {boolean}
   */
  static has(value) {
    return #template in value;
  }

  static template(snapshot) {
    return snapshot.#template;
  }

  static setTemplate(snapshot, template) {
    snapshot.#template = template;
  }
}
ObjectFreeze(SnapshotState.prototype);
ObjectFreeze(SnapshotState);

/** A new frozen snapshot of these fields, registered with its template. */
function registered(agentName, toolName, argsCanonicalJson, proposalHash, template) {
  const snapshot = { agentName, toolName, argsCanonicalJson, proposalHash };
  new SnapshotState(snapshot, template);
  return ObjectFreeze(snapshot);
}

function requireName(value, what) {
  if (typeof value !== 'string' || !StringPrototypeIsWellFormed(value)) {
    throw invalidArgument(`${what} must be a well-formed string`);
  }
  return value;
}

function readOptions(options) {
  if (options === undefined || options === null) return false;
  requireInput(options, 'options must be an object');
  return own(options, 'includePath') === true;
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
  requireInput(input, 'createSnapshot expects { agentName, toolName, value }');
  const agentName = requireName(own(input, 'agentName'), 'agentName');
  const toolName = requireName(own(input, 'toolName'), 'toolName');
  const includePath = own(input, 'includePath') === true;
  return snapshotOf(agentName, toolName, own(input, 'value'), includePath);
}

/**
 * createSnapshot of checked fields (names well-formed strings, includePath a boolean), for
 * the pipeline, which has read its own input already.
 */
function snapshotOf(agentName, toolName, value, includePath) {
  let hashAndJson;
  try {
    hashAndJson = hashedCanonicalJson(value, includePath, agentName, toolName);
  } catch (error) {
    if (error instanceof WalkFailure) throw new ToolArgumentsValidationError('snapshot', toolName, error.code, error.path);
    throw error;
  }
  // The views' template: made from the skeleton already, or parsed from the JSON at the
  // first view when copies pay off.
  return registered(agentName, toolName, hashAndJson[1], hashAndJson[0], initialTemplate(hashAndJson));
}

/**
 * The snapshot of provider text that no schema transforms (prepareToolCall without a
 * schema): strict decoding, RFC 8785 and the hash in one native pass, no walk. Names are
 * well-formed strings (the caller checked). Throws ToolArgumentsValidationError at stage
 * json (not strict JSON) or snapshot (negative zero), with the codes and paths of the
 * two-step path (checkJson, then createSnapshot of the parsed text).
 */
function createSnapshotFromText(agentName, toolName, rawArguments, includePath) {
  let hashAndJson;
  try {
    hashAndJson = hashedCanonicalText(rawArguments, agentName, toolName, includePath);
  } catch (error) {
    if (error instanceof TextFailure) throw new ToolArgumentsValidationError(error.stage, toolName, error.code, error.path);
    throw error;
  }
  return registered(agentName, toolName, hashAndJson[1], hashAndJson[0], initialTemplate(hashAndJson));
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
    if (SnapshotState.has(source)) {
      const template = SnapshotState.template(source);
      if (template === NO_TEMPLATE) {
        const first = firstView(source.argsCanonicalJson);
        SnapshotState.setTemplate(source, first.template);
        return first.view;
      }
      return view(template, source.argsCanonicalJson);
    }
  }
  const includePath = readOptions(options);
  if (typeof source === 'string') return decodeText(source, includePath);
  if (typeof source === 'object' && source !== null) {
    // A snapshot that came back from storage: verified as verifySnapshot does (without
    // running any of its code), then decoded. Its JSON is then canonical, strict JSON.
    return JSONParse(verifiedFields(source, includePath).argsCanonicalJson);
  }
  throw invalidArgument('decodeView expects a ToolArgumentSnapshot or its argsCanonicalJson string');
}

/**
 * The policy's view of a snapshot the pipeline holds (one this package made), with what
 * policyViewUnchanged compares it to: a PolicyView ({ view, made }, see ./view.js).
 */
function policyViewOf(snapshot) {
  if (!SnapshotState.has(snapshot)) return new PolicyView(decodeView(snapshot), null, null, null);
  const template = SnapshotState.template(snapshot);
  if (template === NO_TEMPLATE) {
    const first = firstPolicyView(snapshot.argsCanonicalJson);
    SnapshotState.setTemplate(snapshot, first.template);
    return first.view;
  }
  return policyView(template, snapshot.argsCanonicalJson);
}

/**
 * The execution view of a snapshot the pipeline holds (an allow being executed): a fresh
 * view, as decodeView makes one. When the snapshot's template could be handed out (see
 * takeTemplate: no policy view's check still points into it), the template itself is that
 * view, never shown to anyone before, and the snapshot keeps no template (its next view is
 * parsed anew): one copy fewer per executed call.
 */
function executionView(snapshot) {
  if (SnapshotState.has(snapshot)) {
    const value = takeTemplate(SnapshotState.template(snapshot));
    if (value !== NOT_TAKEN) {
      SnapshotState.setTemplate(snapshot, NO_TEMPLATE);
      return value;
    }
  }
  return decodeView(snapshot);
}

/**
 * Whether a policy view (policyViewOf) still canonicalizes to `argsCanonicalJson`: at once
 * when it is still exactly the copy it was made as, else by canonicalizing it.
 */
function policyViewUnchanged(policy, argsCanonicalJson) {
  if (unchangedCopy(policy)) return true;
  try {
    return canonicalize(policy.view) === argsCanonicalJson;
  } catch {
    return false;
  }
}

/**
 * The four fields of a stored snapshot, checked: own data strings (else not_a_snapshot),
 * argsCanonicalJson strict JSON (else its decoding code) in exact RFC 8785 form (else
 * not_canonical), and proposalHash the hash of the three others (else hash_mismatch).
 */
function verifiedFields(stored, includePath) {
  if (stored === null || typeof stored !== 'object' || isProxy(stored)) throw new SnapshotDomainError('not_a_snapshot', undefined);
  const agentName = own(stored, 'agentName');
  const toolName = own(stored, 'toolName');
  const argsCanonicalJson = own(stored, 'argsCanonicalJson');
  const hash = own(stored, 'proposalHash');
  if (
    typeof agentName !== 'string' ||
    !StringPrototypeIsWellFormed(agentName) ||
    typeof toolName !== 'string' ||
    !StringPrototypeIsWellFormed(toolName) ||
    typeof argsCanonicalJson !== 'string' ||
    typeof hash !== 'string'
  ) {
    throw new SnapshotDomainError('not_a_snapshot', undefined);
  }
  const canonical = binding.canonicalizeJson(argsCanonicalJson, FLAG_REJECT_NEGATIVE_ZERO | (includePath ? FLAG_PATH : 0));
  if (canonical === FAILED) {
    const failure = nativeFailure(includePath);
    throw new SnapshotDomainError(failure.code, failure.path);
  }
  if (canonical !== argsCanonicalJson) throw new SnapshotDomainError('not_canonical', undefined);
  if (binding.hashProposal(agentName, toolName, argsCanonicalJson) !== hash) throw new SnapshotDomainError('hash_mismatch', undefined);
  return { __proto__: null, agentName, toolName, argsCanonicalJson, proposalHash: hash };
}

/**
 * A snapshot loaded from storage, verified: returns a new frozen snapshot that decodeView
 * treats as one of its own. Nothing executes from it: resuming prepares a new attempt.
 */
function verifySnapshot(stored) {
  const fields = verifiedFields(stored, false);
  return registered(fields.agentName, fields.toolName, fields.argsCanonicalJson, fields.proposalHash, PARSE_EACH_TIME);
}

function proposalHash(input) {
  requireInput(input, 'proposalHash expects { agentName, toolName, argsCanonicalJson }');
  const agentName = requireName(own(input, 'agentName'), 'agentName');
  const toolName = requireName(own(input, 'toolName'), 'toolName');
  const argsCanonicalJson = requireName(own(input, 'argsCanonicalJson'), 'argsCanonicalJson');
  const hash = binding.hashProposal(agentName, toolName, argsCanonicalJson);
  if (typeof hash !== 'string') throw new SnapshotDomainError(nativeFailure(false).code, undefined);
  return hash;
}

module.exports = {
  canonicalize,
  createSnapshot,
  createSnapshotFromText,
  snapshotOf,
  decodeView,
  executionView,
  policyViewOf,
  policyViewUnchanged,
  releasePolicyView,
  spareOf,
  proposalHash,
  verifySnapshot,
  MAX_DEPTH,
};
