'use strict';
// Once per tool call under LangGraph time travel (issue 25, item 5 for LangChain): the real
// `langchain` createAgent (tool versions v1 and v2) and @langchain/langgraph's checkpointers,
// a scripted ChatOpenAI-shaped model that answers from the conversation (a replay asks it the
// same question, it gives the same calls), every execution of the tools logged. Re-invoking
// from an earlier checkpoint and re-resuming an interrupted checkpoint run the allowed
// payment once across all of them; `receipts: false` shows what ran before (twice).
// MemorySaver in this process; PostgresSaver (@langchain/langgraph-checkpoint-postgres) with
// grants and receipts on createPostgresGrantStore, one process per step (TAS_TEST_PG_URL).
// Also: createToolGate inside a LangGraph node, and what a review listing shows (issue 26).

const CHILD = process.env.TAS_LC_RECEIPTS_CHILD;

const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { createAgent, tool } = require('langchain');
const { MemorySaver, Command, StateGraph, MessagesAnnotation, START, END } = require('@langchain/langgraph');
const { BaseChatModel } = require('@langchain/core/language_models/chat_models');
const { AIMessage, ToolMessage } = require('@langchain/core/messages');
const { parseToolCall } = require('@langchain/core/output_parsers/openai_tools');
const { z } = require('zod');

const { createApprovalGrants, createExecutionReceipts } = require('tool-argument-snapshot');
const { createToolGate, toolGateMiddleware } = require('tool-argument-snapshot/langchain');

const AGENT = 'Payments assistant';
const KEYS = [{ id: 'k1', secret: 'a secret of at least thirty-two bytes' }];

/**
 * Answers as ChatOpenAI does (the provider's argument text in additional_kwargs, tool_calls
 * parsed by core's parseToolCall), from the conversation: tool calls while no tool has
 * answered, then text. A replay of the same conversation gets the same calls.
 */
class ScriptedChatOpenAI extends BaseChatModel {
  constructor(calls) {
    super({});
    this.calls = calls;
  }

  _llmType() {
    return 'scripted-openai';
  }

  bindTools() {
    return this;
  }

  async _generate(messages) {
    if (messages.some((m) => ToolMessage.isInstance(m))) return { generations: [{ text: '', message: new AIMessage('Done.') }] };
    const raw = this.calls.map(([id, name, text]) => ({ id, type: 'function', function: { name, arguments: text } }));
    const message = new AIMessage({
      content: '',
      additional_kwargs: { tool_calls: raw },
      tool_calls: raw.map((call) => parseToolCall(call, { returnId: true })),
    });
    return { generations: [{ text: '', message }] };
  }
}

/** A transfer tool that logs every execution (to a file when given one: several processes). */
function transferTool(log) {
  return tool(
    async ({ to, cents }) => {
      log([to, cents, process.pid]);
      return `sent ${cents} cents to ${to}`;
    },
    { name: 'transfer', description: 'Send money', schema: z.object({ to: z.string(), cents: z.number().int().positive() }) },
  );
}

const policy = {
  transfer: ({ parsedArguments }) =>
    parsedArguments.cents <= 1000 ? { decision: 'allow', reason: 'small transfer' } : { decision: 'require_approval', reason: 'large transfer' },
};

const ASKING = [
  ['call_1', 'transfer', '{"to":"alice","cents":500}'],
  ['call_2', 'transfer', '{"to":"bob","cents":250000}'],
];
const ALLOWED_ONLY = [
  ['call_1', 'transfer', '{"to":"alice","cents":500}'],
  ['call_3', 'transfer', '{"to":"carol","cents":700}'],
];

function toolAnswers(result) {
  return result.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, String(m.content)]);
}

/** The checkpoints of a thread, newest first. */
async function history(agent, config) {
  const states = [];
  for await (const state of agent.graph.getStateHistory(config)) states.push(state);
  return states;
}

/** The newest checkpoint whose tasks wait in an interrupt (the one a resume answers). */
async function interruptedCheckpoint(agent, config) {
  const found = (await history(agent, config)).find((s) => s.tasks.some((task) => task.interrupts.length > 0));
  assert.ok(found, 'a checkpoint with an interrupt');
  return found.config;
}

/** The approve-all resume of an invoke's interrupts (LangGraph's id map). */
function approveAll(interrupts) {
  return new Command({ resume: Object.fromEntries(interrupts.map((i) => [i.id, { decisions: [{ type: 'approve' }] }])) });
}

function memoryAgent(version, { receipts, calls = ASKING, grants = createApprovalGrants({ keys: KEYS }) } = {}) {
  const runs = [];
  const transfer = transferTool((entry) => runs.push(entry.slice(0, 2)));
  const options = { agentName: AGENT, tools: [transfer], grants, policy };
  if (receipts !== undefined) options.receipts = receipts;
  const agent = createAgent({
    model: new ScriptedChatOpenAI(calls),
    tools: [transfer],
    middleware: [toolGateMiddleware(options)],
    checkpointer: new MemorySaver(),
    version,
  });
  return { agent, runs };
}

