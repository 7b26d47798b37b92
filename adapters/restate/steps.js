'use strict';
// The Restate steps of one tool call of a gate (tool-argument-snapshot/restate): prepared
// outside any step from the journaled provider text, decided and executed in one `ctx.run`
// step, and on require_approval the awakeable round trip (request, grant, decide again),
// each in a step; the calls of an invocation one after another.

const { ObjectFreeze, ObjectDefineProperty, PromiseResolve, SafePromise } = require('../gate/primordials');
const { own, setData } = require('../gate/read');

const ADAPTER = 'restate';

/**
 * The executor maker of a gate: `executorFor(entry)` is the execute the AI SDK calls for
 * the tool `entry`. `run` holds what the steps use: the handler's `ctx`, the gate's record
 * (`gate`), the peers (`restate`, `calls`, `receiptKey`), `approvals`, the `recorder` and
 * the `invocationId`.
 */
function executorMaker(run) {
  const { ctx, gate, restate, calls, receiptKey, approvals, recorder, invocationId } = run;

  /** Refusals after which the call must not run: a terminal error, so rethrowTerminalToolError stops the invocation. */
  function terminal(code, what) {
    const error = new restate.TerminalError(`tool-argument-snapshot/${ADAPTER}: ${what} (${code})`);
    ObjectDefineProperty(error, 'reason', { __proto__: null, value: code, enumerable: true, writable: false, configurable: true });
    return error;
  }

  /** Inside a step: the attempt's outcome, or a retryable error for `retry` (Restate attempts the step again). */
  async function step(entry, prepared, key, executeOptions) {
    const outcome = await calls.attemptCall(gate, entry, prepared, key, { toolCallId: key.toolCallId }, (view) => [view, executeOptions]);
    if (outcome.status === 'retry') throw calls.durableError(ADAPTER, outcome.code, 'the call cannot be attempted now');
    return outcome;
  }

  /** The tool's answer to the SDK for an outcome the steps recorded. */
  function answer(outcome) {
    if (outcome.status === 'executed') return outcome.result;
    if (outcome.status === 'denied') {
      const error = calls.durableError(ADAPTER, 'denied', 'the call was denied');
      setData(error, 'reason', outcome.reason);
      setData(error, 'decidedBy', outcome.decidedBy);
      throw error;
    }
    throw terminal(outcome.code, 'the call must not run');
  }

  // The steps of the calls run one call after another, in the order the SDK starts them: the
  // SDK runs a response's calls concurrently, and Restate's SDK fails an invocation whose
  // steps are awaited concurrently by a plain Promise.all ("awaitNext already pending").
  let queue = PromiseResolve();

  function executorFor(entry) {
    return async function execute(input, executeOptions) {
      const turn = queue;
      /** @type {(value?: unknown) => void} */
      let release;
      queue = new SafePromise((resolve) => {
        release = resolve;
      });
      try {
        await turn;
        return await callSteps(entry, executeOptions);
      } finally {
        release();
      }
    };
  }

  /** The steps of one call: prepare, decide and execute; on require_approval, the awakeable round trip. */
  async function callSteps(entry, executeOptions) {
    const toolCallId = own(executeOptions, 'toolCallId');
    const recorded = recorder.take(entry.toolName, toolCallId);
    if (recorded.refusal !== undefined) throw calls.durableError(ADAPTER, recorded.refusal, 'the call has no provider text of its own');
    // Outside any step: deterministic from the journaled response, so a replay prepares
    // the same call (a ToolArgumentsValidationError is the SDK's tool error, as for the model).
    const key = ObjectFreeze(receiptKey(gate.agentName, `${invocationId}/${recorded.step}`, toolCallId));
    const prepared = await calls.prepareCall(gate, entry, recorded.text, key);
    let outcome = await ctx.run(`tool ${entry.toolName}`, () => step(entry, prepared, key, executeOptions));
    if (outcome.status !== 'approval_required') return answer(outcome);
    if (approvals === undefined) return answer({ status: 'denied', reason: 'approval_required', decidedBy: 'runtime' });

    const asked = outcome.proposal;
    const awakeable = ctx.awakeable();
    await ctx.run(`request approval ${entry.toolName}`, async () => {
      await approvals.request(ObjectFreeze({ awakeableId: awakeable.id, toolName: entry.toolName, toolCallId, reason: outcome.reason, proposal: asked }));
      return null;
    });
    const reviewed = await awakeable.promise;
    const granted = await ctx.run(`grant ${entry.toolName}`, () => calls.grantAnswer(gate, reviewed, asked));
    if (own(granted, 'granted') !== true) return answer({ status: 'denied', reason: own(granted, 'refused'), decidedBy: 'runtime' });
    outcome = await ctx.run(`tool ${entry.toolName} (approved)`, () => step(entry, prepared, key, executeOptions));
    if (outcome.status === 'approval_required') return answer({ status: 'denied', reason: 'grant_unavailable', decidedBy: 'runtime' });
    return answer(outcome);
  }

  return executorFor;
}

module.exports = { executorMaker };
