'use strict';
// The load-time self-check (lib/selftest.js): it passes with the package's real functions
// and refuses, with a message that names the runtime, every kind of wrong result that
// old Bun releases were measured to give.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');
const { canonicalize, createSnapshot } = require('../..');
const { checkEngine } = require('../../lib/selftest');

const REFUSAL = /refuses to load: its self-check gave a wrong canonical JSON or proposal hash on Node /;

test('the self-check passes with the package as built', () => {
  assert.doesNotThrow(() => checkEngine(canonicalize, createSnapshot));
});

test('the package loads in a fresh process (the self-check ran at load)', () => {
  const child = spawnSync(process.execPath, ['-e', "require(process.argv[1]); process.stdout.write('loaded')", join(__dirname, '..', '..')], {
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout, 'loaded');
});

const faults = {
  'Latin-1 0x80-0x9F decoded as Windows-1252': (value) => canonicalize(value).replace(/\u0080/g, '\u20ac'),
  'keys read as U+0000': (value) => canonicalize(value).replace('"a":', '"\\u0000":'),
  'a long string cut short': (value) => canonicalize(value).replace('x\u0080', '\u0080'),
  'every string read fails': () => {
    throw new Error('internal_error');
  },
};
for (const [name, faulty] of Object.entries(faults)) {
  test(`the self-check refuses a runtime whose canonicalization is wrong: ${name}`, () => {
    assert.throws(() => checkEngine(faulty, createSnapshot), REFUSAL);
  });
}

test('the self-check refuses a runtime whose proposal hash is wrong', () => {
  const wrongHash = (input) => ({ ...createSnapshot(input), proposalHash: '0'.repeat(64) });
  assert.throws(() => checkEngine(canonicalize, wrongHash), REFUSAL);
});