let threads = 0;
function thread(name) {
  threads += 1;
  return { configurable: { thread_id: `${name}-${process.pid}-${Date.now()}-${threads}` } };
}

/** Collects the process warnings emitted while `fn` runs. */
async function warningsDuring(fn) {
  // A warning is emitted on a later tick: let the ones of earlier tests arrive first.
  await new Promise((resolve) => setImmediate(resolve));
  const warnings = [];
  const onWarning = (warning) => warnings.push(warning);
  process.on('warning', onWarning);
  try {
    await fn();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', onWarning);
  }
  return warnings;
}

/** A grants store in this process whose kept proposals a test can edit (`proposals`: key -> JSON text). */
function editableStore() {
  const grants = [];
  const nonces = new Set();
  const proposals = new Map();
  const matches = (r, q) => r.agentName === q.agentName && r.toolName === q.toolName && r.proposalHash === q.proposalHash && r.scope === q.scope;
  const live = (r, now) => r.uses > 0 && (r.expiresAt === null || now < r.expiresAt);
  return {
    proposals,
    put(record) {
      if (record.nonce !== null) {
        if (nonces.has(record.nonce)) return false;
        nonces.add(record.nonce);
      }
      grants.push({ ...record });
      return true;
    },
    has: (query, now) => grants.some((r) => matches(r, query) && live(r, now)),
    take(query, now) {
      const found = grants.find((r) => matches(r, query) && live(r, now));
      if (found === undefined) return false;
      found.uses -= 1;
      return true;
    },
    putProposal(key, json) {
      proposals.set(key, json);
    },
    getProposal: (key) => proposals.get(key) ?? null,
    deleteProposal(key) {
      proposals.delete(key);
    },
  };
}

/** Rewrites the kept proposal whose text holds `from` (its arguments), as whoever can write the store could. */
function editKept(store, from, to) {
  let edited = 0;
  for (const [key, json] of store.proposals) {
    if (json.includes(from)) {
      store.proposals.set(key, json.split(from).join(to));
      edited += 1;
    }
  }
  assert.equal(edited, 1, 'one kept proposal edited');
}

// ---- A step of the PostgreSQL scenario, in a process of its own -----------------------

