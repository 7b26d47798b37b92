#!/usr/bin/env node
'use strict';
// What a project downloads and loads: the sizes of the two tarballs `npm run pack:local`
// writes (packed, and unpacked: the sum of the files' sizes), and the package's `require`
// time and memory, each sample in a fresh process.
//
//   node scripts/measure-load.js [--runs N] [--node BIN]... [--from DIR] [--tarballs DIR]
//
//   --runs N        fresh processes per Node binary (default 30)
//   --node BIN      a Node binary to measure with (repeatable; default: this process's node)
//   --from DIR      a project where `require('tool-argument-snapshot')` resolves (default:
//                   this checkout itself); point it at an installed copy to measure that
//   --tarballs DIR  a folder with the tarballs to size (default: pack them now into a
//                   temporary folder with scripts/pack.js, which does not rebuild the addon)
//
// Each sample is one `BIN -e ...` process that reads the clock and process.memoryUsage().rss,
// requires the package, and reads them again: the time is the require alone (the addon's
// dlopen, the JavaScript modules and the load-time self-check); the RSS figures are the
// process's resident set after the require and the increase over the same process before
// it. Samples of the Node binaries are interleaved, so that a change of machine load falls
// on all of them. Printed: median, 10th-90th percentile and min-max of each.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');

function parse(argv) {
  const options = { runs: 30, nodes: [], from: ROOT, tarballs: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = argv[i + 1];
    if (arg === '--runs' && value) options.runs = Number(argv[++i]);
    else if (arg === '--node' && value) options.nodes.push(argv[++i]);
    else if (arg === '--from' && value) options.from = path.resolve(argv[++i]);
    else if (arg === '--tarballs' && value) options.tarballs = path.resolve(argv[++i]);
    else
      throw new Error(`unknown argument ${JSON.stringify(arg)}; usage: node scripts/measure-load.js [--runs N] [--node BIN]... [--from DIR] [--tarballs DIR]`);
  }
  if (!Number.isInteger(options.runs) || options.runs < 1) throw new Error('--runs must be a positive integer');
  if (options.nodes.length === 0) options.nodes.push(process.execPath);
  return options;
}

/** Packed size, unpacked size (sum of file sizes) and file count of each .tgz in `dir`. */
function tarballSizes(dir) {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.tgz'))
    .sort()
    .map((file) => {
      const listing = spawnSync('tar', ['-tzvf', path.join(dir, file)], { encoding: 'utf8' });
      if (listing.status !== 0) throw new Error(`tar -tzvf ${file}: ${listing.stderr}`);
      const lines = listing.stdout.split('\n').filter(Boolean);
      const unpacked = lines.reduce((sum, line) => sum + Number(line.split(/\s+/)[2]), 0);
      return { file, packed: fs.statSync(path.join(dir, file)).size, unpacked, files: lines.length };
    });
}

const SAMPLE = `
const t0 = process.hrtime.bigint();
const rss0 = process.memoryUsage().rss;
require(require.resolve('tool-argument-snapshot', { paths: [process.argv[1]] }));
const t1 = process.hrtime.bigint();
const rss1 = process.memoryUsage().rss;
process.stdout.write(JSON.stringify({ ms: Number(t1 - t0) / 1e6, rss: rss1, grew: rss1 - rss0 }));
`;

function quantile(sorted, q) {
  const i = (sorted.length - 1) * q;
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (i - lo);
}

function summary(values, unit, digits) {
  const s = [...values].sort((a, b) => a - b);
  const f = (v) => v.toFixed(digits);
  return `median ${f(quantile(s, 0.5))} ${unit} (p10-p90 ${f(quantile(s, 0.1))}-${f(quantile(s, 0.9))}, min-max ${f(s[0])}-${f(s[s.length - 1])})`;
}

function main() {
  const options = parse(process.argv.slice(2));
  let tarballs = options.tarballs;
  let temporary = null;
  if (tarballs === null) {
    temporary = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-measure-'));
    const pack = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'pack.js'), '--out', temporary], { encoding: 'utf8' });
    if (pack.status !== 0) throw new Error(`scripts/pack.js failed: ${pack.stderr}`);
    tarballs = temporary;
  }
  try {
    for (const t of tarballSizes(tarballs)) {
      console.log(`${t.file}: packed ${t.packed} B, unpacked ${t.unpacked} B in ${t.files} files`);
    }
  } finally {
    if (temporary) fs.rmSync(temporary, { recursive: true, force: true });
  }

  const samples = options.nodes.map(() => []);
  const versions = options.nodes.map((bin) => spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim());
  for (let run = 0; run < options.runs; run++) {
    options.nodes.forEach((bin, i) => {
      const out = spawnSync(bin, ['-e', SAMPLE, options.from], { encoding: 'utf8' });
      if (out.status !== 0) throw new Error(`${bin}: ${out.stderr}`);
      samples[i].push(JSON.parse(out.stdout));
    });
  }
  console.log(
    `require('tool-argument-snapshot') from ${options.from}, ${options.runs} fresh processes per Node, on ${os.cpus().length} CPUs (${os.cpus()[0].model.trim()}), load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  options.nodes.forEach((bin, i) => {
    const s = samples[i];
    console.log(`Node ${versions[i]}:`);
    console.log(
      `  require time: ${summary(
        s.map((x) => x.ms),
        'ms',
        1,
      )}`,
    );
    console.log(
      `  RSS after:    ${summary(
        s.map((x) => x.rss / 2 ** 20),
        'MiB',
        1,
      )}`,
    );
    console.log(
      `  RSS growth:   ${summary(
        s.map((x) => x.grew / 2 ** 20),
        'MiB',
        1,
      )}`,
    );
  });
}

try {
  main();
} catch (error) {
  process.stderr.write(`measure-load: ${error.message}\n`);
  process.exitCode = 1;
}
