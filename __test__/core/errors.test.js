'use strict';
// Errors of RFC-0016: they identify the tool and the stage without including the
// argument payload; `path` is an RFC 6901 JSON Pointer present only on request; codes
// come from ERROR_CODES; strict JSON text errors of decodeView.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const util = require('node:util');

const { canonicalize, createSnapshot, decodeView, SnapshotDomainError, ToolArgumentsValidationError, ERROR_CODES, MAX_DEPTH } = require('../..');
const { CASES, wrap, expectedPath, newSecret } = require('./cases');

const AGENT = 'Errors test agent';
const TOOL = 'errors_tool';

function capture(fn, label) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail(`${label}: expected a throw, but the call returned`);
}

/** Every rendering of an error a log line or a crash report could contain. */
function renderings(error) {
  return {
    message: String(error.message),
    stack: String(error.stack),
    inspect: util.inspect(error),
    'inspect (depth Infinity, showHidden)': util.inspect(error, { depth: Infinity, showHidden: true }),
    'JSON.stringify': JSON.stringify(error),
    String: String(error),
    'Object.keys': JSON.stringify(Object.keys(error)),
  };
}

function assertNoSecret(error, secret, label) {
  for (const [how, text] of Object.entries(renderings(error))) {
    assert.ok(!text.includes(secret), `${label}: the payload secret leaks through ${how}: ${text.slice(0, 300)}`);
  }
}

function assertNoPath(error, label) {
  assert.equal(Object.hasOwn(error, 'path'), false, `${label}: path must not be an own property without includePath`);
  assert.equal('path' in error, false, `${label}: path must not be reachable without includePath`);
  assert.equal(error.path, undefined, `${label}: path must be undefined without includePath`);
}

function assertDomainError(error, code, label) {
  assert.ok(error instanceof Error, `${label}: instanceof Error`);
  assert.ok(error instanceof SnapshotDomainError, `${label}: instanceof SnapshotDomainError (got ${error && error.name})`);
  assert.equal(error instanceof ToolArgumentsValidationError, false, `${label}: not a ToolArgumentsValidationError`);
  assert.equal(error.name, 'SnapshotDomainError', `${label}: error.name`);
  assert.equal(error.code, code, `${label}: error.code`);
  assert.ok(ERROR_CODES.includes(error.code), `${label}: ${error.code} is a member of ERROR_CODES`);
  assert.equal(typeof error.message, 'string', `${label}: message is a string`);
  assert.ok(error.message.length > 0, `${label}: message is not empty`);
  assert.ok(String(error).startsWith('SnapshotDomainError'), `${label}: String(error) starts with the class name`);
}

function assertValidationError(error, code, toolName, label) {
  assert.ok(error instanceof Error, `${label}: instanceof Error`);
  assert.ok(error instanceof ToolArgumentsValidationError, `${label}: instanceof ToolArgumentsValidationError (got ${error && error.name})`);
  assert.equal(error instanceof SnapshotDomainError, false, `${label}: not a SnapshotDomainError`);
  assert.equal(error.name, 'ToolArgumentsValidationError', `${label}: error.name`);
  assert.equal(error.stage, 'snapshot', `${label}: error.stage`);
  assert.equal(error.toolName, toolName, `${label}: error.toolName`);
  assert.equal(error.code, code, `${label}: error.code`);
  assert.ok(ERROR_CODES.includes(error.code), `${label}: ${error.code} is a member of ERROR_CODES`);
  assert.ok(error.message.includes(toolName), `${label}: the message names the tool: ${error.message}`);
  assert.ok(error.message.includes('snapshot'), `${label}: the message names the stage: ${error.message}`);
  assert.ok(String(error).startsWith('ToolArgumentsValidationError'), `${label}: String(error) starts with the class name`);
}

