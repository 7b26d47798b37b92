'use strict';
// A short run of support/soak.js (the leak soak) as a child process: 100,000 cycles of
// createSnapshot + policy view + execution view over the realistic payload mix, with
// failing values mixed in; RSS after gc must not grow by more than 20 MB after the
// warm-up. The full soak is the benchmark's entry point to the same file (1,000,000 cycles).
// SOAK_CYCLES=<n> changes the count of this run.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const SOAK = path.join(__dirname, '..', '..', 'support', 'soak.js');
const CYCLES = Number(process.env.SOAK_CYCLES || 100000);

for (const mode of ['snapshot', 'prepared']) {
  const cycles = mode === 'snapshot' ? CYCLES : Math.floor(CYCLES / 4);
  test(`support/soak.js --cycles ${cycles} --mode ${mode} finds no growth over 20 MB`, (t) => {
    const child = spawnSync(process.execPath, [SOAK, '--cycles', String(cycles), '--mode', mode, '--json'], { encoding: 'utf8', timeout: 300000 });
    assert.equal(child.signal, null, `killed by ${child.signal}`);
    const line = child.stdout.trim().split('\n').pop();
    let report;
    assert.doesNotThrow(
      () => {
        report = JSON.parse(line);
      },
      `soak output: ${child.stdout.slice(0, 500)} ${child.stderr.slice(0, 500)}`,
    );
    t.diagnostic(
      `${report.cycles} cycles (${mode}) in ${report.seconds.toFixed(1)} s (${report.microsPerCycle.toFixed(1)} us/cycle): RSS growth after warm-up ${report.rssGrowthMb.toFixed(1)} MB (largest sample +${report.rssMaxAboveFirstMb.toFixed(1)} MB), heap ${report.heapGrowthMb.toFixed(2)} MB, external ${report.externalGrowthMb.toFixed(2)} MB`,
    );
    assert.equal(report.failures, Math.floor(cycles / 50), 'every planted failure failed');
    assert.ok(report.rssGrowthMb <= 20, `RSS grew by ${report.rssGrowthMb.toFixed(1)} MB`);
    assert.equal(child.status, 0, `soak.js exit status ${child.status}: ${child.stderr.slice(0, 500)}`);
  });
}
