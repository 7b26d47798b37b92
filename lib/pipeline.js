'use strict';
// The RFC-0016 run-loop steps: strict request decoding, one schema parse, the snapshot,
// isolated policy and execution views, the mutation check, suspended proposals.
// A run loop adopts it with three calls: prepareToolCall, evaluateToolCall (then it
// records the decision), executeToolCall; or with authorizeToolCall, which does the last
// two at once.

const { types } = require('node:util');
const { binding } = require('./native');
const { ToolArgumentsValidationError, ToolCallNotAllowedError, invalidArgument, nativeFailure, FAILED } = require('./errors');
const { canonicalize, createSnapshot, decodeView } = require('./snapshot');
const P = require('./primordials');

const {
  ObjectFreeze, ObjectDefineProperty, ObjectGetOwnPropertyDescriptor, ObjectGetOwnPropertyNames,
  ObjectHasOwn, JSONParse, ArrayIsArray, WeakMapPrototypeGet, WeakMapPrototypeSet,
  StringPrototypeIsWellFormed, isProxy,
} = P;

// Built-ins this file needs beyond lib/primordials.js, captured at load the same way.
const ReflectOwnKeys = Reflect.ownKeys;
const isPromise = types.isPromise;
const SafePromise = Promise;

// Native flags: the constants of src/binding.rs.
const FLAG_PATH = 2;
// checkJson results: the constants of src/binding.rs.
const JSON_BLANK = 1;

/** The reasons of a deny the runtime decided (decidedBy: 'runtime'), in a frozen array. */
const RUNTIME_REASONS = ObjectFreeze(['policy_mutated_arguments', 'policy_error', 'invalid_policy_result', 'policy_not_configured']);

/** PreparedToolCall objects made here, each with its snapshot: nothing else is evaluated. */
const PREPARED = new P.SafeWeakMap();
/** Decisions made by evaluateToolCall, each with its execution state. */
const DECISIONS = new P.SafeWeakMap();

/**
 * The value of an own data property, or undefined: an inherited field, an accessor (never
 * called) and a missing field all read as absent. `object` must not be a Proxy.
 */
function own(object, key) {
  const descriptor = ObjectGetOwnPropertyDescriptor(object, key);
  return descriptor !== undefined && ObjectHasOwn(descriptor, 'value') ? descriptor.value : undefined;
}

/** An input or options object of the API, or a TypeError: a Proxy is refused unread. */
function requireInput(input, message) {
  if (input === null || typeof input !== 'object' || isProxy(input)) throw invalidArgument(message);
  return input;
}

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

/**
 * Freezes a value JSON.parse made, at every depth (iteratively: it can be MAX_DEPTH deep).
 * Such a value holds only plain objects and arrays with own data properties.
 */
function deepFreeze(root) {
  if (root === null || typeof root !== 'object') return root;
  const stack = [root];
  let length = 1;
  while (length > 0) {
    const value = stack[--length];
    ObjectFreeze(value);
    const keys = ObjectGetOwnPropertyNames(value);
    for (let i = 0; i < keys.length; i++) {
      const member = own(value, keys[i]);
      if (member !== null && typeof member === 'object') {
        ObjectDefineProperty(stack, length++, { __proto__: null, value: member, writable: true, enumerable: true, configurable: true });
      }
    }
  }
  return root;
}

function decodeRequest(rawArguments, options) {
  requireString(rawArguments, 'rawArguments', false);
  let toolName = '';
  let includePath = false;
  if (options !== undefined && options !== null) {
    requireInput(options, 'options must be an object');
    const name = own(options, 'toolName');
    if (typeof name === 'string') toolName = name;
    includePath = own(options, 'includePath') === true;
  }
  return parseRequest(rawArguments, checkRequest(toolName, rawArguments, includePath));
}

