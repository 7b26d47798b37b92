'use strict';
// The RFC-0016 run-loop steps: strict request decoding, one schema parse, the snapshot,
// isolated policy and execution views, the mutation check, suspended proposals.
// A run loop adopts it with two calls: prepareToolCall, then authorizeToolCall.

const { binding } = require('./native');
const { ToolArgumentsValidationError, invalidArgument, nativeFailure, FAILED } = require('./errors');
const { canonicalize, createSnapshot, decodeView } = require('./snapshot');
const P = require('./primordials');

const { ObjectFreeze, JSONParse, WeakSetPrototypeHas, WeakSetPrototypeAdd, StringPrototypeIsWellFormed } = P;

// Native flags: the constants of src/binding.rs.
const FLAG_PATH = 2;
// checkJson results: the constants of src/binding.rs.
const JSON_BLANK = 1;

/** PreparedToolCall objects made here: authorizeToolCall accepts no other. */
const PREPARED = new P.SafeWeakSet();

function requireString(value, what, wellFormed) {
  if (typeof value !== 'string' || (wellFormed && !StringPrototypeIsWellFormed(value))) {
    throw invalidArgument(`${what} must be a ${wellFormed ? 'well-formed ' : ''}string`);
  }
  return value;
}

/** Strict check of provider text: true when it is empty or whitespace only. */
function checkRequest(toolName, rawArguments, includePath) {
  const status = binding.checkJson(rawArguments, includePath ? FLAG_PATH : 0);
  if (status === FAILED) {
    const failure = nativeFailure(includePath);
    throw new ToolArgumentsValidationError('json', toolName, failure.code, failure.path);
  }
  return status === JSON_BLANK;
}

/** A new value of checked provider text; `{}` for empty or whitespace-only text. */
function parseRequest(rawArguments, blank) {
  return blank ? {} : JSONParse(rawArguments);
}

function decodeRequest(rawArguments, options) {
  requireString(rawArguments, 'rawArguments', false);
  const toolName = options != null && typeof options.toolName === 'string' ? options.toolName : '';
  return parseRequest(rawArguments, checkRequest(toolName, rawArguments, options != null && options.includePath === true));
}

/** The one-argument parse function of a schema: a function, or an object with `parse` (zod). */
function schemaParser(schema) {
  if (schema === undefined || schema === null) return (value) => value;
  if (typeof schema === 'function') return schema;
  if (typeof schema === 'object' && typeof schema.parse === 'function') return (value) => schema.parse(value);
  throw invalidArgument('schema must be a function or an object with a parse method');
}

class PreparedToolCall {
  // Fields are defined, not assigned, before the constructor body runs, so setters on
  // Object.prototype never see them.
  agentName;
  toolName;
  rawArguments;
  requestedArguments;
  snapshot;
  argsCanonicalJson;
  proposalHash;

  constructor(agentName, toolName, rawArguments, requestedArguments, snapshot) {
    this.agentName = agentName;
    this.toolName = toolName;
    this.rawArguments = rawArguments;
    this.requestedArguments = requestedArguments;
    this.snapshot = snapshot;
    this.argsCanonicalJson = snapshot.argsCanonicalJson;
    this.proposalHash = snapshot.proposalHash;
    ObjectFreeze(this);
  }

  /** A new decoded view for policy evaluation. */
  policyView() {
    return decodeView(this.snapshot);
  }

  /** A new decoded view for the tool handler. */
  executionView() {
    return decodeView(this.snapshot);
  }
}
// authorizeToolCall never calls these methods (it decodes the snapshot itself), and
// freezing the class keeps every prepared call's methods what they are here.
ObjectFreeze(PreparedToolCall.prototype);
ObjectFreeze(PreparedToolCall);

