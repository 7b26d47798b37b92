'use strict';
// One attempt of a tool-argument-snapshot/temporal activity in a process of its own, for
// adapters/temporal/temporal.test.js: @temporalio/testing's MockActivityEnvironment gives the activity
// the Info a worker would (workflow id, run id, activity id, attempt); grants and receipts
// live in one SQLite file; the tool's side effect is a line appended to a file outside this
// process. argv[2] is JSON: { info, call: 'run' | 'grant', request, receipts, sideEffects,
// mutate }. Environment: STORE (a SQLite file, or a postgres:// or redis:// URL with
// STORE_NAME its table or key prefix), APPROVAL_KEY, CRASH ('' | 'in_handler' | 'after_receipt':
// prints CRASH_POINT and waits to be killed), CLOCK_OFFSET_MS. Prints RESULT <json> or
// FAILURE <json> (the ApplicationFailure's type and whether Temporal would retry it).

const fs = require('node:fs');
const { MockActivityEnvironment } = require('@temporalio/testing');
const { tool } = require('ai');
const { z } = require('zod');
const { createApprovalGrants, createExecutionReceipts, createSqliteGrantStore, openGrantStore } = require('tool-argument-snapshot');
const { createToolActivities } = require('tool-argument-snapshot/temporal');

const { STORE, APPROVAL_KEY, CRASH = '' } = process.env;
const OFFSET = Number(process.env.CLOCK_OFFSET_MS || 0);
const input = JSON.parse(process.argv[2]);
const crashPoint = () => {
  process.stdout.write('CRASH_POINT\n');
  return new Promise(() => {});
};

(async () => {
  const opened = /^(postgres|redis)/.test(STORE)
    ? await openGrantStore(STORE, STORE.startsWith('redis') ? { prefix: process.env.STORE_NAME } : { table: process.env.STORE_NAME })
    : createSqliteGrantStore({ path: STORE });
  const store = { ...opened };
  store.completeReceipt = async (...args) => {
    const recorded = await opened.completeReceipt(...args);
    if (CRASH === 'after_receipt') await crashPoint();
    return recorded;
  };
  const grants = createApprovalGrants({ store, keys: [{ id: 'k1', secret: APPROVAL_KEY }] });
  let policyRuns = 0;
  let schemaRuns = 0;
  const options = {
    agentName: 'payments',
    grants,
    tools: {
      transfer: tool({
        inputSchema: z.object({ to: z.string(), cents: z.number().int().positive() }).refine(() => {
          schemaRuns += 1;
          return true;
        }),
        execute: async ({ to, cents }, { toolCallId }) => {
          fs.appendFileSync(input.sideEffects, `${JSON.stringify({ to, cents, toolCallId })}\n`);
          if (CRASH === 'in_handler') await crashPoint();
          return `sent ${cents} cents to ${to}`;
        },
      }),
    },
    policy: (policyInput) => {
      policyRuns += 1;
      if (input.mutate) policyInput.parsedArguments.cents = 1;
      return policyInput.parsedArguments.cents <= 1000
        ? { decision: 'allow', reason: 'small transfer' }
        : { decision: 'require_approval', reason: 'large transfer' };
    },
  };
  if (input.receipts === 'off') options.receipts = false;
  else if (input.receipts === 'kept') options.receipts = createExecutionReceipts({ store, keepResults: true, now: () => Date.now() + OFFSET });
  else if (input.receipts === 'clocked') options.receipts = createExecutionReceipts({ store, now: () => Date.now() + OFFSET });
  const activities = createToolActivities(options);

  const env = new MockActivityEnvironment(input.info);
  const fn = input.call === 'grant' ? activities.grantToolCall : activities.runToolCall;
  env
    .run(fn, input.request)
    .then(
      (result) => process.stdout.write(`RESULT ${JSON.stringify({ result, policyRuns, schemaRuns })}\n`),
      (error) =>
        process.stdout.write(`FAILURE ${JSON.stringify({ name: error.name, type: error.type, nonRetryable: error.nonRetryable, message: error.message })}\n`),
    )
    .finally(() => opened.close());
})();
