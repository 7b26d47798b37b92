'use strict';
// An agent loop of its own on LangChain.js core 1.x whose tool calls go through
// tool-argument-snapshot/langchain. The model is scripted (no network) and answers the
// way @langchain/openai's ChatOpenAI does: the provider's argument strings in
// additional_kwargs.tool_calls, tool_calls parsed from them. For createAgent, see
// docs/adapters/langchain.md (toolGateMiddleware). Run: node examples/langchain-agent.js

const { BaseChatModel } = require('@langchain/core/language_models/chat_models');
const { AIMessage, HumanMessage, ToolMessage } = require('@langchain/core/messages');
const { tool } = require('@langchain/core/tools');
const { parseToolCall } = require('@langchain/core/output_parsers/openai_tools');
const { z } = require('zod');
const { createApprovalGrants } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/langchain');

/** The provider, scripted: each call answers with the next turn's tool calls (or text). */
class ScriptedChatOpenAI extends BaseChatModel {
  constructor(turns) {
    super({});
    this.turns = turns;
  }
  _llmType() {
    return 'scripted-openai';
  }
  bindTools() {
    return this;
  }
  async _generate() {
    const turn = this.turns.shift() ?? [];
    const raw = turn.map(([id, name, text]) => ({ id, type: 'function', function: { name, arguments: text } }));
    const message = new AIMessage({
      content: raw.length === 0 ? 'Done.' : '',
      additional_kwargs: raw.length === 0 ? {} : { tool_calls: raw },
      tool_calls: raw.map((call) => parseToolCall(call, { returnId: true })),
    });
    return { generations: [{ text: '', message }] };
  }
}

// ---- The application ---------------------------------------------------------------

const transfer = tool(async ({ to, cents }) => `sent ${cents} cents to ${to}`, {
  name: 'transfer',
  description: 'Send money',
  schema: z.object({ to: z.string(), cents: z.number().int().positive() }),
});

const policy = {
  transfer: (input) =>
    input.parsedArguments.cents <= 1000 ? { decision: 'allow', reason: 'small transfer' } : { decision: 'require_approval', reason: 'large transfer' },
};

const grants = createApprovalGrants();
const gate = createToolGate({ agentName: 'Payments assistant', tools: [transfer], policy, grants });

/** The agent loop: model, tools, model... `approve` stands in for a human reviewer. */
async function runAgent(model, question, approve) {
  const messages = [new HumanMessage(question)];
  for (let step = 0; step < 5; step++) {
    const ai = await model.invoke(messages);
    messages.push(ai);
    if (ai.tool_calls.length === 0) break;
    const { messages: answers, pending } = await gate.run(ai);
    for (const proposal of pending) {
      if (await approve(proposal)) {
        await gate.approve(proposal);
        answers.push(...(await gate.run(ai, { toolCallIds: [proposal.toolCallId] })).messages);
      } else {
        answers.push(gate.decline(proposal, 'declined by a reviewer'));
      }
    }
    messages.push(...answers);
  }
  return messages;
}

async function main() {
  const model = new ScriptedChatOpenAI([
    [
      ['call_1', 'transfer', '{"to":"alice","cents":500}'],
      ['call_2', 'transfer', '{"to":"bob","cents":250000}'],
      ['call_3', 'transfer', '{"to":"eve","cents":5,"cents":99999999}'],
    ],
    [],
  ]);
  const approve = (proposal) => {
    console.log(`reviewer sees ${proposal.argsCanonicalJson} (${proposal.proposalHash.slice(0, 16)}…)`);
    return true;
  };
  const messages = await runAgent(model, 'Pay alice and bob', approve);
  for (const message of messages) {
    if (ToolMessage.isInstance(message)) console.log(`${message.tool_call_id} ${message.status}: ${message.content}`);
  }
  return messages;
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}

module.exports = { main, runAgent, ScriptedChatOpenAI };
