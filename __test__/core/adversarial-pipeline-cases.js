'use strict';
// Adversarial rows for the codes of the run-loop pipeline: stored snapshots
// (not_a_snapshot, not_canonical, hash_mismatch: verifySnapshot and decodeView of a
// stored record) and asynchronous schemas (async_schema at stage schema or snapshot).
// core/adversarial.test.js runs them beside helpers/adversarial-cases.js.
// node --test does not run this file: its name matches no test-file pattern.
//
// Row kinds:
// - stored: { make(counter) -> record, expect: { code } }: verifySnapshot(record) and
//   decodeView(record) both throw SnapshotDomainError with that code; nothing counted.
// - schema: { schema(counter), rawArguments, expect: { code, stage } }: prepareToolCall
//   throws ToolArgumentsValidationError with that stage and code; nothing counted.

const { createHash } = require('node:crypto');
const zod3 = require('zod3');
const zod4 = require('zod');
const v = require('valibot');

const AGENT = 'Adversarial agent';
const TOOL = 'adversarial_tool';

/** The RFC-0016 envelope hash, written from the RFC: key-sorted, JSON.stringify, SHA-256. */
function envelopeHash(agentName, toolName, argsCanonicalJson) {
  return createHash('sha256')
    .update(JSON.stringify({ agentName, argsCanonicalJson, kind: 'tool', toolName }))
    .digest('hex');
}

/** A stored record whose hash matches its (possibly non-canonical) text. */
function hashed(argsCanonicalJson, agentName = AGENT, toolName = TOOL) {
  return { agentName, toolName, argsCanonicalJson, proposalHash: envelopeHash(agentName, toolName, argsCanonicalJson) };
}

const GOOD = '{"amount":100,"to":"acct-7"}';

const CASES = [];
function stored(id, code, make) {
  CASES.push({ kind: 'stored', id: `stored: ${id}`, make, expect: { code } });
}
function schemaRow(id, stage, make, rawArguments = '{"a":"x"}') {
  CASES.push({ kind: 'schema', id: `schema: ${id}`, schema: make, rawArguments, expect: { code: 'async_schema', stage } });
}

// not_a_snapshot: not an object, a field missing, not a string, or not own data.
stored('null', 'not_a_snapshot', () => null);
stored('an array', 'not_a_snapshot', () => [GOOD]);
stored('a missing proposalHash', 'not_a_snapshot', () => {
  const { proposalHash, ...rest } = hashed(GOOD);
  return proposalHash === undefined ? null : rest;
});
stored('a numeric agentName', 'not_a_snapshot', () => ({ ...hashed(GOOD), agentName: 7 }));
stored('an agentName with a lone surrogate', 'not_a_snapshot', () => ({ ...hashed(GOOD), agentName: 'a\ud800' }));
stored('a getter for argsCanonicalJson', 'not_a_snapshot', (counter) => {
  const record = hashed(GOOD);
  const { argsCanonicalJson } = record;
  delete record.argsCanonicalJson;
  return Object.defineProperty(record, 'argsCanonicalJson', {
    get() {
      counter.hit('getter');
      return argsCanonicalJson;
    },
    enumerable: true,
  });
});
stored('inherited fields', 'not_a_snapshot', () => Object.create(hashed(GOOD)));
stored('fields on a polluted Object.prototype', 'not_a_snapshot', () =>
  Object.assign(Object.create({ proposalHash: envelopeHash(AGENT, TOOL, GOOD) }), { agentName: AGENT, toolName: TOOL, argsCanonicalJson: GOOD }),
);
stored(
  'a Proxy of a valid record',
  'not_a_snapshot',
  (counter) =>
    new Proxy(hashed(GOOD), {
      get(t, k, r) {
        counter.hit('get');
        return Reflect.get(t, k, r);
      },
      getOwnPropertyDescriptor(t, k) {
        counter.hit('gopd');
        return Reflect.getOwnPropertyDescriptor(t, k);
      },
      ownKeys(t) {
        counter.hit('ownKeys');
        return Reflect.ownKeys(t);
      },
    }),
);

