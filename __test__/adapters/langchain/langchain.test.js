'use strict';
// tool-argument-snapshot/langchain against the real @langchain/core 1.x, no network.
// The model is a small BaseChatModel that answers with what @langchain/openai makes of a
// Chat Completions response (the provider's argument strings in
// additional_kwargs.tool_calls, tool_calls parsed by core's own parseToolCall), because
// core's fake chat models keep no raw arguments. Expected canonical JSON is written out
// by hand and expected hashes come from node:crypto, never from the package.

const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { createHash } = require('node:crypto');

const { BaseChatModel } = require('@langchain/core/language_models/chat_models');
const {
  AIMessage,
  AIMessageChunk,
  HumanMessage,
  ToolMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
} = require('@langchain/core/messages');
const { tool, ToolInputParsingException } = require('@langchain/core/tools');
const { parseToolCall, makeInvalidToolCall } = require('@langchain/core/output_parsers/openai_tools');
const { convertToOpenAITool } = require('@langchain/core/utils/function_calling');

const { createApprovalGrants } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/langchain');

const AGENT = 'Payments assistant';

/** RFC-0016's proposal hash, computed here (ASCII names: JSON.stringify with sorted keys is JCS). */
function expectedHashOf(agentName, toolName, argsCanonicalJson) {
  const envelope = JSON.stringify({ agentName, argsCanonicalJson, kind: 'tool', toolName });
  return createHash('sha256').update(envelope, 'utf8').digest('hex');
}

function expectedHash(toolName, argsCanonicalJson) {
  return expectedHashOf(AGENT, toolName, argsCanonicalJson);
}

/** Answers each model call with the next scripted turn, shaped as ChatOpenAI's messages. */
class ScriptedOpenAIChatModel extends BaseChatModel {
  constructor(turns) {
    super({});
    this.turns = turns;
    this.boundTools = [];
  }

  _llmType() {
    return 'scripted-openai';
  }

  bindTools(tools) {
    this.boundTools = tools.map((t) => convertToOpenAITool(t));
    return this;
  }

  async _generate() {
    const turn = this.turns.shift();
    const raw = turn.map(([id, name, text]) => ({ id, type: 'function', function: { name, arguments: text } }));
    const toolCalls = [];
    const invalidToolCalls = [];
    for (const rawCall of raw) {
      try {
        toolCalls.push(parseToolCall(rawCall, { returnId: true }));
      } catch (error) {
        invalidToolCalls.push(makeInvalidToolCall(rawCall, error.message));
      }
    }
    const message = new AIMessage({
      content: '',
      additional_kwargs: { tool_calls: raw },
      tool_calls: toolCalls,
      invalid_tool_calls: invalidToolCalls,
    });
    return { generations: [{ text: '', message }] };
  }
}

/** What @langchain/anthropic makes of a tool_use block: an object, no text anywhere. */
function anthropicMessage(id, name, input) {
  return new AIMessage({
    content: [{ type: 'tool_use', id, name, input }],
    tool_calls: [{ id, name, args: input, type: 'tool_call' }],
  });
}

const ZODS = [
  ['zod 4', require('zod')],
  ['zod 3', require('zod3')],
];