describe('the exported error surface', () => {
  test('ERROR_CODES is a frozen list of unique strings holding every domain and JSON code', () => {
    assert.ok(Array.isArray(ERROR_CODES), 'ERROR_CODES is an array');
    assert.ok(Object.isFrozen(ERROR_CODES), 'ERROR_CODES is frozen');
    assert.equal(new Set(ERROR_CODES).size, ERROR_CODES.length, 'ERROR_CODES has no duplicates');
    for (const code of [
      'unsupported_type',
      'non_finite_number',
      'negative_zero',
      'lone_surrogate',
      'non_plain_object',
      'sparse_array',
      'array_extra_property',
      'accessor_property',
      'non_enumerable_property',
      'symbol_key',
      'cycle',
      'repeated_reference',
      'depth_limit',
      'invalid_json',
      'duplicate_key',
    ]) {
      assert.ok(ERROR_CODES.includes(code), `ERROR_CODES includes ${code}`);
    }
  });

  test('both error classes are Error subclasses', () => {
    assert.ok(SnapshotDomainError.prototype instanceof Error, 'SnapshotDomainError extends Error');
    assert.ok(ToolArgumentsValidationError.prototype instanceof Error, 'ToolArgumentsValidationError extends Error');
  });
});

describe('domain errors carry no payload data and a path only on request', () => {
  for (const testCase of CASES) {
    test(`${testCase.name} (${testCase.code}) leaks no secret, and its path is exact only with includePath`, () => {
      for (const wrapped of [false, true]) {
        const label = `${testCase.name} (${wrapped ? 'nested' : 'root'})`;
        const secret = newSecret();
        const build = () => (wrapped ? wrap(secret, testCase.make(secret)) : testCase.make(secret));

        const plain = capture(() => canonicalize(build()), `${label}, canonicalize`);
        assertDomainError(plain, testCase.code, `${label}, canonicalize`);
        assertNoPath(plain, `${label}, canonicalize`);
        assertNoSecret(plain, secret, `${label}, canonicalize`);

        const explicitFalse = capture(() => canonicalize(build(), { includePath: false }), `${label}, canonicalize includePath false`);
        assertNoPath(explicitFalse, `${label}, canonicalize includePath false`);
        assertNoSecret(explicitFalse, secret, `${label}, canonicalize includePath false`);

        const snap = capture(() => createSnapshot({ agentName: AGENT, toolName: TOOL, value: build() }), `${label}, createSnapshot`);
        assertValidationError(snap, testCase.code, TOOL, `${label}, createSnapshot`);
        assertNoPath(snap, `${label}, createSnapshot`);
        assertNoSecret(snap, secret, `${label}, createSnapshot`);

        const expected = expectedPath(testCase, secret, wrapped);
        const traced = capture(() => canonicalize(build(), { includePath: true }), `${label}, canonicalize includePath`);
        assertDomainError(traced, testCase.code, `${label}, canonicalize includePath`);
        assert.ok(Object.hasOwn(traced, 'path'), `${label}, canonicalize includePath: path is an own property`);
        assert.equal(traced.path, expected, `${label}, canonicalize includePath: JSON Pointer`);

        const tracedSnap = capture(
          () => createSnapshot({ agentName: AGENT, toolName: TOOL, value: build(), includePath: true }),
          `${label}, createSnapshot includePath`,
        );
        assertValidationError(tracedSnap, testCase.code, TOOL, `${label}, createSnapshot includePath`);
        assert.equal(tracedSnap.path, expected, `${label}, createSnapshot includePath: JSON Pointer`);
      }
    });
  }
});

