'use strict';
// toolGateMiddleware (tool-argument-snapshot/langchain) on LangChain v1's createAgent
// (`langchain` 1.5, `@langchain/langgraph` 1.7), no network. The model is a small
// BaseChatModel that answers as @langchain/openai does (the provider's argument strings in
// additional_kwargs.tool_calls, tool_calls parsed by core's parseToolCall) and records what
// it is sent. Each scenario shows what createAgent executes alone (or with
// humanInTheLoopMiddleware) next to what it executes with the middleware. Checkpointers:
// MemorySaver in this process; PostgresSaver resumed in another process (TAS_TEST_PG_URL).
// Expected hashes and seals are computed here with node:crypto, never by the package.

const CHILD = process.env.TAS_LC_AGENT_CHILD;

const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { createHash, createHmac } = require('node:crypto');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { createAgent, createMiddleware, humanInTheLoopMiddleware, tool } = require('langchain');
const { MemorySaver, Command, interrupt } = require('@langchain/langgraph');
const { BaseChatModel } = require('@langchain/core/language_models/chat_models');
const { AIMessage, AIMessageChunk, ToolMessage } = require('@langchain/core/messages');
const { ChatGenerationChunk } = require('@langchain/core/outputs');
const { parseToolCall } = require('@langchain/core/output_parsers/openai_tools');
const { z } = require('zod');

const { createApprovalGrants } = require('tool-argument-snapshot');
const { toolGateMiddleware } = require('tool-argument-snapshot/langchain');

const AGENT = 'Payments assistant';
const KEYS = [{ id: 'k1', secret: 'a secret of at least thirty-two bytes' }];

function expectedHash(toolName, argsCanonicalJson) {
  return createHash('sha256')
    .update(JSON.stringify({ agentName: AGENT, argsCanonicalJson, kind: 'tool', toolName }), 'utf8')
    .digest('hex');
}

/** HMAC-SHA256 over the RFC 8785 form of the seal without its signature (ASCII keys: sorted JSON.stringify is JCS). */
function expectedSignature(sealed) {
  const { signature, ...fields } = sealed;
  const sorted = Object.fromEntries(
    Object.keys(fields)
      .sort()
      .map((k) => [k, fields[k]]),
  );
  return createHmac('sha256', KEYS[0].secret).update(JSON.stringify(sorted), 'utf8').digest('hex');
}

/**
 * Answers each model call with the next scripted turn, shaped as ChatOpenAI's messages;
 * with `stream`, as its streamed chunks (each text in pieces). Records what it is sent.
 */
class ScriptedChatOpenAI extends BaseChatModel {
  constructor(turns, { stream = false } = {}) {
    super({});
    this.turns = turns;
    this.stream = stream;
    this.received = [];
  }

  _llmType() {
    return 'scripted-openai';
  }

  bindTools() {
    return this;
  }

  #next(messages) {
    this.received.push(JSON.stringify(messages));
    // A function answers from the conversation (a model in a process of its own).
    if (typeof this.turns === 'function') return this.turns(messages);
    return this.turns.shift() ?? [];
  }

  async _generate(messages) {
    const turn = this.#next(messages);
    const raw = turn.map(([id, name, text]) => ({ id, type: 'function', function: { name, arguments: text } }));
    const message = new AIMessage({
      content: raw.length === 0 ? 'done' : '',
      additional_kwargs: raw.length === 0 ? {} : { tool_calls: raw },
      tool_calls: raw.map((call) => parseToolCall(call, { returnId: true })),
    });
    return { generations: [{ text: '', message }] };
  }

  async *_streamResponseChunks(messages) {
    if (!this.stream) {
      const { generations } = await this._generate(messages);
      yield new ChatGenerationChunk({ text: '', message: new AIMessageChunk({ ...generations[0].message }) });
      return;
    }
    const turn = this.#next(messages);
    if (turn.length === 0) {
      yield new ChatGenerationChunk({ text: 'done', message: new AIMessageChunk({ content: 'done' }) });
      return;
    }
    for (const [index, [id, name, text]] of turn.entries()) {
      const pieces = [text.slice(0, 7), text.slice(7)];
      for (const [k, piece] of pieces.entries()) {
        const first = k === 0;
        yield new ChatGenerationChunk({
          text: '',
          message: new AIMessageChunk({
            content: '',
            tool_call_chunks: [{ index, type: 'tool_call_chunk', args: piece, ...(first ? { id, name } : {}) }],
            additional_kwargs: {
              tool_calls: [{ index, ...(first ? { id, type: 'function' } : {}), function: { ...(first ? { name } : {}), arguments: piece } }],
            },
          }),
        });
      }
    }
  }
}

/** The tools of the scenarios, counting schema runs and executions. */
function fixture() {
  const state = { schemaRuns: 0, executed: [] };
  const counted = (shape) =>
    z.preprocess((value) => {
      state.schemaRuns++;
      return value;
    }, z.object(shape));
  const pay = tool(
    async (args) => {
      state.executed.push(['pay', args]);
      return `paid ${args.amount}`;
    },
    { name: 'pay', description: 'Pay an amount', schema: counted({ amount: z.number().int().positive(), to: z.string().default('bob') }) },
  );
  const refund = tool(
    async (args) => {
      state.executed.push(['refund', args]);
      return `refunded ${args.amount}`;
    },
    { name: 'refund', description: 'Refund an amount', schema: counted({ amount: z.number().int().positive() }) },
  );
  const lookup = tool(
    async (args) => {
      state.executed.push(['lookup', args]);
      return `found ${args.query}`;
    },
    { name: 'lookup', description: 'Look something up', schema: counted({ query: z.string() }) },
  );
  const policyInputs = [];
  const policy = {
    pay: (input) => {
      policyInputs.push({
        toolName: input.toolName,
        toolCallId: input.toolCallId,
        argumentsSource: input.argumentsSource,
        args: input.parsedArguments,
        rawArguments: input.rawArguments,
      });
      return input.parsedArguments.amount > 100 ? { decision: 'require_approval', reason: 'over 100' } : { decision: 'allow', reason: 'small' };
    },
    refund: (input) => {
      policyInputs.push({ toolName: input.toolName, toolCallId: input.toolCallId, argumentsSource: input.argumentsSource, args: input.parsedArguments });
      if (input.parsedArguments.amount > 1000) return { decision: 'deny', reason: 'refunds over 1000 are not allowed' };
      return { decision: 'require_approval', reason: 'every refund is reviewed' };
    },
  };
  return { state, pay, refund, lookup, policy, policyInputs };
}

