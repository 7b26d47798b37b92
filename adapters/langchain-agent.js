'use strict';
// toolGateMiddleware: RFC-0016 for LangChain v1's createAgent (`langchain` 1.x on
// `@langchain/langgraph`), loaded by tool-argument-snapshot/langchain only when called.
//
// What createAgent does with a tool call, measured on langchain 1.5: the model's
// AIMessage keeps the provider's text in `additional_kwargs.tool_calls` and a lenient
// parse in `tool_calls`; the tools node runs every wrapToolCall middleware, outermost
// first, then `tool.invoke` (the tool's zod) on the parsed copy. With tool version "v2"
// (the default) each call is a task of its own (a Send); with "v1" one task runs every
// call of the message under Promise.all, and an interrupt in one makes the whole task run
// again on resume. humanInTheLoopMiddleware interrupts from afterModel with
// `{ actionRequests, reviewConfigs }` and resumes with `{ decisions }`; its approval binds
// nothing (a resume runs whatever the message holds then) and its edit runs the edited
// arguments under the edited tool's name, whatever that tool's review says.
//
// This middleware's wrapToolCall never calls the handler for a tool it gates: it pairs
// the call with its provider text, runs the tool's schema once (through the package),
// asks the policy, and returns its own ToolMessage, having run the tool's `_call` through
// executeToolCall on an allow. On require_approval it keeps the proposal in the grants'
// store (sealed with a key ring) under the thread, the message and the call id, and
// interrupts through LangGraph's interrupt() with humanInTheLoopMiddleware's value plus
// the proposals, so review UIs keep working and a resume in any process finds what the
// reviewer saw. Calls of tools it does not gate go to the handler (the rest of the chain).
//
// It must be the FIRST middleware of the list (the outermost wrapToolCall): with tool
// version "v1" it holds every call of the task until all are decided, so that no call
// runs in a pass that an approval interrupts (each pass would run it again).

const {
  requirePeer,
  invalidArgument,
  own,
  ownArray,
  setData,
  readOptions,
  isWellFormedString,
  approvedWithoutGrantNotice,
  APPROVED_WITHOUT_GRANT,
} = require('./shared');
const gateEngine = require('./langchain-gate');

// LangGraph first: langchain requires it too, and a missing one is named as itself.
const { interrupt, isGraphInterrupt, isCommand } = requirePeer('langchain', '@langchain/langgraph', '@langchain/langgraph 1.x', () => require('@langchain/langgraph'));
const { createMiddleware } = requirePeer('langchain', 'langchain', 'langchain 1.x (createAgent)', () => require('langchain'));
const { AsyncLocalStorageProviderSingleton } = require('@langchain/core/singletons');
const { AIMessage } = require('@langchain/core/messages');
const { createApprovalGrants, decodeView, isApprovalGrantError } = require('tool-argument-snapshot');

const {
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
} = gateEngine;

// Built-ins, captured when the middleware loads.
const ObjectFreeze = Object.freeze;
const ArrayIsArray = Array.isArray;
const ReflectApply = Reflect.apply;
const JSONStringify = JSON.stringify;
const SafeWeakMap = WeakMap;
const SafePromise = Promise;
const SafeError = Error;
const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
const WeakMapPrototypeGet = uncurryThis(WeakMap.prototype.get);
const WeakMapPrototypeSet = uncurryThis(WeakMap.prototype.set);
const ArrayPrototypePush = uncurryThis(Array.prototype.push);
const ArrayPrototypeIncludes = uncurryThis(Array.prototype.includes);
const ArrayPrototypeSlice = uncurryThis(Array.prototype.slice);
const PromisePrototypeThen = uncurryThis(Promise.prototype.then);
const { isProxy } = require('node:util').types;

const DECISION_TYPES = ObjectFreeze(['approve', 'edit', 'reject']);
const DEFAULT_PREFIX = 'Tool execution requires approval';
const HOW_TO_APPROVE =
  'resume the interrupt this middleware raised with { decisions } (Command({ resume })) while the proposal it kept is in the grants\' store: ' +
  'share one durable store between processes and keep proposals at least as long as reviews take.';

/** Why an approval executed nothing, besides the policy's and the runtime's reasons. */
const PROPOSAL_CHANGED = 'proposal_changed';