describe('JSON Pointers follow RFC 6901', () => {
  test('the example of the brief gives /a/x~1y/1/m~0n', () => {
    const error = capture(() => canonicalize({ a: { 'x/y': [0, { 'm~n': -0 }] } }, { includePath: true }), 'brief example');
    assert.equal(error.code, 'negative_zero', 'brief example: code');
    assert.equal(error.path, '/a/x~1y/1/m~0n', 'brief example: path');
  });

  test('~ and / are escaped in the right order, and other characters are kept', () => {
    for (const [key, segment] of [
      ['~1', '~01'],
      ['/0', '~10'],
      ['~/', '~0~1'],
      ['a~b/c', 'a~0b~1c'],
      ['', ''],
      [' ', ' '],
      ['é😀', 'é😀'],
      ['0', '0'],
      ['%25', '%25'],
      ['\\', '\\'],
      ['"', '"'],
      ['\n', '\n'],
    ]) {
      const error = capture(() => canonicalize({ [key]: [NaN] }, { includePath: true }), `key ${JSON.stringify(key)}`);
      assert.equal(error.path, `/${segment}/0`, `key ${JSON.stringify(key)}: path`);
    }
  });

  test('pointers to failures found while encoding strings are escaped the same way', () => {
    for (const [label, value, pointer] of [
      ['a lone surrogate value', { 'a/b': { '~': ['\ud800'] } }, '/a~1b/~0/0'],
      ['a lone surrogate key', { 'a/b': { '~x\ud800/': 1 } }, '/a~1b/~0x\ud800~1'],
      ['a lone surrogate after a valid member', { ok: 'fine', 'm~n': [1, 2, 'x\udc00'] }, '/m~0n/2'],
    ]) {
      const error = capture(() => canonicalize(value, { includePath: true }), label);
      assert.equal(error.code, 'lone_surrogate', `${label}: code`);
      assert.equal(error.path, pointer, `${label}: path`);
      const snap = capture(() => createSnapshot({ agentName: AGENT, toolName: TOOL, value, includePath: true }), label);
      assert.equal(snap.path, pointer, `${label}: createSnapshot path`);
    }
  });

  test('a failure at the root has the empty pointer', () => {
    for (const [label, value, code] of [
      ['NaN', NaN, 'non_finite_number'],
      ['a Date', new Date(), 'non_plain_object'],
      ['undefined', undefined, 'unsupported_type'],
    ]) {
      const error = capture(() => canonicalize(value, { includePath: true }), label);
      assert.equal(error.code, code, `${label}: code`);
      assert.equal(error.path, '', `${label}: path`);
    }
  });

  test('the pointer names the failing member of a wide object and a long array', () => {
    const wide = {};
    for (let i = 0; i < 200; i++) wide[`k${i}`] = i;
    wide.k150 = -0;
    assert.equal(capture(() => canonicalize(wide, { includePath: true }), 'wide object').path, '/k150', 'wide object path');
    const long = Array.from({ length: 300 }, (_, i) => i);
    long[257] = Infinity;
    assert.equal(capture(() => canonicalize(long, { includePath: true }), 'long array').path, '/257', 'long array path');
  });

  test('an array with holes has a pointer to the array or to its first hole', () => {
    for (const [label, value, accepted] of [
      ['a leading hole', { list: [, 1] }, ['/list', '/list/0']], // eslint-disable-line no-sparse-arrays
      ['a middle hole', { list: [1, , 3] }, ['/list', '/list/1']], // eslint-disable-line no-sparse-arrays
    ]) {
      const error = capture(() => canonicalize(value, { includePath: true }), label);
      assert.equal(error.code, 'sparse_array', `${label}: code`);
      assert.ok(accepted.includes(error.path), `${label}: path ${JSON.stringify(error.path)} is one of ${accepted.join(', ')}`);
    }
  });

  test('a path is reported after an earlier failure without one, and not after one with one', () => {
    capture(() => canonicalize({ deep: { er: NaN } }, { includePath: true }), 'first call');
    const second = capture(() => canonicalize({ other: -0 }), 'second call');
    assertNoPath(second, 'a call without includePath after one with it');
    const third = capture(() => canonicalize({ other: [-0] }, { includePath: true }), 'third call');
    assert.equal(third.path, '/other/0', 'a call with includePath after one without it');
  });
});

