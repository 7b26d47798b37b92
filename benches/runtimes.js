'use strict';
// The full RFC-0016 step benchmark under several runtimes in one report: Node lines
// (node26, node24, node22, node20: found as the tests find them, see
// support/runtime-binaries.js), the Node running this file (node), Bun and Deno.
// benches/bench.js runs once under each, one after the other (never at the same time:
// they would share the cores), each an interleaved run of the package and the same
// JavaScript contenders on that runtime; the ratios compare contenders on the same
// runtime only. Then, per runtime, the README-style table and whether the package is
// faster than its own plain strict JavaScript (the strict reference) on every payload.
// Nothing about time is asserted.
//
//   node benches/runtimes.js [--runtime node26,node24,bun,deno] [--json FILE] [bench.js options]
//   (or: npm run bench -- --runtime node26,node24,...)
//
// bench.js options are passed through (--quick, --rounds N, --class NAME, ...). Bun and
// Deno runs get --no-rss (the peak-RSS children are Node processes with --expose-gc).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const binaries = require('../support/runtime-binaries');

const ROOT = path.join(__dirname, '..');
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
const KNOWN = 'node26, node24, node22, node20 (any nodeNN), node (this one), bun, deno';

/** The major of a Node version string (v26.12.1 -> 26), or NaN. */
function nodeMajor(version) {
  const match = /^v(\d+)\./.exec(String(version));
  return match ? Number(match[1]) : NaN;
}

/**
 * A Node line's binary as the tests find it (support/runtime-binaries.js findNode:
 * NODE<major>_BINARY, `npm run fetch-node`, node<major> on PATH, this process); where that
 * helper has no findNode yet, NODE<major>_BINARY or this process.
 */
function findNodeLine(major) {
  if (typeof binaries.findNode === 'function') return binaries.findNode(major);
  const variable = `NODE${major}_BINARY`;
  const tried = [];
  const file = process.env[variable];
  if (file) {
    const probe = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 30000 });
    if (probe.status === 0 && nodeMajor(probe.stdout.trim()) === major) return { file, source: variable, version: probe.stdout.trim() };
    tried.push(`${file} (${variable})`);
  }
  if (nodeMajor(process.version) === major) return { file: process.execPath, source: 'this process', version: process.version };
  return { file: null, tried };
}

/**
 * How to run bench.js under `name`: { name, label, file, args, here, node } (`here`: this
 * very process), or { name, label, missing } with the reason.
 */
