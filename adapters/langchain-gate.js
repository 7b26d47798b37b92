'use strict';
// The engine of tool-argument-snapshot/langchain (not exported from package.json): what the
// core gate (createToolGate) and the createAgent middleware (langchain-agent.js) share.
//
// Where LangChain still has the provider's text: an OpenAI-style integration keeps the
// raw argument string in `additional_kwargs.tool_calls[].function.arguments` (and, for a
// concatenated stream, in `tool_call_chunks[].args`); `tool_calls[].args` is already a
// lenient `JSON.parse` of it (duplicate keys: the last wins). The gate decodes the text
// strictly, runs the tool's schema once (through the package, never through
// `tool.invoke`, which would run zod again), asks the policy, and executes the tool's own
// `_call` from a StructuredTool of its own whose schema accepts anything, so LangChain's
// callbacks and ToolMessage formatting still apply while nothing validates twice.
// Providers that return objects (Anthropic, Gemini) have no text: the gate marks those
// calls `argumentsSource: 'object'` for the policy and in proposals, and cannot decode
// them strictly.

const {
  requirePeer, invalidArgument, own, ownArray, setData, ownDataCopy, readOptions, isWellFormedString, noPendingProposalError,
} = require('./shared');

const core = requirePeer('langchain', '@langchain/core', '@langchain/core 1.x', () => ({
  tools: require('@langchain/core/tools'),
  messages: require('@langchain/core/messages'),
}));

const {
  prepareToolCallAsync,
  evaluateToolCall,
  executeToolCall,
  createSnapshot,
  decodeView,
  fromJsonSchema,
  isToolArgumentsValidationError,
  isToolCallNotAllowedError,
  isApprovalGrantError,
} = require('tool-argument-snapshot');

const { StructuredTool, ToolInputParsingException } = core.tools;
const { ToolMessage } = core.messages;

// Built-ins, captured when the adapter loads.
const ObjectFreeze = Object.freeze;
const ObjectKeys = Object.keys;
const ObjectHasOwn = Object.hasOwn;
const ObjectDefineProperty = Object.defineProperty;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const ObjectPrototype = Object.prototype;
const ArrayIsArray = Array.isArray;
const ReflectApply = Reflect.apply;
const SafeMap = Map;
const SafeSet = Set;
const SafeWeakMap = WeakMap;
const SafeWeakSet = WeakSet;
const SafeError = Error;
const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
const MapPrototypeGet = uncurryThis(Map.prototype.get);
const MapPrototypeSet = uncurryThis(Map.prototype.set);
const MapPrototypeHas = uncurryThis(Map.prototype.has);
const SetPrototypeHas = uncurryThis(Set.prototype.has);
const SetPrototypeAdd = uncurryThis(Set.prototype.add);
const WeakMapPrototypeGet = uncurryThis(WeakMap.prototype.get);
const WeakMapPrototypeSet = uncurryThis(WeakMap.prototype.set);
const WeakSetPrototypeHas = uncurryThis(WeakSet.prototype.has);
const WeakSetPrototypeAdd = uncurryThis(WeakSet.prototype.add);
const WeakSetPrototypeDelete = uncurryThis(WeakSet.prototype.delete);
const ArrayPrototypePush = uncurryThis(Array.prototype.push);
const { isProxy } = require('node:util').types;

/** Invalid input about the call itself (its id or its pairing), never about the arguments. */
const CALL_PROBLEMS = ObjectFreeze({
  __proto__: null,
  missing_call_id: 'the tool call has no id: it cannot be paired with its text, answered or approved',
  duplicate_call_id: 'two tool calls of the message share this id: their texts cannot be told apart, answered or approved one by one',
  unpaired_call: 'the message has provider texts, but none with this call\'s id and tool name: its arguments exist only in LangChain\'s parsed copy',
});

function isCallId(value) {
  return isWellFormedString(value) && value !== '';
}

/** Counts how often each id occurs. */
function countIds(map, id) {
  if (!isCallId(id)) return;
  MapPrototypeSet(map, id, (MapPrototypeGet(map, id) ?? 0) + 1);
}