function readDecisions(value, what) {
  if (value === undefined) return DECISION_TYPES;
  if (!ArrayIsArray(value) || isProxy(value) || value.length === 0) throw invalidArgument(`${what} must be a non-empty array of 'approve', 'edit', 'reject'`);
  const list = [];
  for (let i = 0; i < value.length; i++) {
    if (!ArrayPrototypeIncludes(DECISION_TYPES, value[i])) throw invalidArgument(`${what} must be a non-empty array of 'approve', 'edit', 'reject'`);
    ArrayPrototypePush(list, value[i]);
  }
  return ObjectFreeze(list);
}

/** The last AIMessage of the state (the one the tools node runs), as LangChain finds it. */
function lastAIMessage(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (AIMessage.isInstance(messages[i])) return messages[i];
  }
  return undefined;
}

/**
 * The calls the tools node runs in one task: the tool_calls of the last AIMessage that no
 * ToolMessage answers yet (v1 and a jump to the tools), as LangChain's ToolNode computes them.
 */
function callsOfTask(messages, ai) {
  const answered = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message !== null && typeof message === 'object' && typeof message.getType === 'function' && message.getType() === 'tool') {
      ArrayPrototypePush(answered, own(message, 'tool_call_id'));
    }
  }
  const toolCalls = ownArray(ai, 'tool_calls');
  const calls = [];
  for (let i = 0; i < toolCalls.length; i++) {
    const id = own(toolCalls[i], 'id');
    if (id === undefined || id === null || !ArrayPrototypeIncludes(answered, id)) ArrayPrototypePush(calls, toolCalls[i]);
  }
  return calls;
}

function deferred() {
  let resolve;
  let reject;
  const promise = new SafePromise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Members that never wait on a failed pass leave no unhandled rejection behind.
  PromisePrototypeThen(promise, undefined, () => {});
  return { promise, resolve, reject };
}