/** The entries of a policy map for the given tools only (a map naming other tools is refused). */
function only(policy, ...names) {
  return Object.fromEntries(names.map((name) => [name, policy[name]]));
}

function thread(name) {
  return { configurable: { thread_id: `${name}-${Math.random().toString(36).slice(2)}` } };
}

const hitlReviewer = (value, decide) => ({
  decisions: value.actionRequests.map((action, i) => decide(action, value.reviewConfigs[i], i)),
});

function toolMessages(result) {
  return result.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, m.status ?? 'success', String(m.content)]);
}

// ---- Child processes of the PostgreSQL test ------------------------------------------

/** A grants store in a JSON file: durable across the sequential processes of one test. */
function fileGrantStore(file) {
  const load = () => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { grants: [], nonces: {}, proposals: {} });
  const save = (data) => fs.writeFileSync(file, JSON.stringify(data));
  const matches = (r, q) => r.agentName === q.agentName && r.toolName === q.toolName && r.proposalHash === q.proposalHash && r.scope === q.scope;
  const live = (r, now) => r.uses > 0 && (r.expiresAt === null || now < r.expiresAt);
  return {
    put(record) {
      const data = load();
      if (record.nonce !== null) {
        if (data.nonces[record.nonce]) return false;
        data.nonces[record.nonce] = true;
      }
      data.grants.push({ ...record });
      save(data);
      return true;
    },
    has: (query, now) => load().grants.some((r) => matches(r, query) && live(r, now)),
    take(query, now) {
      const data = load();
      const found = data.grants.find((r) => matches(r, query) && live(r, now));
      if (found === undefined) return false;
      found.uses--;
      data.grants = data.grants.filter((r) => r.uses > 0);
      save(data);
      return true;
    },
    putProposal(key, json, expiresAt) {
      const data = load();
      data.proposals[key] = { json, expiresAt };
      save(data);
    },
    getProposal(key, now) {
      const found = load().proposals[key];
      return found !== undefined && (found.expiresAt === null || now < found.expiresAt) ? found.json : null;
    },
    deleteProposal(key) {
      const data = load();
      delete data.proposals[key];
      save(data);
    },
  };
}

async function child() {
  const { PostgresSaver } = require('@langchain/langgraph-checkpoint-postgres');
  const { dir, url, thread: threadId, role, version } = JSON.parse(CHILD);
  const log = (entry) => fs.appendFileSync(path.join(dir, 'executed.log'), `${JSON.stringify(entry)}\n`);
  const pay = tool(
    async (args) => {
      log(['pay', args, process.pid]);
      return `paid ${args.amount}`;
    },
    { name: 'pay', schema: z.object({ amount: z.number().int().positive() }) },
  );
  const lookup = tool(
    async (args) => {
      log(['lookup', args, process.pid]);
      return `found ${args.query}`;
    },
    { name: 'lookup', schema: z.object({ query: z.string() }) },
  );
  const grants = createApprovalGrants({ keys: KEYS, store: fileGrantStore(path.join(dir, 'grants.json')) });
  const checkpointer = PostgresSaver.fromConnString(url);
  await checkpointer.setup();
  const middleware = toolGateMiddleware({
    agentName: AGENT,
    tools: [pay, lookup],
    grants,
    policy: {
      pay: (input) => ({ decision: input.parsedArguments.amount > 100 ? 'require_approval' : 'allow', reason: 'amount' }),
      lookup: () => ({ decision: 'allow', reason: 'reads' }),
    },
  });
  // The tool calls first, then (once tool results are in the conversation) a text answer.
  const model = new ScriptedChatOpenAI((messages) =>
    messages.some((m) => ToolMessage.isInstance(m))
      ? []
      : [
          ['call_small', 'pay', '{"amount":5}'],
          ['call_big', 'pay', '{"amount":5000}'],
          ['call_read', 'lookup', '{"query":"balance"}'],
        ],
  );
  const agent = createAgent({ model, tools: [pay, lookup], middleware: [middleware], checkpointer, version });
  const config = { configurable: { thread_id: threadId } };
  let result;
  if (role === 'ask') result = await agent.invoke({ messages: [{ role: 'user', content: 'pay' }] }, config);
  else result = await agent.invoke(new Command({ resume: JSON.parse(role) }), config);
  await checkpointer.end();
  process.stdout.write(
    JSON.stringify({
      interrupts: (result.__interrupt__ ?? []).map((i) => ({ id: i.id, value: i.value })),
      tools: toolMessages(result),
      received: model.received,
    }),
  );
}

