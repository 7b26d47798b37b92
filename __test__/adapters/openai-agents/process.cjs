'use strict';
// One process of the cross-process approval test (adapters/openai-agents/processes.test.js):
//   node adapters/openai-agents/process.cjs DIR run      the agent server: runs until approval, stores the RunState
//   node adapters/openai-agents/process.cjs DIR wait     a fresh worker resumes before any decision
//   node adapters/openai-agents/process.cjs DIR review   the reviewer: grants the sealed proposal it was sent
//   node adapters/openai-agents/process.cjs DIR resume   a fresh worker: restores the RunState and resumes it
// Every process builds its own grants on the same durable store (SQLite when the package has
// createSqliteGrantStore, else a JSON file store below) and the same key ring, and prints one
// JSON line.

const fs = require('node:fs');
const path = require('node:path');
const { Agent, run, RunState, setTracingDisabled } = require('@openai/agents');
const { ScriptedModel, functionCall, assistantMessage } = require('@openai/agents/testing');
const { z } = require('zod');
const api = require('tool-argument-snapshot');
const { createOpenAIAgentsGate } = require('tool-argument-snapshot/openai-agents');

setTracingDisabled(true);

const [dir, mode] = process.argv.slice(2);
const KEYS = [{ id: 'k1', secret: 'a secret of at least thirty-two bytes, for tests only' }];
const AGENT = 'Payments';

/**
 * A durable grant store in one JSON file, for a package without createSqliteGrantStore:
 * each operation locks the file (an exclusive lock file), reads, writes and unlocks.
 */
function fileStore(file) {
  const lock = `${file}.lock`;
  function locked(fn) {
    for (;;) {
      try {
        fs.closeSync(fs.openSync(lock, 'wx'));
        break;
      } catch (error) {
        if (error.code !== 'EEXIST') throw error;
      }
    }
    try {
      const data = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { grants: [], nonces: {}, proposals: {} };
      const result = fn(data);
      fs.writeFileSync(file, JSON.stringify(data));
      return result;
    } finally {
      fs.rmSync(lock, { force: true });
    }
  }
  const same = (r, q) => r.agentName === q.agentName && r.toolName === q.toolName && r.proposalHash === q.proposalHash && r.scope === q.scope;
  const live = (r, now) => r.uses > 0 && (r.expiresAt === null || now < r.expiresAt);
  return {
    put: (record, now) =>
      locked((data) => {
        if (record.nonce !== null) {
          const seen = data.nonces[record.nonce];
          if (seen !== undefined && (seen === null || now < seen)) return false;
          data.nonces[record.nonce] = record.nonceExpiresAt;
        }
        data.grants.push({ ...record });
        return true;
      }),
    has: (query, now) => locked((data) => data.grants.some((r) => same(r, query) && live(r, now))),
    take: (query, now) =>
      locked((data) => {
        const found = data.grants.find((r) => same(r, query) && live(r, now));
        if (found === undefined) return false;
        found.uses -= 1;
        data.grants = data.grants.filter((r) => r.uses > 0);
        return true;
      }),
    delete: (query) =>
      locked((data) => {
        data.grants = data.grants.filter((r) => !same(r, query));
      }),
    putProposal: (key, json, expiresAt) =>
      locked((data) => {
        data.proposals[key] = { json, expiresAt };
      }),
    getProposal: (key, now) =>
      locked((data) => {
        const kept = data.proposals[key];
        return kept !== undefined && (kept.expiresAt === null || now < kept.expiresAt) ? kept.json : null;
      }),
    deleteProposal: (key) =>
      locked((data) => {
        delete data.proposals[key];
      }),
  };
}

function grantsOnDisk() {
  const store =
    typeof api.createSqliteGrantStore === 'function'
      ? api.createSqliteGrantStore({ path: path.join(dir, 'grants.sqlite') })
      : fileStore(path.join(dir, 'grants.json'));
  return { grants: api.createApprovalGrants({ store, keys: KEYS }), store };
}

