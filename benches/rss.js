'use strict';
// Peak RSS of the full RFC-0016 step, one child process per contender.
//
// As a child (`node --expose-gc benches/rss.js <contender> <class> <ops>`): loads the
// contender and the payload, forces gc, records the idle RSS as baseline, resets the
// kernel's high-water mark where Linux allows it, runs the full step <ops> times
// (sampling RSS after each step while its snapshot and views are still alive) and
// prints one JSON line. As a module: measureRss() spawns those children and turns
// their reports into deltas.

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const KIB = 1024;

/** The kernel's RSS high-water mark of this process (VmHWM), in bytes; null off Linux. */
function readVmHwm() {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    return match === null ? null : Number(match[1]) * KIB;
  } catch {
    return null;
  }
}

/** Resets VmHWM (and getrusage's maxrss) to the current RSS: Linux >= 4.0 only. */
function resetHighWaterMark() {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

async function child(id, className, ops) {
  if (typeof globalThis.gc !== 'function') throw new Error('rss.js must run with --expose-gc');
  const { loadContenders, buildItems } = require('./contenders');
  const [contender] = await loadContenders([id]);
  let items = buildItems(className);
  // The UTF-8 length of the canonical JSON, whatever the contender, from the strict
  // JavaScript reference: the package itself is not called before the baseline (its
  // first call allocates what a first step costs).
  const { canonicalize } = require('../support/strict-reference');
  const jsonBytes = items.reduce((sum, item) => sum + Buffer.byteLength(canonicalize(item.value), 'utf8'), 0);
  const { step } = contender;

  globalThis.gc();
  globalThis.gc();
  const baselineRss = process.memoryUsage().rss;
  const maxRssBefore = process.resourceUsage().maxRSS * KIB;
  const hwmReset = resetHighWaterMark();
  const maxRssAtReset = process.resourceUsage().maxRSS * KIB;

  let peakSampledRss = baselineRss;
  for (let k = 0; k < ops; k++) {
    for (let i = 0; i < items.length; i++) {
      const view = step(items[i]);
      // Sampled while the step's outputs (its snapshot's JSON and both views) are alive.
      const rss = process.memoryUsage().rss;
      if (rss > peakSampledRss) peakSampledRss = rss;
      if (view === undefined) throw new Error('step returned nothing');
    }
  }
  const report = {
    contender: id,
    className,
    ops,
    callsPerOp: items.length,
    jsonBytes,
    baselineRss,
    peakSampledRss,
    maxRssBefore,
    maxRssAtReset,
    maxRssAfter: process.resourceUsage().maxRSS * KIB,
    hwmReset,
    vmHwmAfter: readVmHwm(),
  };
  items = null;
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

/**
 * Runs one child per contender id, sequentially, and returns for each the deltas over
 * its idle baseline: sampled (max RSS after a step), maxRSS (process.resourceUsage;
 * null when its high-water mark predates the baseline and was not reset), VmHWM (Linux,
 * after a reset) and `peakDelta`, the largest of those available.
 */
function measureRss(ids, className, ops) {
  const results = [];
  for (const id of ids) {
    const run = spawnSync(process.execPath, ['--expose-gc', __filename, id, className, String(ops)], {
      cwd: path.join(__dirname, '..'),
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    if (run.status !== 0 || run.error) {
      results.push({
        contender: id,
        error: `child exited with ${run.error ? run.error.message : run.signal || run.status}: ${(run.stderr || '').trim().split('\n').slice(-5).join(' | ')}`,
      });
      continue;
    }
    const report = JSON.parse(run.stdout.trim().split('\n').pop());
    const sampledDelta = report.peakSampledRss - report.baselineRss;
    // Without a reset, maxRSS is the whole life's high-water mark (payload generation and,
    // for a spawned child, possibly the parent's RSS at fork): only informative if it grew.
    const reference = report.hwmReset ? report.maxRssAtReset : report.maxRssBefore;
    const maxRssInformative = report.maxRssAfter > reference || reference - report.baselineRss < 4 * KIB * KIB;
    const maxRssDelta = maxRssInformative ? Math.max(0, report.maxRssAfter - report.baselineRss) : null;
    const hwmDelta = report.hwmReset && report.vmHwmAfter !== null ? Math.max(0, report.vmHwmAfter - report.baselineRss) : null;
    const peakDelta = Math.max(sampledDelta, maxRssDelta ?? 0, hwmDelta ?? 0);
    results.push({ ...report, sampledDelta, maxRssDelta, hwmDelta, peakDelta, peakPerJsonByte: peakDelta / report.jsonBytes });
  }
  return results;
}

module.exports = { measureRss, readVmHwm };

if (require.main === module) {
  const [id, className = 'large', ops = '20'] = process.argv.slice(2);
  child(id, className, Number(ops)).catch((error) => {
    process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
    process.exitCode = 1;
  });
}
