'use strict';
// The tools a gate hands the SDK and its approval hook: validate pairs the SDK's value with
// its provider text and prepares the call (schema once, snapshot), toolApproval decides and
// keeps what needs a reviewer, execute runs the tool's own execute through the kernel.

const sdk = require('./sdk');
const {
  prepareToolCallAsync, canonicalize, ToolArgumentsValidationError, isApprovalGrantError, isSnapshotDomainError,
} = require('tool-argument-snapshot');
const {
  ArrayIsArray, ObjectFreeze, ReflectApply, SafeTypeError, SafeWeakMap, WeakMapPrototypeGet, WeakMapPrototypeSet,
} = require('../gate/primordials');
const { own, setData, ownDataCopy, isId } = require('../gate/read');
const { BoundedLists, lenientParse } = require('../gate/texts');
const { sameData } = require('../gate/same-data');
const { decideCall } = require('../gate/decide');
const { executeDecision } = require('../gate/execute');
const { executeOptions: receiptOptions, replayCode } = require('../gate/replays');
const { keepOptions } = require('../gate/proposals');
const { receiptKey } = require('../gate/receipts');
const { APPROVED_WITHOUT_GRANT } = require('../gate/warnings');

const MISSING_CALL_ID = 'missing_call_id';
const DUPLICATE_CALL_ID = 'duplicate_call_id';

