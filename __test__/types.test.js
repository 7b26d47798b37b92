'use strict';
// The hand-written declarations (index.d.ts) type-check ordinary usage under --strict
// and reject misuse, as the @ts-expect-error lines demand: types/usage.ts (the snapshot
// API and the one-call pipeline) and types/v2/usage.ts (the run-loop contract v2 with
// zod 3, zod 4, valibot and arktype schemas; node16 resolution, library types skipped).

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const tsc = require.resolve('typescript/bin/tsc');

for (const [label, project] of [
  ['index.d.ts accepts ordinary usage and rejects misuse under tsc --strict', join(__dirname, 'types', 'tsconfig.json')],
  ['the v2 types carry the schema output to the policy (deeply read-only), the decision and the handler, with literal error codes, under tsc --strict', join(__dirname, 'types', 'v2', 'tsconfig.json')],
]) {
  test(label, () => {
    const result = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
    assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
  });
}
