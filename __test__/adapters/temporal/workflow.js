// A workflow of @temporalio/ai-sdk with tool-argument-snapshot/temporal/workflow, for
// adapters/temporal/temporal.test.js: bundled with Temporal's own workflow bundler (what a Worker
// does before it runs workflows in its sandbox). The model call is the AI SDK plugin's
// activity; each tool call goes through the activities of tool-argument-snapshot/temporal;
// the reviewer's answer arrives as the `approve` signal.
const { proxyActivities, defineSignal, setHandler, condition } = require('@temporalio/workflow');
const { temporalProvider } = require('@temporalio/ai-sdk/workflow');
const { generateText, stepCountIs, tool } = require('ai');
const { z } = require('zod');
const { createWorkflowToolGate } = require('tool-argument-snapshot/temporal/workflow');

const { runToolCall, grantToolCall } = proxyActivities({ startToCloseTimeout: '1 minute' });
const approve = defineSignal('approve');

async function payments(prompt) {
  const answers = new Map();
  setHandler(approve, (answer) => {
    answers.set(answer.toolCallId, answer);
  });
  const gate = createWorkflowToolGate({
    tools: { transfer: tool({ description: 'Send money', inputSchema: z.object({ to: z.string(), cents: z.number().int().positive() }) }) },
    runToolCall,
    grantToolCall,
    approval: async (request) => {
      await condition(() => answers.has(request.toolCallId));
      return answers.get(request.toolCallId);
    },
  });
  const result = await generateText({ model: gate.model(temporalProvider.languageModel('gpt')), tools: gate.tools, stopWhen: stepCountIs(4), prompt });
  return result.text;
}

module.exports = { payments, approve };
