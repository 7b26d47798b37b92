'use strict';
// Execution receipts of the LangChain gates (docs/receipts.md): the `receipts` option read
// with the kernel's readReceipts, the run a call's receipt is keyed under (the LangGraph
// thread), the options each execution passes to executeDecision, and the code a replay of
// a call that already has a receipt is answered with.

const { own, isWellFormedString } = require('../../gate/read');
const { isId } = require('../../gate/read');
const { readReceipts, receiptKey, pruneShared } = require('../../gate/receipts');
const { replayCode: kernelReplayCode } = require('../../gate/replays');
const { ReflectApply } = require('../../gate/primordials');
const { core } = require('./core');

// @langchain/core's AsyncLocalStorage provider and its getRunnableConfig, read once, at the
// first call that asks for the ambient thread.
let AsyncLocalStorageProviderSingleton;
let getRunnableConfig;

/**
 * `options.receipts`: `{ receipts, explicit, get }`. `receipts` is the application's
 * createExecutionReceipts object, undefined for `false`, else the receipts kept in the
 * grants' store (`grants`: the gate's grants object, when they are durable and their store
 * holds receipts) or the process-wide memory receipts every gate shares; `explicit` says
 * the application gave the option; `get` is its own `get` function, read once.
 */
function readGateReceipts(opts, grants) {
  const receipts = readReceipts(opts, grants, 'langchain');
  return { receipts, explicit: own(opts, 'receipts') !== undefined, get: receipts === undefined ? undefined : own(receipts, 'get') };
}

/** `config.configurable.thread_id` of a LangChain RunnableConfig (own data, a non-empty well-formed string), or undefined. */
function threadIdOf(config) {
  const threadId = own(own(config, 'configurable'), 'thread_id');
  return isWellFormedString(threadId) && threadId !== '' ? threadId : undefined;
}

/**
 * The thread of the LangGraph node the caller runs in: LangGraph hands every node and task
 * its RunnableConfig through @langchain/core's AsyncLocalStorage, `configurable.thread_id`
 * included. Undefined outside a graph (or without a checkpointer's thread).
 */
function ambientThreadId() {
  if (AsyncLocalStorageProviderSingleton === undefined) {
    const singleton = core().singletons.AsyncLocalStorageProviderSingleton;
    getRunnableConfig = singleton.getRunnableConfig;
    AsyncLocalStorageProviderSingleton = singleton;
  }
  let config;
  try {
    config = ReflectApply(getRunnableConfig, AsyncLocalStorageProviderSingleton, []);
  } catch {
    return undefined;
  }
  return threadIdOf(config);
}

/**
 * The receipts one call executes with: `{ receipts, runId }`, or undefined for none. The run
 * is the LangGraph thread (`threadId`), else the application's own run id (`appRunId`, the
 * createToolGate `runId` option). With the default (shared) receipts, a call runs without
 * them unless LangGraph gives its thread and the call has an id: provider call ids are
 * unique only within a conversation, and a key the framework does not scope could refuse
 * another conversation's call, which ran before receipts existed. Receipts given explicitly
 * always apply (a call without an id is then refused: `call_id_required`; without a run,
 * `runId` is null).
 */
function receiptRun(gate, toolCallId, threadId, appRunId) {
  const { receipts, explicit, get } = gate.receipts;
  if (receipts === undefined) return undefined;
  if (explicit) return { receipts, get, runId: threadId ?? appRunId };
  if (!isId(toolCallId) || threadId === undefined) return undefined;
  return { receipts, get, runId: threadId };
}

/** The options of executeDecision for one call: the gate's grants, and the call's receipts. */
function executeOptionsOf(gate, run) {
  const grants = gate.grants === undefined ? undefined : gate.grants.object;
  if (run === undefined) return grants === undefined ? undefined : { grants };
  return grants === undefined ? { receipts: run.receipts } : { grants, receipts: run.receipts };
}

/** After an execution with the shared receipts: prunes them now and then. */
function afterExecution(run) {
  if (run !== undefined) pruneShared(run.receipts);
}

/**
 * Whether a call about to be asked for approval already has a receipt (a replay of a call
 * that ran, or runs now): the code executeToolCall would refuse it with (a receipt of
 * another hash `call_id_conflict`; a live claim `execution_in_progress`; an expired one
 * `outcome_unknown`; an outcome `call_already_executed`), or undefined when it has none. A
 * store that fails is `receipt_store_unavailable`. Nothing of the receipt but its code.
 */
async function replayCode(gate, run, toolCallId, proposalHash) {
  if (run === undefined || !isId(toolCallId)) return undefined;
  return kernelReplayCode(run.receipts, receiptKey(gate.agentName, run.runId, toolCallId), proposalHash);
}

module.exports = { readGateReceipts, threadIdOf, ambientThreadId, receiptRun, executeOptionsOf, afterExecution, replayCode };