if (CHILD) {
  child().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
} else {
  describe('toolGateMiddleware on createAgent', () => {
    test('a duplicate key: createAgent alone executes the last value (also streamed); with the middleware it is invalid input and nothing runs', async () => {
      const raw = '{"amount":5,"amount":5000000}';
      for (const stream of [false, true]) {
        const alone = fixture();
        const agentAlone = createAgent({
          model: new ScriptedChatOpenAI([[['call_1', 'pay', raw]], []], { stream }),
          tools: [alone.pay],
          checkpointer: new MemorySaver(),
        });
        const config = thread('dup-alone');
        stream
          ? await drain(agentAlone.stream({ messages: [{ role: 'user', content: 'pay' }] }, { ...config, streamMode: 'messages' }))
          : await agentAlone.invoke({ messages: [{ role: 'user', content: 'pay' }] }, config);
        assert.deepEqual(alone.state.executed, [['pay', { amount: 5000000, to: 'bob' }]], `LangChain alone${stream ? ' (streamed)' : ''} ran the last value`);

        const gated = fixture();
        const agent = createAgent({
          model: new ScriptedChatOpenAI([[['call_1', 'pay', raw]], []], { stream }),
          tools: [gated.pay],
          middleware: [toolGateMiddleware({ agentName: AGENT, tools: [gated.pay], policy: only(gated.policy, 'pay') })],
          checkpointer: new MemorySaver(),
        });
        const gatedConfig = thread('dup-gated');
        if (stream) await drain(agent.stream({ messages: [{ role: 'user', content: 'pay' }] }, { ...gatedConfig, streamMode: 'messages' }));
        else await agent.invoke({ messages: [{ role: 'user', content: 'pay' }] }, gatedConfig);
        const result = (await agent.graph.getState(gatedConfig)).values;
        assert.deepEqual(gated.state.executed, [], 'nothing ran');
        assert.equal(gated.state.schemaRuns, 0, 'stage json: the schema never ran');
        assert.equal(gated.policyInputs.length, 0);
        const [message] = toolMessages(result);
        assert.deepEqual(message.slice(0, 2), ['call_1', 'error']);
        assert.match(message[2], /duplicate_key/);
        assert.ok(!message[2].includes('5000000'), 'no payload in the answer');
      }
    });

    test("approve: the interrupt value is humanInTheLoopMiddleware's plus sealed proposals, the same review code drives both, and the approved call runs once under a grant of exactly its hash", async () => {
      // humanInTheLoopMiddleware alone, driven by a reviewer written for it.
      const alone = fixture();
      const hitlAgent = createAgent({
        model: new ScriptedChatOpenAI([[['call_1', 'pay', '{"amount":500}']], []]),
        tools: [alone.pay],
        middleware: [humanInTheLoopMiddleware({ interruptOn: { pay: true } })],
        checkpointer: new MemorySaver(),
      });
      const hitlConfig = thread('hitl');
      const hitlFirst = await hitlAgent.invoke({ messages: [{ role: 'user', content: 'pay' }] }, hitlConfig);
      const review = (value) =>
        hitlReviewer(value, (action, config) =>
          config.allowedDecisions.includes('approve') && action.name === 'pay' ? { type: 'approve' } : { type: 'reject' },
        );
      await hitlAgent.invoke(new Command({ resume: review(hitlFirst.__interrupt__[0].value) }), hitlConfig);
      assert.deepEqual(alone.state.executed, [['pay', { amount: 500, to: 'bob' }]]);

      // The middleware, driven by the same reviewer.
      const gated = fixture();
      const grants = createApprovalGrants({ keys: KEYS });
      const agent = createAgent({
        model: new ScriptedChatOpenAI([[['call_1', 'pay', '{ "to" : "bob", "amount" : 500 }']], []]),
        tools: [gated.pay],
        middleware: [toolGateMiddleware({ agentName: AGENT, tools: [gated.pay], policy: only(gated.policy, 'pay'), grants })],
        checkpointer: new MemorySaver(),
      });
      const config = thread('gated');
      const first = await agent.invoke({ messages: [{ role: 'user', content: 'pay' }] }, config);
      assert.deepEqual(gated.state.executed, []);
      assert.equal(first.__interrupt__.length, 1, 'one interrupt for the call');
      const { value } = first.__interrupt__[0];
      const json = '{"amount":500,"to":"bob"}';
      assert.deepEqual(Object.keys(value).sort(), ['actionRequests', 'proposals', 'reviewConfigs']);
      assert.equal(value.actionRequests.length, 1);
      const [action] = value.actionRequests;
      assert.equal(action.name, 'pay');
      assert.deepEqual(action.args, { amount: 500, to: 'bob' }, 'the reviewer sees what will run (the schema default included)');
      assert.equal(action.toolCallId, 'call_1');
      assert.match(action.description, /over 100/);
      assert.deepEqual(value.reviewConfigs, [{ actionName: 'pay', allowedDecisions: ['approve', 'edit', 'reject'] }]);
      const [sealed] = value.proposals;
      assert.deepEqual(Object.keys(sealed).sort(), [
        'agentName',
        'argsCanonicalJson',
        'expiresAt',
        'keyId',
        'nonce',
        'proposalHash',
        'scope',
        'signature',
        'toolName',
        'v',
      ]);
      assert.equal(sealed.argsCanonicalJson, json);
      assert.equal(sealed.proposalHash, expectedHash('pay', json));
      assert.equal(sealed.signature, expectedSignature(sealed), 'an HMAC-SHA256 any holder of the key can check');
      assert.equal(gated.state.schemaRuns, 1);

      const resumed = await agent.invoke(new Command({ resume: review(value) }), config);
      assert.deepEqual(gated.state.executed, [['pay', { amount: 500, to: 'bob' }]], 'executed once');
      assert.equal(gated.state.schemaRuns, 2, 'the schema ran once per attempt (the ask, the resume), and never in tool.invoke');
      assert.deepEqual(toolMessages(resumed), [['call_1', 'success', 'paid 500']]);
      assert.equal(await grants.has({ agentName: AGENT, toolName: 'pay', proposalHash: sealed.proposalHash }), false, 'the grant was spent');
      await assert.rejects(grants.grant(sealed), { code: 'seal_used' }, 'the seal was granted once');

      // Nothing left to resume: a replay of the same resume runs nothing.
      await agent.invoke(new Command({ resume: review(value) }), config);
      assert.equal(gated.state.executed.length, 1);
    });

    test("several calls wait in several interrupts (tool version v2), resumed through LangGraph's id map; a partial answer keeps the other pending; one interrupt per call, never two", async () => {
      const gated = fixture();
      const grants = createApprovalGrants({ keys: KEYS });
      const model = new ScriptedChatOpenAI([
        [
          ['call_a', 'pay', '{"amount":5}'],
          ['call_b', 'pay', '{"amount":500}'],
          ['call_c', 'pay', '{"amount":700}'],
        ],
        [],
      ]);
      const agent = createAgent({
        model,
        tools: [gated.pay],
        middleware: [toolGateMiddleware({ agentName: AGENT, tools: [gated.pay], policy: only(gated.policy, 'pay'), grants })],
        checkpointer: new MemorySaver(),
      });
      const config = thread('v2');
      const first = await agent.invoke({ messages: [{ role: 'user', content: 'pay' }] }, config);
      assert.deepEqual(gated.state.executed, [['pay', { amount: 5, to: 'bob' }]], 'the allowed call ran in its own task');
      const byCall = Object.fromEntries(first.__interrupt__.map((i) => [i.value.actionRequests[0].toolCallId, i]));
      assert.deepEqual(Object.keys(byCall).sort(), ['call_b', 'call_c']);

      const partial = await agent.invoke(new Command({ resume: { [byCall.call_c.id]: { decisions: [{ type: 'approve' }] } } }), config);
      assert.deepEqual(
        gated.state.executed.map(([, a]) => a.amount),
        [5, 700],
      );
      assert.deepEqual(
        partial.__interrupt__.map((i) => [i.id, i.value.actionRequests[0].toolCallId]),
        [[byCall.call_b.id, 'call_b']],
        'still pending, same interrupt',
      );

      const done = await agent.invoke(new Command({ resume: { [byCall.call_b.id]: { decisions: [{ type: 'approve' }] } } }), config);
      assert.equal(done.__interrupt__, undefined);
      assert.deepEqual(
        gated.state.executed.map(([, a]) => a.amount),
        [5, 700, 500],
        'each call ran once',
      );
      assert.deepEqual(
        toolMessages(done).map(([id, status]) => [id, status]),
        [
          ['call_a', 'success'],
          ['call_b', 'success'],
          ['call_c', 'success'],
        ],
      );
    });

    test("edit: createAgent with humanInTheLoopMiddleware runs an edit to another tool without that tool's review; the middleware makes it a new attempt under the target tool's policy", async () => {
      const edit = (name, args) => ({ decisions: [{ type: 'edit', editedAction: { name, args } }] });
      // humanInTheLoopMiddleware: refund is reviewed, but an edit of a pay call into a refund runs at once.
      const alone = fixture();
      const hitl = createAgent({
        model: new ScriptedChatOpenAI([[['call_1', 'pay', '{"amount":500}']], []]),
        tools: [alone.pay, alone.refund],
        middleware: [humanInTheLoopMiddleware({ interruptOn: { pay: true, refund: true } })],
        checkpointer: new MemorySaver(),
      });
      const hitlConfig = thread('hitl-edit');
      await hitl.invoke({ messages: [{ role: 'user', content: 'pay' }] }, hitlConfig);
      const after = await hitl.invoke(new Command({ resume: edit('refund', { amount: 999999 }) }), hitlConfig);
      assert.deepEqual(alone.state.executed, [['refund', { amount: 999999 }]], 'LangChain alone: the refund ran, unreviewed');
      assert.equal(after.__interrupt__, undefined);

      // The middleware: the same edit is denied by refund's policy.
      const gated = fixture();
      const grants = createApprovalGrants({ keys: KEYS });
      const make = (turns) =>
        createAgent({
          model: new ScriptedChatOpenAI(turns),
          tools: [gated.pay, gated.refund],
          middleware: [toolGateMiddleware({ agentName: AGENT, tools: [gated.pay, gated.refund], policy: gated.policy, grants })],
          checkpointer: new MemorySaver(),
        });
      let agent = make([[['call_1', 'pay', '{"amount":500}']], []]);
      let config = thread('edit-deny');
      const asked = await agent.invoke({ messages: [{ role: 'user', content: 'pay' }] }, config);
      const oldHash = asked.__interrupt__[0].value.proposals[0].proposalHash;
      const denied = await agent.invoke(new Command({ resume: edit('refund', { amount: 999999 }) }), config);
      assert.deepEqual(gated.state.executed, [], 'the deny of the target tool holds');
      assert.deepEqual(
        toolMessages(denied).map(([id, status, content]) => [id, status, /refunds over 1000/.test(content)]),
        [['call_1', 'error', true]],
      );
      assert.deepEqual(gated.policyInputs.at(-1), { toolName: 'refund', toolCallId: 'call_1', argumentsSource: 'edit', args: { amount: 999999 } });
      assert.equal(await grants.has({ agentName: AGENT, toolName: 'pay', proposalHash: oldHash }), false, 'the old proposal was never granted');

      // An edit the target's policy would send to review: the reviewer's edit grants exactly the new hash.
      agent = make([[['call_2', 'pay', '{"amount":500}']], []]);
      config = thread('edit-grant');
      await agent.invoke({ messages: [{ role: 'user', content: 'pay' }] }, config);
      const runs = gated.state.schemaRuns;
      const granted = await agent.invoke(new Command({ resume: edit('refund', { amount: 40 }) }), config);
      assert.deepEqual(gated.state.executed, [['refund', { amount: 40 }]]);
      assert.equal(gated.state.schemaRuns - runs, 2, 'the resumed attempt and the edit: one schema run each');
      assert.deepEqual(toolMessages(granted), [['call_2', 'success', 'refunded 40']]);
      assert.equal(await grants.has({ agentName: AGENT, toolName: 'refund', proposalHash: expectedHash('refund', '{"amount":40}') }), false, 'spent');

      // An edit of the same tool that its policy allows runs; one outside the schema runs nothing.
      agent = make([[['call_3', 'pay', '{"amount":500}']], []]);
      config = thread('edit-allow');
      await agent.invoke({ messages: [{ role: 'user', content: 'pay' }] }, config);
      await agent.invoke(new Command({ resume: edit('pay', { amount: 50, to: 'carol' }) }), config);
      assert.deepEqual(gated.state.executed.at(-1), ['pay', { amount: 50, to: 'carol' }]);
      agent = make([[['call_4', 'pay', '{"amount":500}']], []]);
      config = thread('edit-invalid');
      await agent.invoke({ messages: [{ role: 'user', content: 'pay' }] }, config);
      const invalid = await agent.invoke(new Command({ resume: edit('pay', { amount: -5 }) }), config);
      assert.equal(gated.state.executed.length, 2);
      assert.match(toolMessages(invalid)[0][2], /schema_error/);
    });

    test('a policy that changes its view is denied (policy_mutated_arguments) and nothing runs', async () => {
      const gated = fixture();
      const agent = createAgent({
        model: new ScriptedChatOpenAI([[['call_1', 'pay', '{"amount":5}']], []]),
        tools: [gated.pay],
        middleware: [
          toolGateMiddleware({
            agentName: AGENT,
            tools: [gated.pay],
            policy: { pay: (input) => ((input.parsedArguments.amount = 9999900), { decision: 'allow', reason: 'fine' }) },
          }),
        ],
        checkpointer: new MemorySaver(),
      });
      const done = await agent.invoke({ messages: [{ role: 'user', content: 'pay' }] }, thread('mutate'));
      assert.deepEqual(gated.state.executed, []);
      assert.deepEqual(toolMessages(done), [['call_1', 'error', 'The tool call was denied [policy_mutated_arguments].']]);
    });

    test("reject: a ToolMessage with the reviewer's message, nothing runs", async () => {
      const gated = fixture();
      const agent = createAgent({
        model: new ScriptedChatOpenAI([[['call_1', 'pay', '{"amount":500}']], []]),
        tools: [gated.pay],
        middleware: [toolGateMiddleware({ agentName: AGENT, tools: [gated.pay], policy: only(gated.policy, 'pay') })],
        checkpointer: new MemorySaver(),
      });
      const config = thread('reject');
      await agent.invoke({ messages: [{ role: 'user', content: 'pay' }] }, config);
      const done = await agent.invoke(new Command({ resume: { decisions: [{ type: 'reject', message: 'not this month' }] } }), config);
      assert.deepEqual(gated.state.executed, []);
      assert.deepEqual(toolMessages(done), [['call_1', 'error', 'not this month']]);
    });

    test('tool version v1: createAgent with an interrupting middleware runs an allowed sibling twice; the middleware asks once for the message and runs each call once', async () => {
      const calls = [
        ['call_read', 'lookup', '{"query":"balance"}'],
        ['call_big', 'pay', '{"amount":500}'],
        ['call_small', 'pay', '{"amount":5}'],
      ];
      // What a hand-written approval middleware does: interrupt in wrapToolCall, then run.
      const alone = fixture();
      const naive = createMiddleware({
        name: 'NaiveApproval',
        wrapToolCall: async (request, handler) => {
          if (request.toolCall.name === 'pay' && request.toolCall.args.amount > 100) {
            const { decisions } = interrupt({ actionRequests: [{ name: 'pay', args: request.toolCall.args }] });
            if (decisions[0].type !== 'approve') return new ToolMessage({ tool_call_id: request.toolCall.id, content: 'rejected', status: 'error' });
          }
          return handler(request);
        },
      });
      const naiveAgent = createAgent({
        model: new ScriptedChatOpenAI([calls, []]),
        tools: [alone.pay, alone.lookup],
        middleware: [naive],
        checkpointer: new MemorySaver(),
        version: 'v1',
      });
      const naiveConfig = thread('v1-naive');
      await naiveAgent.invoke({ messages: [{ role: 'user', content: 'x' }] }, naiveConfig);
      await naiveAgent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), naiveConfig);
      const count = (executed, name) => executed.filter(([tool]) => tool === name).length;
      assert.equal(count(alone.state.executed, 'lookup'), 2, 'LangChain alone: the sibling ran in both passes');

      const gated = fixture();
      const agent = createAgent({
        model: new ScriptedChatOpenAI([calls, []]),
        tools: [gated.pay, gated.lookup],
        middleware: [toolGateMiddleware({ agentName: AGENT, tools: [gated.pay], policy: only(gated.policy, 'pay') })],
        checkpointer: new MemorySaver(),
        version: 'v1',
      });
      const config = thread('v1-gated');
      const first = await agent.invoke({ messages: [{ role: 'user', content: 'x' }] }, config);
      assert.deepEqual(gated.state.executed, [], 'nothing runs in a pass that an approval interrupts');
      assert.equal(first.__interrupt__.length, 1);
      assert.deepEqual(
        first.__interrupt__[0].value.actionRequests.map((a) => a.toolCallId),
        ['call_big'],
      );
      const done = await agent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), config);
      assert.deepEqual(gated.state.executed.map(([name, args]) => [name, args.amount ?? args.query]).sort(), [
        ['lookup', 'balance'],
        ['pay', 5],
        ['pay', 500],
      ]);
      assert.deepEqual(
        toolMessages(done).map(([id, status]) => [id, status]),
        [
          ['call_read', 'success'],
          ['call_big', 'success'],
          ['call_small', 'success'],
        ],
      );

      // Two calls under review in v1: one interrupt, decisions in message order.
      const two = fixture();
      const twoAgent = createAgent({
        model: new ScriptedChatOpenAI([
          [
            ['c1', 'pay', '{"amount":500}'],
            ['c2', 'pay', '{"amount":5}'],
            ['c3', 'pay', '{"amount":700}'],
          ],
          [],
        ]),
        tools: [two.pay],
        middleware: [toolGateMiddleware({ agentName: AGENT, tools: [two.pay], policy: only(two.policy, 'pay') })],
        checkpointer: new MemorySaver(),
        version: 'v1',
      });
      const twoConfig = thread('v1-two');
      const asked = await twoAgent.invoke({ messages: [{ role: 'user', content: 'x' }] }, twoConfig);
      assert.deepEqual(
        asked.__interrupt__.map((i) => i.value.actionRequests.map((a) => a.toolCallId)),
        [['c1', 'c3']],
      );
      // A malformed answer (one decision for two calls) is asked again, never run, and does not strand the thread.
      const again = await twoAgent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), twoConfig);
      assert.deepEqual(two.state.executed, []);
      assert.equal(again.__interrupt__.length, 1);
      assert.match(again.__interrupt__[0].value.invalidResume, /Number of human decisions \(1\) does not match number of calls under review \(2\)/);
      assert.deepEqual(
        again.__interrupt__[0].value.actionRequests.map((a) => a.toolCallId),
        ['c1', 'c3'],
      );
      const answered = await twoAgent.invoke(new Command({ resume: { decisions: [{ type: 'reject' }, { type: 'approve' }] } }), twoConfig);
      assert.deepEqual(
        two.state.executed.map(([, a]) => a.amount).sort((a, b) => a - b),
        [5, 700],
      );
      assert.deepEqual(
        toolMessages(answered).map(([id, status]) => [id, status]),
        [
          ['c1', 'error'],
          ['c2', 'success'],
          ['c3', 'success'],
        ],
      );
    });

    test("the proposal is carried by the interrupt value and the grants' store, never sent to the provider", async () => {
      const gated = fixture();
      const grants = createApprovalGrants({ keys: KEYS });
      const model = new ScriptedChatOpenAI([[['call_1', 'pay', '{"amount":500}']], []]);
      const agent = createAgent({
        model,
        tools: [gated.pay],
        middleware: [toolGateMiddleware({ agentName: AGENT, tools: [gated.pay], policy: only(gated.policy, 'pay'), grants })],
        checkpointer: new MemorySaver(),
      });
      const config = thread('carrier');
      const first = await agent.invoke({ messages: [{ role: 'user', content: 'pay' }] }, config);
      const sealed = first.__interrupt__[0].value.proposals[0];
      await agent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), config);
      assert.equal(model.received.length, 2, 'the model was called before and after the tool');
      for (const sent of model.received) {
        for (const secret of [sealed.proposalHash, sealed.signature, sealed.nonce, 'argsCanonicalJson', 'proposals'])
          assert.ok(!sent.includes(secret), 'nothing of the proposal reaches the model');
      }
      const state = await agent.graph.getState(config);
      assert.ok(!JSON.stringify(state.values.messages).includes(sealed.proposalHash), 'nor the messages of the thread');
    });

    test("a checkpoint edited while the call waits: humanInTheLoopMiddleware's approval runs the edited arguments; the middleware's runs nothing (proposal_changed)", async () => {
      const edits = [
        ['{\\"amount\\":500}', '{\\"amount\\":900}'],
        ['"amount":500', '"amount":900'],
      ];
      const alone = fixture();
      const hitlSaver = new MemorySaver();
      const hitl = createAgent({
        model: new ScriptedChatOpenAI([[['call_1', 'pay', '{"amount":500}']], []]),
        tools: [alone.pay],
        middleware: [humanInTheLoopMiddleware({ interruptOn: { pay: true } })],
        checkpointer: hitlSaver,
      });
      const hitlConfig = thread('tamper-hitl');
      const shown = await hitl.invoke({ messages: [{ role: 'user', content: 'pay' }] }, hitlConfig);
      assert.deepEqual(shown.__interrupt__[0].value.actionRequests[0].args, { amount: 500 }, 'the reviewer saw 500');
      assert.ok(tamper(hitlSaver, edits) > 0);
      await hitl.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), hitlConfig);
      assert.deepEqual(alone.state.executed, [['pay', { amount: 900, to: 'bob' }]], 'LangChain alone ran what the checkpoint said at resume');

      const gated = fixture();
      const saver = new MemorySaver();
      const agent = createAgent({
        model: new ScriptedChatOpenAI([[['call_1', 'pay', '{"amount":500}']], []]),
        tools: [gated.pay],
        middleware: [toolGateMiddleware({ agentName: AGENT, tools: [gated.pay], policy: only(gated.policy, 'pay') })],
        checkpointer: saver,
      });
      const config = thread('tamper');
      await agent.invoke({ messages: [{ role: 'user', content: 'pay' }] }, config);
      // Both the provider text and LangChain's parsed copy, everywhere the checkpointer keeps them.
      assert.ok(tamper(saver, edits) > 0);
      const done = await agent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), config);
      assert.deepEqual(gated.state.executed, []);
      assert.deepEqual(
        toolMessages(done).map(([id, status, content]) => [id, status, /proposal_changed/.test(content)]),
        [['call_1', 'error', true]],
      );
    });

    test('approved in a process whose grants do not hold the kept proposal: approved_without_grant, one warning per middleware, none in production', async () => {
      const saver = new MemorySaver();
      const gated = fixture();
      const make = () =>
        createAgent({
          model: new ScriptedChatOpenAI([
            [
              ['call_1', 'pay', '{"amount":500}'],
              ['call_2', 'pay', '{"amount":600}'],
            ],
            [],
          ]),
          tools: [gated.pay],
          // The default grants: this process's memory only.
          middleware: [toolGateMiddleware({ agentName: AGENT, tools: [gated.pay], policy: only(gated.policy, 'pay') })],
          checkpointer: saver,
        });
      const config = thread('lost');
      const first = await make().invoke({ messages: [{ role: 'user', content: 'pay' }] }, config);
      const warnings = [];
      const onWarning = (warning) => warnings.push(warning);
      process.on('warning', onWarning);
      const previous = process.env.NODE_ENV;
      try {
        const resume = Object.fromEntries(first.__interrupt__.map((i) => [i.id, { decisions: [{ type: 'approve' }] }]));
        const done = await make().invoke(new Command({ resume }), config);
        await new Promise((resolve) => setImmediate(resolve));
        assert.deepEqual(gated.state.executed, []);
        assert.deepEqual(
          toolMessages(done).map(([id, status, content]) => [id, status, /approved_without_grant/.test(content)]),
          [
            ['call_1', 'error', true],
            ['call_2', 'error', true],
          ],
        );
        const ours = warnings.filter((w) => w.code === 'TAS_APPROVED_WITHOUT_GRANT');
        assert.equal(ours.length, 1, 'one warning for the middleware');
        assert.ok(!ours[0].message.includes('500') && !ours[0].message.includes('amount'), 'no payload in the warning');

        // Under NODE_ENV=production the refusal stays and the warning goes.
        process.env.NODE_ENV = 'production';
        const prodConfig = thread('lost-prod');
        const asked = await make().invoke({ messages: [{ role: 'user', content: 'pay' }] }, prodConfig);
        const prodResume = Object.fromEntries(asked.__interrupt__.map((i) => [i.id, { decisions: [{ type: 'approve' }] }]));
        const refused = await make().invoke(new Command({ resume: prodResume }), prodConfig);
        await new Promise((resolve) => setImmediate(resolve));
        assert.deepEqual(
          toolMessages(refused).map(([, status, content]) => [status, /approved_without_grant/.test(content)]),
          [
            ['error', true],
            ['error', true],
          ],
        );
        assert.equal(warnings.filter((w) => w.code === 'TAS_APPROVED_WITHOUT_GRANT').length, 1, 'no second warning');
        assert.deepEqual(gated.state.executed, []);
      } finally {
        process.off('warning', onWarning);
        if (previous === undefined) delete process.env.NODE_ENV;
        else process.env.NODE_ENV = previous;
      }
    });

    test('object arguments are marked; calls of tools the middleware does not gate go to the handler (their own zod); shared and missing call ids are invalid input', async () => {
      const gated = fixture();
      // An Anthropic-style model: parsed objects, no provider text.
      class ObjectModel extends ScriptedChatOpenAI {
        async _generate(messages) {
          const turn = this.turns.shift() ?? [];
          this.received.push(JSON.stringify(messages));
          const calls = turn.map(([id, name, args]) => ({ id, name, args, type: 'tool_call' }));
          return { generations: [{ text: '', message: new AIMessage({ content: calls.length ? '' : 'done', tool_calls: calls }) }] };
        }
      }
      const agent = createAgent({
        model: new ObjectModel([
          [
            ['toolu_1', 'pay', { amount: 5 }],
            ['toolu_2', 'lookup', { query: 'q' }],
          ],
          [],
        ]),
        tools: [gated.pay, gated.lookup],
        middleware: [toolGateMiddleware({ agentName: AGENT, tools: [gated.pay], policy: only(gated.policy, 'pay') })],
        checkpointer: new MemorySaver(),
      });
      const done = await agent.invoke({ messages: [{ role: 'user', content: 'x' }] }, thread('object'));
      assert.deepEqual(
        gated.policyInputs.map((p) => [p.toolCallId, p.argumentsSource, p.rawArguments]),
        [['toolu_1', 'object', '{"amount":5}']],
      );
      assert.deepEqual(gated.state.executed.map(([name]) => name).sort(), ['lookup', 'pay']);
      assert.deepEqual(
        gated.state.executed.find(([name]) => name === 'pay'),
        ['pay', { amount: 5, to: 'bob' }],
      );
      assert.equal(gated.state.schemaRuns, 2, 'pay in the package, lookup in tool.invoke');
      assert.deepEqual(
        toolMessages(done).map(([id, status]) => [id, status]),
        [
          ['toolu_1', 'success'],
          ['toolu_2', 'success'],
        ],
      );

      const dup = fixture();
      const dupAgent = createAgent({
        model: new ScriptedChatOpenAI([
          [
            ['call_1', 'pay', '{"amount":5}'],
            ['call_1', 'pay', '{"amount":99}'],
          ],
          [],
        ]),
        tools: [dup.pay],
        middleware: [toolGateMiddleware({ agentName: AGENT, tools: [dup.pay], policy: only(dup.policy, 'pay') })],
        checkpointer: new MemorySaver(),
        version: 'v1',
      });
      const dupDone = await dupAgent.invoke({ messages: [{ role: 'user', content: 'x' }] }, thread('dup-id'));
      assert.deepEqual(dup.state.executed, []);
      assert.deepEqual(
        toolMessages(dupDone).map(([id, status, content]) => [id, status, /duplicate_call_id/.test(content)]),
        [
          ['call_1', 'error', true],
          ['call_1', 'error', true],
        ],
      );
    });

    test('must be the first middleware: one that changes the tool call before it fails the run', async () => {
      const gated = fixture();
      const before = createMiddleware({ name: 'Rewriter', wrapToolCall: (request, handler) => handler({ ...request, toolCall: { ...request.toolCall } }) });
      const agent = createAgent({
        model: new ScriptedChatOpenAI([
          [
            ['c1', 'pay', '{"amount":5}'],
            ['c2', 'pay', '{"amount":6}'],
          ],
          [],
        ]),
        tools: [gated.pay],
        middleware: [before, toolGateMiddleware({ agentName: AGENT, tools: [gated.pay], policy: only(gated.policy, 'pay') })],
        checkpointer: new MemorySaver(),
        version: 'v1',
      });
      await assert.rejects(agent.invoke({ messages: [{ role: 'user', content: 'x' }] }, thread('order')), /must be the first middleware/);
      assert.deepEqual(gated.state.executed, []);
    });

    test('a kept proposal\'s run is its thread and its message, unambiguously: thread "t:1" with message "m" and thread "t" with message "1:m" never share one', async () => {
      // The key was `langgraph:${thread}:${message}`: these two spelled the same run, so the
      // second thread's call replaced the first's kept proposal and the first's approval
      // came back proposal_changed (failed before the fix).
      const gated = fixture();
      const grants = createApprovalGrants();
      class WithMessageId extends ScriptedChatOpenAI {
        constructor(turns, messageId) {
          super(turns);
          this.messageId = messageId;
        }

        async _generate(messages) {
          const result = await super._generate(messages);
          const m = result.generations[0].message;
          if (m.tool_calls.length === 0) return result;
          return {
            generations: [
              {
                text: '',
                message: new AIMessage({ id: this.messageId, content: m.content, additional_kwargs: m.additional_kwargs, tool_calls: m.tool_calls }),
              },
            ],
          };
        }
      }
      const agentFor = (messageId, amount) =>
        createAgent({
          model: new WithMessageId([[['call_1', 'pay', `{"amount":${amount}}`]], []], messageId),
          tools: [gated.pay],
          middleware: [toolGateMiddleware({ agentName: AGENT, tools: [gated.pay], policy: only(gated.policy, 'pay'), grants })],
          checkpointer: new MemorySaver(),
        });
      const first = agentFor('m', 500);
      const second = agentFor('1:m', 900000);
      const firstConfig = { configurable: { thread_id: 't:1' } };
      const secondConfig = { configurable: { thread_id: 't' } };
      const asked = await first.invoke({ messages: [{ role: 'user', content: 'pay' }] }, firstConfig);
      assert.equal((await first.graph.getState(firstConfig)).values.messages.at(-1).id, 'm');
      await second.invoke({ messages: [{ role: 'user', content: 'pay' }] }, secondConfig);
      const approve = (value) => hitlReviewer(value, () => ({ type: 'approve' }));
      const resumed = await first.invoke(new Command({ resume: approve(asked.__interrupt__[0].value) }), firstConfig);
      assert.deepEqual(toolMessages(resumed), [['call_1', 'success', 'paid 500']]);
      assert.deepEqual(gated.state.executed, [['pay', { amount: 500, to: 'bob' }]]);
    });

    for (const version of ['v1', 'v2']) {
      test(`PostgreSQL checkpointer (tool version ${version}): asked in one process, approved and resumed in another; each call runs once`, (t) => {
        const { service } = require('../../helpers/services');
        const url = service(t, 'pg');
        if (url === null) return;
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-lc-pg-'));
        const threadId = `pg-${version}-${process.pid}-${Date.now()}`;
        const run = (role) => {
          const env = { ...process.env, TAS_LC_AGENT_CHILD: JSON.stringify({ dir, url, thread: threadId, role, version }) };
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
        const calls = (entries) => entries.map(([name, args]) => `${name} ${args.amount ?? args.query}`).sort();
        try {
          const asked = run('ask');
          // v1: nothing runs in the pass the approval interrupts; v2: the allowed calls ran in their own tasks.
          assert.deepEqual(calls(executed()), version === 'v1' ? [] : ['lookup balance', 'pay 5']);
          assert.equal(asked.interrupts.length, 1);
          const [{ value }] = asked.interrupts;
          assert.deepEqual(
            value.actionRequests.map((a) => [a.toolCallId, a.args]),
            [['call_big', { amount: 5000 }]],
          );
          assert.equal(value.proposals[0].signature, expectedSignature(value.proposals[0]));

          const resumed = run(JSON.stringify({ decisions: [{ type: 'approve' }] }));
          const runs = executed();
          assert.deepEqual(calls(runs), ['lookup balance', 'pay 5', 'pay 5000'], 'each call ran once');
          assert.equal(runs.find(([name, args]) => name === 'pay' && args.amount === 5000)[2], resumed.pid, 'the approved call ran in the resuming process');
          assert.deepEqual(resumed.tools.map(([id, status]) => [id, status]).sort(), [
            ['call_big', 'success'],
            ['call_read', 'success'],
            ['call_small', 'success'],
          ]);
          for (const sent of resumed.received) assert.ok(!sent.includes(value.proposals[0].proposalHash), 'the proposal never reached the model');

          // A third process replaying the approval runs nothing.
          run(JSON.stringify({ decisions: [{ type: 'approve' }] }));
          assert.equal(executed().length, 3);
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  });
}

async function drain(stream) {
  for await (const chunk of await stream) void chunk;
}

/** Replaces text in every checkpoint and write a MemorySaver holds; returns how many it changed. */
function tamper(saver, replacements) {
  let changed = 0;
  const rewrite = (bytes) => {
    const text = new TextDecoder().decode(bytes);
    let next = text;
    for (const [from, to] of replacements) next = next.split(from).join(to);
    if (next === text) return bytes;
    changed++;
    return new TextEncoder().encode(next);
  };
  const walk = (node) => {
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (value instanceof Uint8Array) node[key] = rewrite(value);
      else if (value !== null && typeof value === 'object') walk(value);
    }
  };
  walk(saver.storage);
  walk(saver.writes);
  return changed;
}