for (const [label, z] of ZODS) {
  describe(`LangChain core adapter with ${label}`, () => {
    /** A pay tool made with LangChain's tool(), counting every run of its schema. */
    function setup(options = {}) {
      const state = { schemaRuns: 0, executed: [], configs: [], policyInputs: [] };
      const schema = z.preprocess(
        (value) => {
          state.schemaRuns++;
          return value;
        },
        z.object({ amount: z.number().int().positive(), currency: z.string().default('EUR') }),
      );
      const pay = tool(
        async (args, config) => {
          state.executed.push(args);
          state.configs.push(config);
          return `paid ${args.amount} ${args.currency}`;
        },
        { name: 'pay', description: 'Pay an amount', schema },
      );
      const appPolicy =
        options.policy ??
        ((input) => {
          state.policyInputs.push(input);
          if (input.parsedArguments.currency === 'XXX') return { decision: 'deny', reason: 'currency not allowed' };
          if (input.parsedArguments.amount > 1000) return { decision: 'require_approval', reason: 'over the limit' };
          return { decision: 'allow', reason: 'small payment' };
        });
      const grants = options.grants ?? createApprovalGrants();
      const gate = createToolGate({ agentName: AGENT, tools: [pay], policy: appPolicy, grants });
      return { state, pay, gate, grants };
    }

    async function modelTurn(texts) {
      const model = new ScriptedOpenAIChatModel([texts]);
      return model.invoke([new HumanMessage('pay the invoice')]);
    }

    test('an allowed call runs the handler once with a distinct object of the same JSON', async () => {
      const { state, gate } = setup();
      const raw = '{"currency":"EUR","amount":25}';
      const ai = await modelTurn([['call_1', 'pay', raw]]);
      const { messages, pending, results } = await gate.run(ai);

      assert.equal(pending.length, 0);
      assert.equal(results.length, 1);
      assert.equal(results[0].status, 'executed');
      assert.equal(results[0].decidedBy, 'policy');
      assert.equal(state.executed.length, 1);
      const [args] = state.executed;
      const policyView = state.policyInputs[0].parsedArguments;
      assert.notEqual(args, policyView, 'the handler must not get the policy view');
      assert.notEqual(args, ai.tool_calls[0].args, 'the handler must not get LangChain parsed arguments');
      assert.notEqual(args, state.configs[0].toolCall.args, 'config.toolCall.args is a view of its own');
      assert.equal(JSON.stringify(args), '{"amount":25,"currency":"EUR"}');
      assert.equal(JSON.stringify(policyView), '{"amount":25,"currency":"EUR"}');
      // The policy saw the provider's own text, marked as such.
      assert.equal(state.policyInputs[0].rawArguments, raw);
      assert.equal(state.policyInputs[0].argumentsSource, 'provider_text');
      assert.equal(state.policyInputs[0].toolCallId, 'call_1');
      assert.equal(state.policyInputs[0].proposalHash, expectedHash('pay', '{"amount":25,"currency":"EUR"}'));
      // LangChain made the ToolMessage.
      assert.equal(messages.length, 1);
      assert.ok(ToolMessage.isInstance(messages[0]));
      assert.equal(messages[0].status, 'success');
      assert.equal(messages[0].tool_call_id, 'call_1');
      assert.equal(messages[0].content, 'paid 25 EUR');
    });

    test('a policy deny executes nothing and answers with an error ToolMessage', async () => {
      const { state, gate } = setup();
      const ai = await modelTurn([['call_1', 'pay', '{"amount":25,"currency":"XXX"}']]);
      const { messages, results } = await gate.run(ai);
      assert.equal(results[0].status, 'denied');
      assert.equal(results[0].decidedBy, 'policy');
      assert.equal(results[0].reason, 'currency not allowed');
      assert.equal(state.executed.length, 0);
      assert.equal(messages[0].status, 'error');
      assert.equal(messages[0].tool_call_id, 'call_1');
      assert.equal(results[0].error, undefined, 'a denial is not an invalid-input error');
    });

    test('a policy that mutates its view is denied and nothing executes', async () => {
      const { state, gate } = setup({
        policy: (input) => {
          input.parsedArguments.amount = 9999900;
          return { decision: 'allow', reason: 'looks fine' };
        },
      });
      const ai = await modelTurn([['call_1', 'pay', '{"amount":500}']]);
      const { results, messages } = await gate.run(ai);
      assert.equal(results[0].status, 'denied');
      assert.equal(results[0].decidedBy, 'runtime');
      assert.equal(results[0].reason, 'policy_mutated_arguments');
      assert.equal(state.executed.length, 0);
      assert.equal(messages[0].status, 'error');
    });

    test('a duplicate-key call is rejected at stage json, where LangChain alone executes the last value', async () => {
      const raw = '{"amount":5,"amount":5000000}';
      // The framework alone: the integration's JSON.parse keeps the last value and
      // tool.invoke executes it.
      const alone = setup();
      const aiAlone = await modelTurn([['call_1', 'pay', raw]]);
      await alone.pay.invoke(aiAlone.tool_calls[0]);
      assert.deepEqual(alone.state.executed, [{ amount: 5000000, currency: 'EUR' }]);

      const { state, gate } = setup();
      const ai = await modelTurn([['call_1', 'pay', raw]]);
      const { results, messages, pending } = await gate.run(ai);
      assert.equal(results[0].status, 'invalid_input');
      assert.ok(results[0].error instanceof ToolInputParsingException, 'LangChain invalid-input error');
      assert.equal(results[0].error.cause.stage, 'json');
      assert.equal(results[0].error.cause.code, 'duplicate_key');
      assert.equal(results[0].decision, undefined, 'no policy decision for invalid input');
      assert.equal(state.policyInputs.length, 0);
      assert.equal(state.schemaRuns, 0);
      assert.equal(state.executed.length, 0);
      assert.equal(pending.length, 0);
      assert.equal(messages[0].status, 'error');
      assert.equal(messages[0].tool_call_id, 'call_1');
      for (const text of [messages[0].content, results[0].error.message]) {
        assert.ok(!text.includes('5000000') && !text.includes('amount'), 'no payload in the error text');
      }
    });

    test('schema and snapshot failures reach the invalid-input path, not a denial', async () => {
      const { state, gate } = setup();
      const ai = await modelTurn([
        ['call_1', 'pay', '{"amount":-5}'],
        ['call_2', 'pay', '{"amount":5,'],
      ]);
      const { results } = await gate.run(ai);
      assert.deepEqual(
        results.map((r) => [r.toolCallId, r.status, r.error.cause.stage, r.error.cause.code]),
        [
          ['call_1', 'invalid_input', 'schema', 'schema_error'],
          ['call_2', 'invalid_input', 'json', 'invalid_json'],
        ],
      );
      assert.equal(state.policyInputs.length, 0);

      const dated = tool(async () => 'never', {
        name: 'when',
        schema: z.object({ at: z.string() }).transform((v) => ({ at: new Date(v.at) })),
      });
      const gate2 = createToolGate({ agentName: AGENT, tools: [dated], policy: () => ({ decision: 'allow', reason: 'ok' }) });
      const ai2 = await modelTurn([['call_3', 'when', '{"at":"2026-01-01"}']]);
      const [result] = (await gate2.run(ai2)).results;
      assert.equal(result.status, 'invalid_input');
      assert.equal(result.error.cause.stage, 'snapshot');
      assert.equal(result.error.cause.code, 'non_plain_object');
    });

    test('a call that needs approval, granted by hash and resumed, executes once; a replay executes nothing', async () => {
      const { state, gate, grants } = setup();
      const ai = await modelTurn([['call_1', 'pay', '{"amount":50000}']]);
      const first = await gate.run(ai);
      assert.equal(state.executed.length, 0);
      assert.equal(first.messages.length, 0, 'a pending call has no answer yet');
      assert.equal(first.pending.length, 1);
      const [proposal] = first.pending;
      assert.equal(proposal.kind, 'tool');
      assert.equal(proposal.toolCallId, 'call_1');
      assert.equal(proposal.argumentsSource, 'provider_text');
      assert.equal(proposal.rawArguments, '{"amount":50000}');
      assert.equal(proposal.argsCanonicalJson, '{"amount":50000,"currency":"EUR"}');
      assert.equal(proposal.proposalHash, expectedHash('pay', '{"amount":50000,"currency":"EUR"}'));
      assert.equal(proposal.reason, 'over the limit');

      // The conversation is stored while a human decides; the provider text survives.
      const stored = JSON.stringify(mapChatMessagesToStoredMessages([ai]));
      await grants.grant(proposal);

      const [restored] = mapStoredMessagesToChatMessages(JSON.parse(stored));
      const resumed = await gate.run(restored, { toolCallIds: ['call_1'] });
      assert.equal(resumed.results[0].status, 'executed');
      assert.equal(resumed.results[0].reason, 'approval_granted');
      assert.deepEqual(state.executed, [{ amount: 50000, currency: 'EUR' }]);
      assert.equal(resumed.messages[0].tool_call_id, 'call_1');
      assert.equal(resumed.messages[0].status, 'success');

      const replay = await gate.run(mapStoredMessagesToChatMessages(JSON.parse(stored))[0], { toolCallIds: ['call_1'] });
      assert.equal(replay.results[0].status, 'pending', 'a spent grant asks again');
      assert.equal(state.executed.length, 1, 'the replay executed nothing');
    });

    test('stored arguments edited after approval execute nothing', async () => {
      const { state, gate, grants } = setup();
      const ai = await modelTurn([['call_1', 'pay', '{"amount":50000}']]);
      const [proposal] = (await gate.run(ai)).pending;
      const stored = JSON.stringify(mapChatMessagesToStoredMessages([ai]));
      await grants.grant(proposal);

      // Both the provider text and LangChain's parsed copy edited.
      const edited = stored.replaceAll('50000', '5000000');
      assert.notEqual(edited, stored);
      const [tampered] = mapStoredMessagesToChatMessages(JSON.parse(edited));
      const attempt = await gate.run(tampered, { toolCallIds: ['call_1'] });
      assert.equal(attempt.results[0].status, 'pending', 'a different hash is a new approval request');
      assert.notEqual(attempt.pending[0].proposalHash, proposal.proposalHash);
      assert.equal(state.executed.length, 0);
      assert.equal(await grants.has(proposal), true, 'the mismatch did not burn the grant');

      // Only LangChain's parsed copy edited: the provider text decides what executes.
      const parsedOnly = JSON.parse(stored);
      parsedOnly[0].data.tool_calls[0].args.amount = 5000000;
      const [copyEdited] = mapStoredMessagesToChatMessages(parsedOnly);
      const run = await gate.run(copyEdited, { toolCallIds: ['call_1'] });
      assert.equal(run.results[0].status, 'executed');
      assert.deepEqual(state.executed, [{ amount: 50000, currency: 'EUR' }]);
    });

    test('the same action respelled by the model matches the grant', async () => {
      const { state, gate, grants } = setup();
      const [proposal] = (await gate.run(await modelTurn([['call_1', 'pay', '{"amount":50000}']]))).pending;
      await grants.grant(proposal);

      const other = await gate.run(await modelTurn([['call_2', 'pay', '{"amount":50001}']]));
      assert.equal(other.results[0].status, 'pending');
      assert.equal(state.executed.length, 0);

      const respelled = '{ "currency" : "EUR",\n  "amount" : 50000.0 }';
      const { results } = await gate.run(await modelTurn([['call_3', 'pay', respelled]]));
      assert.equal(results[0].status, 'executed');
      assert.equal(results[0].decision.proposalHash, proposal.proposalHash);
      assert.deepEqual(state.executed, [{ amount: 50000, currency: 'EUR' }]);
    });

    test('the schema runs exactly once per attempt', async () => {
      const { state, gate, grants } = setup();
      let attempts = 0;
      async function attempt(texts, options) {
        attempts += texts.length;
        return gate.run(await modelTurn(texts), options);
      }
      await attempt([['call_1', 'pay', '{"amount":25}']]); // allowed
      await attempt([['call_2', 'pay', '{"amount":25,"currency":"XXX"}']]); // denied
      const { pending } = await attempt([['call_3', 'pay', '{"amount":50000}']]); // approval
      await grants.grant(pending[0]);
      await attempt([['call_4', 'pay', '{"amount":50000}']]); // granted
      await attempt([['call_5', 'pay', '{"amount":0}']]); // schema failure
      assert.equal(attempts, 5);
      assert.equal(state.schemaRuns, 5);
      assert.equal(state.executed.length, 2);

      // For comparison, tool.invoke alone runs it once per call too: executing through
      // the gate added no second run.
      const alone = setup();
      await alone.pay.invoke({ type: 'tool_call', id: 'x', name: 'pay', args: { amount: 1 } });
      assert.equal(alone.state.schemaRuns, 1);
    });

    test('a grant lost to another attempt is a runtime deny and nothing executes', async () => {
      // A store that says a grant exists but whose atomic take finds it gone.
      const grants = createApprovalGrants({ store: { put() {}, has: () => true, take: () => false } });
      const { state, gate } = setup({ grants });
      const { results, messages } = await gate.run(await modelTurn([['call_1', 'pay', '{"amount":50000}']]));
      assert.equal(results[0].status, 'denied');
      assert.equal(results[0].decidedBy, 'runtime');
      assert.equal(results[0].reason, 'grant_unavailable');
      assert.equal(state.executed.length, 0);
      assert.equal(messages[0].status, 'error');
    });

    test('a resume with an aborted signal executes nothing and keeps the grant', async () => {
      const { state, gate, grants } = setup();
      const ai = await modelTurn([['call_1', 'pay', '{"amount":50000}']]);
      const [proposal] = (await gate.run(ai)).pending;
      await grants.grant(proposal);
      const controller = new AbortController();
      controller.abort(new Error('user left'));
      await assert.rejects(gate.run(ai, { config: { signal: controller.signal } }), { message: 'user left' });
      assert.equal(state.executed.length, 0);
      assert.equal(await grants.has(proposal), true);
      const { results } = await gate.run(ai);
      assert.equal(results[0].status, 'executed');
      assert.equal(state.executed.length, 1);
    });

    test('an Anthropic-style call with object arguments is visibly marked', async () => {
      const { state, gate } = setup();
      const { results, pending } = await gate.run(anthropicMessage('toolu_1', 'pay', { amount: 50000 }));
      assert.equal(results[0].status, 'pending');
      assert.equal(results[0].argumentsSource, 'object');
      assert.equal(state.policyInputs[0].argumentsSource, 'object');
      assert.equal(pending[0].argumentsSource, 'object');
      assert.equal(pending[0].toolCallId, 'toolu_1');
      // The hash binds the schema's output, so it is the one the provider text gives.
      assert.equal(pending[0].proposalHash, expectedHash('pay', '{"amount":50000,"currency":"EUR"}'));

      // An object outside the strict domain fails at stage snapshot, before the schema.
      const bad = await gate.run(anthropicMessage('toolu_2', 'pay', { amount: -0 }));
      assert.equal(bad.results[0].status, 'invalid_input');
      assert.equal(bad.results[0].error.cause.stage, 'snapshot');
      assert.equal(bad.results[0].error.cause.code, 'negative_zero');
      assert.equal(state.executed.length, 0);
    });

    test('a concatenated stream uses the provider text of its chunks', async () => {
      const { state, gate } = setup();
      const first = new AIMessageChunk({
        content: '',
        tool_call_chunks: [{ id: 'call_1', name: 'pay', args: '{"amount":5,', index: 0, type: 'tool_call_chunk' }],
      });
      const rest = new AIMessageChunk({ content: '', tool_call_chunks: [{ args: '"amount":5000000}', index: 0, type: 'tool_call_chunk' }] });
      const streamed = first.concat(rest);
      assert.deepEqual(streamed.tool_calls[0].args, { amount: 5000000 }, 'LangChain keeps the last value');
      const { results } = await gate.run(streamed);
      assert.equal(results[0].status, 'invalid_input');
      assert.equal(results[0].error.cause.code, 'duplicate_key');
      assert.equal(results[0].argumentsSource, 'provider_text');

      const clean = new AIMessageChunk({
        content: '',
        tool_call_chunks: [{ id: 'call_2', name: 'pay', args: '{"amount":', index: 0, type: 'tool_call_chunk' }],
      }).concat(new AIMessageChunk({ content: '', tool_call_chunks: [{ args: '7}', index: 0, type: 'tool_call_chunk' }] }));
      const done = await gate.run(clean);
      assert.equal(done.results[0].status, 'executed');
      assert.deepEqual(state.executed, [{ amount: 7, currency: 'EUR' }]);
    });

    test("two tool calls sharing an id are invalid input: neither runs the other's arguments", async () => {
      // "pay bob 5" and "pay eve 999999" under one id. Pairing texts by id and keeping the
      // first text per id (d0c85eb) ran 5 twice and never prepared, decided or ran 999999.
      const { state, gate } = setup();
      const ai = await modelTurn([
        ['call_1', 'pay', '{"amount":5}'],
        ['call_1', 'pay', '{"amount":999999}'],
      ]);
      assert.deepEqual(
        ai.tool_calls.map((c) => [c.id, c.args.amount]),
        [
          ['call_1', 5],
          ['call_1', 999999],
        ],
        'LangChain keeps both calls under one id',
      );
      const { results, messages, pending } = await gate.run(ai);
      assert.deepEqual(state.executed, [], 'nothing ran: neither call can be answered, resumed or approved by its id');
      assert.equal(state.policyInputs.length, 0);
      assert.equal(state.schemaRuns, 0);
      assert.equal(pending.length, 0);
      assert.deepEqual(
        results.map((r) => [r.toolCallId, r.status, r.code, r.stage, r.error.cause.code]),
        [
          ['call_1', 'invalid_input', 'duplicate_call_id', 'call', 'duplicate_call_id'],
          ['call_1', 'invalid_input', 'duplicate_call_id', 'call', 'duplicate_call_id'],
        ],
      );
      assert.ok(results[0].error instanceof ToolInputParsingException);
      assert.deepEqual(
        messages.map((m) => [m.tool_call_id, m.status]),
        [
          ['call_1', 'error'],
          ['call_1', 'error'],
        ],
      );
      for (const text of [messages[0].content, results[0].error.message]) assert.ok(!text.includes('999999') && !text.includes('amount'), 'no payload');

      // An id shared only by the provider's texts is as ambiguous: the parsed calls were
      // made from one of them, and nothing says which.
      const texts = new AIMessage({
        content: '',
        additional_kwargs: {
          tool_calls: [
            { id: 'call_2', type: 'function', function: { name: 'pay', arguments: '{"amount":5}' } },
            { id: 'call_2', type: 'function', function: { name: 'pay', arguments: '{"amount":999999}' } },
          ],
        },
        tool_calls: [{ id: 'call_2', name: 'pay', args: { amount: 5 }, type: 'tool_call' }],
      });
      const twice = await gate.run(texts);
      assert.deepEqual(
        twice.results.map((r) => [r.status, r.code]),
        [['invalid_input', 'duplicate_call_id']],
      );

      // Distinct ids are paired by id, whatever their order in each list.
      const reordered = new AIMessage({
        content: '',
        additional_kwargs: {
          tool_calls: [
            { id: 'call_4', type: 'function', function: { name: 'pay', arguments: '{"amount":999999}' } },
            { id: 'call_3', type: 'function', function: { name: 'pay', arguments: '{"amount":5}' } },
          ],
        },
        tool_calls: [
          { id: 'call_3', name: 'pay', args: { amount: 5 }, type: 'tool_call' },
          { id: 'call_4', name: 'pay', args: { amount: 999999 }, type: 'tool_call' },
        ],
      });
      const paired = await gate.run(reordered);
      assert.deepEqual(
        paired.results.map((r) => [r.toolCallId, r.status]),
        [
          ['call_3', 'executed'],
          ['call_4', 'pending'],
        ],
      );
      assert.equal(paired.pending[0].rawArguments, '{"amount":999999}');
      assert.deepEqual(state.executed, [{ amount: 5, currency: 'EUR' }]);
    });

    test('a tool call without an id is invalid input (missing_call_id), and so is a call the provider texts do not have', async () => {
      const { state, gate } = setup();
      const noId = new AIMessage({
        content: '',
        additional_kwargs: { tool_calls: [{ type: 'function', function: { name: 'pay', arguments: '{"amount":5}' } }] },
        tool_calls: [{ name: 'pay', args: { amount: 5 }, type: 'tool_call' }],
      });
      const { results, messages } = await gate.run(noId);
      assert.deepEqual(
        results.map((r) => [r.toolCallId, r.status, r.code]),
        [[undefined, 'invalid_input', 'missing_call_id']],
      );
      assert.equal(messages[0].tool_call_id, '');
      assert.equal(messages[0].status, 'error');
      // Without provider texts too (an object-argument integration).
      const objectNoId = await gate.run(new AIMessage({ content: '', tool_calls: [{ id: '', name: 'pay', args: { amount: 5 }, type: 'tool_call' }] }));
      assert.equal(objectNoId.results[0].code, 'missing_call_id');

      // A call added to, or renamed in, LangChain's parsed copy after the provider sent
      // its texts has no text of its own: its arguments would come from the edited copy.
      const edited = new AIMessage({
        content: '',
        additional_kwargs: { tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"amount":5}' } }] },
        tool_calls: [
          { id: 'call_1', name: 'pay', args: { amount: 5 }, type: 'tool_call' },
          { id: 'call_9', name: 'pay', args: { amount: 999999 }, type: 'tool_call' },
        ],
      });
      const unpaired = await gate.run(edited);
      assert.deepEqual(
        unpaired.results.map((r) => [r.toolCallId, r.status, r.code]),
        [
          ['call_1', 'invalid_input', 'unpaired_call'],
          ['call_9', 'invalid_input', 'unpaired_call'],
        ],
      );
      assert.deepEqual(state.executed, []);
      assert.equal(state.policyInputs.length, 0);
    });

    test('the model is bound to the tool itself, and an unknown tool name executes nothing', async () => {
      const { state, pay, gate } = setup();
      const model = new ScriptedOpenAIChatModel([[['call_1', 'refund', '{"amount":5}']]]).bindTools([pay]);
      assert.equal(model.boundTools[0].function.name, 'pay');
      assert.deepEqual(Object.keys(model.boundTools[0].function.parameters.properties), ['amount', 'currency']);
      const ai = await model.invoke([new HumanMessage('refund')]);
      const { results, messages } = await gate.run(ai);
      assert.equal(results[0].status, 'unknown_tool');
      assert.equal(messages[0].status, 'error');
      assert.equal(state.executed.length, 0);
      assert.equal(state.schemaRuns, 0);
    });
  });
}