function prepareToolCall(input) {
  if (input === null || typeof input !== 'object') throw invalidArgument('prepareToolCall expects { agentName, toolName, rawArguments, schema? }');
  const agentName = requireString(input.agentName, 'agentName', true);
  const toolName = requireString(input.toolName, 'toolName', true);
  const rawArguments = requireString(input.rawArguments, 'rawArguments', false);
  const includePath = input.includePath === true;
  const parse = schemaParser(input.schema);

  const blank = checkRequest(toolName, rawArguments, includePath);
  const requestedArguments = parseRequest(rawArguments, blank);
  // The schema gets its own decoded copy, so that a schema returning its input (or
  // part of it) cannot alias the requestedArguments evidence handed to policy.
  const schemaInput = parseRequest(rawArguments, blank);
  let schemaOutput;
  try {
    schemaOutput = parse(schemaInput);
  } catch (error) {
    throw new ToolArgumentsValidationError('schema', toolName, 'schema_error', undefined, error);
  }
  // createSnapshot throws ToolArgumentsValidationError at stage 'snapshot'. The schema
  // output is not referenced after this line.
  const snapshot = createSnapshot({ agentName, toolName, value: schemaOutput, includePath });
  const prepared = new PreparedToolCall(agentName, toolName, rawArguments, requestedArguments, snapshot);
  WeakSetPrototypeAdd(PREPARED, prepared);
  return prepared;
}

/** The decision and reason of a policy result, each read once, or null if malformed. */
function readPolicyResult(result) {
  if (result === null || typeof result !== 'object') return null;
  const { decision, reason } = result;
  if (decision !== 'allow' && decision !== 'deny' && decision !== 'require_approval') return null;
  if (typeof reason !== 'string') return null;
  return { decision, reason };
}

/** Whether the policy's view still canonicalizes to the authorized JSON. */
function viewUnchanged(view, argsCanonicalJson) {
  try {
    return canonicalize(view) === argsCanonicalJson;
  } catch {
    return false;
  }
}

async function authorizeToolCall(input) {
  if (input === null || typeof input !== 'object') throw invalidArgument('authorizeToolCall expects { prepared, policy, execute }');
  const { prepared, policy, execute, policyContext } = input;
  if (!WeakSetPrototypeHas(PREPARED, prepared)) throw invalidArgument('prepared must be a PreparedToolCall returned by prepareToolCall');
  if (typeof policy !== 'function') throw invalidArgument('policy must be a function');
  if (typeof execute !== 'function') throw invalidArgument('execute must be a function');

  const { snapshot } = prepared;
  const parsedArguments = decodeView(snapshot);
  const policyInput = {
    ...(policyContext !== null && typeof policyContext === 'object' ? policyContext : {}),
    agentName: prepared.agentName,
    toolName: prepared.toolName,
    rawArguments: prepared.rawArguments,
    requestedArguments: prepared.requestedArguments,
    parsedArguments,
    argsCanonicalJson: prepared.argsCanonicalJson,
    proposalHash: prepared.proposalHash,
  };

  let policyResult;
  try {
    policyResult = await policy(policyInput);
  } catch (error) {
    return { decision: 'deny', reason: 'policy_error', error };
  }
  if (!viewUnchanged(parsedArguments, prepared.argsCanonicalJson)) {
    return { decision: 'deny', reason: 'policy_mutated_arguments', policyResult };
  }
  const read = readPolicyResult(policyResult);
  if (read === null) {
    return { decision: 'deny', reason: 'invalid_policy_result', policyResult };
  }
  const { decision, reason } = read;
  if (decision === 'allow') {
    const result = await execute(decodeView(snapshot));
    return { decision, reason, result, policyResult };
  }
  if (decision === 'deny') return { decision, reason, policyResult };
  // require_approval: the fingerprint policy evaluated, reused, with its own view.
  const proposal = {
    kind: 'tool',
    agentName: prepared.agentName,
    toolName: prepared.toolName,
    rawArguments: prepared.rawArguments,
    parsedArguments: decodeView(snapshot),
    argsCanonicalJson: prepared.argsCanonicalJson,
    proposalHash: prepared.proposalHash,
    reason,
  };
  return { decision, reason, proposal, policyResult };
}

module.exports = { decodeRequest, prepareToolCall, authorizeToolCall, PreparedToolCall };
