'use strict';
// decodeRequest's `setAside` and prepareToolCall's ArgumentsText: a message holding a
// tool call's arguments is decoded strictly once, and the arguments are taken from that
// decoding. Oracles: JSON.parse of the whole text (what the arguments decode to), the
// exact substrings written out below (what their text is), and prepareToolCall of that
// substring as a plain string (what the snapshot and the hash are).

const { test } = require('node:test');
const assert = require('node:assert/strict');

const { decodeRequest, isArgumentsText, prepareToolCall, prepareToolCallAsync, evaluateToolCall, isToolArgumentsValidationError } = require('../..');

const PATH = ['params', 'arguments'];
const AGENT = 'Set-aside agent';

/** Messages and the exact text of their params.arguments, written out by hand. */
const CASES = [
  ['{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay","arguments":{"to":"bob","amount":5}}}', '{"to":"bob","amount":5}'],
  // Escaped member names: compared decoded.
  ['{"jsonrpc":"2.0","id":2,"method":"tools/call","p\\u0061rams":{"name":"pay","\\u0061rguments":{"to":"a"}}}', '{"to":"a"}'],
  // Decoys: an `arguments` member elsewhere, in _meta, inside strings, inside the arguments.
  [
    '{"params":{"_meta":{"arguments":{"to":"decoy"}},"note":"\\"arguments\\":{}","arguments":{"to":"b","n":{"arguments":[1,{"x":"}\\""}]}}},"id":3}',
    '{"to":"b","n":{"arguments":[1,{"x":"}\\""}]}}',
  ],
  // Whitespace everywhere, arguments before name, a key that only looks like arguments.
  [' \n{ "params" :\t{ "argument\\u0073x" : 1 , "arguments" : [ 1 , 2.50 , -0 ] , "name" : "pay" } , "id" : 4 }\r\n', '[ 1 , 2.50 , -0 ]'],
  // Scalars and strings with escapes as the member's value.
  ['{"params":{"arguments":"caf\\u00e9 \\ud83d\\ude00"}}', '"caf\\u00e9 \\ud83d\\ude00"'],
  ['{"params":{"arguments":1e2}}', '1e2'],
  ['{"params":{"arguments":null}}', 'null'],
];

test('the member is set aside with its exact text; everything else is what JSON.parse makes', () => {
  for (const [text, expected] of CASES) {
    const value = decodeRequest(text, { setAside: PATH });
    const params = Object.keys(value).includes('params') ? value.params : undefined;
    const aside = params.arguments;
    assert.ok(isArgumentsText(aside), text);
    assert.equal(aside.text, expected, text);
    assert.ok(Object.isFrozen(aside));
    const parsed = JSON.parse(text);
    assert.deepEqual(aside.decode(), parsed.params.arguments, text);
    // The rest of the message is JSON.parse's, the member in its place.
    assert.deepEqual({ ...value, params: { ...value.params, arguments: 0 } }, { ...parsed, params: { ...parsed.params, arguments: 0 } });
    assert.deepEqual(Object.keys(value.params), Object.keys(parsed.params));
  }
});

test('each element of an array (a JSON-RPC batch) has its member set aside; paths that do not reach a member leave the value as it is', () => {
  const batch = '[{"params":{"arguments":{"a":1}}},{"params":[{"arguments":2}]},{"params":{"name":"x"}},3,{"params":{"arguments":{"b":[]}}}]';
  const value = decodeRequest(batch, { setAside: PATH });
  assert.equal(value[0].params.arguments.text, '{"a":1}');
  assert.equal(value[4].params.arguments.text, '{"b":[]}');
  const parsed = JSON.parse(batch);
  assert.deepEqual(value.slice(1, 4), parsed.slice(1, 4));
  for (const text of ['{"params":"x"}', '{"params":{"argumentz":1}}', '[1,2]', '"params"', '', '  ']) {
    assert.deepEqual(decodeRequest(text, { setAside: PATH }), text.trim() === '' ? {} : JSON.parse(text), JSON.stringify(text));
  }
  // A one-name path, and a three-name path.
  assert.equal(decodeRequest('{"a":{"b":{"c":[1]}}}', { setAside: ['a'] }).a.text, '{"b":{"c":[1]}}');
  assert.equal(decodeRequest('{"a":{"b":{"c":[1]}}}', { setAside: ['a', 'b', 'c'] }).a.b.c.text, '[1]');
  // An own __proto__ member is set aside as data (no prototype changes).
  const proto = decodeRequest('{"params":{"__proto__":{"x":1}}}', { setAside: ['params', '__proto__'] });
  assert.equal(Object.getPrototypeOf(proto.params), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(proto.params, '__proto__').value.text, '{"x":1}');
});

