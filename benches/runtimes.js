'use strict';
// The full RFC-0016 step benchmark under Node, Bun and Deno: benches/bench.js runs once
// under each installed runtime, one after the other (never at the same time: they would
// share the cores), each an interleaved run of the package and the same JavaScript
// contenders on that runtime; the ratios compare contenders on the same runtime only.
// Then, per runtime, whether the package is faster than its own plain strict JavaScript
// (the strict reference) on every payload. Nothing about time is asserted.
//
//   node benches/runtimes.js [--runtime node,bun,deno] [--json FILE] [bench.js options]
//
// bench.js options are passed through (--quick, --rounds N, --class NAME, ...); --no-rss
// is always added (its peak-RSS children are Node processes with --expose-gc).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { findBun, findDeno } = require('../__test__/runtime-binaries');

const BENCH = path.join(__dirname, 'bench.js');
// Deno runs a .js file under a package.json without "type" as an ES module; the CommonJS
// bench is required from a .cjs file.
const DENO_ENTRY = path.join(__dirname, 'bench-entry.cjs');
const CONTENDERS = ['strict-reference', 'canonicalize', 'json-canonicalize', 'sorted-keys', 'floor'];
const LABELS = {
  'strict-reference': 'strict JS reference',
  canonicalize: 'canonicalize + SHA-256',
  'json-canonicalize': 'json-canonicalize + SHA-256',
  'sorted-keys': 'sorted-keys + SHA-256',
  floor: 'floor',
};

function parseArgs(argv) {
  const opts = { runtimes: ['node', 'bun', 'deno'], json: null, pass: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--runtime') opts.runtimes = argv[++i].split(',').filter(Boolean);
    else if (arg.startsWith('--runtime=')) opts.runtimes = arg.slice(10).split(',').filter(Boolean);
    else if (arg === '--json') opts.json = argv[++i];
    else if (arg.startsWith('--json=')) opts.json = arg.slice(7);
    else if (arg !== '--no-rss') opts.pass.push(arg);
  }
  for (const name of opts.runtimes) {
    if (!['node', 'bun', 'deno'].includes(name)) {
      console.error(`unknown runtime ${name}; known: node, bun, deno`);
      process.exit(2);
    }
  }
  return opts;
}