// not_canonical: strict JSON, hash matching the text, but not the RFC 8785 form.
stored('keys out of order', 'not_canonical', () => hashed('{"to":"acct-7","amount":100}'));
stored('whitespace', 'not_canonical', () => hashed('{"amount": 100,"to":"acct-7"}'));
stored('a number spelled 1e2', 'not_canonical', () => hashed('{"amount":1e2,"to":"acct-7"}'));
stored('a number spelled 100.0', 'not_canonical', () => hashed('{"amount":100.0,"to":"acct-7"}'));
stored('an unneeded escape', 'not_canonical', () => hashed('{"amount":100,"to":"\\u0061cct-7"}'));
stored('an escaped solidus', 'not_canonical', () => hashed('{"amount":100,"to":"a\\/b"}'));
stored('keys sorted by code point instead of UTF-16 unit', 'not_canonical', () => hashed('{"\uff61":1,"\ud83d\ude00":2}'));

// hash_mismatch: canonical text, but the hash is not of these three fields.
stored('a changed value', 'hash_mismatch', () => ({ ...hashed(GOOD), argsCanonicalJson: '{"amount":100000,"to":"acct-7"}' }));
stored('a changed agent', 'hash_mismatch', () => ({ ...hashed(GOOD), agentName: 'Other agent' }));
stored('a changed tool', 'hash_mismatch', () => ({ ...hashed(GOOD), toolName: 'delete_account' }));
stored('a wrong hash', 'hash_mismatch', () => ({ ...hashed(GOOD), proposalHash: '0'.repeat(64) }));
stored('an uppercase hash', 'hash_mismatch', () => ({ ...hashed(GOOD), proposalHash: hashed(GOOD).proposalHash.toUpperCase() }));
stored('agent and tool swapped', 'hash_mismatch', () => ({ ...hashed(GOOD, TOOL, AGENT), agentName: AGENT, toolName: TOOL }));
stored('a hash over the names moved into each other', 'hash_mismatch', () => ({ ...hashed(GOOD, 'ab', 'c'), agentName: 'a', toolName: 'bc' }));

// async_schema: at stage schema when the schema library reports it is asynchronous,
// at stage snapshot when the schema output is a promise or another thenable.
schemaRow('zod 3 async refinement', 'schema', () => zod3.object({ a: zod3.string().refine(async () => true) }));
schemaRow('zod 3 async transform', 'schema', () => zod3.object({ a: zod3.string().transform(async (s) => s) }));
schemaRow('zod 4 async refinement', 'schema', () => zod4.object({ a: zod4.string().refine(async () => true) }));
schemaRow('valibot async object through ~standard', 'schema', () =>
  v.objectAsync({
    a: v.pipeAsync(
      v.string(),
      v.checkAsync(async () => true),
    ),
  }),
);
schemaRow('a ~standard.validate returning a promise', 'schema', () => ({ '~standard': { version: 1, vendor: 'x', validate: async (value) => ({ value }) } }));
schemaRow('a ~standard.validate returning a thenable', 'schema', (counter) => ({
  '~standard': {
    version: 1,
    vendor: 'x',
    validate: () => ({
      then() {
        counter.hit('then');
      },
    }),
  },
}));
schemaRow('a schema function returning a resolved promise', 'snapshot', () => async (value) => value);
schemaRow('a schema function returning a rejected promise', 'snapshot', () => () => Promise.reject(new Error('rejected')));
schemaRow('a schema function returning a thenable', 'snapshot', (counter) => () => ({
  then() {
    counter.hit('then');
  },
}));
schemaRow('a parse method returning a promise', 'snapshot', () => ({ parse: async (value) => value }));

module.exports = { CASES, envelopeHash };
