'use strict';
// tool-argument-snapshot/openai-agents: policies typed per tool under `tsc --strict`
// (issue 17 item 3): __test__/package/types/openai-agents-policies/usage.mts reads
// `input.parsedArguments` and its fields in a map of policies, in a single policy over a
// union discriminated by `toolName`, and without declared schemas (read-only JSON, narrowed),
// and its @ts-expect-error lines must each be an error.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

test('typed policies compile under tsc --strict and reject misuse', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(__dirname, '..', '..', 'package', 'types', 'openai-agents-policies', 'tsconfig.json')], {
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
});
