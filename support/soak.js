#!/usr/bin/env node
'use strict';
// Leak soak: repeats the RFC-0016 step (createSnapshot, then a policy view and an
// execution view of the snapshot) over the realistic payload mix of support/payloads.js,
// with one failing value in every 50 cycles so that the error paths soak too. After a
// warm-up of 10% of the cycles, RSS is sampled after a full gc every further 10%; the
// growth from the first sample to the last (and the largest sample) is reported, and the
// script exits non-zero when the growth exceeds the limit.
//
//   node benches/soak.js                                 # 1,000,000 cycles, limit 20 MB
//   node benches/soak.js --cycles 100000                 # the short run of __test__/core/soak.test.js
//   node benches/soak.js --mode prepared                 # prepareToolCall + policyView() twice
//   options: --cycles N, --max-growth-mb M, --mode snapshot|prepared, --json
//
// V8 grows its young generation (semi-spaces of 1 to 16 MB) during the first tens of
// thousands of cycles: a one-time RSS step of about 30 MB that is not a leak but would
// land after the warm-up of a short run. The script therefore runs with
// --min-semi-space-size=16 (and --expose-gc): started without them, it starts itself
// again with them. The new-space size is reported with every sample.

const path = require('node:path');
const { spawnSync } = require('node:child_process');

function parseArgs(argv) {
  const options = { cycles: 1_000_000, maxGrowthMb: 20, mode: 'snapshot', json: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === '--cycles') options.cycles = Number(next());
    else if (arg === '--max-growth-mb') options.maxGrowthMb = Number(next());
    else if (arg === '--mode') options.mode = next();
    else if (arg === '--json') options.json = true;
    else if (arg === '--help' || arg === '-h') options.help = true;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (!Number.isSafeInteger(options.cycles) || options.cycles < 10) throw new Error('--cycles must be an integer >= 10');
  if (!(options.maxGrowthMb > 0)) throw new Error('--max-growth-mb must be positive');
  if (options.mode !== 'snapshot' && options.mode !== 'prepared') throw new Error('--mode is snapshot or prepared');
  return options;
}

function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`soak: ${error.message}`);
    process.exit(2);
  }
  if (options.help) {
    console.log('usage: node benches/soak.js [--cycles N] [--max-growth-mb M] [--mode snapshot|prepared] [--json]');
    return;
  }
  const pinned = process.execArgv.some((arg) => arg.startsWith('--min-semi-space-size'));
  if (typeof globalThis.gc !== 'function' || !pinned) {
    const flags = ['--expose-gc', '--min-semi-space-size=16', ...process.execArgv.filter((arg) => arg !== '--expose-gc')];
    const child = spawnSync(process.execPath, [...flags, __filename, ...process.argv.slice(2)], { stdio: 'inherit' });
    process.exit(child.status === null ? 1 : child.status);
  }
  const v8 = require('node:v8');
  const newSpaceMb = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size / 1048576;

  const { createSnapshot, decodeView, prepareToolCall } = require('..');
  const payloads = require('./payloads');
  const items = [...payloads.realistic(7), payloads.small(1), payloads.medium(3)];
  const texts = items.map((value) => JSON.stringify(value));
  const failing = [{ a: -0 }, { b: [1, , 2] }, { c: 'x\ud800' }, { d: new Date(0) }]; // eslint-disable-line no-sparse-arrays

  const MB = 1048576;
  const settle = () => {
    for (let k = 0; k < 4; k++) globalThis.gc();
    return process.memoryUsage();
  };

  let sink = 0;
  let failures = 0;
  function cycle(i) {
    if (i % 50 === 49) {
      try {
        createSnapshot({ agentName: 'soak', toolName: 'tool', value: failing[(i / 50) & 3] });
      } catch (error) {
        failures += error.code.length > 0 ? 1 : 0;
      }
      return;
    }
    const k = i % items.length;
    if (options.mode === 'prepared') {
      const prepared = prepareToolCall({ agentName: 'soak', toolName: `tool_${k & 7}`, rawArguments: texts[k] });
      const policy = prepared.policyView();
      const again = prepared.policyView();
      sink += prepared.proposalHash.length + (policy === again ? 1 : 0);
      return;
    }
    const snapshot = createSnapshot({ agentName: 'soak', toolName: `tool_${k & 7}`, value: items[k] });
    const policy = decodeView(snapshot);
    const execution = decodeView(snapshot);
    sink += snapshot.proposalHash.length + (policy === execution ? 1 : 0);
  }

  const warmup = Math.floor(options.cycles / 10);
  const step = Math.max(1, Math.floor((options.cycles - warmup) / 9));
  const started = process.hrtime.bigint();
  let i = 0;
  for (; i < warmup; i++) cycle(i);
  const samples = [];
  const sample = () => {
    const m = settle();
    samples.push({ cycle: i, rssMb: m.rss / MB, heapUsedMb: m.heapUsed / MB, externalMb: m.external / MB, newSpaceMb: newSpaceMb() });
    if (!options.json) {
      const s = samples[samples.length - 1];
      console.log(
        `cycle ${String(i).padStart(9)}: rss ${s.rssMb.toFixed(1)} MB, heap used ${s.heapUsedMb.toFixed(1)} MB, new space ${s.newSpaceMb.toFixed(1)} MB, external ${s.externalMb.toFixed(1)} MB`,
      );
    }
  };
  sample();
  while (i < options.cycles) {
    const stop = Math.min(options.cycles, i + step);
    for (; i < stop; i++) cycle(i);
    sample();
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const first = samples[0];
  const last = samples[samples.length - 1];
  const report = {
    cycles: options.cycles,
    mode: options.mode,
    seconds,
    microsPerCycle: (seconds * 1e6) / options.cycles,
    warmupCycles: warmup,
    failures,
    rssGrowthMb: last.rssMb - first.rssMb,
    rssMaxAboveFirstMb: Math.max(...samples.map((s) => s.rssMb)) - first.rssMb,
    heapGrowthMb: last.heapUsedMb - first.heapUsedMb,
    externalGrowthMb: last.externalMb - first.externalMb,
    maxGrowthMb: options.maxGrowthMb,
    newSpaceMb: [first.newSpaceMb, last.newSpaceMb],
    samples: samples.map((s) => ({ cycle: s.cycle, rssMb: Number(s.rssMb.toFixed(1)) })),
    ok: true,
    sink,
  };
  report.ok = report.rssGrowthMb <= options.maxGrowthMb && failures === Math.floor(options.cycles / 50);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    console.log(
      `${options.cycles} cycles (${options.mode}) in ${seconds.toFixed(1)} s (${report.microsPerCycle.toFixed(2)} us/cycle), ${failures} expected failures`,
    );
    console.log(
      `RSS growth after warm-up: ${report.rssGrowthMb.toFixed(1)} MB (largest sample ${report.rssMaxAboveFirstMb.toFixed(1)} MB above the first; heap ${report.heapGrowthMb.toFixed(1)} MB, external ${report.externalGrowthMb.toFixed(1)} MB); limit ${options.maxGrowthMb} MB: ${report.ok ? 'ok' : 'FAILED'}`,
    );
  }
  process.exitCode = report.ok ? 0 : 1;
}

main();
