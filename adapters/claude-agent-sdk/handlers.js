'use strict';
// Running a Claude Agent SDK gate's allowed calls: canUseTool for calls an ask rule sends on
// after the hook allowed them, and the handlers of the gate's own tools on its in-process
// server, which run only a call the hook allowed, with exactly the arguments decided.

const { canonicalize, decodeView, ToolArgumentsValidationError } = require('tool-argument-snapshot');
const { ArrayIsArray, isProxy, ReflectApply } = require('../gate/primordials');
const { own, setData, isId } = require('../gate/read');
const { executeDecision, isGrantUnavailable } = require('../gate/execute');
const { executeOptions, receiptRefusalCode } = require('../gate/replays');
const { notExecutedMessage, canonicalOrUndefined } = require('./hook');

/** Where the SDK's CLI puts the model's tool_use id in an in-process tools/call. */
const TOOL_USE_ID_META = 'claudecode/toolUseId';

function textResult(text, isError) {
  const result = { content: [{ type: 'text', text }] };
  if (isError) setData(result, 'isError', true);
  return result;
}

/** What an application's execute returned, as an MCP CallToolResult. */
function callToolResult(output) {
  if (typeof output === 'string') return textResult(output, false);
  if (output !== null && typeof output === 'object' && !isProxy(output) && ArrayIsArray(own(output, 'content'))) return output;
  return textResult(canonicalize(output === undefined ? null : output), false);
}

/** canUseTool over `handedOver`, the input the hook handed over by tool_use id. */
function canUseToolOf(handedOver) {
  /**
   * canUseTool, for calls an ask rule sends on after the hook allowed them: allowed exactly
   * when the input is the one the gate handed over for this tool_use; anything else is denied.
   */
  return async function canUseTool(sdkToolName, input, options) {
    const toolUseId = own(options, 'toolUseID');
    const given = isId(toolUseId) ? handedOver.list(toolUseId) : undefined;
    const json = canonicalOrUndefined(input);
    if (given !== undefined && json !== undefined) {
      for (let i = 0; i < given.length; i++) {
        if (given[i].sdkToolName === sdkToolName && given[i].json === json) {
          return { behavior: 'allow', updatedInput: decodeView(json), toolUseID: toolUseId };
        }
      }
    }
    const result = { behavior: 'deny', message: notExecutedMessage('deny', given === undefined ? 'not_decided_by_gate' : 'arguments_changed') };
    if (isId(toolUseId)) setData(result, 'toolUseID', toolUseId);
    return result;
  };
}

/** The handler maker of the gate's own tools, over `allowed`, the calls the hook allowed by tool_use id. */
function handlerForOf(gate, allowed) {
  const { receipts } = gate;
  /** The handler of one of the gate's own tools, as the SDK's in-process server calls it. */
  function handlerFor(entry) {
    return async function handler(args, extra) {
      const meta = own(extra, '_meta');
      const toolUseId = own(meta, TOOL_USE_ID_META);
      if (!isId(toolUseId)) return textResult(new ToolArgumentsValidationError('json', entry.toolName, 'missing_call_id').message, true);
      const found = allowed.take(toolUseId, (item) => item.entry === entry);
      // Not decided by the gate's hook (hooks not installed, or a call already taken).
      if (found === undefined) return textResult(notExecutedMessage('deny', 'not_decided_by_gate'), true);
      // The SDK delivered other arguments than the ones decided (another hook or canUseTool
      // changed them): nothing runs.
      if (canonicalOrUndefined(args) !== found.json) return textResult(notExecutedMessage('deny', 'arguments_changed'), true);
      try {
        const output = await executeDecision(found.decision, (view) => ReflectApply(entry.execute, undefined, [view, extra]), executeOptions(receipts));
        return callToolResult(output);
      } catch (error) {
        if (isGrantUnavailable(error)) return textResult(notExecutedMessage('deny', 'grant_unavailable'), true);
        const code = receiptRefusalCode(error);
        if (code !== undefined) return textResult(notExecutedMessage('deny', code), true);
        throw error;
      }
    };
  }
  return handlerFor;
}

module.exports = { canUseToolOf, handlerForOf };