/**
 * The provider's own argument strings of an OpenAI-style message
 * (`additional_kwargs.tool_calls[].function.arguments`), in the provider's order.
 */
function providerTexts(message) {
  const texts = [];
  const rawCalls = ownArray(own(message, 'additional_kwargs'), 'tool_calls');
  for (let i = 0; i < rawCalls.length; i++) {
    const fn = own(rawCalls[i], 'function');
    ArrayPrototypePush(texts, { id: own(rawCalls[i], 'id'), name: own(fn, 'name'), text: own(fn, 'arguments') });
  }
  return texts;
}

/**
 * The tool calls of a message, in order, each paired with where its arguments come from:
 * `provider_text` (the provider's own string) or `object` (a parsed object, no text), or
 * with the problem that makes it invalid input.
 *
 * Calls are paired with the provider's texts by id, and only where that pairing is
 * unambiguous: a call without an id is `missing_call_id`; an id that two calls (or two
 * provider texts) share is `duplicate_call_id` for every call that has it, because
 * LangChain answers, resumes and approves calls by id (keeping the first text per id ran
 * one call's arguments for another); a call of a message that has provider texts but
 * none with its id and tool name is `unpaired_call` (its arguments exist only in
 * LangChain's parsed copy, edited after the provider sent them).
 */
function toolCallsOf(message) {
  if (message === null || typeof message !== 'object' || isProxy(message)) throw invalidArgument('run expects an AIMessage (or an AIMessageChunk)');
  const entries = [];
  const toolCalls = own(message, 'tool_calls');
  if (ArrayIsArray(toolCalls) && !isProxy(toolCalls)) {
    for (let i = 0; i < toolCalls.length; i++) {
      ArrayPrototypePush(entries, { id: own(toolCalls[i], 'id'), name: own(toolCalls[i], 'name'), text: undefined, args: own(toolCalls[i], 'args'), position: i });
    }
    // Calls whose text the integration could not parse keep that text as `args`.
    const invalid = ownArray(message, 'invalid_tool_calls');
    for (let i = 0; i < invalid.length; i++) {
      const args = own(invalid[i], 'args');
      ArrayPrototypePush(entries, { id: own(invalid[i], 'id'), name: own(invalid[i], 'name'), text: typeof args === 'string' ? args : '', args: undefined, position: -1 });
    }
  } else {
    // An AIMessageChunk computes tool_calls lazily from its chunks: read the chunks, whose
    // `args` is the concatenated provider text.
    const chunks = ownArray(message, 'tool_call_chunks');
    for (let i = 0; i < chunks.length; i++) {
      const args = own(chunks[i], 'args');
      ArrayPrototypePush(entries, { id: own(chunks[i], 'id'), name: own(chunks[i], 'name'), text: typeof args === 'string' ? args : '', args: undefined, position: i });
    }
  }

  const texts = providerTexts(message);
  const textCount = new SafeMap();
  const textById = new SafeMap();
  for (let i = 0; i < texts.length; i++) {
    countIds(textCount, texts[i].id);
    if (isCallId(texts[i].id)) MapPrototypeSet(textById, texts[i].id, texts[i]);
  }
  const callCount = new SafeMap();
  for (let i = 0; i < entries.length; i++) countIds(callCount, entries[i].id);

  const calls = [];
  for (let i = 0; i < entries.length; i++) {
    const { id, name, text, args, position } = entries[i];
    if (typeof name !== 'string') continue;
    const call = { id: isCallId(id) ? id : undefined, name, argumentsSource: 'object', text: undefined, args: undefined, problem: undefined, position };
    ArrayPrototypePush(calls, call);
    if (call.id === undefined) {
      call.problem = 'missing_call_id';
      continue;
    }
    if (MapPrototypeGet(callCount, id) > 1 || (MapPrototypeGet(textCount, id) ?? 0) > 1) {
      call.problem = 'duplicate_call_id';
      continue;
    }
    const provided = MapPrototypeGet(textById, id);
    if (provided !== undefined && provided.name === name && typeof provided.text === 'string') {
      call.argumentsSource = 'provider_text';
      call.text = provided.text;
    } else if (typeof text === 'string') {
      call.argumentsSource = 'provider_text';
      call.text = text;
    } else if (texts.length > 0) {
      call.problem = 'unpaired_call';
    } else {
      call.args = args;
    }
  }
  return calls;
}