function createTools(gate) {
  const { agentName, includePath, grantScope, onDecision, fallbackApproval, texts, textsById, store, entries, receipts, receiptRunId } = gate;
  // Attempts prepared from message history (no provider text), by tool and canonical text.
  const resumable = new BoundedLists();
  // The attempt of each SDK input object: set by validate (the step path) or by the
  // approval hook (the resume path), read by the approval hook and execute.
  const attempts = new SafeWeakMap();

  /** Takes the oldest recorded call of the tool whose text parses (leniently) to the SDK's value. */
  function takeProviderCall(toolName, value) {
    return texts.take(toolName, (candidate) => {
      const lenient = lenientParse(candidate);
      return lenient !== null && sameData(lenient.value, value, 0);
    });
  }

  function resumeKey(toolName, text) {
    return `${toolName.length}:${toolName}${text}`;
  }

  /**
   * The SDK's validate for one tool: every call the SDK parses comes here once (the step
   * path with the lenient parse of the provider text; the resume path with a copy of the
   * history input). Prepares the attempt; a failure is the SDK's invalid input.
   */
  function validatorFor(entry) {
    return async function validate(value) {
      if (value === null || typeof value !== 'object' || ArrayIsArray(value)) {
        // Kept apart by object identity below, and tool inputs are objects: invalid input.
        return { success: false, error: new SafeTypeError(`the input of tool "${entry.toolName}" must be a JSON object`) };
      }
      const recorded = takeProviderCall(entry.toolName, value);
      let rawArguments;
      let argumentsSource;
      if (recorded !== undefined) {
        // A call without an id could be neither paired nor approved: invalid input; so is
        // a call whose id another call of its response has.
        if (recorded.id === undefined) return { success: false, error: new ToolArgumentsValidationError('json', entry.toolName, MISSING_CALL_ID) };
        if (recorded.duplicate) return { success: false, error: new ToolArgumentsValidationError('json', entry.toolName, DUPLICATE_CALL_ID) };
        rawArguments = recorded.text;
        argumentsSource = 'provider_text';
      } else {
        // No provider text (message history, or a call that skipped the middleware): the
        // object itself, which must be strict JSON data, in its canonical form.
        try {
          rawArguments = canonicalize(value, { includePath });
        } catch (error) {
          return { success: false, error };
        }
        argumentsSource = 'history';
      }
      let prepared;
      try {
        const prepareInput = { agentName, toolName: entry.toolName, rawArguments, schema: entry.schema, includePath };
        // The call's conversation (the receipt's run). Its id is given once, to the evaluation
        // (decide): validate cannot know it for certain (a resumed call's comes later, and a
        // recorded text's may be another call's until the approval hook checks it).
        if (receiptRunId !== undefined) setData(prepareInput, 'runId', receiptRunId);
        prepared = await prepareToolCallAsync(prepareInput);
      } catch (error) {
        return { success: false, error };
      }
      const attempt = {
        entry,
        toolName: entry.toolName,
        toolCallId: undefined,
        argumentsSource,
        rawArguments,
        prepared,
        checked: false,
        deciding: undefined,
        decision: undefined,
        resume: false,
        refusal: undefined,
        approved: false,
      };
      WeakMapPrototypeSet(attempts, value, attempt);
      if (argumentsSource === 'history') resumable.add(resumeKey(entry.toolName, rawArguments), attempt);
      return { success: true, value };
    };
  }

  /** The attempt for the SDK's call; a refused one carries its `refusal`. */
  function attemptFor(toolName, toolCallId, input) {
    if (input === null || typeof input !== 'object') return undefined;
    const known = WeakMapPrototypeGet(attempts, input);
    if (known !== undefined && !known.resume) {
      // The SDK's own value of this step (validate saw this very object).
      if (!known.checked) {
        known.checked = true;
        known.toolCallId = toolCallId;
        if (!isId(toolCallId)) {
          known.refusal = MISSING_CALL_ID;
        } else if (known.argumentsSource === 'history') {
          // No recorded text (a repaired call, or a model the gate does not wrap): there
          // is no provider text to authorize.
          resumable.remove(resumeKey(known.toolName, known.rawArguments), known);
          known.refusal = 'no_provider_text';
        } else if (known.toolName !== toolName || textsById.take(toolCallId, (text) => text === known.rawArguments) === undefined) {
          // The text validate paired with the SDK's value is not the one recorded for this call.
          known.refusal = 'provider_text_mismatch';
        }
      }
      return known;
    }
    // The resume path: a history object (each time it comes back, a new attempt that
    // validate prepared from a copy of it).
    let text;
    try {
      text = canonicalize(input);
    } catch {
      return known;
    }
    const resumed = resumable.take(resumeKey(toolName, text), undefined, true);
    if (resumed === undefined) return known;
    resumed.resume = true;
    resumed.checked = true;
    resumed.toolCallId = toolCallId;
    // The call's id is known now; the evaluation gives it to the call (prepared once, in validate).
    if (!isId(toolCallId)) resumed.refusal = MISSING_CALL_ID;
    WeakMapPrototypeSet(attempts, input, resumed);
    return resumed;
  }

  /**
   * Why a resumed call that its decision does not allow is denied. Approved through the
   * package (the record approve kept apart): another hash is `proposal_changed`; the same
   * hash is what its receipt says (`call_already_executed` for a replay of a call that ran),
   * else `grant_unavailable` (the grant was used or expired). Not approved through the
   * package: the receipt's code if the call ran, else `approved_without_grant` (approved the
   * SDK's own way), with the gate's one warning.
   */
  async function resumeRefusal(attempt, decision) {
    let approved;
    if (gate.keeps) {
      try {
        approved = await store.kept(gate.approvedKeyOf(attempt.toolCallId));
      } catch (error) {
        // A record that does not verify (changed in the store) is not the approved proposal.
        if (isApprovalGrantError(error) || isSnapshotDomainError(error)) return 'proposal_changed';
        return 'grant_store_unavailable';
      }
    }
    if (approved !== undefined && own(approved, 'proposalHash') !== decision.proposalHash) return 'proposal_changed';
    const code = receiptRunId === undefined ? undefined : await replayCode(receipts, receiptKey(agentName, receiptRunId, attempt.toolCallId), decision.proposalHash);
    if (code !== undefined) return code;
    if (approved !== undefined) return 'grant_unavailable';
    gate.notice();
    return APPROVED_WITHOUT_GRANT;
  }

  /** One decision per attempt, however many hooks ask (the first one evaluates). */
  function decide(attempt, runtimeContext) {
    if (attempt.deciding === undefined) attempt.deciding = evaluate(attempt, runtimeContext);
    return attempt.deciding;
  }

  async function evaluate(attempt, runtimeContext) {
    // The call's id, given once: the evaluation gives it to the call validate prepared without one.
    const toolCallId = attempt.toolCallId;
    const policyContext = { toolCallId, argumentsSource: attempt.argumentsSource, runtimeContext };
    if (grantScope !== null) setData(policyContext, 'grantScope', grantScope);
    const decision = await decideCall(attempt.prepared, attempt.entry.policy, policyContext, toolCallId, onDecision, { toolCallId, argumentsSource: attempt.argumentsSource, resume: attempt.resume });
    attempt.decision = decision;
    return decision;
  }

  /** Approval for tools the gate does not guard: the application's, or the tool's own needsApproval. */
  async function unguardedApproval(args) {
    if (fallbackApproval !== undefined) return fallbackApproval(args);
    const toolCall = own(args, 'toolCall');
    const tool = own(own(args, 'tools'), own(toolCall, 'toolName'));
    const needsApproval = own(tool, 'needsApproval');
    if (needsApproval === undefined || needsApproval === null) return undefined;
    const needed = typeof needsApproval === 'function'
      ? await ReflectApply(needsApproval, tool, [own(toolCall, 'input'), { toolCallId: own(toolCall, 'toolCallId'), messages: own(args, 'messages'), context: own(own(args, 'toolsContext'), own(toolCall, 'toolName')) }])
      : needsApproval;
    return needed ? 'user-approval' : undefined;
  }

  async function toolApproval(args) {
    const toolCall = own(args, 'toolCall');
    const toolName = own(toolCall, 'toolName');
    if (gate.guardedEntry(toolName) === undefined) return unguardedApproval(args);
    const answer = await guardedApproval(args, toolCall, toolName);
    // A resumed approval denied: its reason, for the UI message stream (denials.js).
    if (answer !== undefined && answer.type === 'denied') gate.denials.record(args, own(toolCall, 'toolCallId'), answer.reason);
    return answer;
  }

  async function guardedApproval(args, toolCall, toolName) {
    const toolCallId = own(toolCall, 'toolCallId');
    const attempt = attemptFor(toolName, toolCallId, own(toolCall, 'input'));
    if (attempt === undefined) return { type: 'denied', reason: 'not_prepared' };
    if (attempt.refusal !== undefined) return { type: 'denied', reason: attempt.refusal };
    const decision = await decide(attempt, own(args, 'runtimeContext'));
    if (decision.decision === 'allow') return undefined;
    if (decision.decision === 'deny') return { type: 'denied', reason: decision.reason };
    if (attempt.resume) {
      // The SDK replays only approved calls, and executes every one that is not denied: no
      // grant allows this exact hash (edited, replayed, or approved the SDK's own way).
      return { type: 'denied', reason: await resumeRefusal(attempt, decision) };
    }
    if (gate.keeps) {
      // Kept with the package, so the approval can come back to any process. First wins: a
      // proposal already waiting under this run and call id (the id reused by a later
      // response) is never replaced by another, which the request shown for the first
      // would then approve; the later call is refused instead.
      try {
        const key = gate.keyOf(attempt.toolCallId);
        const waiting = await store.kept(key);
        if (waiting !== undefined && own(waiting, 'proposalHash') !== decision.proposalHash) return { type: 'denied', reason: DUPLICATE_CALL_ID };
        if (waiting === undefined) {
          await store.keep(key, decision.proposal, keepOptions(grantScope, gate.proposalTtlMs));
        }
      } catch (error) {
        // A store without kept proposals: approvals in this gate only (proposalOf).
        if (error instanceof SafeTypeError) gate.keeps = false;
        // A store that failed: asking a reviewer who could never grant it is refused
        // instead (fails closed).
        else return { type: 'denied', reason: 'grant_store_unavailable' };
      }
    }
    return { type: 'user-approval', reason: decision.reason };
  }

  function executorFor(entry) {
    async function authorized(input, executeOptions) {
      const toolCallId = own(executeOptions, 'toolCallId');
      const attempt = attemptFor(entry.toolName, toolCallId, input);
      // No attempt, or a refused one: executeToolCall refuses a missing decision itself.
      const decision = attempt === undefined || attempt.refusal !== undefined ? undefined : await decide(attempt, undefined);
      return executeDecision(decision, (view) => ReflectApply(entry.execute, entry.target, [view, executeOptions]), receiptOptions(receipts));
    }
    if (entry.streaming) {
      return async function* execute(input, executeOptions) {
        yield* await authorized(input, executeOptions);
      };
    }
    return async function execute(input, executeOptions) {
      return authorized(input, executeOptions);
    };
  }

  const tools = {};
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (!entry.guarded) {
      setData(tools, entry.toolName, entry.target);
      continue;
    }
    const copy = ownDataCopy(entry.target);
    const original = entry.inputSchema;
    // The JSON Schema the SDK would have sent for the tool's own schema, computed when the
    // SDK first asks for it; the validate function is the package's pipeline.
    const { jsonSchema, asSchema } = sdk();
    setData(copy, 'inputSchema', jsonSchema(() => asSchema(original).jsonSchema, { validate: validatorFor(entry) }));
    setData(copy, 'execute', executorFor(entry));
    // The policy decides what needs approval; the tool's own flag would be a second gate.
    delete copy.needsApproval;
    setData(tools, entry.toolName, ObjectFreeze(copy));
  }

  /**
   * The SuspendedToolProposal of a `tool-approval-request` part of a result this gate made
   * (same process), or undefined. In another process: `await gate.keptProposal(part)`.
   */
  function proposalOf(part) {
    const toolCall = own(part, 'toolCall');
    const input = own(toolCall, 'input');
    const attempt = input !== null && typeof input === 'object' ? WeakMapPrototypeGet(attempts, input) : undefined;
    if (attempt === undefined || attempt.decision === undefined || attempt.decision.decision !== 'require_approval') return undefined;
    if (attempt.resume || attempt.toolCallId !== own(toolCall, 'toolCallId')) return undefined;
    return attempt.decision.proposal;
  }


  return { tools: ObjectFreeze(tools), toolApproval, proposalOf, attemptOf: (input) => WeakMapPrototypeGet(attempts, input) };
}

module.exports = { createTools };