function runtimeCommand(name) {
  if (name === 'node') return { label: `Node ${process.version}`, file: process.execPath, args: [BENCH] };
  const found = name === 'bun' ? findBun() : findDeno();
  if (!found.file) return { label: name, missing: `not installed${found.tried.length ? ` (tried ${found.tried.join('; ')})` : ''}` };
  const version = found.version.replace(/^deno /, '').replace(/ \(.*$/, '');
  if (name === 'bun') return { label: `Bun ${version}`, file: found.file, args: ['--no-install', BENCH] };
  return { label: `Deno ${version}`, file: found.file, args: ['run', '--no-prompt', '--no-remote', '-A', DENO_ENTRY] };
}

function fmt(us) {
  return us >= 100 ? us.toFixed(0) : us >= 10 ? us.toFixed(1) : us.toFixed(2);
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const results = {};
  for (const name of opts.runtimes) {
    const command = runtimeCommand(name);
    if (command.missing) {
      console.log(`${name}: skipped, ${command.missing}`);
      continue;
    }
    const json = path.join(os.tmpdir(), `tas-bench-${name}-${process.pid}.json`);
    console.log(`== ${command.label}: ${path.relative(process.cwd(), BENCH)} ${[...opts.pass, '--no-rss'].join(' ')}`);
    const started = Date.now();
    const run = spawnSync(command.file, [...command.args, ...opts.pass, '--no-rss', '--json', json], {
      cwd: path.join(__dirname, '..'),
      encoding: 'utf8',
      env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
      maxBuffer: 64 << 20,
    });
    if (run.status !== 0 || !fs.existsSync(json)) {
      console.log(`   failed (exit ${run.status}, signal ${run.signal}):\n${String(run.stdout).slice(-1500)}\n${String(run.stderr).slice(-1500)}`);
      process.exitCode = 1;
      continue;
    }
    const data = JSON.parse(fs.readFileSync(json, 'utf8'));
    fs.unlinkSync(json);
    results[name] = { label: command.label, seconds: Math.round((Date.now() - started) / 1000), loadAvg: data.meta.loadAvg, options: data.options, classes: {} };
    for (const [className, entry] of Object.entries(data.classes)) {
      const full = entry.groups.full;
      const pkg = full.find((row) => row.id === 'package');
      const row = { package: { median: pkg.medianUs, p10: pkg.p10Us, p90: pkg.p90Us }, full: {} };
      for (const id of CONTENDERS) {
        const other = full.find((r) => r.id === id);
        if (other) row.full[id] = { median: other.medianUs, ratio: other.medianUs / pkg.medianUs };
      }
      // Where a per-runtime choice shows: canonicalization alone against the reference's
      // (the walk, the native encoder), and a view of a snapshot against JSON.parse (the
      // template or parse choice).
      const canon = entry.groups.canonicalize;
      const canonPkg = canon.find((r) => r.id === 'package');
      const canonRef = canon.find((r) => r.id === 'strict-reference');
      if (canonPkg && canonRef) row.canonicalize = { median: canonPkg.medianUs, vsReference: canonRef.medianUs / canonPkg.medianUs };
      const decode = entry.groups.decode;
      const view = decode.find((r) => r.id === 'decodeView-snapshot');
      const first = decode.find((r) => r.id === 'decodeView-fresh');
      const parse = decode.find((r) => r.id === 'JSON.parse');
      if (view && parse) row.view = { median: view.medianUs, vsParse: parse.medianUs / view.medianUs, firstVsParse: first ? parse.medianUs / first.medianUs : null };
      results[name].classes[className] = row;
    }
    console.log(`   done in ${results[name].seconds} s (${data.options.rounds} rounds, load average ${data.meta.loadAvg.join(' ')})`);
  }

  if (opts.json) {
    fs.writeFileSync(path.resolve(opts.json), `${JSON.stringify(results, null, 2)}\n`);
    console.log(`results written to ${opts.json}`);
  }

  // One table per runtime, in the README's form: package median µs (p10-p90), each
  // contender's median and its ratio to the package's (above 1: the package is faster).
  for (const name of Object.keys(results)) {
    const r = results[name];
    console.log(`\n${r.label}: full RFC-0016 step, median us per op (ratio of medians: contender / package)`);
    console.log(`| payload | package µs (p10–p90) | ${CONTENDERS.map((id) => LABELS[id]).join(' | ')} |`);
    console.log(`|---|---|${CONTENDERS.map(() => '---').join('|')}|`);
    for (const [className, row] of Object.entries(r.classes)) {
      const cells = CONTENDERS.map((id) => {
        const cell = row.full[id];
        if (!cell) return '-';
        return `${fmt(cell.median)} (${cell.ratio >= 1 ? `**${cell.ratio.toFixed(2)}x**` : `${cell.ratio.toFixed(2)}x`})`;
      });
      console.log(`| ${className} | ${fmt(row.package.median)} (${fmt(row.package.p10)}–${fmt(row.package.p90)}) | ${cells.join(' | ')} |`);
    }
    console.log(`${r.label}: canonicalize alone, reference / package: ${Object.entries(r.classes).map(([c, row]) => `${c} ${row.canonicalize ? row.canonicalize.vsReference.toFixed(2) : '-'}x`).join(', ')}`);
    console.log(`${r.label}: JSON.parse / decodeView(snapshot), again (first view): ${Object.entries(r.classes).map(([c, row]) => `${c} ${row.view ? `${row.view.vsParse.toFixed(2)}x (${row.view.firstVsParse.toFixed(2)}x)` : '-'}`).join(', ')}`);
    const slower = Object.entries(r.classes).filter(([, row]) => row.full['strict-reference'] && row.full['strict-reference'].ratio < 1);
    console.log(slower.length === 0
      ? `${r.label}: the package is faster than its own strict JavaScript reference on every payload`
      : `${r.label}: SLOWER than its own strict JavaScript reference on ${slower.map(([c, row]) => `${c} (${row.full['strict-reference'].ratio.toFixed(2)}x)`).join(', ')}`);
  }
}

main();
