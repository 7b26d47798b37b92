// A Restate service of the AI SDK with tool-argument-snapshot/restate, for
// adapters/restate/restate.test.js: the real SDK endpoint (HTTP/2 on 127.0.0.1), the real
// @restatedev/vercel-ai-middleware (durableCalls), the SDK's mock model, grants and receipts
// in one SQLite file. The tool's side effect is a line appended to a file outside this
// process. Environment:
//   PORT             the endpoint's port (127.0.0.1)
//   STORE            the grants' and receipts' store: a SQLite file, or a postgres:// or
//                    redis:// URL (STORE_NAME: its table or key prefix)
//   APPROVAL_KEY     the grants' sealing secret
//   CRASH            '' | 'in_handler' (after the side effect, inside the tool) |
//                    'after_receipt' (after the receipt recorded the outcome, before the step
//                    completes): this process then prints CRASH_POINT and waits to be killed
// Prints READY once listening, APPROVAL <json> for each approval request.

import http2 from 'node:http2';
import fs from 'node:fs';
import * as restate from '@restatedev/restate-sdk';
import { durableCalls } from '@restatedev/vercel-ai-middleware';
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { createApprovalGrants, createExecutionReceipts, createSqliteGrantStore, openGrantStore } from 'tool-argument-snapshot';
import { createRestateToolGate } from 'tool-argument-snapshot/restate';

const { PORT, STORE, APPROVAL_KEY, CRASH = '' } = process.env;
const hang = () => new Promise(() => {});
const crashPoint = async () => {
  process.stdout.write('CRASH_POINT\n');
  await hang();
};

const opened = /^(postgres|redis)/.test(STORE)
  ? await openGrantStore(STORE, STORE.startsWith('redis') ? { prefix: process.env.STORE_NAME } : { table: process.env.STORE_NAME })
  : createSqliteGrantStore({ path: STORE });
// The same store, with a pause after a receipt records its outcome (CRASH=after_receipt).
const store = { ...opened };
store.completeReceipt = async (...args) => {
  const recorded = await opened.completeReceipt(...args);
  if (CRASH === 'after_receipt') await crashPoint();
  return recorded;
};
const grants = createApprovalGrants({ store, keys: [{ id: 'k1', secret: APPROVAL_KEY }] });
const receiptsBy = { kept: createExecutionReceipts({ store, keepResults: true }) };

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** The provider: the scenario's tool calls for a question, text once tools answered. */
function provider(calls) {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      if (prompt.at(-1).role === 'tool') {
        return { content: [{ type: 'text', text: 'Done.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      }
      return {
        content: calls.map(([toolCallId, input]) => ({ type: 'tool-call', toolCallId, toolName: 'transfer', input })),
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
}

const agent = restate.service({
  name: 'agent',
  handlers: {
    run: async (ctx, scenario) => {
      let policyRuns = 0;
      let schemaRuns = 0;
      const tools = {
        transfer: tool({
          inputSchema: z.object({ to: z.string(), cents: z.number().int().positive() }).refine(() => {
            schemaRuns += 1;
            return true;
          }),
          execute: async ({ to, cents }) => {
            fs.appendFileSync(scenario.sideEffects, `${JSON.stringify({ to, cents })}\n`);
            if (CRASH === 'in_handler') await crashPoint();
            return `sent ${cents} cents to ${to}`;
          },
        }),
      };
      const options = {
        agentName: 'payments',
        tools,
        grants,
        policy: (input) => {
          policyRuns += 1;
          if (scenario.mutate) input.parsedArguments.cents = 1;
          return input.parsedArguments.cents <= 1000
            ? { decision: 'allow', reason: 'small transfer' }
            : { decision: 'require_approval', reason: 'large transfer' };
        },
        approvals: {
          request: async (request) => {
            process.stdout.write(`APPROVAL ${JSON.stringify(request)}\n`);
          },
        },
      };
      if (scenario.receipts === 'off') options.receipts = false;
      else if (scenario.receipts !== 'default') options.receipts = receiptsBy[scenario.receipts];
      const gate = createRestateToolGate(ctx, options);
      const model = gate.model(wrapLanguageModel({ model: provider(scenario.calls), middleware: durableCalls(ctx) }));
      const result = await generateText({ model, tools: gate.tools, stopWhen: stepCountIs(4), prompt: 'pay' });
      const answers = result.steps
        .flatMap((s) => s.content)
        .flatMap((part) => {
          if (part.type === 'tool-result') return [{ id: part.toolCallId, output: part.output }];
          if (part.type === 'tool-error') {
            const error = part.error;
            let validation;
            for (let e = error; e != null; e = e.cause) if (e.name === 'ToolArgumentsValidationError') validation = `${e.stage}/${e.code}`;
            return [
              {
                id: part.toolCallId,
                error: { name: error.name, code: typeof error.code === 'string' ? error.code : undefined, reason: error.reason, validation },
              },
            ];
          }
          return [];
        });
      return { text: result.text, answers, policyRuns, schemaRuns, invocationId: gate.invocationId };
    },
  },
});

const server = http2.createServer(restate.createEndpointHandler({ services: [agent] }));
server.listen(Number(PORT), '127.0.0.1', () => process.stdout.write('READY\n'));