/** The app: a gate, a transfer tool, an agent on a scripted model. */
function app(grants, steps) {
  const executed = [];
  const gate = createOpenAIAgentsGate({
    agentName: AGENT,
    grants,
    grantScope: (runContext) => `user:${runContext.context.userId}`,
    policy: (input) =>
      input.parsedArguments.cents <= 100 ? { decision: 'allow', reason: 'small transfer' } : { decision: 'require_approval', reason: 'large transfer' },
  });
  const transfer = gate.tool({
    name: 'transfer',
    description: 'Send money',
    parameters: z.object({ to: z.string(), cents: z.number().int() }),
    execute: (args) => {
      executed.push(args);
      return `sent ${args.cents} to ${args.to}`;
    },
  });
  const agent = new Agent({ name: AGENT, model: gate.model(new ScriptedModel(steps)), tools: [transfer] });
  return { gate, agent, executed };
}

function outputs(result) {
  const out = {};
  for (const item of result.newItems) {
    if (item.type !== 'tool_call_output_item') continue;
    const output = item.rawItem.output;
    out[item.rawItem.callId] = typeof output === 'string' ? output : output.text;
  }
  return out;
}

async function main() {
  const { grants, store } = grantsOnDisk();
  const stateFile = path.join(dir, 'thread.json');
  const sealedFile = path.join(dir, 'sealed.json');
  let report;
  if (mode === 'run') {
    const { gate, agent, executed } = app(grants, [
      [
        functionCall('transfer', '{"to":"bob","cents":50}', { callId: 'call_1' }),
        functionCall('transfer', '{"to":"carol","cents":250000}', { callId: 'call_2' }),
      ],
      [assistantMessage('done')],
    ]);
    const result = await run(agent, 'Pay bob and carol', { context: { userId: 'alice' } });
    fs.writeFileSync(stateFile, result.state.toString()); // the app's thread store
    const pending = gate.pending(result.state);
    fs.writeFileSync(sealedFile, JSON.stringify(pending.map((p) => p.sealed))); // sent to the reviewer
    report = { executed, outputs: outputs(result), pending: pending.map((p) => p.interruption.rawItem.callId), sealed: pending.map((p) => p.sealed) };
  } else if (mode === 'review') {
    const [sealed] = JSON.parse(fs.readFileSync(sealedFile, 'utf8'));
    const forged = { ...sealed, argsCanonicalJson: '{"cents":99999999,"to":"carol"}' };
    const refused = await grants.grant(forged).then(
      () => 'granted',
      (error) => error.code,
    );
    const record = await grants.grant(sealed);
    report = { refused, scope: record.scope, uses: record.uses, argsCanonicalJson: record.argsCanonicalJson };
  } else if (mode === 'wait') {
    // A restart before anyone decided: the call stays pending, nothing runs, nothing throws.
    const { gate, agent, executed } = app(grants, [[assistantMessage('done')]]);
    const state = await RunState.fromString(agent, fs.readFileSync(stateFile, 'utf8'));
    const result = await run(agent, state);
    report = { executed, interruptions: result.interruptions.map((i) => i.rawItem.callId), pending: gate.pending(result.state).map((p) => p.sealed) };
  } else if (mode === 'resume') {
    const { gate, agent, executed } = app(grants, [[assistantMessage('done')]]);
    const state = await RunState.fromString(agent, fs.readFileSync(stateFile, 'utf8'));
    const pending = gate.pending(state);
    // The grant exists (the reviewer made it): the SDK's own approval is enough now.
    for (const { interruption } of pending) state.approve(interruption);
    const result = await run(agent, state);
    report = { executed, outputs: outputs(result), pending: pending.map((p) => p.proposal && p.proposal.argsCanonicalJson), final: result.finalOutput };
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  if (typeof store.close === 'function') await store.close();
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