test('prepareToolCall of an ArgumentsText: the snapshot, hash, requestedArguments and rawArguments of its text as a string', async () => {
  for (const [text, expected] of CASES) {
    const aside = decodeRequest(text, { setAside: PATH }).params.arguments;
    let fromText;
    try {
      fromText = prepareToolCall({ agentName: AGENT, toolName: 'pay', rawArguments: expected });
    } catch (error) {
      // -0 is refused at stage snapshot either way.
      assert.ok(isToolArgumentsValidationError(error));
      assert.throws(
        () => prepareToolCall({ agentName: AGENT, toolName: 'pay', rawArguments: aside }),
        (e) => e.code === error.code && e.stage === error.stage,
      );
      continue;
    }
    const prepared = prepareToolCall({ agentName: AGENT, toolName: 'pay', rawArguments: aside });
    assert.equal(prepared.rawArguments, expected);
    assert.equal(prepared.argsCanonicalJson, fromText.argsCanonicalJson);
    assert.equal(prepared.proposalHash, fromText.proposalHash);
    assert.deepEqual(prepared.requestedArguments, JSON.parse(expected));
    const withSchema = await prepareToolCallAsync({
      agentName: AGENT,
      toolName: 'pay',
      rawArguments: decodeRequest(text, { setAside: PATH }).params.arguments,
      schema: (v) => v,
    });
    assert.equal(withSchema.proposalHash, fromText.proposalHash);
  }
});

test('the schema gets the value decoded with the message once; every later taker gets a new decoding', async () => {
  const message = decodeRequest('{"params":{"arguments":{"to":"bob","tags":["a"]}}}', { setAside: PATH });
  const aside = message.params.arguments;
  const inputs = [];
  const schema = (value) => {
    inputs.push(value);
    value.tags.push('schema');
    return { to: value.to };
  };
  const first = prepareToolCall({ agentName: AGENT, toolName: 'pay', rawArguments: aside, schema });
  const second = await prepareToolCallAsync({ agentName: AGENT, toolName: 'pay', rawArguments: aside, schema });
  assert.equal(first.proposalHash, second.proposalHash);
  assert.notEqual(inputs[0], inputs[1], 'two prepares never share the schema input');
  assert.deepEqual(inputs[1].tags, ['a', 'schema'], 'the second input is a fresh decoding, not the first one mutated');
  assert.deepEqual(aside.decode(), { to: 'bob', tags: ['a'] });
  // requestedArguments comes from the text: what the schema did to its input is not in it.
  assert.deepEqual(first.requestedArguments, { to: 'bob', tags: ['a'] });
  const decision = await evaluateToolCall({
    prepared: first,
    policy: (input) => ({ decision: input.rawArguments === aside.text ? 'allow' : 'deny', reason: 'text' }),
  });
  assert.equal(decision.decision, 'allow');
});

test('only an ArgumentsText decodeRequest made is taken; setAside is read as own data and checked', () => {
  const aside = decodeRequest('{"params":{"arguments":{"a":1}}}', { setAside: PATH }).params.arguments;
  const forged = [{ text: '{"a":1}' }, Object.create(Object.getPrototypeOf(aside)), { ...aside }, new Proxy(aside, {})];
  for (const value of forged) {
    assert.equal(isArgumentsText(value), false);
    assert.throws(() => prepareToolCall({ agentName: AGENT, toolName: 'pay', rawArguments: value }), {
      name: 'TypeError',
      message: /rawArguments must be a string/,
    });
  }
  assert.throws(() => new aside.constructor(Symbol('x'), '{}', {}), TypeError);
  assert.throws(() => aside.decode.call({}), TypeError);
  for (const setAside of ['params', [], ['a', 1], ['\ud800'], new Array(17).fill('a'), new Proxy(['a'], {})]) {
    assert.throws(() => decodeRequest('{"a":1}', { setAside }), TypeError, String(setAside));
  }
  const options = {};
  Object.defineProperty(options, 'setAside', {
    get() {
      throw new Error('getter ran');
    },
    enumerable: true,
  });
  assert.deepEqual(decodeRequest('{"a":1}', options), { a: 1 });
  // The path is read on every call: an array changed between two calls is read as it is now
  // (a frozen one cannot change).
  const path = ['params', 'arguments'];
  const text = '{"params":{"arguments":[1],"other":[2]}}';
  assert.equal(decodeRequest(text, { setAside: path }).params.arguments.text, '[1]');
  path[1] = 'other';
  const changed = decodeRequest(text, { setAside: path });
  assert.deepEqual(changed.params.arguments, [1]);
  assert.equal(changed.params.other.text, '[2]');
  const frozen = Object.freeze(['params', 'other']);
  for (let i = 0; i < 2; i++) assert.equal(decodeRequest(text, { setAside: frozen }).params.other.text, '[2]');
  // Strictness is the whole text's: a duplicate key inside the member fails the decoding.
  assert.throws(
    () => decodeRequest('{"params":{"arguments":{"a":1,"a":2}}}', { setAside: PATH }),
    (e) => e.stage === 'json' && e.code === 'duplicate_key',
  );
});