describe('ToolArgumentsValidationError identifies the tool and the stage only', () => {
  test('the message names the tool and stage, and not the payload', () => {
    for (const toolName of ['search', 'write_file', 'outil é', 'tool q\u{1F600}', '工具', 'x'.repeat(200)]) {
      const secret = newSecret();
      const error = capture(
        () => createSnapshot({ agentName: AGENT, toolName, value: { [secret]: secret, bad: new Map([[secret, secret]]) } }),
        `tool ${toolName}`,
      );
      assertValidationError(error, 'non_plain_object', toolName, `tool ${JSON.stringify(toolName)}`);
      assertNoSecret(error, secret, `tool ${JSON.stringify(toolName)}`);
    }
  });

  test('the agent name is not required to identify the failure, and the error is not a policy decision', () => {
    const error = capture(() => createSnapshot({ agentName: AGENT, toolName: TOOL, value: [undefined] }), 'undefined element');
    assert.equal(error.stage, 'snapshot', 'stage');
    for (const decision of ['allow', 'deny', 'require_approval', 'decision']) {
      assert.equal(Object.hasOwn(error, decision), false, `the error has no ${decision} field`);
    }
  });
});

describe('decodeView rejects text that is not strict JSON of the domain', () => {
  const TEXT_CASES = [
    ['a duplicate key', '{"a":1,"a":2}', 'duplicate_key'],
    ['a duplicate key spelled with an escape', '{"a":1,"\\u0061":2}', 'duplicate_key'],
    ['a duplicate __proto__ key', '{"__proto__":1,"__proto__":2}', 'duplicate_key'],
    ['a nested duplicate key', '[{"x":{"k":1,"k":2}}]', 'duplicate_key'],
    ['an escaped lone high surrogate', '"\\ud800"', 'lone_surrogate'],
    ['an escaped lone low surrogate in a key', '{"\\udc00":1}', 'lone_surrogate'],
    ['a raw lone surrogate', '"x\ud800"', 'lone_surrogate'],
    ['negative zero', '-0', 'negative_zero'],
    ['negative zero as -0.0 in an array', '[-0.0]', 'negative_zero'],
    ['negative zero with an exponent', '{"a":-0e5}', 'negative_zero'],
    ['negative zero by underflow', '[-1e-400]', 'negative_zero'],
    ['a number that overflows', '1e400', 'non_finite_number'],
    ['a number just past the largest double', '1.797693134862315807938e308', 'non_finite_number'],
    ['a negative number that overflows', '[-1e309]', 'non_finite_number'],
    ['an unclosed object', '{', 'invalid_json'],
    ['the empty string', '', 'invalid_json'],
    ['whitespace only', '  ', 'invalid_json'],
    ['whitespace of every kind only', ' \t\r\n', 'invalid_json'],
    ['a trailing comma', '[1,2,]', 'invalid_json'],
    ['single quotes', "{'a':1}", 'invalid_json'],
    ['NaN', 'NaN', 'invalid_json'],
    ['a leading zero', '01', 'invalid_json'],
    ['a byte order mark', '\ufeff{}', 'invalid_json'],
    ['two documents', '{} {}', 'invalid_json'],
    ['a raw control character in a string', '"a\u0001b"', 'invalid_json'],
    ['a million [', '['.repeat(1e6), 'depth_limit'],
    ['a million {"a":', '{"a":'.repeat(1e6), 'depth_limit'],
    [`${MAX_DEPTH + 1} nested arrays`, `${'['.repeat(MAX_DEPTH + 1)}${']'.repeat(MAX_DEPTH + 1)}`, 'depth_limit'],
  ];

  for (const [label, text, code] of TEXT_CASES) {
    test(`${label} gives ${code} as a SnapshotDomainError`, () => {
      const error = capture(() => decodeView(text), label);
      assertDomainError(error, code, `decodeView of ${label}`);
      assertNoPath(error, `decodeView of ${label}`);
      const stored = capture(() => decodeView({ agentName: AGENT, toolName: TOOL, argsCanonicalJson: text, proposalHash: '0'.repeat(64) }), label);
      assertDomainError(stored, code, `decodeView of a stored snapshot holding ${label}`);
    });
  }

  test(`text with exactly ${MAX_DEPTH} nested containers decodes`, () => {
    const text = `${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}`;
    let view;
    assert.doesNotThrow(() => {
      view = decodeView(text);
    }, `${MAX_DEPTH} nested arrays`);
    assert.equal(canonicalize(view), text, `${MAX_DEPTH} nested arrays round-trip`);
  });

  test('strict JSON errors carry no payload secret', () => {
    const secret = newSecret();
    for (const [label, text] of [
      ['a duplicate key', `{"${secret}":1,"${secret}":"${secret}"}`],
      ['a lone surrogate', `{"${secret}":"${secret}\\ud800"}`],
      ['negative zero', `{"${secret}":["${secret}",-0]}`],
      ['invalid JSON', `{"${secret}":"${secret}",}`],
      ['an overflowing number', `{"${secret}":1e999}`],
    ]) {
      const error = capture(() => decodeView(text), label);
      assertNoSecret(error, secret, `decodeView of ${label}`);
      assertNoPath(error, `decodeView of ${label}`);
    }
  });

  test('with includePath, decodeView errors carry the JSON Pointer', () => {
    for (const [text, code, pointer] of [
      ['{"a":{"x/y":[0,{"m~n":-0}]}}', 'negative_zero', '/a/x~1y/1/m~0n'],
      ['{"a":1,"a":2}', 'duplicate_key', '/a'],
      ['[1,"\\udfff"]', 'lone_surrogate', '/1'],
    ]) {
      const error = capture(() => decodeView(text, { includePath: true }), text);
      assert.equal(error.code, code, `${text}: code`);
      assert.equal(error.path, pointer, `${text}: path`);
    }
  });
});