function isSchema(schema) {
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function') || isProxy(schema)) return false;
  if (typeof schema === 'function') return true;
  return typeof schema.parse === 'function' || typeof schema.parseAsync === 'function' || (schema['~standard'] !== null && typeof schema['~standard'] === 'object');
}

/** A JSON Schema object (a `tool()` given one, an MCP tool): a plain record. */
function isJsonSchema(schema) {
  if (schema === null || typeof schema !== 'object' || isProxy(schema) || ArrayIsArray(schema)) return false;
  const proto = ObjectGetPrototypeOf(schema);
  return proto === ObjectPrototype || proto === null;
}

/**
 * One entry per tool: its name, the schema the package runs (the same object LangChain
 * would run in `tool.invoke` and converts for `bindTools`; a JSON Schema through
 * fromJsonSchema, compiled here so that one that does not compile fails now), and its
 * `_call`, read once.
 */
function readTools(tools, jsonSchemaOptions) {
  if (!ArrayIsArray(tools) || isProxy(tools)) throw invalidArgument('options.tools must be an array of LangChain tools');
  const byName = new SafeMap();
  const entries = [];
  for (let i = 0; i < tools.length; i++) {
    const target = tools[i];
    if (target === null || typeof target !== 'object' || isProxy(target)) throw invalidArgument(`options.tools[${i}] must be a LangChain tool`);
    const name = own(target, 'name');
    if (!isWellFormedString(name) || name === '') throw invalidArgument(`options.tools[${i}] must have an own string name`);
    const call = target._call;
    if (typeof call !== 'function') throw invalidArgument(`options.tools[${i}] must be a StructuredTool (a _call method)`);
    let schema = own(target, 'schema');
    if (!isSchema(schema)) {
      if (!isJsonSchema(schema)) throw invalidArgument(`options.tools[${i}] must have a zod, Standard Schema or JSON Schema schema`);
      schema = fromJsonSchema(schema, jsonSchemaOptions);
    }
    if (MapPrototypeHas(byName, name)) throw invalidArgument(`options.tools has two tools with the name at index ${i}`);
    const entry = { target, name, schema, call, policy: undefined };
    MapPrototypeSet(byName, name, entry);
    ArrayPrototypePush(entries, entry);
  }
  return { byName, entries };
}

const GRANTS_FUNCTIONS = ObjectFreeze(['policy', 'spend', 'grant', 'seal', 'keepProposal', 'keptProposal', 'forgetProposal']);

/** The grants object's functions, read once as own data properties. */
function readGrants(grants) {
  if (grants === undefined) return undefined;
  if (grants === null || typeof grants !== 'object' || isProxy(grants)) throw invalidArgument('options.grants must be an object made by createApprovalGrants');
  const fns = {};
  for (let i = 0; i < GRANTS_FUNCTIONS.length; i++) {
    const name = GRANTS_FUNCTIONS[i];
    const fn = own(grants, name);
    if (typeof fn !== 'function') throw invalidArgument(`options.grants must have an own ${name} function (createApprovalGrants)`);
    setData(fns, name, fn);
  }
  return ObjectFreeze({
    object: grants,
    sealing: own(grants, 'sealing') === true,
    policy: (fallback) => ReflectApply(fns.policy, grants, fallback === undefined ? [] : [fallback]),
    grant: (approved, options) => ReflectApply(fns.grant, grants, options === undefined ? [approved] : [approved, options]),
    seal: (proposal, options) => ReflectApply(fns.seal, grants, [proposal, options]),
    keep: (key, proposal, options) => ReflectApply(fns.keepProposal, grants, [key, proposal, options]),
    kept: (key) => ReflectApply(fns.keptProposal, grants, [key]),
    forget: (key) => ReflectApply(fns.forgetProposal, grants, [key]),
  });
}