test('a JSON-schema tool is gated through fromJsonSchema: its schema runs once in the package, tool.invoke alone runs the last value of a duplicate key', async () => {
  const executed = [];
  const schema = {
    type: 'object',
    properties: { to: { type: 'string' }, cents: { type: 'integer', minimum: 1 }, memo: { type: 'string', default: 'none' } },
    required: ['to', 'cents'],
    additionalProperties: false,
  };
  const transfer = tool(
    async (args) => {
      executed.push(args);
      return `sent ${args.cents}`;
    },
    { name: 'transfer', schema },
  );
  const raw = '{"to":"bob","cents":5,"cents":5000000}';
  const ai = await new ScriptedOpenAIChatModel([[['call_1', 'transfer', raw]]]).invoke([new HumanMessage('x')]);
  await transfer.invoke(ai.tool_calls[0]);
  assert.deepEqual(executed, [{ to: 'bob', cents: 5000000 }], 'LangChain alone ran the last value');
  executed.length = 0;

  const seen = [];
  const policy = (input) => {
    seen.push([input.argsCanonicalJson, input.parsedArguments]);
    return { decision: 'allow', reason: 'ok' };
  };
  const gate = createToolGate({ agentName: AGENT, tools: [transfer], policy });
  assert.deepEqual(
    (await gate.run(ai)).results.map((r) => [r.status, r.stage, r.code]),
    [['invalid_input', 'json', 'duplicate_key']],
  );
  const turn = await new ScriptedOpenAIChatModel([
    [
      ['c2', 'transfer', '{"cents":7.0,"to":"alice"}'],
      ['c3', 'transfer', '{"to":"eve","cents":0}'],
      ['c4', 'transfer', '{"to":"eve","cents":1,"extra":true}'],
    ],
  ]).invoke([new HumanMessage('x')]);
  const { results } = await gate.run(turn);
  assert.deepEqual(
    results.map((r) => [r.toolCallId, r.status, r.stage, r.code]),
    [
      ['c2', 'executed', undefined, undefined],
      ['c3', 'invalid_input', 'schema', 'schema_error'],
      ['c4', 'invalid_input', 'schema', 'schema_error'],
    ],
  );
  assert.deepEqual(seen, [['{"cents":7,"to":"alice"}', { cents: 7, to: 'alice' }]], 'defaults are off unless asked');
  assert.deepEqual(executed, [{ cents: 7, to: 'alice' }]);

  // fromJsonSchema options for every JSON-schema tool of the gate: defaults go into the snapshot.
  const withDefaults = createToolGate({ agentName: AGENT, tools: [transfer], policy, jsonSchemaOptions: { defaults: true } });
  await withDefaults.run(await new ScriptedOpenAIChatModel([[['c5', 'transfer', '{"cents":9,"to":"alice"}']]]).invoke([new HumanMessage('x')]));
  assert.deepEqual(seen.at(-1), ['{"cents":9,"memo":"none","to":"alice"}', { cents: 9, memo: 'none', to: 'alice' }]);

  // A schema that does not compile fails when the gate is made, not at the first call.
  const broken = tool(async () => 'x', { name: 'broken', schema: { type: 'object', properties: { a: { type: 'nope' } } } });
  assert.throws(() => createToolGate({ agentName: AGENT, tools: [broken] }), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
});

test('createToolGate refuses a bad option', () => {
  assert.throws(() => createToolGate({ agentName: AGENT, tools: 'pay' }), { name: 'TypeError' });
  assert.throws(
    () => createToolGate({ agentName: AGENT, tools: [tool(async () => 'x', { name: 'raw', schema: { type: 'object' } })], jsonSchemaOptions: 'strict' }),
    { code: 'ERR_INVALID_ARG_TYPE' },
  );
  // One name per option across the gates: the former `jsonSchema` is refused, naming `jsonSchemaOptions`.
  assert.throws(() => createToolGate({ agentName: AGENT, tools: [], jsonSchema: { defaults: true } }), {
    code: 'ERR_INVALID_ARG_TYPE',
    message: /options\.jsonSchemaOptions/,
  });
  assert.throws(() => require('tool-argument-snapshot/langchain').toolGateMiddleware({ agentName: AGENT, tools: [], jsonSchema: { defaults: true } }), {
    code: 'ERR_INVALID_ARG_TYPE',
    message: /options\.jsonSchemaOptions/,
  });
  const inherited = Object.create({ agentName: AGENT, tools: [] });
  assert.throws(() => createToolGate(inherited), { name: 'TypeError' }, 'inherited options never count');
});

describe('typed policies, decline and approvals kept per run', () => {
  const z = require('zod');
  const KEYS = [{ id: 'k1', secret: 'k'.repeat(32) }];

  function tools() {
    const executed = [];
    const pay = tool(
      async (args) => {
        executed.push(['pay', args]);
        return `paid ${args.amount}`;
      },
      { name: 'pay', schema: z.object({ amount: z.number() }) },
    );
    const lookup = tool(
      async (args) => {
        executed.push(['lookup', args]);
        return `found ${args.query}`;
      },
      { name: 'lookup', schema: z.object({ query: z.string() }) },
    );
    return { pay, lookup, executed };
  }

  async function turn(texts) {
    return new ScriptedOpenAIChatModel([texts]).invoke([new HumanMessage('x')]);
  }

  test('a policy map gives each tool its own policy; a tool without one needs approval with grants, is denied without', async () => {
    const { pay, lookup, executed } = tools();
    const seen = [];
    const policy = {
      pay: (input) => {
        seen.push(['pay', input.toolName, input.parsedArguments.amount, input.toolCallId]);
        return { decision: input.parsedArguments.amount > 100 ? 'require_approval' : 'allow', reason: 'amount' };
      },
      lookup: (input) => {
        seen.push(['lookup', input.toolName, input.parsedArguments.query, input.toolCallId]);
        return { decision: 'deny', reason: 'no lookups today' };
      },
    };
    const gate = createToolGate({ agentName: AGENT, tools: [pay, lookup], policy });
    const { results } = await gate.run(
      await turn([
        ['c1', 'pay', '{"amount":5}'],
        ['c2', 'lookup', '{"query":"q"}'],
        ['c3', 'pay', '{"amount":500}'],
      ]),
    );
    assert.deepEqual(
      results.map((r) => [r.toolCallId, r.status, r.reason]),
      [
        ['c1', 'executed', 'amount'],
        ['c2', 'denied', 'no lookups today'],
        ['c3', 'pending', 'amount'],
      ],
    );
    assert.deepEqual(seen, [
      ['pay', 'pay', 5, 'c1'],
      ['lookup', 'lookup', 'q', 'c2'],
      ['pay', 'pay', 500, 'c3'],
    ]);
    assert.deepEqual(executed, [['pay', { amount: 5 }]]);

    const partial = { pay: policy.pay };
    const withGrants = createToolGate({ agentName: AGENT, tools: [pay, lookup], policy: partial, grants: createApprovalGrants() });
    const without = createToolGate({ agentName: AGENT, tools: [pay, lookup], policy: partial });
    const ai = await turn([['c4', 'lookup', '{"query":"q"}']]);
    assert.deepEqual(
      (await withGrants.run(ai)).results.map((r) => [r.status, r.reason]),
      [['pending', 'approval_required']],
    );
    assert.deepEqual(
      (await without.run(ai)).results.map((r) => [r.status, r.decidedBy, r.reason]),
      [['denied', 'runtime', 'policy_not_configured']],
    );

    assert.throws(() => createToolGate({ agentName: AGENT, tools: [pay], policy: { refund: () => ({ decision: 'allow', reason: 'x' }) } }), {
      code: 'ERR_INVALID_ARG_TYPE',
    });
    assert.throws(() => createToolGate({ agentName: AGENT, tools: [pay], policy: { pay: 'allow' } }), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.throws(() => createToolGate({ agentName: AGENT, tools: [pay], policy: new Proxy({}, {}) }), { code: 'ERR_INVALID_ARG_TYPE' });
    const inherited = Object.create({ pay: () => ({ decision: 'allow', reason: 'inherited' }) });
    const inheritedGate = createToolGate({ agentName: AGENT, tools: [pay], policy: inherited });
    assert.equal(
      (await inheritedGate.run(await turn([['c5', 'pay', '{"amount":1}']]))).results[0].reason,
      'policy_not_configured',
      'an inherited entry is no policy',
    );
  });

  test('gate.decline answers a pending call with an error ToolMessage and runs nothing', async () => {
    const { pay, executed } = tools();
    const gate = createToolGate({
      agentName: AGENT,
      tools: [pay],
      policy: () => ({ decision: 'require_approval', reason: 'review' }),
      grants: createApprovalGrants(),
    });
    const { pending, messages } = await gate.run(await turn([['c1', 'pay', '{"amount":5}']]));
    assert.equal(messages.length, 0);
    const declined = gate.decline(pending[0]);
    assert.ok(ToolMessage.isInstance(declined));
    assert.deepEqual([declined.tool_call_id, declined.name, declined.status], ['c1', 'pay', 'error']);
    assert.match(declined.content, /declined/);
    assert.equal(gate.decline(pending[0], 'not this month').content, 'not this month');
    assert.throws(() => gate.decline({ toolName: 'pay' }), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.throws(() => gate.decline(new Proxy(pending[0], {})), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.deepEqual(executed, []);
  });

  test('with a key ring, pending proposals are sealed; gate.approve grants the seal and the resumed call runs once', async () => {
    const { pay, executed } = tools();
    const grants = createApprovalGrants({ keys: KEYS });
    const gate = createToolGate({ agentName: AGENT, tools: [pay], policy: () => ({ decision: 'require_approval', reason: 'review' }), grants });
    const ai = await turn([['c1', 'pay', '{"amount":5}']]);
    const [proposal] = (await gate.run(ai)).pending;
    assert.equal(proposal.sealed.v, 1);
    assert.equal(proposal.sealed.proposalHash, proposal.proposalHash);
    await assert.rejects(grants.grant(proposal), { code: 'not_sealed' }, 'the unsealed proposal is refused by grants with keys');
    await gate.approve(proposal);
    await assert.rejects(gate.approve(proposal), { code: 'TAS_NO_PENDING_PROPOSAL' }, 'approved already (as in every adapter)');
    await assert.rejects(grants.grant(proposal.sealed), { code: 'seal_used' }, 'the seal itself is granted once');
    const resumed = await gate.run(ai, { toolCallIds: ['c1'] });
    assert.equal(resumed.results[0].reason, 'approval_granted');
    assert.deepEqual(executed, [['pay', { amount: 5 }]]);
  });

  test('with runId, a fresh gate lists the proposals kept for a stored message, approves one and resumes it; partial approvals keep the other pending', async () => {
    const { pay, executed } = tools();
    const grants = createApprovalGrants({ keys: KEYS });
    const policy = () => ({ decision: 'require_approval', reason: 'review' });
    const first = createToolGate({ agentName: AGENT, tools: [pay], policy, grants });
    const ai = await turn([
      ['c1', 'pay', '{"amount":5}'],
      ['c2', 'pay', '{"amount":7}'],
    ]);
    const stored = JSON.stringify(mapChatMessagesToStoredMessages([ai]));
    const run = await first.run(ai, { runId: 'thread-1', policyContext: { grantScope: 'user:alice' } });
    assert.equal(run.pending.length, 2);
    assert.equal(run.pending[0].sealed.scope, 'user:alice');

    // Another gate (another process would do the same with a shared store).
    const second = createToolGate({ agentName: AGENT, tools: [pay], policy, grants });
    const [restored] = mapStoredMessagesToChatMessages(JSON.parse(stored));
    const kept = await second.pending(restored, { runId: 'thread-1' });
    assert.deepEqual(
      kept.map((p) => [p.toolCallId, p.argsCanonicalJson, p.sealed.scope]),
      [
        ['c1', '{"amount":5}', 'user:alice'],
        ['c2', '{"amount":7}', 'user:alice'],
      ],
    );
    assert.deepEqual(kept[0].parsedArguments, { amount: 5 });
    assert.deepEqual(await second.pending(restored, { runId: 'thread-2' }), [], 'kept per run');
    await second.approve(kept[0]);
    const resumed = await second.run(restored, { runId: 'thread-1', toolCallIds: ['c1'], policyContext: { grantScope: 'user:alice' } });
    assert.deepEqual(
      resumed.results.map((r) => [r.toolCallId, r.status, r.reason]),
      [['c1', 'executed', 'approval_granted']],
    );
    assert.deepEqual(executed, [['pay', { amount: 5 }]]);
    assert.deepEqual(
      (await second.pending(restored, { runId: 'thread-1' })).map((p) => p.toolCallId),
      ['c2'],
      'the executed call is forgotten, the undecided one is still pending',
    );
    await assert.rejects(second.pending(restored), { code: 'ERR_INVALID_ARG_TYPE' });
    await assert.rejects(
      createToolGate({ agentName: AGENT, tools: [pay], policy }).run(restored, { runId: 'x' }),
      { code: 'ERR_INVALID_ARG_TYPE' },
      'runId needs grants',
    );
  });
});

test('without a policy or grants every call is denied by the runtime', async () => {
  const pay = tool(async () => 'paid', { name: 'pay', schema: require('zod').object({ amount: require('zod').number() }) });
  const gate = createToolGate({ agentName: AGENT, tools: [pay] });
  const ai = await new ScriptedOpenAIChatModel([[['call_1', 'pay', '{"amount":1}']]]).invoke([new HumanMessage('x')]);
  const { results } = await gate.run(ai);
  assert.equal(results[0].status, 'denied');
  assert.equal(results[0].decidedBy, 'runtime');
  assert.equal(results[0].reason, 'policy_not_configured');
});

test('the declarations type-check from CommonJS and ESM and reject misuse (tsc --strict)', () => {
  const { spawnSync } = require('node:child_process');
  const { join } = require('node:path');
  const tsc = require.resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(__dirname, '..', '..', 'package', 'types', 'langchain', 'tsconfig.json')], { encoding: 'utf8' });
  assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
});

test('adapters/langchain/index.d.mts is generated from index.d.ts beside it and current (npm run gen:declarations)', () => {
  const { readFileSync } = require('node:fs');
  const { join } = require('node:path');
  const dir = join(__dirname, '..', '..', '..', 'adapters', 'langchain');
  const generated = readFileSync(join(dir, 'index.d.mts'), 'utf8');
  const newline = generated.indexOf('\n');
  assert.match(generated.slice(0, newline), /^\/\/ Generated from adapters\/langchain\/index\.d\.ts by scripts\/gen-declarations\.js\b/);
  assert.equal(generated.slice(newline + 1), readFileSync(join(dir, 'index.d.ts'), 'utf8'));
});

test('examples/langchain-agent.js runs as written', () => {
  const { spawnSync } = require('node:child_process');
  const { join } = require('node:path');
  const result = spawnSync(process.execPath, [join(__dirname, '..', '..', '..', 'examples', 'langchain-agent.js')], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  const lines = result.stdout.trim().split('\n');
  assert.equal(
    lines[0],
    `reviewer sees {"cents":250000,"to":"bob"} (${expectedHashOf('Payments assistant', 'transfer', '{"cents":250000,"to":"bob"}').slice(0, 16)}…)`,
  );
  assert.deepEqual(lines.slice(1), [
    'call_1 success: sent 500 cents to alice',
    'call_3 error: Arguments of tool "transfer" failed at stage json: the text has an object with the same key twice [duplicate_key]',
    'call_2 success: sent 250000 cents to bob',
  ]);
});

test('without @langchain/core the adapter says which optional peer to install', () => {
  const { spawnSync } = require('node:child_process');
  // A child in which @langchain/core cannot be resolved, as in an app that never installed it.
  const script = `
    const Module = require('node:module');
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      if (request.startsWith('@langchain/core')) {
        const error = new Error("Cannot find module '" + request + "'");
        error.code = 'MODULE_NOT_FOUND';
        throw error;
      }
      return resolve.call(this, request, ...rest);
    };
    try { require('tool-argument-snapshot/langchain'); } catch (error) { console.log(error.code + ' ' + error.message); }
    console.log(typeof require('tool-argument-snapshot').prepareToolCall);
  `;
  const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', cwd: __dirname });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(
    result.stdout,
    'MODULE_NOT_FOUND tool-argument-snapshot/langchain needs @langchain/core 1.x (an optional peer dependency): npm install @langchain/core\nfunction\n',
  );
});

test('createToolGate needs neither langchain nor @langchain/langgraph; toolGateMiddleware names whichever is missing', () => {
  const { spawnSync } = require('node:child_process');
  for (const missing of ['langchain', '@langchain/langgraph']) {
    const script = `
      const Module = require('node:module');
      const resolve = Module._resolveFilename;
      Module._resolveFilename = function (request, ...rest) {
        if (request === ${JSON.stringify(missing)} || request.startsWith(${JSON.stringify(missing + '/')})) {
          const error = new Error("Cannot find module '" + request + "'");
          error.code = 'MODULE_NOT_FOUND';
          throw error;
        }
        return resolve.call(this, request, ...rest);
      };
      const { createToolGate, toolGateMiddleware } = require('tool-argument-snapshot/langchain');
      const { tool } = require('@langchain/core/tools');
      const { z } = require('zod');
      const pay = tool(async () => 'paid', { name: 'pay', schema: z.object({ amount: z.number() }) });
      console.log(typeof createToolGate({ agentName: 'a', tools: [pay] }).run);
      try { toolGateMiddleware({ agentName: 'a', tools: [pay] }); } catch (error) { console.log(error.code + ' ' + error.packageName + ' ' + error.message); }
    `;
    const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', cwd: __dirname });
    assert.equal(result.status, 0, result.stderr);
    const what = missing === 'langchain' ? 'langchain 1.x (createAgent)' : '@langchain/langgraph 1.x';
    assert.equal(
      result.stdout,
      `function\nMODULE_NOT_FOUND ${missing} tool-argument-snapshot/langchain needs ${what} (an optional peer dependency): npm install ${missing}\n`,
    );
  }
});

describe('grant scopes of pending proposals (without a key ring)', () => {
  // Review finding (failed on 7e7def7): a call evaluated with policyContext.grantScope was
  // pending under that scope, but gate.approve(proposal) granted it with whatever options
  // the caller passed (the proposal did not carry its scope): the documented one-liner
  // granted the hash with scope null, the resumed call (same scope) found no grant, and the
  // unscoped grant stayed live for every evaluation made without a scope.
  function message(id, text) {
    return new AIMessage({
      content: '',
      additional_kwargs: { tool_calls: [{ id, type: 'function', function: { name: 'pay', arguments: text } }] },
      tool_calls: [{ id, name: 'pay', args: JSON.parse(text), type: 'tool_call' }],
    });
  }
  function scopedApp(grants) {
    const executed = [];
    const pay = tool(
      async (args) => {
        executed.push(args);
        return 'paid';
      },
      { name: 'pay', description: 'Pay', schema: require('zod').object({ amount: require('zod').number() }) },
    );
    const gate = createToolGate({
      agentName: 'payments',
      tools: [pay],
      grants,
      policy: (input) => (input.parsedArguments.amount > 1000 ? { decision: 'require_approval', reason: 'large' } : { decision: 'allow', reason: 'small' }),
    });
    return { gate, executed };
  }
  const alice = { policyContext: { grantScope: 'user:alice' } };

  test('approving a pending call of a scoped run grants it in that scope (not unscoped), and the resumed call runs', async () => {
    const grants = createApprovalGrants();
    const { gate, executed } = scopedApp(grants);
    const ai = message('call_1', '{"amount":5000}');
    const {
      pending: [proposal],
    } = await gate.run(ai, alice);
    assert.equal(proposal.grantScope, 'user:alice');
    await gate.approve(proposal);
    const query = { agentName: 'payments', toolName: 'pay', proposalHash: proposal.proposalHash };
    assert.equal(await grants.has({ ...query, scope: null }), false, "an approval of alice's call was granted to everyone (scope null)");
    const resumed = await gate.run(ai, alice);
    assert.equal(resumed.results[0].status, 'executed', "alice's approved call did not run");
    assert.deepEqual(executed, [{ amount: 5000 }]);
  });

  test('approve refuses a scope other than the one the call was evaluated under, and reads its options as own data (a Proxy is refused)', async () => {
    const grants = createApprovalGrants();
    const { gate } = scopedApp(grants);
    const {
      pending: [proposal],
    } = await gate.run(message('call_1', '{"amount":5000}'), alice);
    await assert.rejects(gate.approve(proposal, { scope: 'user:mallory' }), { code: 'ERR_INVALID_ARG_TYPE' });
    await assert.rejects(gate.approve(proposal, new Proxy({}, {})), { code: 'ERR_INVALID_ARG_TYPE' });
    const query = { agentName: 'payments', toolName: 'pay', proposalHash: proposal.proposalHash };
    assert.equal(await grants.has({ ...query, scope: 'user:mallory' }), false);
    await gate.approve(proposal, { scope: 'user:alice', uses: 1 });
    assert.equal(await grants.has({ ...query, scope: 'user:alice' }), true);
  });

  test('kept per run: another process lists a scoped proposal only under its scope, and approving it grants that scope', async () => {
    const grants = createApprovalGrants();
    const first = scopedApp(grants);
    const ai = message('call_1', '{"amount":5000}');
    await first.gate.run(ai, { ...alice, runId: 'thread-1' });
    const second = scopedApp(grants);
    assert.deepEqual(await second.gate.pending(ai, { runId: 'thread-1' }), [], 'not listed in another scope (none)');
    const [kept] = await second.gate.pending(ai, { runId: 'thread-1', grantScope: 'user:alice' });
    assert.equal(kept.grantScope, 'user:alice');
    await second.gate.approve(kept);
    assert.equal(await grants.has({ agentName: 'payments', toolName: 'pay', proposalHash: kept.proposalHash, scope: null }), false);
    const resumed = await second.gate.run(ai, { ...alice, runId: 'thread-1' });
    assert.equal(resumed.results[0].status, 'executed');
    assert.deepEqual(second.executed, [{ amount: 5000 }]);
  });

  test('approving one proposal twice grants one use: the second approve rejects with TAS_NO_PENDING_PROPOSAL, also for a proposal kept per run and approved in another process', async () => {
    const grants = createApprovalGrants();
    const { gate, executed } = scopedApp(grants);
    const ai = message('call_1', '{"amount":5000}');
    const {
      pending: [proposal],
    } = await gate.run(ai, { ...alice, runId: 'thread-1' });
    const reviewer = scopedApp(grants).gate; // another process's gate
    const [listed] = await reviewer.pending(ai, { runId: 'thread-1', grantScope: 'user:alice' });
    await gate.approve(proposal);
    await assert.rejects(gate.approve(proposal), { code: 'TAS_NO_PENDING_PROPOSAL' }, 'the double click');
    await assert.rejects(reviewer.approve(listed), { code: 'TAS_NO_PENDING_PROPOSAL' }, 'a second reviewer, another process');
    assert.deepEqual(await scopedApp(grants).gate.pending(ai, { runId: 'thread-1', grantScope: 'user:alice' }), [], 'no longer waiting');
    const resumed = await gate.run(ai, { ...alice, runId: 'thread-1' });
    assert.equal(resumed.results[0].status, 'executed');
    // The model proposes the same payment again: it waits for a review.
    const again = await gate.run(message('call_2', '{"amount":5000}'), alice);
    assert.equal(again.results[0].status, 'pending');
    assert.deepEqual(executed, [{ amount: 5000 }]);
  });

  test("an executed call's result keeps its message whatever setter Object.prototype has", async () => {
    const { gate } = scopedApp(createApprovalGrants());
    Object.defineProperty(Object.prototype, 'message', {
      configurable: true,
      set() {},
      get() {
        return undefined;
      },
    });
    let result;
    try {
      result = await gate.run(message('call_1', '{"amount":5}'));
    } finally {
      delete Object.prototype.message;
    }
    assert.equal(result.results[0].status, 'executed');
    assert.ok(ToolMessage.isInstance(Object.getOwnPropertyDescriptor(result.results[0], 'message')?.value), 'the ToolMessage was swallowed by a setter');
  });
});