describe('brand checks work across duplicate copies of the package in one process', () => {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const root = path.join(__dirname, '..', '..');

  test("isSnapshotDomainError, isToolArgumentsValidationError and isToolCallNotAllowedError recognize another copy's errors, where instanceof does not", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-copy-'));
    try {
      for (const file of ['index.js', 'package.json', 'tool-argument-snapshot.linux-x64-gnu.node'])
        fs.copyFileSync(path.join(root, file), path.join(dir, file));
      fs.cpSync(path.join(root, 'lib'), path.join(dir, 'lib'), { recursive: true });
      const self = require('../..');
      const copy = require(dir);
      assert.notEqual(copy.SnapshotDomainError, self.SnapshotDomainError, 'a second copy, with its own classes');

      const domain = capture(() => copy.canonicalize(-0), 'copy canonicalize');
      const validation = capture(() => copy.prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{"a":1,"a":2}' }), 'copy prepare');
      let notAllowed;
      try {
        await copy.executeToolCall({}, () => 1);
      } catch (error) {
        notAllowed = error;
      }
      for (const [label, error, is, name] of [
        ['SnapshotDomainError', domain, 'isSnapshotDomainError', 'SnapshotDomainError'],
        ['ToolArgumentsValidationError', validation, 'isToolArgumentsValidationError', 'ToolArgumentsValidationError'],
        ['ToolCallNotAllowedError', notAllowed, 'isToolCallNotAllowedError', 'ToolCallNotAllowedError'],
      ]) {
        assert.equal(error instanceof self[name], false, `${label}: instanceof across copies`);
        assert.equal(self[is](error), true, `${label}: this copy's ${is}`);
        assert.equal(copy[is](error), true, `${label}: the other copy's ${is}`);
        for (const other of ['isSnapshotDomainError', 'isToolArgumentsValidationError', 'isToolCallNotAllowedError']) {
          if (other !== is) assert.equal(self[other](error), false, `${label}: ${other}`);
        }
      }
      for (const value of [
        null,
        undefined,
        'SnapshotDomainError',
        {},
        new Error('x'),
        { name: 'SnapshotDomainError', code: 'negative_zero' },
        new Proxy(domain, {}),
      ]) {
        assert.equal(self.isSnapshotDomainError(value), false, `not a brand: ${String(value && value.name)}`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