async function child() {
  const { Pool } = require('pg');
  const { PostgresSaver } = require('@langchain/langgraph-checkpoint-postgres');
  const { createPostgresGrantStore } = require('tool-argument-snapshot');
  const { dir, url, table, threadId, version, step, receiptsOff, grantsStore } = JSON.parse(CHILD);
  const warnings = [];
  process.on('warning', (warning) => warnings.push(warning.code));
  // The grants' store: PostgreSQL with explicit receipts on it (or none), or with no
  // receipts option at all a durable store of helpers/durable-stores.js (SQLite or PostgreSQL),
  // whose receipts the gate then uses by default.
  const pool = grantsStore === undefined ? new Pool({ connectionString: url, max: 2 }) : undefined;
  const store = grantsStore === undefined ? createPostgresGrantStore({ pool, table }) : await require('../../helpers/durable-stores').openDurable(grantsStore);
  if (grantsStore === undefined) await store.migrate();
  const checkpointer = PostgresSaver.fromConnString(url);
  await checkpointer.setup();
  const transfer = transferTool((entry) => fs.appendFileSync(path.join(dir, 'executed.log'), `${JSON.stringify(entry)}\n`));
  const grants = createApprovalGrants({ store, keys: KEYS });
  const gateOptions = { agentName: AGENT, tools: [transfer], grants, policy };
  if (grantsStore === undefined) gateOptions.receipts = receiptsOff ? false : createExecutionReceipts({ store });
  const config = { configurable: { thread_id: threadId } };
  if (step === 'tool-gate') {
    // createToolGate in a graph of the application's own: the model's message handed to gate.run.
    const gate = createToolGate(gateOptions);
    const model = new ScriptedChatOpenAI(ALLOWED_ONLY);
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('model', async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode('tools', async (state) => ({ messages: (await gate.run(state.messages.at(-1))).messages }))
      .addEdge(START, 'model')
      .addEdge('model', 'tools')
      .addEdge('tools', END)
      .compile({ checkpointer });
    let answers;
    try {
      let beforeTools;
      for await (const state of graph.getStateHistory(config)) if (state.next.includes('tools')) beforeTools = state;
      const done =
        beforeTools === undefined ? await graph.invoke({ messages: [{ role: 'user', content: 'pay' }] }, config) : await graph.invoke(null, beforeTools.config);
      answers = toolAnswers(done).slice(-2);
    } finally {
      await checkpointer.end();
      await store.close();
    }
    await new Promise((resolve) => setImmediate(resolve));
    process.stdout.write(JSON.stringify({ answers, warnings }));
    return;
  }
  const agent = createAgent({
    model: new ScriptedChatOpenAI(ASKING),
    tools: [transfer],
    middleware: [toolGateMiddleware(gateOptions)],
    checkpointer,
    version,
  });
  let result;
  try {
    if (step === 'ask') {
      result = await agent.invoke({ messages: [{ role: 'user', content: 'Pay alice and bob' }] }, config);
      fs.writeFileSync(path.join(dir, 'interrupts.json'), JSON.stringify(result.__interrupt__.map((i) => ({ id: i.id }))));
    } else {
      const interrupts = JSON.parse(fs.readFileSync(path.join(dir, 'interrupts.json'), 'utf8'));
      // resume: the thread's head; re-resume: the checkpoint that waited in the interrupt.
      const at = step === 'resume' ? config : await interruptedCheckpoint(agent, config);
      result = await agent.invoke(approveAll(interrupts), at);
    }
  } finally {
    await checkpointer.end();
    await store.close();
    if (pool !== undefined) await pool.end();
  }
  await new Promise((resolve) => setImmediate(resolve));
  process.stdout.write(JSON.stringify({ answers: toolAnswers(result), warnings }));
}

if (CHILD) {
  child().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
} else {
  describe('toolGateMiddleware: LangGraph time travel runs each call once (MemorySaver)', () => {
    for (const version of ['v1', 'v2']) {
      test(`tool version ${version}: re-resuming the interrupted checkpoint runs nothing twice, and the replayed approval is the receipt's code, never approved_without_grant`, async () => {
        const { agent, runs } = memoryAgent(version);
        const config = thread(`re-resume-${version}`);
        const asked = await agent.invoke({ messages: [{ role: 'user', content: 'Pay alice and bob' }] }, config);
        const interrupted = await interruptedCheckpoint(agent, config);
        const resumed = await agent.invoke(approveAll(asked.__interrupt__), config);
        assert.deepEqual(toolAnswers(resumed), [
          ['call_1', 'sent 500 cents to alice'],
          ['call_2', 'sent 250000 cents to bob'],
        ]);
        assert.deepEqual(runs, [
          ['alice', 500],
          ['bob', 250000],
        ]);

        let again;
        const warnings = await warningsDuring(async () => {
          again = await agent.invoke(approveAll(asked.__interrupt__), interrupted);
        });
        assert.deepEqual(
          runs,
          [
            ['alice', 500],
            ['bob', 250000],
          ],
          'the allowed transfer (and the approved one) ran once across both resumes',
        );
        assert.deepEqual(toolAnswers(again), [
          ['call_1', 'The tool call was denied [call_already_executed].'],
          ['call_2', 'The tool call was denied [call_already_executed].'],
        ]);
        assert.deepEqual(
          warnings.filter((w) => w.code === 'TAS_APPROVED_WITHOUT_GRANT'),
          [],
          "a replay is not an approval given the framework's own way",
        );
      });

      test(`tool version ${version}: re-invoking from earlier checkpoints (before the tools, before the model) runs each allowed call once`, async () => {
        const { agent, runs } = memoryAgent(version, { calls: ALLOWED_ONLY });
        const config = thread(`re-invoke-${version}`);
        const first = await agent.invoke({ messages: [{ role: 'user', content: 'Pay alice and carol' }] }, config);
        assert.deepEqual(toolAnswers(first), [
          ['call_1', 'sent 500 cents to alice'],
          ['call_3', 'sent 700 cents to carol'],
        ]);
        const states = await history(agent, config);
        const beforeTools = states.find((s) => s.next.includes('tools'));
        const beforeModel = states.find((s) => s.next.includes('model_request') && !s.values.messages.some((m) => AIMessage.isInstance(m)));
        assert.ok(beforeTools && beforeModel);
        const replayed = await agent.invoke(null, beforeTools.config);
        await agent.invoke(null, beforeModel.config);
        assert.deepEqual(
          runs,
          [
            ['alice', 500],
            ['carol', 700],
          ],
          'each call ran once',
        );
        assert.deepEqual(
          toolAnswers(replayed).map(([id, content]) => [id, /call_already_executed/.test(content)]),
          [
            ['call_1', true],
            ['call_3', true],
          ],
        );
      });

      test(`tool version ${version}: receipts: false is what ran before: the re-resume and the re-invoke run the allowed transfer again`, async () => {
        const { agent, runs } = memoryAgent(version, { receipts: false });
        const config = thread(`off-${version}`);
        const asked = await agent.invoke({ messages: [{ role: 'user', content: 'Pay alice and bob' }] }, config);
        const interrupted = await interruptedCheckpoint(agent, config);
        await agent.invoke(approveAll(asked.__interrupt__), config);
        const again = await agent.invoke(approveAll(asked.__interrupt__), interrupted);
        assert.deepEqual(
          runs,
          [
            ['alice', 500],
            ['bob', 250000],
            ['alice', 500],
          ],
          'the allowed transfer ran twice',
        );
        // The approval is spent: without receipts the replay reads as an approval without a grant.
        assert.match(toolAnswers(again)[1][1], /approved_without_grant/);

        const other = memoryAgent(version, { receipts: false, calls: ALLOWED_ONLY });
        const otherConfig = thread(`off-invoke-${version}`);
        await other.agent.invoke({ messages: [{ role: 'user', content: 'Pay alice and carol' }] }, otherConfig);
        const beforeTools = (await history(other.agent, otherConfig)).find((s) => s.next.includes('tools'));
        await other.agent.invoke(null, beforeTools.config);
        assert.equal(other.runs.length, 4, 'both calls ran twice');
      });
    }

    test("with keepResults the replay answers with the kept result: the model sees the transfer's own answer, the tool ran once", async () => {
      const receipts = createExecutionReceipts({ keepResults: true });
      const { agent, runs } = memoryAgent('v2', { receipts, calls: ALLOWED_ONLY });
      const config = thread('kept');
      await agent.invoke({ messages: [{ role: 'user', content: 'Pay alice and carol' }] }, config);
      const beforeTools = (await history(agent, config)).find((s) => s.next.includes('tools'));
      const replayed = await agent.invoke(null, beforeTools.config);
      assert.deepEqual(toolAnswers(replayed), [
        ['call_1', 'sent 500 cents to alice'],
        ['call_3', 'sent 700 cents to carol'],
      ]);
      assert.equal(runs.length, 2);
      const receipt = await receipts.get({ agentName: AGENT, runId: config.configurable.thread_id, toolCallId: 'call_1' });
      assert.equal(receipt.status, 'completed', "the key is the agent, the LangGraph thread id and the provider's call id");
    });

    test('another thread with the same call ids runs: the key is scoped by the thread', async () => {
      const grants = createApprovalGrants();
      const { agent, runs } = memoryAgent('v2', { calls: ALLOWED_ONLY, grants });
      await agent.invoke({ messages: [{ role: 'user', content: 'pay' }] }, thread('a'));
      await agent.invoke({ messages: [{ role: 'user', content: 'pay' }] }, thread('b'));
      assert.equal(runs.length, 4);
    });

    test('arguments edited in the checkpoint after the approval was asked: proposal_changed, nothing runs (v2)', async () => {
      const saver = new MemorySaver();
      const runs = [];
      const transfer = transferTool((entry) => runs.push(entry.slice(0, 2)));
      const agent = createAgent({
        model: new ScriptedChatOpenAI([['call_2', 'transfer', '{"to":"bob","cents":250000}']]),
        tools: [transfer],
        middleware: [toolGateMiddleware({ agentName: AGENT, tools: [transfer], grants: createApprovalGrants({ keys: KEYS }), policy })],
        checkpointer: saver,
      });
      const config = thread('edited');
      const asked = await agent.invoke({ messages: [{ role: 'user', content: 'pay bob' }] }, config);
      let changed = 0;
      const rewrite = (node) => {
        for (const key of Object.keys(node)) {
          const value = node[key];
          if (value instanceof Uint8Array) {
            const text = new TextDecoder().decode(value);
            const next = text.split('250000').join('990000');
            if (next !== text) {
              changed += 1;
              node[key] = new TextEncoder().encode(next);
            }
          } else if (value !== null && typeof value === 'object') rewrite(value);
        }
      };
      rewrite(saver.storage);
      rewrite(saver.writes);
      assert.ok(changed > 0);
      const done = await agent.invoke(approveAll(asked.__interrupt__), config);
      assert.deepEqual(runs, []);
      assert.deepEqual(
        toolAnswers(done).map(([id, content]) => [id, /proposal_changed/.test(content)]),
        [['call_2', true]],
      );
    });
  });

  describe('toolGateMiddleware: what a reviewer is shown (pending)', () => {
    test("pending(state) lists the kept, verified proposals of the interrupts, not the checkpoint's text; a record edited in the store is refused with its code, and approving it runs nothing (its code, no approved_without_grant warning)", async () => {
      const store = editableStore();
      const runs = [];
      const transfer = transferTool((entry) => runs.push(entry.slice(0, 2)));
      const saver = new MemorySaver();
      const middleware = toolGateMiddleware({ agentName: AGENT, tools: [transfer], grants: createApprovalGrants({ store, keys: KEYS }), policy });
      const agent = createAgent({ model: new ScriptedChatOpenAI(ASKING), tools: [transfer], middleware: [middleware], checkpointer: saver });
      const config = thread('pending');
      const asked = await agent.invoke({ messages: [{ role: 'user', content: 'Pay alice and bob' }] }, config);
      assert.equal(typeof middleware.pending, 'function');

      // The checkpoint's copy of the interrupt value edited: the listing still shows what is kept and sealed.
      let changed = 0;
      const rewrite = (node) => {
        for (const key of Object.keys(node)) {
          const value = node[key];
          if (value instanceof Uint8Array) {
            const text = new TextDecoder().decode(value);
            if (text.includes('actionRequests') && text.includes('250000')) {
              node[key] = new TextEncoder().encode(text.split('250000').join('990000'));
              changed += 1;
            }
          } else if (value !== null && typeof value === 'object') rewrite(value);
        }
      };
      rewrite(saver.writes);
      assert.ok(changed > 0, 'the interrupt value was edited in the checkpointer');
      const state = await agent.graph.getState(config);
      assert.ok(JSON.stringify(state.tasks.map((task) => task.interrupts)).includes('990000'), 'the checkpoint now says 990000');
      const listed = await middleware.pending(state);
      assert.deepEqual(
        listed.map((p) => [p.interruptId, p.toolCallId, p.toolName, p.argsCanonicalJson, p.parsedArguments.cents]),
        [[asked.__interrupt__[0].id, 'call_2', 'transfer', '{"cents":250000,"to":"bob"}', 250000]],
      );
      assert.equal(listed[0].sealed.keyId, 'k1');
      assert.deepEqual(listed.refused, []);

      // The kept record edited in the store: refused with its code, none of its text.
      editKept(store, '"cents\\":250000', '"cents\\":990000');
      const after = await middleware.pending(await agent.graph.getState(config));
      assert.deepEqual([...after], []);
      assert.deepEqual(after.refused, [{ interruptId: asked.__interrupt__[0].id, toolCallId: 'call_2', code: 'bad_signature' }]);
      let done;
      const warnings = await warningsDuring(async () => {
        done = await agent.invoke(approveAll(asked.__interrupt__), config);
      });
      assert.deepEqual(runs, [['alice', 500]], 'the approval of an edited record ran nothing');
      assert.deepEqual(
        toolAnswers(done).find(([id]) => id === 'call_2'),
        ['call_2', 'The tool call was denied [bad_signature].'],
      );
      assert.deepEqual(
        warnings.filter((w) => w.code === 'TAS_APPROVED_WITHOUT_GRANT'),
        [],
      );
    });
  });

  describe('toolGateMiddleware: PostgreSQL checkpointer, each step in its own process', () => {
    let installed = true;
    try {
      require.resolve('@langchain/langgraph-checkpoint-postgres');
      require.resolve('pg');
    } catch {
      installed = false;
    }
    const cases = [
      ['v1', false],
      ['v2', false],
      ['v2', true],
    ];
    for (const [version, receiptsOff] of cases) {
      const name = receiptsOff
        ? `tool version ${version}, receipts: false: re-resuming in a third process runs the allowed transfer again (what ran before)`
        : `tool version ${version}: asked, resumed and re-resumed from the interrupted checkpoint in three processes; receipts on createPostgresGrantStore: nothing runs twice`;
      test(name, (t) => {
        if (!installed) {
          t.skip('@langchain/langgraph-checkpoint-postgres (or pg) is not installed in node_modules: npm install @langchain/langgraph-checkpoint-postgres pg');
          return;
        }
        const { service } = require('../../helpers/services');
        const url = service(t, 'pg');
        if (url === null) return;
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-lc-receipts-'));
        const table = `tas_lc_receipts_${process.pid}_${version}_${receiptsOff ? 'off' : 'on'}`;
        const threadId = `receipts-${version}-${process.pid}-${Date.now()}`;
        const step = (name) => {
          const env = { ...process.env, TAS_LC_RECEIPTS_CHILD: JSON.stringify({ dir, url, table, threadId, version, step: name, receiptsOff }) };
          delete env.NODE_TEST_CONTEXT;
          const result = spawnSync(process.execPath, [__filename], { env, encoding: 'utf8' });
          assert.equal(result.status, 0, result.stderr);
          return { ...JSON.parse(result.stdout), pid: result.pid };
        };
        const executed = () =>
          fs.existsSync(path.join(dir, 'executed.log'))
            ? fs
                .readFileSync(path.join(dir, 'executed.log'), 'utf8')
                .trim()
                .split('\n')
                .map((l) => JSON.parse(l))
            : [];
        try {
          step('ask');
          const resumed = step('resume');
          assert.deepEqual(resumed.answers, [
            ['call_1', 'sent 500 cents to alice'],
            ['call_2', 'sent 250000 cents to bob'],
          ]);
          const once = executed();
          assert.deepEqual(once.map(([to, cents]) => [to, cents]).sort(), [
            ['alice', 500],
            ['bob', 250000],
          ]);
          assert.equal(once.find(([to]) => to === 'bob')[2], resumed.pid, 'the approved transfer ran in the resuming process');
          const again = step('re-resume');
          if (receiptsOff) {
            assert.deepEqual(
              executed().map(([to, cents]) => [to, cents]),
              [...once.map(([to, cents]) => [to, cents]), ['alice', 500]],
              'the allowed transfer ran a second time',
            );
            return;
          }
          assert.equal(executed().length, 2, 'the third process ran nothing');
          assert.deepEqual(again.answers, [
            ['call_1', 'The tool call was denied [call_already_executed].'],
            ['call_2', 'The tool call was denied [call_already_executed].'],
          ]);
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
          const { Pool } = require('pg');
          const pool = new Pool({ connectionString: url, max: 1 });
          // Best effort: a failure here never hides the test's own result.
          pool
            .query(`DROP TABLE IF EXISTS ${table}, ${table}_nonces, ${table}_proposals, ${table}_receipts`)
            .catch(() => {})
            .finally(() => pool.end());
        }
      });
    }
  });

  describe("no receipts option, grants on a durable store: the gate keeps its receipts in the grants' store (issue 33)", () => {
    let installed = true;
    try {
      require.resolve('@langchain/langgraph-checkpoint-postgres');
      require.resolve('pg');
    } catch {
      installed = false;
    }
    const { KINDS, durableStore, dropDurable } = require('../../helpers/durable-stores');

    /** Runs the steps of one scenario, each in a process of its own; `run(step)` answers the child's report. */
    async function scenario(t, kind, name, body) {
      if (!installed) {
        t.skip('@langchain/langgraph-checkpoint-postgres (or pg) is not installed in node_modules');
        return;
      }
      const { service } = require('../../helpers/services');
      // The checkpoints are in PostgreSQL whatever keeps the grants: a step is a process.
      const url = service(t, 'pg');
      if (url === null) return;
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-lc-default-receipts-'));
      const grantsStore = durableStore(t, kind, dir);
      const threadId = `default-${name}-${kind}-${process.pid}-${Date.now()}`;
      const run = (step, version) => {
        const env = { ...process.env, TAS_LC_RECEIPTS_CHILD: JSON.stringify({ dir, url, threadId, version, step, grantsStore }) };
        delete env.NODE_TEST_CONTEXT;
        const result = spawnSync(process.execPath, [__filename], { env, encoding: 'utf8' });
        assert.equal(result.status, 0, result.stderr);
        return JSON.parse(result.stdout);
      };
      const executed = () =>
        fs.existsSync(path.join(dir, 'executed.log'))
          ? fs
              .readFileSync(path.join(dir, 'executed.log'), 'utf8')
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l))
          : [];
      try {
        await body(run, executed);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
        await dropDurable(grantsStore);
      }
    }

    for (const kind of KINDS) {
      for (const version of ['v1', 'v2']) {
        test(`toolGateMiddleware, tool version ${version}, grants on ${kind}: asked, resumed, and re-resumed from the interrupted checkpoint in a third process; nothing runs twice and the replay is call_already_executed, never approved_without_grant`, async (t) => {
          await scenario(t, kind, `mw-${version}`, async (run, executed) => {
            run('ask', version);
            const resumed = run('resume', version);
            assert.deepEqual(resumed.answers, [
              ['call_1', 'sent 500 cents to alice'],
              ['call_2', 'sent 250000 cents to bob'],
            ]);
            assert.equal(executed().length, 2);
            const again = run('re-resume', version);
            assert.equal(executed().length, 2, 'the third process ran nothing');
            assert.deepEqual(again.answers, [
              ['call_1', 'The tool call was denied [call_already_executed].'],
              ['call_2', 'The tool call was denied [call_already_executed].'],
            ]);
            assert.deepEqual(
              again.warnings.filter((code) => code === 'TAS_APPROVED_WITHOUT_GRANT'),
              [],
            );
          });
        });
      }

      test(`createToolGate in a LangGraph node, grants on ${kind}: re-invoking from the checkpoint before the tools in a second process runs nothing twice (call_already_executed)`, async (t) => {
        await scenario(t, kind, 'tool-gate', async (run, executed) => {
          const first = run('tool-gate');
          assert.deepEqual(first.answers, [
            ['call_1', 'sent 500 cents to alice'],
            ['call_3', 'sent 700 cents to carol'],
          ]);
          const again = run('tool-gate');
          assert.deepEqual(
            executed().map(([to, cents]) => [to, cents]),
            [
              ['alice', 500],
              ['carol', 700],
            ],
            'each call ran once, in the first process',
          );
          assert.deepEqual(again.answers, [
            ['call_1', 'The tool call was denied [call_already_executed].'],
            ['call_3', 'The tool call was denied [call_already_executed].'],
          ]);
        });
      });
    }
  });

  describe('createToolGate: receipts', () => {
    /** A graph of its own: the model, then a node that hands the model's message to the gate. */
    function graphWithGate(options) {
      const runs = [];
      const transfer = transferTool((entry) => runs.push(entry.slice(0, 2)));
      const gate = createToolGate({ agentName: AGENT, tools: [transfer], policy, ...options });
      const model = new ScriptedChatOpenAI(ALLOWED_ONLY);
      const graph = new StateGraph(MessagesAnnotation)
        .addNode('model', async (state) => ({ messages: [await model.invoke(state.messages)] }))
        // No config passed to the gate: it reads the thread of the node it runs in.
        .addNode('tools', async (state) => ({ messages: (await gate.run(state.messages.at(-1))).messages }))
        .addEdge(START, 'model')
        .addEdge('model', 'tools')
        .addEdge('tools', END)
        .compile({ checkpointer: new MemorySaver() });
      return { graph, runs, gate };
    }

    test("inside a LangGraph node, re-invoking from the checkpoint before the tools runs nothing twice (the thread read from the node's RunnableConfig); receipts: false runs it again", async () => {
      for (const receipts of [undefined, false]) {
        const { graph, runs } = graphWithGate(receipts === undefined ? {} : { receipts });
        const config = thread('own-graph');
        await graph.invoke({ messages: [{ role: 'user', content: 'pay' }] }, config);
        let beforeTools;
        for await (const state of graph.getStateHistory(config)) if (state.next.includes('tools')) beforeTools = state;
        const replayed = await graph.invoke(null, beforeTools.config);
        if (receipts === false) {
          assert.equal(runs.length, 4, 'without receipts both calls ran again');
          continue;
        }
        assert.deepEqual(runs, [
          ['alice', 500],
          ['carol', 700],
        ]);
        assert.deepEqual(
          replayed.messages
            .filter((m) => ToolMessage.isInstance(m))
            .slice(-2)
            .map((m) => /call_already_executed/.test(String(m.content))),
          [true, true],
        );
      }
    });

    function message(calls) {
      const raw = calls.map(([id, name, text]) => ({ id, type: 'function', function: { name, arguments: text } }));
      return new AIMessage({ content: '', additional_kwargs: { tool_calls: raw }, tool_calls: raw.map((call) => parseToolCall(call, { returnId: true })) });
    }

    test('the thread of config.configurable.thread_id keys the receipt; a kept result comes back marked replayed; another hash under the same call id is call_id_conflict', async () => {
      const runs = [];
      const transfer = transferTool((entry) => runs.push(entry.slice(0, 2)));
      const receipts = createExecutionReceipts({ keepResults: true });
      const gate = createToolGate({ agentName: AGENT, tools: [transfer], policy, receipts });
      const config = { configurable: { thread_id: 'thread-config' } };
      const ai = message(ALLOWED_ONLY);
      const first = await gate.run(ai, { config });
      const again = await gate.run(ai, { config });
      assert.deepEqual(runs, [
        ['alice', 500],
        ['carol', 700],
      ]);
      assert.deepEqual(
        first.results.map((r) => [r.status, r.replayed]),
        [
          ['executed', undefined],
          ['executed', undefined],
        ],
      );
      assert.deepEqual(
        again.results.map((r) => [r.status, r.replayed, String(r.message.content)]),
        [
          ['executed', true, 'sent 500 cents to alice'],
          ['executed', true, 'sent 700 cents to carol'],
        ],
      );
      assert.equal((await receipts.get({ agentName: AGENT, runId: 'thread-config', toolCallId: 'call_1' })).status, 'completed');
      const edited = await gate.run(message([['call_1', 'transfer', '{"to":"mallory","cents":900}']]), { config });
      assert.deepEqual(
        edited.results.map((r) => [r.status, r.decidedBy, r.reason]),
        [['denied', 'runtime', 'call_id_conflict']],
      );
      assert.equal(runs.length, 2);
      assert.ok(!String(edited.messages[0].content).includes('mallory'), 'no payload in the answer');
    });

    test('explicit receipts without a thread key the call by the runId option (else null); the default receipts without a thread change nothing that ran before', async () => {
      const runs = [];
      const transfer = transferTool((entry) => runs.push(entry.slice(0, 2)));
      const ai = message([['call_1', 'transfer', '{"to":"alice","cents":500}']]);
      const plain = createToolGate({ agentName: AGENT, tools: [transfer], policy });
      await plain.run(ai);
      await plain.run(ai);
      assert.equal(runs.length, 2, 'no thread, default receipts: as before, a new decision runs');

      const receipts = createExecutionReceipts();
      const grants = createApprovalGrants();
      const gate = createToolGate({ agentName: AGENT, tools: [transfer], policy, grants, receipts });
      await gate.run(ai, { runId: 'conversation-7' });
      const replay = await gate.run(ai, { runId: 'conversation-7' });
      assert.equal(runs.length, 3);
      assert.equal(replay.results[0].reason, 'call_already_executed');
      assert.equal((await receipts.get({ agentName: AGENT, runId: 'conversation-7', toolCallId: 'call_1' })).status, 'completed');
      await gate.run(ai, { runId: 'conversation-8' });
      assert.equal(runs.length, 4, 'another run');
      const noRun = createToolGate({ agentName: AGENT, tools: [transfer], policy, receipts });
      await noRun.run(ai);
      await noRun.run(ai);
      assert.equal(runs.length, 5);
      assert.equal((await receipts.get({ agentName: AGENT, runId: null, toolCallId: 'call_1' })).status, 'completed');
    });

    test("a call needing approval that already ran is answered with the receipt's code: no new review, nothing runs", async () => {
      const runs = [];
      const transfer = transferTool((entry) => runs.push(entry.slice(0, 2)));
      const grants = createApprovalGrants();
      const receipts = createExecutionReceipts();
      const gate = createToolGate({ agentName: AGENT, tools: [transfer], policy, grants, receipts });
      const ai = message([['call_2', 'transfer', '{"to":"bob","cents":250000}']]);
      const {
        pending: [proposal],
      } = await gate.run(ai, { runId: 'conversation-9' });
      await gate.approve(proposal);
      assert.equal((await gate.run(ai, { runId: 'conversation-9' })).results[0].status, 'executed');
      const replay = await gate.run(ai, { runId: 'conversation-9' });
      assert.deepEqual(
        replay.results.map((r) => [r.status, r.reason]),
        [['denied', 'call_already_executed']],
      );
      assert.deepEqual(replay.pending, []);
      assert.deepEqual(await gate.pending(ai, { runId: 'conversation-9' }), []);
      assert.deepEqual(runs, [['bob', 250000]]);
    });

    test('pending lists only kept proposals that verify; one edited in the store is in `refused` with its code and no text (sealed: bad_signature; unsealed: hash_mismatch)', async () => {
      for (const sealed of [true, false]) {
        const store = editableStore();
        const grants = createApprovalGrants(sealed ? { store, keys: KEYS } : { store });
        const transfer = transferTool(() => {});
        const gate = createToolGate({ agentName: AGENT, tools: [transfer], policy, grants });
        const ai = message([
          ['call_2', 'transfer', '{"to":"bob","cents":250000}'],
          ['call_4', 'transfer', '{"to":"dave","cents":80000}'],
        ]);
        await gate.run(ai, { runId: 'conversation-10' });
        // The amount changed in the store, the hash (and seal) left as they were.
        editKept(store, '"cents\\":80000', '"cents\\":900000');
        const reviewer = createToolGate({ agentName: AGENT, tools: [transfer], policy, grants });
        const listed = await reviewer.pending(ai, { runId: 'conversation-10' });
        assert.deepEqual(
          listed.map((p) => [p.toolCallId, p.argsCanonicalJson]),
          [['call_2', '{"cents":250000,"to":"bob"}']],
        );
        assert.deepEqual(listed.refused, [{ toolCallId: 'call_4', toolName: 'transfer', code: sealed ? 'bad_signature' : 'hash_mismatch' }]);
        assert.ok(!JSON.stringify(listed.refused).includes('900000') && !JSON.stringify(listed.refused).includes('dave'), 'no text of the record');
        assert.deepEqual(Object.keys(listed), ['0'], 'refused is not enumerable: a copy of the list holds verified proposals only');
      }
    });

    test('options.receipts must be a createExecutionReceipts object or false', () => {
      const transfer = transferTool(() => {});
      for (const bad of [true, null, 'memory', {}, new Proxy(createExecutionReceipts(), {})]) {
        assert.throws(() => createToolGate({ agentName: AGENT, tools: [transfer], policy, receipts: bad }), { code: 'ERR_INVALID_ARG_TYPE' });
        assert.throws(() => toolGateMiddleware({ agentName: AGENT, tools: [transfer], policy, receipts: bad }), { code: 'ERR_INVALID_ARG_TYPE' });
      }
    });
  });

  // A per-run option read as data (red team round 4).
  test('LangChain createToolGate: a per-run `runId` defined by a getter is refused unread (it was read as absent: with the receipts given, calls of every run then shared the key runId null)', async () => {
    const { createExecutionReceipts } = require('tool-argument-snapshot');
    const lc = require('tool-argument-snapshot/langchain');
    const { tool: lcTool } = require('@langchain/core/tools');
    const { AIMessage } = require('@langchain/core/messages');
    let paid = 0;
    const gate = lc.createToolGate({
      agentName: 'billing',
      tools: [
        lcTool(
          async () => {
            paid += 1;
            return 'paid';
          },
          { name: 'pay', schema: z.object({ cents: z.number() }) },
        ),
      ],
      grants: createApprovalGrants(),
      receipts: createExecutionReceipts(),
      policy: () => ({ decision: 'allow', reason: 'small' }),
    });
    const message = new AIMessage({ content: '', tool_calls: [{ id: 'call_1', name: 'pay', args: { cents: 5 } }] });
    let ran = 0;
    const options = Object.defineProperty({}, 'runId', {
      get() {
        ran += 1;
        return 'thread-1';
      },
      enumerable: true,
    });
    await assert.rejects(gate.run(message, options), TypeError);
    assert.equal(ran, 0);
    assert.equal(paid, 0);
  });
}
