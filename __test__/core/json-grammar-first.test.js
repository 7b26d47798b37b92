'use strict';
// Text that is not JSON is invalid_json before any value rule (issue 9, item 10): a
// negative zero, a number that overflows, a lone surrogate or a duplicate key inside
// text that is not JSON does not decide the code. JSON.parse (V8) is the oracle of what
// is JSON; it applies none of the strict value rules. Only the depth limit, a limit hit
// while reading, may come before the grammar.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { createHash } = require('node:crypto');

const { decodeRequest, decodeView, prepareToolCall, createSnapshot, canonicalize } = require('../..');
const { attempt, describeError } = require('../helpers/attempt');

/** Each breaks a value rule before, or where, it stops being JSON. */
const NOT_JSON = [
  '-01',
  '-00',
  '-0.',
  '-0e',
  '-0e+',
  '-0x',
  '-0 1',
  '[-0 1]',
  '[-0,]',
  '[-00]',
  '{"a":-0',
  '{"a":-0,}',
  '-0.0.0',
  '[-0]]',
  '[1e400,]',
  '1e400x',
  '[1e400',
  '[-1e309 2]',
  '["\\ud800",]',
  '"\\udc00',
  '{"\\ud800":1',
  '["\\ud83d" x',
  '{"a":1,"a":2}x',
  '{"a":1,"a":2},',
  '[{"a":1,"a":2}',
  '[{"a":1,"a":2}]]',
  '{"a":1,"\\u0061":2} }',
  '[-0, 1e400, "\\ud800", {"k":1,"k":1}, 01]',
];

function code(fn) {
  const outcome = attempt(fn);
  assert.equal(outcome.ok, false, 'refused');
  return outcome.error.code;
}

test('every case is text that JSON.parse refuses (the oracle)', () => {
  for (const text of NOT_JSON) assert.throws(() => JSON.parse(text), SyntaxError, text);
});

test('decodeView: not JSON is invalid_json, never negative_zero or another value rule', () => {
  for (const text of NOT_JSON) {
    for (const options of [undefined, { includePath: true }]) {
      assert.equal(
        code(() => decodeView(text, options)),
        'invalid_json',
        `${text} ${JSON.stringify(options)}`,
      );
    }
  }
});

test('decodeView of a stored snapshot whose JSON is not JSON: invalid_json, also with a hash that binds it', () => {
  for (const text of ['-01', '[-0,]', '{"a":-0']) {
    const envelope = `{"agentName":"a","argsCanonicalJson":${JSON.stringify(text)},"kind":"tool","toolName":"t"}`;
    const proposalHash = createHash('sha256').update(envelope, 'utf8').digest('hex');
    const stored = { agentName: 'a', toolName: 't', argsCanonicalJson: text, proposalHash };
    assert.equal(
      code(() => decodeView(stored)),
      'invalid_json',
      text,
    );
  }
});

test('decodeRequest and prepareToolCall: not JSON is invalid_json at stage json', () => {
  for (const text of NOT_JSON) {
    const request = attempt(() => decodeRequest(text, { toolName: 't' }));
    assert.equal(request.ok, false, text);
    assert.equal(`${request.error.stage}/${request.error.code}`, 'json/invalid_json', `decodeRequest ${text}: ${describeError(request.error)}`);
    const prepared = attempt(() => prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: text, includePath: true }));
    assert.equal(prepared.ok, false, text);
    assert.equal(`${prepared.error.stage}/${prepared.error.code}`, 'json/invalid_json', `prepareToolCall ${text}: ${describeError(prepared.error)}`);
  }
});

test('JSON text still reports its value rule: -0, an overflow, a lone surrogate, a duplicate key', () => {
  for (const [text, viewCode, requestCode] of [
    ['-0', 'negative_zero', null],
    ['[-0.0e5]', 'negative_zero', null],
    ['[1e400]', 'non_finite_number', 'non_finite_number'],
    ['["\\ud800"]', 'lone_surrogate', 'lone_surrogate'],
    ['{"a":1,"\\u0061":2}', 'duplicate_key', 'duplicate_key'],
  ]) {
    JSON.parse(text); // the oracle: this is JSON
    assert.equal(
      code(() => decodeView(text)),
      viewCode,
      `decodeView ${text}`,
    );
    if (requestCode === null) {
      assert.ok(attempt(() => decodeRequest(text)).ok, `decodeRequest accepts ${text} (-0 is left for the snapshot stage)`);
      const prepared = attempt(() => prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: text }));
      assert.equal(`${prepared.error.stage}/${prepared.error.code}`, 'snapshot/negative_zero', text);
    } else {
      assert.equal(
        code(() => decodeRequest(text)),
        requestCode,
        `decodeRequest ${text}`,
      );
    }
  }
});

test('the first value rule broken in text order decides, with its pointer', () => {
  for (const [text, expected, pointer] of [
    ['[1e400, -0]', 'non_finite_number', '/0'],
    ['{"b":-0,"a":"\\ud800"}', 'negative_zero', '/b'],
    ['[{"k":1,"k":2}, 1e999]', 'duplicate_key', '/0/k'],
  ]) {
    const outcome = attempt(() => decodeView(text, { includePath: true }));
    assert.equal(outcome.ok, false, text);
    assert.deepEqual({ code: outcome.error.code, path: outcome.error.path }, { code: expected, path: pointer }, text);
  }
});

test('values, not text, are unaffected: createSnapshot and canonicalize still refuse -0 as negative_zero', () => {
  assert.equal(
    code(() => canonicalize([-0])),
    'negative_zero',
  );
  assert.equal(
    code(() => createSnapshot({ agentName: 'a', toolName: 't', value: { n: -0 } })),
    'negative_zero',
  );
});
