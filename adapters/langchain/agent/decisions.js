'use strict';
// What a call under the middleware ends with: its ToolMessage for an allow, a deny, or a
// reviewer's approve, edit or reject.

const { own, setData } = require('../../gate/read');
const { APPROVED_WITHOUT_GRANT } = require('../../gate/warnings');
const { JSONStringify } = require('../../gate/primordials');
const { api } = require('../gate/core');
const { toolEntry } = require('../gate/options');
const { toolMessageClass, errorMessage, invalidFields, prepareAttempt, evaluate, executeAllowed } = require('../gate/execute');
const { isGraphInterrupt, isCommand, AsyncLocalStorageProviderSingleton } = require('./peers');
const { PROPOSAL_CHANGED } = require('./task');

// The agent loads with the frameworks (toolGateMiddleware's first call): @langchain/core is loaded by now.
const ToolMessage = toolMessageClass();

const { isApprovalGrantError } = api;

/** The answers of one middleware (`gate`: its read options; `notice`: the approved-without-grant warning). */
function createDecisions(gate, notice) {
  const { tools, grants } = gate;

  function answerInvalid(id, toolName, error) {
    return invalidFields(id, toolName, error).message;
  }

  function denied(id, toolName, reason) {
    return errorMessage(id, toolName, `The tool call was denied [${reason}].`);
  }

  /** The LangChain config of this task (callbacks, signal...), as the tools node builds it for a tool. */
  function toolConfig(id, runtime) {
    const config = AsyncLocalStorageProviderSingleton.getRunnableConfig() ?? {};
    const signal = own(runtime, 'signal');
    return {
      ...config,
      config,
      toolCallId: id,
      state: own(own(own(config, 'configurable'), '__pregel_scratchpad'), 'currentTaskInput'),
      signal: signal ?? own(config, 'signal'),
    };
  }

  /**
   * Runs an allowed decision under the call's receipts (`run`): the tool's ToolMessage (or
   * Command), LangChain's error message when the tool throws, a denial with the code when
   * the grant or the receipt refuses (a kept result of the receipts comes back as the
   * tool's answer).
   */
  async function execute(entry, decision, id, runtime, run) {
    const config = toolConfig(id, runtime);
    let result;
    try {
      result = await executeAllowed(gate, entry, decision, id, config, run);
    } catch (error) {
      const signal = own(config, 'signal');
      if (isGraphInterrupt(error) || (signal !== undefined && signal !== null && signal.aborted === true)) throw error;
      // As LangChain's tools node answers a tool's own error.
      return errorMessage(id, entry.name, `${error}\n Please fix your mistakes.`);
    }
    if (!result.executed) return denied(id, entry.name, result.reason);
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
      // The record the reviewer's approval was for did not verify: its code, no warning.
      if (outcome.unverified !== undefined) return denied(call.id, call.name, outcome.unverified);
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
    return execute(entry, decision, call.id, runtime, outcome.run);
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
    const { prepared, invalid } = await prepareAttempt(gate, target, call.id, undefined, args, outcome.run);
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
    return execute(target, decision, call.id, runtime, outcome.run);
  }

  return { answerInvalid, denied, execute, applyDecision };
}

module.exports = { createDecisions };
