// Type tests of tool-argument-snapshot/ai (checked by adapters/ai/ai.test.js as CommonJS).
// Compiled from CommonJS and from ESM (a .cts and a .mts copy) by package/types.test.js.
import { generateText, tool, streamText } from 'ai';
import { z } from 'zod';
import { createApprovalGrants } from 'tool-argument-snapshot';
import { createToolGate, type AIToolPolicyInput } from 'tool-argument-snapshot/ai';

declare const model: Parameters<typeof generateText>[0]['model'] & object;

const tools = {
  transfer: tool({
    inputSchema: z.object({ to: z.string(), cents: z.number() }),
    execute: async ({ to, cents }) => `sent ${cents} to ${to}`,
  }),
};

const policy = (input: AIToolPolicyInput) => {
  const source: 'provider_text' | 'history' = input.argumentsSource;
  void source;
  return { decision: 'allow' as const, reason: input.toolName };
};

const gate = createToolGate({ agentName: 'a', tools, policy, grants: createApprovalGrants() });

async function main() {
  const result = await generateText({ model: gate.model(model as never), tools: gate.tools, toolApproval: gate.toolApproval, prompt: 'p' });
  for (const part of result.content) {
    if (part.type !== 'tool-approval-request') continue;
    const proposal = gate.proposalOf(part);
    if (proposal !== undefined) {
      const hash: string = proposal.proposalHash;
      void hash;
    }
    const response = await gate.approve(part, { ttlMs: 60_000 });
    const approved: true = response.approved;
    void approved;
  }
  const streamed = streamText({ model: gate.model(model as never), tools: gate.tools, toolApproval: gate.toolApproval, prompt: 'p' });
  // The UI message stream with the reasons of resumed approvals the gate denied: same chunk type.
  const ui = gate.uiMessageStream(streamed.toUIMessageStream());
  const same: typeof ui = streamed.toUIMessageStream();
  void same;
  // @ts-expect-error a UI message stream, not the result
  gate.uiMessageStream(streamed);
}
void main;

// @ts-expect-error agentName is required
createToolGate({ tools });
// @ts-expect-error a policy returns a decision
createToolGate({ agentName: 'a', tools, policy: () => 'allow' });
// @ts-expect-error approve grants options are uses / ttlMs / expiresAt
void gate.approve({} as never, { forever: true });
createToolGate({
  agentName: 'a',
  tools,
  onDecision: (decision, info) => {
    const resume: boolean = info.resume;
    void resume;
    // @ts-expect-error a decision is allow, deny or require_approval
    if (decision.decision === 'maybe') return;
  },
});