/**
 * Gives each tool its policy. `policy` is one function for every tool (its input a union
 * discriminated by `toolName`), or a map `{ [toolName]: policy }` whose own data
 * properties name tools of the gate (a name the gate does not have is a TypeError: a
 * misspelt entry would leave its tool without its policy). A tool without a policy is
 * denied (`policy_not_configured`), or, with grants, needs approval unless granted.
 * With grants, a live grant for exactly this agent, tool and hash allows first.
 */
function assignPolicies(tools, policy, grants) {
  let byName;
  if (policy !== undefined && typeof policy !== 'function') {
    if (policy === null || typeof policy !== 'object' || isProxy(policy)) {
      throw invalidArgument('options.policy must be a function or an object { [toolName]: policy }');
    }
    byName = new SafeMap();
    const names = ObjectKeys(policy);
    for (let i = 0; i < names.length; i++) {
      const fn = own(policy, names[i]);
      if (!MapPrototypeHas(tools.byName, names[i])) throw invalidArgument('options.policy has an entry for a tool the gate does not have');
      if (fn !== undefined && typeof fn !== 'function') throw invalidArgument('options.policy entries must be functions');
      MapPrototypeSet(byName, names[i], fn);
    }
  }
  for (let i = 0; i < tools.entries.length; i++) {
    const entry = tools.entries[i];
    const appPolicy = byName === undefined ? policy : MapPrototypeGet(byName, entry.name);
    entry.policy = grants === undefined ? appPolicy : grants.policy(appPolicy);
    ObjectFreeze(entry);
  }
}

/** The options every LangChain gate shares: agent, tools, policy, grants, includePath. */
function readGateOptions(options, what, defaultGrants) {
  const opts = readOptions(options, `${what} options`);
  if (opts === null) throw invalidArgument(`${what} expects { agentName, tools, policy?, grants? }`);
  const agentName = own(opts, 'agentName');
  if (!isWellFormedString(agentName)) throw invalidArgument('options.agentName must be a well-formed string');
  const jsonSchemaOptions = own(opts, 'jsonSchema');
  if (jsonSchemaOptions !== undefined && (jsonSchemaOptions === null || typeof jsonSchemaOptions !== 'object' || isProxy(jsonSchemaOptions))) {
    throw invalidArgument('options.jsonSchema must be the options of fromJsonSchema ({ defaults?, formats? })');
  }
  const tools = readTools(own(opts, 'tools'), jsonSchemaOptions);
  let given = own(opts, 'grants');
  if (given === undefined && defaultGrants !== undefined) given = defaultGrants();
  const grants = readGrants(given);
  assignPolicies(tools, own(opts, 'policy'), grants);
  const includePath = own(opts, 'includePath') === true;
  const executeOptions = grants === undefined ? undefined : { grants: grants.object };
  return { agentName, tools, grants, includePath, executeOptions };
}

/** The gate's entry for a tool name, or undefined. */
function toolEntry(tools, name) {
  return MapPrototypeGet(tools.byName, name);
}

/**
 * The StructuredTool that runs an allowed call. Its schema (`{}`, a JSON schema that
 * accepts anything) is all `StructuredTool.call` validates, so the tool's zod does not
 * run again; `call` still runs the callbacks and makes the ToolMessage. `_call` ignores
 * its input (the callbacks' own view) and lets executeToolCall hand the tool's `_call` a
 * new execution view.
 */
class SnapshotToolExecution extends StructuredTool {
  static lc_name() {
    return 'SnapshotToolExecution';
  }

  #run;

  constructor(entry, run) {
    const { target } = entry;
    super({
      callbacks: own(target, 'callbacks'),
      tags: own(target, 'tags'),
      metadata: own(target, 'metadata'),
      verbose: own(target, 'verbose'),
      responseFormat: own(target, 'responseFormat'),
    });
    this.name = entry.name;
    this.description = own(target, 'description') ?? '';
    this.schema = {};
    this.returnDirect = own(target, 'returnDirect') === true;
    this.#run = run;
  }

  _call(_callbackView, runManager, config) {
    return this.#run(runManager, config);
  }
}