function resolve(name) {
  if (name === 'node') return { name, label: `Node ${process.version}`, file: process.execPath, args: [BENCH], here: true, node: true };
  const line = /^node(\d+)$/.exec(name);
  if (line) {
    const major = Number(line[1]);
    const found = findNodeLine(major);
    if (!found.file)
      return { name, label: `Node ${major}`, missing: `not found${found.tried && found.tried.length ? ` (tried ${found.tried.join('; ')})` : ''}` };
    const here = found.file === process.execPath || found.source === 'this process';
    return { name, label: `Node ${found.version}`, file: found.file, args: [BENCH], here, node: true };
  }
  if (name === 'bun' || name === 'deno') {
    const found = name === 'bun' ? binaries.findBun() : binaries.findDeno();
    if (!found.file) return { name, label: name, missing: `not installed${found.tried.length ? ` (tried ${found.tried.join('; ')})` : ''}` };
    const version = found.version.replace(/^deno /, '').replace(/ \(.*$/, '');
    if (name === 'bun') return { name, label: `Bun ${version}`, file: found.file, args: ['--no-install', BENCH], here: false, node: false };
    return { name, label: `Deno ${version}`, file: found.file, args: ['run', '--no-prompt', '--no-remote', '-A', DENO_ENTRY], here: false, node: false };
  }
  return { name, label: name, missing: `unknown runtime; known: ${KNOWN}` };
}

/** The environment of a benchmark child. */
function childEnv() {
  return { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' };
}

function fmt(us) {
  return us >= 100 ? us.toFixed(0) : us >= 10 ? us.toFixed(1) : us.toFixed(2);
}

/**
 * Runs bench.js under each runtime of `names` (one after the other) with the bench.js
 * options `pass`, then prints one table per runtime. Returns the results by runtime.
 */
function runMany(names, pass, jsonFile) {
  const results = {};
  const passOn = pass.filter((arg, i) => arg !== '--json' && pass[i - 1] !== '--json' && !arg.startsWith('--json='));
  for (const name of names) {
    const command = resolve(name);
    if (command.missing) {
      console.log(`${command.label}: skipped, ${command.missing}`);
      continue;
    }
    const json = path.join(os.tmpdir(), `tas-bench-${name}-${process.pid}.json`);
    const args = [...passOn, ...(command.node ? [] : ['--no-rss']), '--here', '--json', json];
    console.log(`== ${command.label}: ${path.relative(process.cwd(), BENCH)} ${args.filter((a) => a !== json && a !== '--json' && a !== '--here').join(' ')}`);
    const started = Date.now();
    const run = spawnSync(command.file, [...command.args, ...args], { cwd: ROOT, encoding: 'utf8', env: childEnv(), maxBuffer: 64 << 20 });
    if (run.status !== 0 || !fs.existsSync(json)) {
      console.log(`   failed (exit ${run.status}, signal ${run.signal}):\n${String(run.stdout).slice(-1500)}\n${String(run.stderr).slice(-1500)}`);
      process.exitCode = 1;
      continue;
    }
    const data = JSON.parse(fs.readFileSync(json, 'utf8'));
    fs.unlinkSync(json);
    results[name] = {
      label: command.label,
      seconds: Math.round((Date.now() - started) / 1000),
      meta: data.meta,
      options: data.options,
      classes: {},
      rssOneStep: data.rssOneStep || null,
    };
    for (const [className, entry] of Object.entries(data.classes)) {
      const row = { full: {} };
      const full = entry.groups.full;
      if (full) {
        const pkg = full.find((r) => r.id === 'package');
        row.package = { median: pkg.medianUs, p10: pkg.p10Us, p90: pkg.p90Us };
        for (const id of CONTENDERS) {
          const other = full.find((r) => r.id === id);
          if (other) row.full[id] = { median: other.medianUs, ratio: other.medianUs / pkg.medianUs };
        }
      }
      // Where a per-runtime choice shows: canonicalization alone against the reference's
      // (the walk, the native encoder), and a view of a snapshot against JSON.parse (the
      // template or parse choice).
      const canon = entry.groups.canonicalize;
      const canonPkg = canon && canon.find((r) => r.id === 'package');
      const canonRef = canon && canon.find((r) => r.id === 'strict-reference');
      if (canonPkg && canonRef) row.canonicalize = { median: canonPkg.medianUs, vsReference: canonRef.medianUs / canonPkg.medianUs };
      const decode = entry.groups.decode;
      const view = decode && decode.find((r) => r.id === 'decodeView-snapshot');
      const first = decode && decode.find((r) => r.id === 'decodeView-fresh');
      const parse = decode && decode.find((r) => r.id === 'JSON.parse');
      if (view && parse)
        row.view = { median: view.medianUs, vsParse: parse.medianUs / view.medianUs, firstVsParse: first ? parse.medianUs / first.medianUs : null };
      results[name].classes[className] = row;
    }
    console.log(
      `   done in ${results[name].seconds} s (${data.options.rounds} rounds, load average ${data.meta.loadAvg.join(' ')}, commit ${data.meta.commit})`,
    );
  }

  if (jsonFile) {
    fs.writeFileSync(path.resolve(jsonFile), `${JSON.stringify(results, null, 2)}\n`);
    console.log(`results written to ${jsonFile}`);
  }

  // One table per runtime, in the docs' form: package median µs (p10-p90), each
  // contender's median and its ratio to the package's (above 1: the package is faster).
  for (const name of Object.keys(results)) {
    const r = results[name];
    const rows = Object.entries(r.classes).filter(([, row]) => row.package);
    if (rows.length > 0) {
      console.log(`\n${r.label} (V8 ${r.meta.v8}): full RFC-0016 step, median µs per op (ratio of medians: contender / package)`);
      console.log(`| payload | package µs (p10–p90) | ${CONTENDERS.map((id) => LABELS[id]).join(' | ')} |`);
      console.log(`|---|---|${CONTENDERS.map(() => '---').join('|')}|`);
      for (const [className, row] of rows) {
        const cells = CONTENDERS.map((id) => {
          const cell = row.full[id];
          if (!cell) return '-';
          return `${fmt(cell.median)} (${cell.ratio >= 1 ? `**${cell.ratio.toFixed(2)}x**` : `${cell.ratio.toFixed(2)}x`})`;
        });
        console.log(`| ${className} | ${fmt(row.package.median)} (${fmt(row.package.p10)}–${fmt(row.package.p90)}) | ${cells.join(' | ')} |`);
      }
      const slower = rows.filter(([, row]) => row.full['strict-reference'] && row.full['strict-reference'].ratio < 1);
      console.log(
        slower.length === 0
          ? `${r.label}: the package is faster than its own strict JavaScript reference on every payload`
          : `${r.label}: SLOWER than its own strict JavaScript reference on ${slower.map(([c, row]) => `${c} (${row.full['strict-reference'].ratio.toFixed(2)}x)`).join(', ')}`,
      );
    }
    const canonRows = Object.entries(r.classes).filter(([, row]) => row.canonicalize);
    if (canonRows.length > 0)
      console.log(
        `${r.label}: canonicalize alone, reference / package: ${canonRows.map(([c, row]) => `${c} ${row.canonicalize.vsReference.toFixed(2)}x`).join(', ')}`,
      );
    const viewRows = Object.entries(r.classes).filter(([, row]) => row.view);
    if (viewRows.length > 0)
      console.log(
        `${r.label}: JSON.parse / decodeView(snapshot), again (first view): ${viewRows.map(([c, row]) => `${c} ${row.view.vsParse.toFixed(2)}x (${row.view.firstVsParse === null ? '-' : row.view.firstVsParse.toFixed(2)}x)`).join(', ')}`,
      );
    const one = r.rssOneStep && r.rssOneStep.find((x) => x.contender === 'package' && !x.error);
    if (one)
      console.log(
        `${r.label}: peak RSS of one full step on large: +${(one.peakDelta / 1048576).toFixed(1)} MiB, ${one.peakPerJsonByte.toFixed(2)}x its canonical JSON`,
      );
  }
  return results;
}

function parseArgs(argv) {
  const opts = { runtimes: ['node', 'bun', 'deno'], json: null, pass: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--runtime') opts.runtimes = argv[++i].split(',').filter(Boolean);
    else if (arg.startsWith('--runtime=')) opts.runtimes = arg.slice(10).split(',').filter(Boolean);
    else if (arg === '--json') opts.json = argv[++i];
    else if (arg.startsWith('--json=')) opts.json = arg.slice(7);
    else opts.pass.push(arg);
  }
  for (const name of opts.runtimes) {
    if (!/^(node\d*|bun|deno)$/.test(name)) {
      console.error(`unknown runtime ${name}; known: ${KNOWN}`);
      process.exit(2);
    }
  }
  return opts;
}

if (require.main === module) {
  const opts = parseArgs(process.argv.slice(2));
  runMany(opts.runtimes, opts.pass, opts.json);
}

module.exports = { resolve, runMany, childEnv, nodeMajor };
