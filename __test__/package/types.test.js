'use strict';
// The hand-written declarations (index.d.ts) type-check ordinary usage under --strict
// and reject misuse, as the @ts-expect-error lines demand: types/usage.ts (the snapshot
// API and the one-call pipeline) and types/v2/usage.ts (the run-loop contract v2 with
// zod 3, zod 4, valibot and arktype schemas; node16 resolution, library types skipped).
// The adapters' type tests are one source each (types/<adapter>/*.ts) that must check
// from CommonJS and from ESM: each is copied as a .cts and a .mts into a folder of the
// package's .tmp/ and compiled with its folder's tsconfig.json (whose own run, by the
// adapter's test file, checks the source as the package's kind: CommonJS).

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');
const { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');

const tsc = require.resolve('typescript/bin/tsc');

for (const [label, project] of [
  ['index.d.ts accepts ordinary usage and rejects misuse under tsc --strict', join(__dirname, 'types', 'tsconfig.json')],
  [
    'the v2 types carry the schema output to the policy (deeply read-only), the decision and the handler, with literal error codes, under tsc --strict',
    join(__dirname, 'types', 'v2', 'tsconfig.json'),
  ],
]) {
  test(label, () => {
    const result = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
    assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
  });
}

/** The adapters whose type tests are compiled for both module kinds. */
const BOTH_KINDS = ['ai', 'langchain', 'mastra', 'openai-agents', 'claude-agent-sdk', 'genkit'];

for (const adapter of BOTH_KINDS) {
  test(`the ${adapter} type tests check from CommonJS and from ESM (one source, a .cts and a .mts copy, tsc --strict)`, () => {
    const source = join(__dirname, 'types', adapter);
    const config = join(source, 'tsconfig.json');
    const files = JSON.parse(readFileSync(config, 'utf8')).files;
    assert.ok(files.length > 0 && files.every((file) => file.endsWith('.ts')), `${config} lists its .ts sources`);
    // Inside the package, so that tool-argument-snapshot/<subpath> and node_modules resolve as from __test__/.
    const scratch = join(__dirname, '..', '..', '.tmp');
    mkdirSync(scratch, { recursive: true });
    const dir = mkdtempSync(join(scratch, `types-${adapter}-`));
    try {
      const copies = [];
      for (const file of files) {
        for (const extension of ['.cts', '.mts']) {
          const copy = file.replace(/\.ts$/, extension);
          copyFileSync(join(source, file), join(dir, copy));
          copies.push(copy);
        }
      }
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: config, files: copies }));
      const result = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
      assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