/** The error LangChain rejects with for an aborted signal (its reason when that is an Error). */
function abortError(signal) {
  const reason = signal.reason;
  if (reason instanceof SafeError) return reason;
  return new SafeError(typeof reason === 'string' ? reason : 'Aborted');
}

/** An error ToolMessage (a call without an id is answered with an empty `tool_call_id`). */
function errorMessage(id, name, content) {
  return new ToolMessage({ status: 'error', tool_call_id: id === undefined ? '' : id, name, content });
}

/** LangChain's invalid-input error, with the package's error as `cause` and no payload. */
function invalidInput(error) {
  const exception = new ToolInputParsingException(error.message);
  ObjectDefineProperty(exception, 'cause', { __proto__: null, value: error, enumerable: false, writable: true, configurable: true });
  return exception;
}

/** The invalid-input error of a call that cannot be paired (its code says why; no payload). */
function callProblemError(code) {
  const error = new SafeError(`${CALL_PROBLEMS[code]} [${code}]`);
  setData(error, 'code', code);
  return error;
}

/** The fields of an `invalid_input` result for a package error or a call problem. */
function invalidFields(id, name, error) {
  const stage = own(error, 'stage');
  return {
    status: 'invalid_input',
    code: own(error, 'code'),
    stage: stage === undefined ? 'call' : stage,
    error: invalidInput(error),
    message: errorMessage(id, name, error.message),
  };
}

/**
 * One attempt's preparation: the argument text (the provider's own, else the RFC 8785
 * text of an object: no getter runs; -0, lone surrogates and non-JSON values fail at
 * stage snapshot), strict decoding, the tool's schema once, the snapshot. Resolves to
 * `{ prepared }` or `{ invalid }` (a ToolArgumentsValidationError).
 */
async function prepareAttempt(gate, entry, id, text, args) {
  const { agentName, includePath } = gate;
  const toolName = entry.name;
  try {
    const rawArguments = text !== undefined ? text : createSnapshot({ agentName, toolName, value: args, includePath }).argsCanonicalJson;
    return { prepared: await prepareToolCallAsync({ agentName, toolName, rawArguments, schema: entry.schema, includePath, toolCallId: id }), invalid: undefined };
  } catch (error) {
    if (!isToolArgumentsValidationError(error)) throw error;
    return { prepared: undefined, invalid: error };
  }
}

/** The policy input's extra fields: the caller's context, then the call's id and source. */
function policyContextOf(context, id, argumentsSource) {
  const policyContext = ownDataCopy(context);
  setData(policyContext, 'toolCallId', id);
  setData(policyContext, 'argumentsSource', argumentsSource);
  return policyContext;
}

/** `policyContext.grantScope` (own data) or null: the scope a kept or sealed proposal gets. */
function scopeOf(policyContext) {
  const scope = own(policyContext, 'grantScope');
  return isWellFormedString(scope) ? scope : null;
}

function evaluate(entry, prepared, policyContext, id) {
  return evaluateToolCall({ prepared, policy: entry.policy, policyContext, toolCallId: id });
}

/**
 * Runs an allowed decision through the tool's own `_call` (LangChain's callbacks and
 * ToolMessage formatting, no second zod) with an execution view of its own. Resolves to
 * `{ executed: true, output }` or, when the grant was spent by another attempt first,
 * `{ executed: false }`.
 */
async function executeAllowed(gate, entry, decision, id, config) {
  let started = false;
  const execution = new SnapshotToolExecution(entry, (runManager, runConfig) => {
    // LangChain's tool() wrapper checks the signal only once the handler runs, which is
    // after the grant was spent: an aborted run stops here and keeps the grant.
    const signal = own(runConfig, 'signal');
    if (signal !== undefined && signal !== null && signal.aborted === true) throw abortError(signal);
    return executeToolCall(
      decision,
      (args) => {
        started = true;
        return ReflectApply(entry.call, entry.target, [args, runManager, runConfig]);
      },
      gate.executeOptions,
    );
  });
  try {
    // The callbacks (and config.toolCall) get a view of their own, never the handler's.
    const output = await execution.invoke({ type: 'tool_call', id, name: entry.name, args: decodeView(decision.argsCanonicalJson) }, config);
    return { executed: true, output };
  } catch (error) {
    if (!started && isToolCallNotAllowedError(error) && error.code === 'grant_unavailable') return { executed: false, output: undefined };
    throw error;
  }
}

