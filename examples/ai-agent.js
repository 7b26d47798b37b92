'use strict';
// An agent on the Vercel AI SDK 7 whose tool calls go through tool-argument-snapshot/ai.
// The model is the SDK's own MockLanguageModelV4 (no network), answering with the raw
// argument strings a provider sends. Run: node examples/ai-agent.js

const { generateText, tool, stepCountIs } = require('ai');
const { MockLanguageModelV4 } = require('ai/test');
const { z } = require('zod');
const { createApprovalGrants } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/ai');

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** The provider, scripted: each model call answers with the next turn's tool calls (or text). */
function scriptedModel(turns) {
  return new MockLanguageModelV4({
    doGenerate: async () => {
      const calls = turns.shift() ?? [];
      if (calls.length === 0) return { content: [{ type: 'text', text: 'Done.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE };
      return {
        content: calls.map(([toolCallId, toolName, input]) => ({ type: 'tool-call', toolCallId, toolName, input })),
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: USAGE,
      };
    },
  });
}

// ---- The application ---------------------------------------------------------------

const tools = {
  transfer: tool({
    description: 'Send money',
    inputSchema: z.object({ to: z.string(), cents: z.number().int().positive() }),
    execute: async ({ to, cents }) => `sent ${cents} cents to ${to}`,
  }),
};

function policy(input) {
  if (input.parsedArguments.cents <= 1000) return { decision: 'allow', reason: 'small transfer' };
  return { decision: 'require_approval', reason: 'large transfer' };
}

const grants = createApprovalGrants();
const gate = createToolGate({ agentName: 'Payments assistant', tools, policy, grants });

/** The agent loop, with the SDK's approval round trip; `approve` stands in for a human reviewer. */
async function runAgent(model, question, approve) {
  const messages = [{ role: 'user', content: question }];
  for (let round = 0; round < 3; round++) {
    const result = await generateText({ model: gate.model(model), tools: gate.tools, toolApproval: gate.toolApproval, stopWhen: stepCountIs(5), messages });
    messages.push(...result.responseMessages);
    const requests = result.content.filter((part) => part.type === 'tool-approval-request');
    if (requests.length === 0) break;
    const answers = [];
    for (const request of requests) {
      if (await approve(gate.proposalOf(request))) answers.push(await gate.approve(request));
      else answers.push({ type: 'tool-approval-response', approvalId: request.approvalId, approved: false, reason: 'declined by a reviewer' });
    }
    messages.push({ role: 'tool', content: answers });
  }
  return messages;
}

async function main() {
  const model = scriptedModel([
    [
      ['call_1', 'transfer', '{"to":"alice","cents":500}'],
      ['call_2', 'transfer', '{"to":"bob","cents":250000}'],
      ['call_3', 'transfer', '{"to":"eve","cents":5,"cents":99999999}'],
    ],
  ]);
  const approve = (proposal) => {
    console.log(`reviewer sees ${proposal.argsCanonicalJson} (${proposal.proposalHash.slice(0, 16)}…)`);
    return true;
  };
  const messages = await runAgent(model, 'Pay alice and bob', approve);
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result') console.log(`${part.toolCallId} ${part.output.type}: ${part.output.value}`);
    }
  }
  return messages;
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}

module.exports = { main, runAgent, scriptedModel };