/** The one-argument parse function of a schema: a function, or an object with `parse` (zod). */
function schemaParser(schema) {
  if (schema === undefined || schema === null) return (value) => value;
  if (typeof schema === 'function') return schema;
  // The schema's own methods may be inherited or getters: the schema runs anyway.
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
// The pipeline never calls these methods (it decodes the snapshot itself), and
// freezing the class keeps every prepared call's methods what they are here.
ObjectFreeze(PreparedToolCall.prototype);
ObjectFreeze(PreparedToolCall);

const PREPARE_USAGE = 'prepareToolCall expects { agentName, toolName, rawArguments, schema? }';

function prepareToolCall(input) {
  requireInput(input, PREPARE_USAGE);
  const agentName = requireString(own(input, 'agentName'), 'agentName', true);
  const toolName = requireString(own(input, 'toolName'), 'toolName', true);
  const rawArguments = requireString(own(input, 'rawArguments'), 'rawArguments', false);
  const includePath = own(input, 'includePath') === true;
  const parse = schemaParser(own(input, 'schema'));

  const blank = checkRequest(toolName, rawArguments, includePath);
  // Diagnostic evidence, frozen at every depth: no policy can change what another
  // policy, the proposal or the prepared call shows.
  const requestedArguments = deepFreeze(parseRequest(rawArguments, blank));
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
  WeakMapPrototypeSet(PREPARED, prepared, snapshot);
  return prepared;
}

/** A null-prototype box: resolving a promise with it looks up no `then`. */
function box(ok, value) {
  return { __proto__: null, ok, value };
}

/**
 * Calls `fn(argument)` and settles to a box: `{ ok: true, value }` with what it returned
 * (a native promise is awaited; any other value, a thenable or a Proxy included, is taken
 * as it is, its `then` never read), or `{ ok: false, value: error }` if it threw or the
 * promise rejected.
 */
async function settle(fn, argument) {
  let result;
  try {
    result = fn(argument);
  } catch (error) {
    return box(false, error);
  }
  if (!isPromise(result)) return box(true, result);
  try {
    return box(true, await result);
  } catch (error) {
    return box(false, error);
  }
}

/** The decision and reason of a policy result, or null when it is not a valid result. */
function readPolicyResult(result) {
  if (result === null || typeof result !== 'object' || isProxy(result)) return null;
  const decision = own(result, 'decision');
  if (decision !== 'allow' && decision !== 'deny' && decision !== 'require_approval') return null;
  const reason = own(result, 'reason');
  if (typeof reason !== 'string' || reason === '') return null;
  return { __proto__: null, decision, reason };
}

/** Whether the policy's view still canonicalizes to the authorized JSON. */
function viewUnchanged(view, argsCanonicalJson) {
  try {
    return canonicalize(view) === argsCanonicalJson;
  } catch {
    return false;
  }
}

/** Defines a writable, enumerable data field: setters on Object.prototype are never reached. */
function defineField(target, key, value) {
  ObjectDefineProperty(target, key, { __proto__: null, value, writable: true, enumerable: true, configurable: true });
}

/** The policy input: the context's own enumerable data fields, then the argument fields. */
function policyInputOf(prepared, snapshot, policyContext, parsedArguments) {
  const input = {};
  if (policyContext !== undefined) {
    const keys = ReflectOwnKeys(policyContext);
    for (let i = 0; i < keys.length; i++) {
      const descriptor = ObjectGetOwnPropertyDescriptor(policyContext, keys[i]);
      if (descriptor !== undefined && descriptor.enumerable && ObjectHasOwn(descriptor, 'value')) {
        defineField(input, keys[i], descriptor.value);
      }
    }
  }
  defineField(input, 'agentName', snapshot.agentName);
  defineField(input, 'toolName', snapshot.toolName);
  defineField(input, 'rawArguments', prepared.rawArguments);
  defineField(input, 'requestedArguments', prepared.requestedArguments);
  defineField(input, 'parsedArguments', parsedArguments);
  defineField(input, 'argsCanonicalJson', snapshot.argsCanonicalJson);
  defineField(input, 'proposalHash', snapshot.proposalHash);
  return input;
}

/** A frozen decision, registered so that executeToolCall accepts it (and nothing else). */
function makeDecision(snapshot, decision, reason, decidedBy, extra) {
  const made = {
    decision,
    reason,
    decidedBy,
    agentName: snapshot.agentName,
    toolName: snapshot.toolName,
    argsCanonicalJson: snapshot.argsCanonicalJson,
    proposalHash: snapshot.proposalHash,
  };
  if (extra !== undefined) {
    if (ObjectHasOwn(extra, 'policyResult')) defineField(made, 'policyResult', extra.policyResult);
    if (ObjectHasOwn(extra, 'error')) defineField(made, 'error', extra.error);
    if (ObjectHasOwn(extra, 'proposal')) defineField(made, 'proposal', extra.proposal);
  }
  ObjectFreeze(made);
  WeakMapPrototypeSet(DECISIONS, made, { __proto__: null, snapshot, decision, executed: false });
  return made;
}

const EVALUATE_USAGE = 'evaluateToolCall expects { prepared, policy?, policyContext? }';

/** Reads and checks the fields evaluateToolCall and authorizeToolCall share. */
function readEvaluation(input, usage) {
  requireInput(input, usage);
  const prepared = own(input, 'prepared');
  const snapshot = prepared === null || typeof prepared !== 'object' ? undefined : WeakMapPrototypeGet(PREPARED, prepared);
  if (snapshot === undefined) throw invalidArgument('prepared must be a PreparedToolCall returned by prepareToolCall');
  let policy = own(input, 'policy');
  if (policy === null) policy = undefined;
  if (policy !== undefined && typeof policy !== 'function') throw invalidArgument('policy must be a function');
  let policyContext = own(input, 'policyContext');
  if (policyContext === null) policyContext = undefined;
  if (policyContext !== undefined && (typeof policyContext !== 'object' || isProxy(policyContext))) {
    throw invalidArgument('policyContext must be an object');
  }
  return { __proto__: null, prepared, snapshot, policy, policyContext };
}

/** The decision of one evaluation: policy on its own view, then the runtime's checks. */
async function decide(read) {
  const { prepared, snapshot, policy, policyContext } = read;
  if (policy === undefined) {
    return makeDecision(snapshot, 'deny', 'policy_not_configured', 'runtime', undefined);
  }
  const parsedArguments = decodeView(snapshot);
  const settled = await settle(policy, policyInputOf(prepared, snapshot, policyContext, parsedArguments));
  if (!settled.ok) {
    return makeDecision(snapshot, 'deny', 'policy_error', 'runtime', { __proto__: null, error: settled.value });
  }
  const policyResult = settled.value;
  if (!viewUnchanged(parsedArguments, snapshot.argsCanonicalJson)) {
    return makeDecision(snapshot, 'deny', 'policy_mutated_arguments', 'runtime', { __proto__: null, policyResult });
  }
  const read2 = readPolicyResult(policyResult);
  if (read2 === null) {
    return makeDecision(snapshot, 'deny', 'invalid_policy_result', 'runtime', { __proto__: null, policyResult });
  }
  const { decision, reason } = read2;
  if (decision !== 'require_approval') {
    return makeDecision(snapshot, decision, reason, 'policy', { __proto__: null, policyResult });
  }
  // require_approval: the fingerprint policy evaluated, reused, with its own view.
  const proposal = ObjectFreeze({
    kind: 'tool',
    agentName: snapshot.agentName,
    toolName: snapshot.toolName,
    rawArguments: prepared.rawArguments,
    parsedArguments: decodeView(snapshot),
    argsCanonicalJson: snapshot.argsCanonicalJson,
    proposalHash: snapshot.proposalHash,
    reason,
  });
  return makeDecision(snapshot, decision, reason, 'policy', { __proto__: null, proposal, policyResult });
}

/**
 * Runs policy on a fresh view of the prepared call and returns the frozen decision. It
 * never rejects for anything the policy does (a throw, a rejection, a mutated view, a
 * malformed result): those are runtime denies. No policy is a runtime deny too.
 */
function evaluateToolCall(input) {
  let read;
  try {
    read = readEvaluation(input, EVALUATE_USAGE);
  } catch (error) {
    return SafePromise.reject(error);
  }
  return decide(read);
}

/** Why a decision cannot run, as a ToolCallNotAllowedError code, or undefined if it can. */
function refusal(state) {
  if (state.executed) return 'already_executed';
  if (state.decision !== 'allow') return 'not_allowed';
  return undefined;
}

/** Reads `options.grants`: undefined, or an object with a spend method. */
function readGrants(options) {
  if (options === undefined || options === null) return undefined;
  requireInput(options, 'options must be an object');
  const grants = own(options, 'grants');
  if (grants === undefined || grants === null) return undefined;
  // `spend` is a method of the grants object, called by design: it may be inherited.
  if ((typeof grants !== 'object' && typeof grants !== 'function') || typeof grants.spend !== 'function') {
    throw invalidArgument('options.grants must be an object with a spend(decision) method');
  }
  return grants;
}

/** Whether the grants object lets the decision run: only `true` (or a promise of it) does. */
async function grantAvailable(grants, decision) {
  if (grants === undefined) return true;
  const settled = await settle((d) => grants.spend(d), decision);
  return settled.ok && settled.value === true;
}

/**
 * Spends a decision and, if it may run, runs the handler on a new execution view. Returns
 * a box: `{ ok: true, value: result }`, or `{ ok: false, value: error }` when nothing ran
 * (a ToolCallNotAllowedError). Errors of the handler itself propagate.
 */
async function run(decision, handler, grants) {
  const state = WeakMapPrototypeGet(DECISIONS, decision);
  const code = refusal(state);
  if (code !== undefined) return box(false, new ToolCallNotAllowedError(code, state.snapshot.toolName, state.decision));
  // Spent before anything else can run: a second call, even a concurrent one, is refused.
  state.executed = true;
  if (!(await grantAvailable(grants, decision))) {
    return box(false, new ToolCallNotAllowedError('grant_unavailable', state.snapshot.toolName, state.decision));
  }
  return box(true, await handler(decodeView(state.snapshot)));
}

function checkDecision(decision) {
  if (decision === null || typeof decision !== 'object' || WeakMapPrototypeGet(DECISIONS, decision) === undefined) {
    throw new ToolCallNotAllowedError('not_a_decision', undefined, undefined);
  }
}

/**
 * Runs `handler` with a new execution view, only for an allow decision evaluateToolCall
 * made, and at most once per decision; otherwise rejects with ToolCallNotAllowedError and
 * runs nothing. `options.grants.spend(decision)` is asked right before the handler.
 */
async function executeToolCall(decision, handler, options) {
  checkDecision(decision);
  if (typeof handler !== 'function') throw invalidArgument('handler must be a function');
  const grants = readGrants(options);
  const ran = await run(decision, handler, grants);
  if (!ran.ok) throw ran.value;
  return ran.value;
}

const AUTHORIZE_USAGE = 'authorizeToolCall expects { prepared, policy, execute, policyContext?, grants? }';

/** The outcome of a decision: its decision, reason and decidedBy, and what it carries. */
function outcomeOf(decision) {
  const outcome = { decision: decision.decision, reason: decision.reason, decidedBy: decision.decidedBy };
  if (ObjectHasOwn(decision, 'policyResult')) defineField(outcome, 'policyResult', decision.policyResult);
  if (ObjectHasOwn(decision, 'error')) defineField(outcome, 'error', decision.error);
  if (ObjectHasOwn(decision, 'proposal')) defineField(outcome, 'proposal', decision.proposal);
  return outcome;
}

/** evaluateToolCall, then, on allow, executeToolCall: one call for the whole attempt. */
async function authorizeToolCall(input) {
  const read = readEvaluation(input, AUTHORIZE_USAGE);
  const execute = own(input, 'execute');
  if (typeof execute !== 'function') throw invalidArgument('execute must be a function');
  const grants = readGrants(input);
  const decision = await decide(read);
  const outcome = outcomeOf(decision);
  if (decision.decision !== 'allow') return outcome;
  const ran = await run(decision, execute, grants);
  if (!ran.ok) {
    // Only a refused grant reaches here: the decision was fresh and an allow.
    return outcomeOf(makeDecision(read.snapshot, 'deny', ran.value.code, 'runtime', ObjectHasOwn(decision, 'policyResult') ? { __proto__: null, policyResult: decision.policyResult } : undefined));
  }
  defineField(outcome, 'result', ran.value);
  return outcome;
}

module.exports = {
  decodeRequest,
  prepareToolCall,
  evaluateToolCall,
  executeToolCall,
  authorizeToolCall,
  PreparedToolCall,
  RUNTIME_REASONS,
};