/**
 * The frozen proposal of a pending call: the package's proposal plus the call's id and
 * source, and `grantScope`, the scope the call was evaluated under (null: none), which
 * `approve` grants it in.
 */
function pendingProposal(proposal, id, argumentsSource, sealed, scope) {
  const fields = {
    kind: proposal.kind,
    agentName: proposal.agentName,
    toolName: proposal.toolName,
    rawArguments: proposal.rawArguments,
    parsedArguments: proposal.parsedArguments,
    argsCanonicalJson: proposal.argsCanonicalJson,
    proposalHash: proposal.proposalHash,
    reason: proposal.reason,
    toolCallId: id,
    argumentsSource,
    grantScope: scope,
  };
  if (sealed !== undefined) setData(fields, 'sealed', sealed);
  return ObjectFreeze(fields);
}

/**
 * Where a pending proposal of a run is kept. A sealed record says its scope (the seal's);
 * an unsealed one cannot, so its key does: a reviewer then finds it only under the scope
 * the call was evaluated in (`pending(message, { runId, grantScope })`), and never grants
 * it in another.
 */
function keptKeyOf(grants, runId, id, scope) {
  if (grants.sealing || scope === null) return { runId, toolCallId: id };
  return { runId: `scope ${scope.length}:${scope} ${runId}`, toolCallId: id };
}

const GRANT_OPTION_FIELDS = ObjectFreeze(['uses', 'ttlMs', 'expiresAt']);

/**
 * Keeps a pending proposal for a run and call in the grants' store (sealed with a key
 * ring) unless the same one is kept already, and returns the kept record.
 */
async function keepPending(grants, key, proposal, scope) {
  const kept = await grants.kept(key);
  if (kept !== undefined && own(kept, 'proposalHash') === proposal.proposalHash && (!grants.sealing || own(kept, 'scope') === scope)) return kept;
  return grants.keep(key, proposal, { scope });
}

function readRunId(value, grants) {
  if (value === undefined) return undefined;
  if (!isWellFormedString(value) || value === '') throw invalidArgument('options.runId must be a non-empty well-formed string');
  if (grants === undefined) throw invalidArgument('options.runId needs the gate\'s grants (proposals are kept in their store)');
  return value;
}

