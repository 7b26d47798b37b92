'use strict';
// An agent on the OpenAI Agents SDK 0.20 whose tool calls go through
// tool-argument-snapshot/openai-agents. The model is the SDK's own ScriptedModel (no
// network): it asks for a small transfer, then a large one that needs approval, then
// answers. Lines marked `// gate` are all this package adds to the app.
// Run: node examples/openai-agents-agent.js

const { Agent, run, setTracingDisabled } = require('@openai/agents');
const { ScriptedModel, functionCall, assistantMessage } = require('@openai/agents/testing');
const { z } = require('zod');
const { createApprovalGrants } = require('tool-argument-snapshot'); // gate
const { createOpenAIAgentsGate } = require('tool-argument-snapshot/openai-agents'); // gate

setTracingDisabled(true);

// ---- The application ---------------------------------------------------------------

const Transfer = z.object({ to: z.string(), cents: z.number().int().positive(), memo: z.string().optional() });

function policy(input) {
  if (input.parsedArguments.cents <= 1000) return { decision: 'allow', reason: 'small transfer' };
  return { decision: 'require_approval', reason: 'large transfer' };
}

const gate = createOpenAIAgentsGate({ agentName: 'Payments assistant', policy, grants: createApprovalGrants() }); // gate

const transfer = gate.tool({
  // gate: was tool({ ..., needsApproval })
  name: 'transfer',
  description: 'Send money',
  parameters: Transfer,
  execute: ({ to, cents }) => `sent ${cents} cents to ${to}`,
});

function makeAgent(model) {
  return new Agent({ name: 'Payments assistant', instructions: 'Move money when asked.', model: gate.model(model), tools: [transfer] }); // gate: gate.model(model)
}

/** Runs the agent; `review` stands in for a human who sees exactly what will execute. */
async function runAgent(agent, question, review) {
  let result = await run(agent, question);
  while (result.interruptions.length > 0) {
    for (const { interruption, proposal } of gate.pending(result.state)) {
      // gate: was result.interruptions
      if (proposal !== undefined && review(proposal)) await gate.approve(result.state, interruption, proposal); // gate: was state.approve
      else result.state.reject(interruption);
    }
    result = await run(agent, result.state);
  }
  return result;
}

// ---- A scripted conversation ---------------------------------------------------------

async function main() {
  const model = new ScriptedModel([
    [functionCall('transfer', '{"to":"bob","cents":500,"memo":null}', { callId: 'call_1' })],
    [functionCall('transfer', '{"to":"carol","cents":250000,"memo":"rent"}', { callId: 'call_2' })],
    [assistantMessage('Both transfers are done.')],
  ]);
  const reviewed = [];
  const result = await runAgent(makeAgent(model), 'Pay bob 5 and carol 2500', (proposal) => {
    reviewed.push(proposal.argsCanonicalJson);
    return true;
  });
  for (const item of result.newItems) {
    if (item.type === 'tool_call_output_item') console.log(`${item.rawItem.callId}: ${item.rawItem.output.text}`);
  }
  console.log(`reviewed: ${reviewed.join(' ')}`);
  console.log(result.finalOutput);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
