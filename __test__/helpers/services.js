'use strict';
// What a test needs from outside the repository, in one place: real servers (PostgreSQL,
// Redis) and other runtimes (Node lines 22, 24, 26; Bun; Deno). Without one, the test is
// skipped VISIBLY, the reason naming the environment variable and how to get it; with
// TAS_REQUIRE_SERVICES=1 (set only by .ci/run) the same test FAILS instead, so CI never
// passes by skipping.
//
//   const { service, nodeLine, newestNode, bun, deno, requires } = require('./services');
//
//   test('grants survive in PostgreSQL', async (t) => {
//     const url = service(t, 'pg');          // TAS_TEST_PG_URL, or skip/fail
//     if (url === null) return;               // skipped: the test ends here
//     ...
//   });
//
//   service(t, 'pg')      -> TAS_TEST_PG_URL     (postgres://postgres@127.0.0.1:PORT/tas_test)
//   service(t, 'redis')   -> TAS_TEST_REDIS_URL  (redis://127.0.0.1:PORT)
//   nodeLine(t, 26)       -> { file, version, source } of Node 26 (NODE26_BINARY, npm run fetch-node, node26 on PATH)
//   newestNode(t, 22)     -> { file, version, source, major }: the newest Node line >= 22 available
//   bun(t), deno(t)       -> { file, version, source } (BUN_BINARY / DENO_BINARY, node_modules, PATH)
//   Each returns null after t.skip(reason); under TAS_REQUIRE_SERVICES=1 it throws an
//   AssertionError instead (the test fails with the same reason).
//
//   describe('the Redis store', requires('redis'), () => { ... })   // or test(name, requires('redis'), fn)
//     requires(kind, arg?) gives node:test options: { skip: reason } when the thing is
//     missing and not required, {} otherwise. Inside, still call service(t, 'redis') for
//     the URL: under TAS_REQUIRE_SERVICES=1 that call is what fails.
//
//   lookup(kind, arg?) -> { value, reason }: the side-effect-free lookup (value null when missing).
//
// A URL that is set is used as given: a server that does not answer fails the test (it
// never turns into a skip). Start local servers with `eval "$(bash scripts/test-services.sh start)"`;
// fetch Node lines with `npm run fetch-node`. scripts/test-services.sh and .ci/run say more.

const assert = require('node:assert/strict');
const { findNode, findNewestNode, findBun, findDeno } = require('../../support/runtime-binaries');

const SERVERS = {
  pg: {
    variable: 'TAS_TEST_PG_URL',
    what: 'PostgreSQL',
    example: 'postgres://postgres@127.0.0.1:PORT/tas_test',
  },
  redis: {
    variable: 'TAS_TEST_REDIS_URL',
    what: 'Redis',
    example: 'redis://127.0.0.1:PORT',
  },
};
const START = 'start local ones with `eval "$(bash scripts/test-services.sh start)"`; .ci/run starts them';

/** Whether missing services fail the tests (.ci/run) instead of skipping them. */
function required() {
  return process.env.TAS_REQUIRE_SERVICES === '1';
}

function tried(found) {
  return found.tried && found.tried.length ? ` (passed over: ${found.tried.join('; ')})` : '';
}

/** { value, reason }: value is the URL or the found binary, or null with the reason it is missing. */
function lookup(kind, arg) {
  if (Object.hasOwn(SERVERS, kind)) {
    const { variable, what, example } = SERVERS[kind];
    const url = process.env[variable];
    if (typeof url === 'string' && url !== '') return { value: url, reason: null };
    return { value: null, reason: `${what} not configured: set ${variable} (${example}); ${START}` };
  }
  if (kind === 'node') {
    const found = findNode(arg);
    if (found.file) return { value: found, reason: null };
    return {
      value: null,
      reason: `Node ${arg} not found: run \`npm run fetch-node\` (puts it in .tmp/node-lines/${arg}) or set NODE${arg}_BINARY${tried(found)}`,
    };
  }
  if (kind === 'newest-node') {
    const min = arg === undefined ? 22 : arg;
    const found = findNewestNode(min);
    if (found.file) return { value: found, reason: null };
    return { value: null, reason: `no Node >= ${min} found: run \`npm run fetch-node\` or set NODE26_BINARY (or NODE24_BINARY, NODE22_BINARY)${tried(found)}` };
  }
  if (kind === 'bun' || kind === 'deno') {
    const found = kind === 'bun' ? findBun() : findDeno();
    if (found.file) return { value: found, reason: null };
    const variable = kind === 'bun' ? 'BUN_BINARY' : 'DENO_BINARY';
    return {
      value: null,
      reason: `${kind === 'bun' ? 'Bun' : 'Deno'} not found: npm install installs it where its binary package exists (optional dependency of support/runtimes), or set ${variable}${tried(found)}`,
    };
  }
  throw new TypeError(`services: unknown kind ${JSON.stringify(kind)} (pg, redis, node, newest-node, bun, deno)`);
}

/** The value, or null after t.skip(reason); throws (fails the test) under TAS_REQUIRE_SERVICES=1. */
function need(t, kind, arg) {
  const { value, reason } = lookup(kind, arg);
  if (value !== null) return value;
  if (required()) assert.fail(`TAS_REQUIRE_SERVICES=1 and ${reason}`);
  t.skip(reason);
  return null;
}

/** The URL of a test server: kind 'pg' (TAS_TEST_PG_URL) or 'redis' (TAS_TEST_REDIS_URL). */
function service(t, kind) {
  if (!Object.hasOwn(SERVERS, kind)) throw new TypeError(`service: unknown server ${JSON.stringify(kind)} (pg, redis)`);
  return need(t, kind);
}

/** A binary of Node line `major`: { file, version, source }. */
function nodeLine(t, major) {
  return need(t, 'node', major);
}

/** The newest Node line >= min (default 22) found, this process's included: { file, version, source, major }. */
function newestNode(t, min = 22) {
  return need(t, 'newest-node', min);
}

function bun(t) {
  return need(t, 'bun');
}

function deno(t) {
  return need(t, 'deno');
}

/** node:test options for a test or describe: { skip: reason } when missing and not required, else {}. */
function requires(kind, arg) {
  const { value, reason } = lookup(kind, arg);
  return value === null && !required() ? { skip: reason } : {};
}

module.exports = { service, nodeLine, newestNode, bun, deno, requires, lookup, required, SERVERS };