function createToolGate(options) {
  const gate = readGateOptions(options, 'createToolGate');
  const { agentName, tools, grants } = gate;
  // The proposals this gate handed out with the key they are kept under (run had a runId,
  // or pending), and those it approved: by the proposal object, never by call id.
  const keptKeys = new SafeWeakMap();
  const approvedProposals = new SafeWeakSet();

  async function runOne(call, config, context, runId) {
    const { id, name, argumentsSource } = call;
    const base = { toolCallId: id, toolName: name, argumentsSource };
    if (call.problem !== undefined) return { ...base, ...invalidFields(id, name, callProblemError(call.problem)) };
    const entry = toolEntry(tools, name);
    if (entry === undefined) {
      return { ...base, status: 'unknown_tool', message: errorMessage(id, name, 'This tool does not exist [unknown_tool].') };
    }

    const { prepared, invalid } = await prepareAttempt(gate, entry, id, call.text, call.args);
    if (invalid !== undefined) return { ...base, ...invalidFields(id, name, invalid) };

    const policyContext = policyContextOf(context, id, argumentsSource);
    const decision = await evaluate(entry, prepared, policyContext, id);
    const verdict = { ...base, decision, decidedBy: decision.decidedBy, reason: decision.reason };
    const scope = scopeOf(policyContext);
    const key = runId === undefined ? undefined : keptKeyOf(grants, runId, id, scope);

    if (decision.decision === 'require_approval') {
      let sealed;
      if (key !== undefined) {
        const kept = await keepPending(grants, key, decision.proposal, scope);
        if (grants.sealing) sealed = kept;
      } else if (grants !== undefined && grants.sealing) {
        sealed = grants.seal(decision.proposal, { scope });
      }
      const proposal = pendingProposal(decision.proposal, id, argumentsSource, sealed, scope);
      if (key !== undefined) WeakMapPrototypeSet(keptKeys, proposal, key);
      return { ...verdict, status: 'pending', proposal };
    }
    if (key !== undefined) await grants.forget(key);
    if (decision.decision !== 'allow') {
      return { ...verdict, status: 'denied', message: errorMessage(id, name, `The tool call was denied [${decision.reason}].`) };
    }
    const { executed, output } = await executeAllowed(gate, entry, decision, id, config);
    if (!executed) {
      return { ...verdict, status: 'denied', decidedBy: 'runtime', reason: 'grant_unavailable', message: errorMessage(id, name, 'The tool call was denied [grant_unavailable].') };
    }
    const result = { ...verdict, status: 'executed' };
    // Defined, not assigned: a setter planted on Object.prototype cannot swallow them.
    if (ToolMessage.isInstance(output)) setData(result, 'message', output);
    else setData(result, 'output', output);
    return result;
  }

  async function run(message, runOptions) {
    const calls = toolCallsOf(message);
    const opts = readOptions(runOptions, 'run options');
    const config = opts === null ? undefined : own(opts, 'config');
    const context = opts === null ? undefined : own(opts, 'policyContext');
    const runId = readRunId(opts === null ? undefined : own(opts, 'runId'), grants);
    const only = opts === null ? undefined : own(opts, 'toolCallIds');
    if (only !== undefined && (!ArrayIsArray(only) || isProxy(only))) throw invalidArgument('options.toolCallIds must be an array of strings');
    let selected;
    if (only !== undefined) {
      selected = new SafeSet();
      for (let i = 0; i < only.length; i++) SetPrototypeAdd(selected, only[i]);
    }

    const results = [];
    const messages = [];
    const pending = [];
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i];
      if (selected !== undefined && !SetPrototypeHas(selected, call.id)) continue;
      const result = ObjectFreeze(await runOne(call, config, context, runId));
      ArrayPrototypePush(results, result);
      if (result.message !== undefined) ArrayPrototypePush(messages, result.message);
      if (result.status === 'pending') ArrayPrototypePush(pending, result.proposal);
    }
    return ObjectFreeze({ messages, pending, results });
  }

  /**
   * The proposals kept for the calls of a stored message (`run` with the same runId kept
   * them), verified again: what a reviewer in any process sees and approves.
   */
  async function pending(message, pendingOptions) {
    const opts = readOptions(pendingOptions, 'pending options');
    const runId = readRunId(opts === null ? undefined : own(opts, 'runId'), grants);
    if (runId === undefined) throw invalidArgument('pending needs { runId }: the run whose proposals were kept');
    const scopeOption = opts === null ? undefined : own(opts, 'grantScope');
    if (scopeOption !== undefined && scopeOption !== null && !isWellFormedString(scopeOption)) throw invalidArgument('options.grantScope must be a well-formed string or null');
    const calls = toolCallsOf(message);
    const found = [];
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i];
      if (call.problem !== undefined) continue;
      const key = keptKeyOf(grants, runId, call.id, scopeOption ?? null);
      const kept = await grants.kept(key);
      if (kept === undefined || own(kept, 'agentName') !== agentName || own(kept, 'toolName') !== call.name) continue;
      // The scope it waits in: the seal's, else the one it was kept under.
      const scope = grants.sealing ? own(kept, 'scope') ?? null : scopeOption ?? null;
      if (grants.sealing && scopeOption !== undefined && scope !== scopeOption) continue;
      const fields = {
        agentName,
        toolName: call.name,
        argsCanonicalJson: kept.argsCanonicalJson,
        proposalHash: kept.proposalHash,
        parsedArguments: decodeView(kept.argsCanonicalJson),
        toolCallId: call.id,
        grantScope: scope,
      };
      if (grants.sealing) setData(fields, 'sealed', kept);
      const proposal = ObjectFreeze(fields);
      WeakMapPrototypeSet(keptKeys, proposal, key);
      ArrayPrototypePush(found, proposal);
    }
    return ObjectFreeze(found);
  }

  /**
   * Grants exactly a pending proposal (its seal when the grants seal) in the scope the call
   * was evaluated under (the proposal's `grantScope`; with a key ring, the seal's), never in
   * another: a `scope` in the options that differs is a TypeError. Once: approving the same
   * proposal again, or one kept for a run (`runId`, `pending`) that no longer waits (approved
   * in any process, declined, executed, expired), rejects with TAS_NO_PENDING_PROPOSAL; the
   * kept one is forgotten once granted.
   */
  async function approve(proposal, grantOptions) {
    if (grants === undefined) throw invalidArgument('approve needs the gate\'s grants');
    if (proposal === null || typeof proposal !== 'object' || isProxy(proposal)) throw invalidArgument('approve expects a proposal of this gate');
    const gopts = readOptions(grantOptions, 'approve options');
    const passed = {};
    if (gopts !== null) {
      for (let i = 0; i < GRANT_OPTION_FIELDS.length; i++) {
        const value = own(gopts, GRANT_OPTION_FIELDS[i]);
        if (value !== undefined) setData(passed, GRANT_OPTION_FIELDS[i], value);
      }
    }
    const asked = gopts === null ? undefined : own(gopts, 'scope');
    const carried = own(proposal, 'grantScope');
    let scope = asked;
    if (carried !== undefined) {
      if (carried !== null && !isWellFormedString(carried)) throw invalidArgument('approve expects a proposal of this gate (its grantScope is a string or null)');
      if (asked !== undefined && asked !== carried) throw invalidArgument('approve options: scope differs from the scope the call was evaluated under (the proposal\'s grantScope)');
      scope = carried;
    }
    if (scope !== undefined) setData(passed, 'scope', scope);
    const sealed = own(proposal, 'sealed');
    if (WeakSetPrototypeHas(approvedProposals, proposal)) throw noPendingProposalError('this proposal was approved already');
    const key = WeakMapPrototypeGet(keptKeys, proposal);
    if (key !== undefined) {
      const kept = await grants.kept(key);
      if (kept === undefined || own(kept, 'proposalHash') !== own(proposal, 'proposalHash')) {
        throw noPendingProposalError('no proposal is waiting for approval for this tool call in this run (approved or answered before, expired, or kept under another scope)');
      }
    }
    // Marked first: a second approve of this object while the grant is on its way is refused.
    WeakSetPrototypeAdd(approvedProposals, proposal);
    let record;
    try {
      record = await grants.grant(sealed === undefined ? proposal : sealed, passed);
    } catch (error) {
      WeakSetPrototypeDelete(approvedProposals, proposal);
      // Another approval of the same seal granted it first.
      if (isApprovalGrantError(error) && own(error, 'code') === 'seal_used') throw noPendingProposalError('this proposal was approved already');
      throw error;
    }
    if (key !== undefined) await grants.forget(key);
    return record;
  }

  /** The ToolMessage that answers a declined call (nothing runs). */
  function decline(proposal, content) {
    if (proposal === null || typeof proposal !== 'object' || isProxy(proposal)) throw invalidArgument('decline expects a proposal of this gate');
    const id = own(proposal, 'toolCallId');
    const name = own(proposal, 'toolName');
    if (!isCallId(id) || !isWellFormedString(name)) throw invalidArgument('decline expects a proposal with its toolCallId and toolName');
    if (content !== undefined && !isWellFormedString(content)) throw invalidArgument('decline: the message must be a well-formed string');
    return errorMessage(id, name, content === undefined ? 'A reviewer declined this tool call; it was not executed [declined].' : content);
  }

  return ObjectFreeze({ agentName, run, pending, approve, decline });
}

module.exports = {
  createToolGate,
  // For the createAgent middleware (adapters/langchain-agent.js).
  readGateOptions,
  toolEntry,
  toolCallsOf,
  callProblemError,
  invalidFields,
  errorMessage,
  prepareAttempt,
  policyContextOf,
  scopeOf,
  evaluate,
  executeAllowed,
  isCallId,
  ToolMessage,
};