function toolGateMiddleware(options) {
  const opts = readOptions(options, 'toolGateMiddleware options');
  if (opts === null) throw invalidArgument('toolGateMiddleware expects { agentName, tools, policy?, grants? }');
  // Approvals need grants; without a store of your own they live in this process only.
  const gate = readGateOptions(opts, 'toolGateMiddleware', () => createApprovalGrants());
  const { tools, grants } = gate;
  const allowedDecisions = readDecisions(own(opts, 'allowedDecisions'), 'options.allowedDecisions');
  const descriptionPrefix = own(opts, 'descriptionPrefix') ?? DEFAULT_PREFIX;
  if (!isWellFormedString(descriptionPrefix)) throw invalidArgument('options.descriptionPrefix must be a well-formed string');
  const contextOf = own(opts, 'policyContext');
  if (contextOf !== undefined && typeof contextOf !== 'function') throw invalidArgument('options.policyContext must be a function ({ toolCall, state, runtime }) => object');
  const name = own(opts, 'name') ?? 'ToolArgumentSnapshotMiddleware';
  if (!isWellFormedString(name) || name === '') throw invalidArgument('options.name must be a non-empty string');
  const notice = approvedWithoutGrantNotice('langchain', HOW_TO_APPROVE);

  /** The passes of v1 tasks, by the task's configurable object (one per task execution). */
  const passes = new SafeWeakMap();

  /**
   * One execution of a tools task: every call it runs registers; once all have decided,
   * the calls that need approval are reviewed in one interrupt (message order), and only
   * then does anything run. A v2 task has one call.
   */
  function passOf(configurable, members) {
    let pass = WeakMapPrototypeGet(passes, configurable);
    if (pass === undefined) {
      pass = { members, decided: 0, outcomes: new SafeWeakMap(), ready: deferred(), review: deferred() };
      WeakMapPrototypeSet(passes, configurable, pass);
    }
    return pass;
  }

  function finishDeciding(pass) {
    pass.decided++;
    if (pass.decided === pass.members.length) pass.ready.resolve();
  }

  /**
   * Run id of a kept proposal: the thread and the message (call ids repeat across messages
   * of some providers), each length-prefixed so that no thread and message pair spells
   * another's (`a:b` + `c` and `a` + `b:c` are different runs).
   */
  function runIdOf(runtime, ai) {
    const threadId = own(own(runtime, 'configurable'), 'thread_id');
    if (!isWellFormedString(threadId) || threadId === '') throw invalidArgument('toolGateMiddleware needs a thread_id (createAgent with a checkpointer, invoked with { configurable: { thread_id } })');
    const id = own(ai, 'id');
    const messageId = isWellFormedString(id) ? id : '';
    return `langgraph ${threadId.length}:${threadId} ${messageId.length}:${messageId}`;
  }

  /** Evaluates one call: the outcome the pass acts on once every call has decided. */
  async function decide(request, ai, position, toolCall) {
    const calls = toolCallsOf(ai);
    let call;
    for (let i = 0; i < calls.length; i++) {
      if (calls[i].position === position) call = calls[i];
    }
    const id = own(toolCall, 'id');
    const toolName = own(toolCall, 'name');
    const entry = toolEntry(tools, call === undefined ? toolName : call.name);
    if (entry === undefined) return { kind: 'handler' };
    if (call === undefined) {
      const problem = isCallId(id) ? 'unpaired_call' : 'missing_call_id';
      return { kind: 'answer', message: answerInvalid(isCallId(id) ? id : undefined, toolName, callProblemError(problem)) };
    }
    if (call.problem !== undefined) return { kind: 'answer', message: answerInvalid(call.id, call.name, callProblemError(call.problem)) };

    const { prepared, invalid } = await prepareAttempt(gate, entry, call.id, call.text, call.args);
    if (invalid !== undefined) return { kind: 'answer', message: answerInvalid(call.id, call.name, invalid) };
    const context = contextOf === undefined ? undefined : await contextOf({ toolCall, state: own(request, 'state'), runtime: own(request, 'runtime') });
    const policyContext = policyContextOf(context, call.id, call.argumentsSource);
    const decision = await evaluate(entry, prepared, policyContext, call.id);
    if (decision.decision === 'allow') return { kind: 'execute', entry, decision, id: call.id };
    if (decision.decision !== 'require_approval') return { kind: 'answer', message: denied(call.id, call.name, decision.reason) };

    // The proposal the reviewer is shown is the one kept for this thread, message and call;
    // one kept in this very pass (none was, or another was) was never shown to anyone.
    const key = { runId: runIdOf(own(request, 'runtime'), ai), toolCallId: call.id };
    const scope = scopeOf(policyContext);
    const before = await grants.kept(key);
    let kept = before;
    let keptNow = false;
    if (before === undefined || own(before, 'proposalHash') !== decision.proposalHash || (grants.sealing && own(before, 'scope') !== scope)) {
      kept = await grants.keep(key, decision.proposal, { scope });
      keptNow = true;
    }
    return { kind: 'review', entry, decision, prepared, policyContext, scope, key, kept, keptNow, replaced: before !== undefined && keptNow, call };
  }

  function answerInvalid(id, toolName, error) {
    return invalidFields(id, toolName, error).message;
  }

  function denied(id, toolName, reason) {
    return errorMessage(id, toolName, `The tool call was denied [${reason}].`);
  }

  /** HITL's interrupt value for the calls under review, plus the kept (sealed) proposals. */
  function reviewValue(outcomes) {
    const actionRequests = [];
    const reviewConfigs = [];
    const proposals = [];
    for (let i = 0; i < outcomes.length; i++) {
      const { decision, call, kept } = outcomes[i];
      const args = decodeView(decision.argsCanonicalJson);
      ArrayPrototypePush(actionRequests, {
        name: call.name,
        args,
        description: `${descriptionPrefix} (${decision.reason})\n\nTool: ${call.name}\nArgs: ${JSONStringify(args, null, 2)}`,
        toolCallId: call.id,
        argumentsSource: call.argumentsSource,
      });
      ArrayPrototypePush(reviewConfigs, { actionName: call.name, allowedDecisions: ArrayPrototypeSlice(allowedDecisions) });
      ArrayPrototypePush(proposals, kept);
    }
    return { actionRequests, reviewConfigs, proposals };
  }

  /**
   * The decisions of a resume, one per call under review, checked as
   * humanInTheLoopMiddleware checks them; a string saying what is wrong otherwise.
   */
  function readResume(resume, count) {
    const decisions = own(resume, 'decisions');
    if (!ArrayIsArray(decisions) || isProxy(decisions)) return { problem: '{ decisions } must be an array' };
    if (decisions.length !== count) return { problem: `Number of human decisions (${decisions.length}) does not match number of calls under review (${count})` };
    for (let i = 0; i < decisions.length; i++) {
      const decision = decisions[i];
      const type = own(decision, 'type');
      if (!ArrayPrototypeIncludes(allowedDecisions, type)) return { problem: `decision ${i}: its type must be one of ${JSONStringify(allowedDecisions)}` };
      if (type === 'edit') {
        const edited = own(decision, 'editedAction');
        const args = own(edited, 'args');
        if (typeof own(edited, 'name') !== 'string') return { problem: `decision ${i}: editedAction.name must be a string` };
        if (args === null || typeof args !== 'object' || ArrayIsArray(args)) return { problem: `decision ${i}: editedAction.args must be an object` };
      }
      if (type === 'reject' && own(decision, 'message') !== undefined && typeof own(decision, 'message') !== 'string') {
        return { problem: `decision ${i}: a reject message must be a string` };
      }
    }
    return { decisions };
  }

  /**
   * Asks for the review and returns the decisions. LangGraph keeps a resume value once
   * interrupt() has returned it, so a malformed one (a UI's bug) would come back on every
   * later resume: it is answered with the same review asked again (a new interrupt of the
   * task, `invalidResume` saying what was wrong), never with a throw that strands the thread.
   */
  function review(value, count) {
    let problem;
    for (;;) {
      const asked = problem === undefined ? value : { ...value, invalidResume: problem };
      const read = readResume(interrupt(asked), count);
      if (read.decisions !== undefined) return read.decisions;
      problem = read.problem;
    }
  }

  /** The LangChain config of this task (callbacks, signal...), as the tools node builds it for a tool. */
  function toolConfig(id, runtime) {
    const config = AsyncLocalStorageProviderSingleton.getRunnableConfig() ?? {};
    const signal = own(runtime, 'signal');
    return { ...config, config, toolCallId: id, state: own(own(own(config, 'configurable'), '__pregel_scratchpad'), 'currentTaskInput'), signal: signal ?? own(config, 'signal') };
  }

  /** Runs an allowed decision: the tool's ToolMessage (or Command), LangChain's error message when the tool throws. */
  async function execute(entry, decision, id, runtime) {
    const config = toolConfig(id, runtime);
    let result;
    try {
      result = await executeAllowed(gate, entry, decision, id, config);
    } catch (error) {
      const signal = own(config, 'signal');
      if (isGraphInterrupt(error) || (signal !== undefined && signal !== null && signal.aborted === true)) throw error;
      // As LangChain's tools node answers a tool's own error.
      return errorMessage(id, entry.name, `${error}\n Please fix your mistakes.`);
    }
    if (!result.executed) return denied(id, entry.name, 'grant_unavailable');
    const { output } = result;
    if (ToolMessage.isInstance(output) || isCommand(output)) return output;
    return new ToolMessage({ name: entry.name, tool_call_id: id, content: typeof output === 'string' ? output : JSONStringify(output) });
  }

  /** Applies a reviewer's decision to a call under review (a new attempt wherever arguments change). */
  async function applyDecision(outcome, reviewed, runtime) {
    const { entry, call, key, kept } = outcome;
    const type = own(reviewed, 'type');
    if (type === 'reject') {
      await grants.forget(key);
      const content = own(reviewed, 'message');
      return errorMessage(call.id, call.name, content ?? `User rejected the tool call for \`${call.name}\` with id ${call.id}`);
    }
    if (type === 'edit') {
      await grants.forget(key);
      return applyEdit(outcome, own(reviewed, 'editedAction'), runtime);
    }
    // approve: the proposal the reviewer saw, granted, then this attempt evaluated again.
    if (outcome.keptNow) {
      await grants.forget(key);
      if (outcome.replaced) return denied(call.id, call.name, PROPOSAL_CHANGED);
      notice();
      return denied(call.id, call.name, APPROVED_WITHOUT_GRANT);
    }
    try {
      await grants.grant(kept, grants.sealing ? undefined : { scope: outcome.scope });
    } catch (error) {
      if (!isApprovalGrantError(error)) throw error;
      await grants.forget(key);
      return denied(call.id, call.name, error.code);
    }
    await grants.forget(key);
    const decision = await evaluate(entry, outcome.prepared, outcome.policyContext, call.id);
    if (decision.decision !== 'allow') return denied(call.id, call.name, decision.reason);
    return execute(entry, decision, call.id, runtime);
  }

  /**
   * An edit is a new attempt on the reviewer's arguments (`argumentsSource: 'edit'`) for the
   * tool the edit names: its schema once, its policy. A deny denies; otherwise the
   * reviewer's edit grants exactly the new hash and it runs. The old proposal is never granted.
   */
  async function applyEdit(outcome, editedAction, runtime) {
    const { call, policyContext } = outcome;
    const targetName = own(editedAction, 'name');
    const args = own(editedAction, 'args');
    const target = toolEntry(tools, targetName);
    if (target === undefined) return errorMessage(call.id, targetName, 'The edited call names a tool this gate does not have [unknown_tool].');
    const { prepared, invalid } = await prepareAttempt(gate, target, call.id, undefined, args);
    if (invalid !== undefined) return answerInvalid(call.id, targetName, invalid);
    const editContext = { ...policyContext };
    setData(editContext, 'argumentsSource', 'edit');
    let decision = await evaluate(target, prepared, editContext, call.id);
    if (decision.decision === 'require_approval') {
      const scope = outcome.scope;
      await grants.grant(grants.sealing ? grants.seal(decision, { scope }) : decision, grants.sealing ? undefined : { scope });
      decision = await evaluate(target, prepared, editContext, call.id);
    }
    if (decision.decision !== 'allow') return denied(call.id, targetName, decision.reason);
    return execute(target, decision, call.id, runtime);
  }

  async function wrapToolCall(request, handler) {
    if (request === null || typeof request !== 'object' || isProxy(request)) throw invalidArgument('wrapToolCall expects LangChain\'s tool call request');
    const runtime = own(request, 'runtime');
    const configurable = own(runtime, 'configurable');
    const scratchpad = own(configurable, '__pregel_scratchpad');
    if (configurable === undefined || configurable === null || typeof configurable !== 'object' || scratchpad === undefined) {
      throw new SafeError('toolGateMiddleware runs inside a createAgent graph (LangGraph) only');
    }
    const taskInput = own(scratchpad, 'currentTaskInput');
    const messages = ownArray(own(request, 'state'), 'messages');
    const ai = lastAIMessage(messages);
    const toolCall = own(request, 'toolCall');
    if (ai === undefined) throw new SafeError('toolGateMiddleware: the state has no AIMessage for this tool call');
    const toolCalls = ownArray(ai, 'tool_calls');

    // One call per task (v2), or every unanswered call of the message (v1, a jump to tools).
    const single = own(taskInput, 'lg_tool_call') !== undefined;
    const members = single ? [toolCall] : callsOfTask(messages, ai);
    let index = -1;
    for (let i = 0; i < members.length; i++) if (members[i] === toolCall) index = i;
    if (index === -1) {
      throw new SafeError('toolGateMiddleware must be the first middleware of createAgent (another middleware changed the tool call before it)');
    }
    // The call's position in the message, for pairing with its provider text.
    let position = -1;
    if (single) {
      const id = own(toolCall, 'id');
      for (let i = 0; i < toolCalls.length; i++) {
        if (toolCalls[i] === toolCall || (isWellFormedString(id) && own(toolCalls[i], 'id') === id && own(toolCalls[i], 'name') === own(toolCall, 'name'))) {
          if (position === -1 || toolCalls[i] === toolCall) position = i;
        }
      }
    } else {
      for (let i = 0; i < toolCalls.length; i++) if (toolCalls[i] === toolCall) position = i;
    }

    const pass = passOf(configurable, members);
    let outcome;
    try {
      outcome = await decide(request, ai, position, toolCall);
    } catch (error) {
      pass.ready.reject(error);
      pass.review.reject(error);
      throw error;
    }
    WeakMapPrototypeSet(pass.outcomes, toolCall, outcome);
    finishDeciding(pass);
    await pass.ready.promise;

    // The calls under review, in message order; the first of them asks for the review.
    const reviewing = [];
    for (let i = 0; i < members.length; i++) {
      const member = WeakMapPrototypeGet(pass.outcomes, members[i]);
      if (member.kind === 'review') ArrayPrototypePush(reviewing, member);
    }
    let decisions;
    if (reviewing.length > 0) {
      if (reviewing[0] === outcome) {
        try {
          decisions = review(reviewValue(reviewing), reviewing.length);
        } catch (error) {
          pass.review.reject(error);
          throw error;
        }
        pass.review.resolve(decisions);
      } else {
        // Every call of the pass waits: nothing runs in a pass the review interrupts.
        decisions = await pass.review.promise;
      }
    }

    switch (outcome.kind) {
      case 'answer':
        return outcome.message;
      case 'handler':
        return handler(request);
      case 'execute':
        return execute(outcome.entry, outcome.decision, outcome.id, runtime);
      default: {
        let at = 0;
        for (let i = 0; i < reviewing.length; i++) if (reviewing[i] === outcome) at = i;
        return applyDecision(outcome, decisions[at], runtime);
      }
    }
  }

  return createMiddleware({ name, wrapToolCall });
}

module.exports = { toolGateMiddleware };
