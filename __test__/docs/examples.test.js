'use strict';
// examples/run-loop.ts (an aioc-shaped run loop) type-checks under --strict against the
// package's declarations, compiles, and runs with the expected decisions.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { mkdtempSync, rmSync, writeFileSync, mkdirSync, symlinkSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const root = join(__dirname, '..', '..');

test('the aioc-shaped run loop example (prepare, evaluate, record, execute) type-checks with no cast, compiles and runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tas-example-'));
  try {
    // Resolve 'tool-argument-snapshot' and 'zod' from the compiled file's folder.
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(root, join(dir, 'node_modules', 'tool-argument-snapshot'), 'dir');
    symlinkSync(join(root, 'node_modules', 'zod'), join(dir, 'node_modules', 'zod'), 'dir');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'es2022',
          module: 'commonjs',
          moduleResolution: 'node10',
          outDir: join(dir, 'out'),
          rootDir: join(root, 'examples'),
          types: [],
          esModuleInterop: true,
          typeRoots: [],
          baseUrl: dir,
          paths: { 'tool-argument-snapshot': [join(root, 'index.d.ts')], zod: [join(root, 'node_modules', 'zod')] },
        },
        files: [join(root, 'examples', 'run-loop.ts')],
      }),
    );
    const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    assert.equal(tsc.status, 0, `tsc:\n${tsc.stdout}${tsc.stderr}`);
    const script = `require(${JSON.stringify(join(dir, 'out', 'run-loop.js'))}).main().then((log) => console.log(log.join('\\n')))`;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', cwd: dir });
    assert.equal(run.status, 0, `run:\n${run.stdout}${run.stderr}`);
    assert.deepEqual(run.stdout.trim().split('\n'), [
      'c1 executed {"sent":2500,"to":"alice"}',
      'c2 suspended large transfer',
      'c2 resumed executed {"sent":500000,"to":"bob"}',
      'c3 invalid json/duplicate_key',
      'c4 denied runtime/policy_not_configured',
      'record c1:policy:allow c2:policy:require_approval c2:policy:allow c4:runtime:deny',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
