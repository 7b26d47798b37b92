'use strict';
// `npm run bench`: the cost of the RFC-0016 snapshot step against what runtimes use
// today, on the deterministic payload corpus of support/payloads.js.
//
//   node benches/bench.js [--runtime LIST] [--quick] [--rounds N] [--class NAME[,NAME]]
//                         [--groups LIST] [--json FILE] [--warmup MS] [--sample-ms MS]
//                         [--rss-ops K] [--no-rss] [--grants]
//
// Where it runs: on Node 26 when one is found (as the tests find the Node lines:
// support/runtime-binaries.js), otherwise on the Node running this file, saying so.
// `--runtime node26,node24,node22,node20,node,bun,deno` (any of them) runs it under each
// listed runtime one after the other and reports them together (benches/runtimes.js);
// `--runtime NAME` alone runs it under that one.
//
// Method: a loop of our own, with process.hrtime.bigint(). Per payload class and group
// of contenders, every contender is first warmed up for --warmup ms while the number of
// operations per timed sample is calibrated so that a sample lasts about --sample-ms.
// Then come N rounds; round r times one sample of every contender, in an order rotated
// by r (and reversed on every other pass), so that machine noise, GC debt and frequency
// drift spread evenly. A contender's result is the median of its N per-operation times,
// with the p10-p90 and min-max spread across rounds. Nothing about time is asserted:
// the bench exits non-zero only when a contender disagrees with the package where it
// must agree (checked before any timing), or when something crashes (a bad command
// line exits 2).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { isDeepStrictEqual } = require('node:util');
const { execFileSync } = require('node:child_process');

const { CLASSES } = require('../support/payloads');
const { SINK, buildItems, sha256Envelope, loadContenders } = require('./contenders');
const { measureRss } = require('./rss');

const ROOT = path.join(__dirname, '..');
const RSS_CLASS = 'large';

// ---------------------------------------------------------------------------------
// Options

function usage() {
  return [
    'usage: node benches/bench.js [options]',
    '  --runtime LIST     node26, node24, node22, node20 (a Node line), node (this one), bun, deno;',
    '                     several: one run each, reported together (default: node26 if found, else this Node)',
    '  --quick            3 rounds, 20 ms warm-up, 2 ms samples, 5 RSS steps (CI smoke run)',
    '  --rounds N         timed rounds per group (default 30)',
    '  --class NAME       only these payload classes (repeat or comma-separate); one of',
    `                     ${Object.keys(CLASSES).join(', ')}`,
    '  --json FILE        also write the results as JSON to FILE',
    '  --warmup MS        warm-up per contender and payload (default 500)',
    '  --sample-ms MS     target duration of one timed sample (default 10)',
    '  --rss-ops K        full steps per peak-RSS child (default 20; a one-step child runs too)',
    '  --no-rss           skip the peak-RSS children',
    '  --groups LIST      only these timing groups: full, canonicalize, prepare, run, decode, cedar (default all)',
    '                     mcp: the MCP gate beside the SDK alone, per transport (only when named): benches/mcp.js',
    '                     load-time: require() of the package and each subpath in fresh processes, beside zod and',
    '                     the frameworks (only when named; 20 rounds unless --rounds): benches/load-time.js',
    '                     load: the MCP load test alone (needs PostgreSQL; never a default group): benches/load.js --help',
    '  --grants           make an approval grants object before timing, as an application with approvals has',
    "                     (from then on every policy runs inside its evaluation's async context)",
  ].join('\n');
}

class UsageError extends Error {}

const GROUPS = ['full', 'canonicalize', 'prepare', 'run', 'decode', 'cedar'];
/** Groups that run only when named (benches/mcp.js, benches/load-time.js). */
const NAMED_ONLY_GROUPS = ['mcp', 'load-time'];

function parseArgs(argv) {
  const opts = {
    quick: false,
    rounds: null,
    classes: [],
    json: null,
    warmupMs: null,
    sampleMs: null,
    rssOps: null,
    rss: true,
    groups: [],
    runtimes: [],
    here: false,
    grants: false,
  };
  const value = (i, name) => {
    if (i >= argv.length) throw new UsageError(`${name} needs a value\n${usage()}`);
    return argv[i];
  };
  const positive = (text, name) => {
    const n = Number(text);
    if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${name} must be a positive number, not ${JSON.stringify(text)}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq !== -1 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith('--') && eq !== -1 ? arg.slice(eq + 1) : undefined;
    const next = () => (inline !== undefined ? inline : value(++i, name));
    switch (name) {
      case '--quick':
        opts.quick = true;
        break;
      case '--rounds':
        opts.rounds = Math.round(positive(next(), name));
        break;
      case '--class':
        opts.classes.push(...next().split(',').filter(Boolean));
        break;
      case '--json':
        opts.json = next();
        break;
      case '--warmup':
        opts.warmupMs = positive(next(), name);
        break;
      case '--sample-ms':
        opts.sampleMs = positive(next(), name);
        break;
      case '--rss-ops':
        opts.rssOps = Math.round(positive(next(), name));
        break;
      case '--no-rss':
        opts.rss = false;
        break;
      case '--grants':
        opts.grants = true;
        break;
      case '--groups':
        opts.groups.push(...next().split(',').filter(Boolean));
        break;
      case '--runtime':
        opts.runtimes.push(...next().split(',').filter(Boolean));
        break;
      // Internal: run in this process (set for the runs benches/runtimes.js starts).
      case '--here':
        opts.here = true;
        break;
      case '-h':
      case '--help':
        console.log(usage());
        process.exit(0);
        break;
      default:
        throw new UsageError(`unknown argument ${arg}\n${usage()}`);
    }
  }
  for (const c of opts.classes) {
    if (!Object.hasOwn(CLASSES, c)) throw new UsageError(`unknown class ${c}; known: ${Object.keys(CLASSES).join(', ')}`);
  }
  for (const g of opts.groups) {
    if (!GROUPS.includes(g) && !NAMED_ONLY_GROUPS.includes(g))
      throw new UsageError(`unknown group ${g}; known: ${[...GROUPS, ...NAMED_ONLY_GROUPS].join(', ')}`);
  }
  if (opts.groups.length === 0) opts.groups = [...GROUPS];
  if (opts.classes.length === 0) opts.classes = Object.keys(CLASSES);
  opts.classes = Object.keys(CLASSES).filter((c) => opts.classes.includes(c));
  opts.roundsGiven = opts.rounds !== null;
  opts.rounds ??= opts.quick ? 3 : 30;
  opts.warmupMs ??= opts.quick ? 20 : 500;
  opts.sampleMs ??= opts.quick ? 2 : 10;
  opts.rssOps ??= opts.quick ? 5 : 20;
  return opts;
}

// ---------------------------------------------------------------------------------
// Machine header

function gitDescribe() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() !==
      '';
    return dirty ? `${commit} (+ uncommitted changes)` : commit;
  } catch {
    return null;
  }
}

function machine() {
  const cpus = os.cpus();
  const { platformTriple, packageVersion } = require('../lib/native');
  const version = packageVersion();
  const addonPath = path.join(ROOT, `tool-argument-snapshot.${platformTriple()}.node`);
  let addon = null;
  try {
    const stat = fs.statSync(addonPath);
    addon = { file: path.basename(addonPath), bytes: stat.size, modified: stat.mtime.toISOString() };
  } catch {
    addon = { file: `tool-argument-snapshot-${platformTriple()} (npm platform package)` };
  }
  return {
    cpu: cpus.length > 0 ? cpus[0].model.trim() : 'unknown',
    cores: cpus.length,
    availableParallelism: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    platform: `${process.platform} ${process.arch}`,
    loadAvg: os.loadavg().map((x) => Number(x.toFixed(2))),
    node: process.version,
    v8: process.versions.v8,
    date: new Date().toISOString(),
    package: version,
    commit: gitDescribe(),
    addon,
  };
}

// ---------------------------------------------------------------------------------
// Agreement, checked before any timing

const INTEGER_KEY = /^(?:0|[1-9][0-9]*)$/;

/** Inputs on which a lenient canonicalizer may legitimately differ from strict JCS. */
function riskFeatures(root) {
  const found = new Set();
  const stack = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    switch (typeof v) {
      case 'number':
        if (Object.is(v, -0)) found.add('negative zero');
        if (!Number.isFinite(v)) found.add('non-finite number');
        continue;
      case 'string':
        if (!v.isWellFormed()) found.add('lone surrogate');
        continue;
      case 'boolean':
        continue;
      case 'object':
        if (v === null) continue;
        break;
      default:
        found.add(`${typeof v} value`);
        continue;
    }
    const proto = Object.getPrototypeOf(v);
    if (Array.isArray(v)) {
      if (proto !== Array.prototype) found.add('non-plain object');
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
      continue;
    }
    if (proto !== Object.prototype && proto !== null) found.add('non-plain object');
    if (typeof v.toJSON === 'function') found.add('toJSON');
    for (const key of Object.keys(v)) {
      if (INTEGER_KEY.test(key) && Number(key) < 4294967295) found.add('integer-like keys');
      if (/[\uD800-\uDFFF]/.test(key)) found.add('keys outside the BMP');
      stack.push(v[key]);
    }
  }
  return [...found];
}

function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  const excerpt = (s) => JSON.stringify(s.slice(Math.max(0, i - 20), i + 30));
  return `first difference at offset ${i}: package ${excerpt(a)} vs ${excerpt(b)}`;
}

function checkAgreement(corpus, contenders) {
  const pkgContender = contenders.find((c) => c.id === 'package');
  const { pkg } = pkgContender;
  const decodeViewOf = pkg.decodeView;
  const fatal = [];
  const warnings = [];
  const tally = Object.fromEntries(contenders.map((c) => [c.id, { identical: 0, differing: 0, total: 0 }]));
  for (const [className, items] of Object.entries(corpus)) {
    items.forEach((item, index) => {
      const where = items.length > 1 ? `${className}[${index}] (${item.toolName})` : className;
      const mine = pkgContender.snapshot(item);
      const json = mine.argsCanonicalJson;
      // The package against itself and against the envelope formula.
      if (pkg.canonicalize(item.value) !== json) fatal.push(`package: canonicalize() and createSnapshot() differ on ${where}`);
      if (pkg.proposalHash({ agentName: item.agentName, toolName: item.toolName, argsCanonicalJson: json }) !== mine.proposalHash) {
        fatal.push(`package: proposalHash() and createSnapshot() differ on ${where}`);
      }
      if (sha256Envelope(item.agentName, item.toolName, json) !== mine.proposalHash)
        fatal.push(`package: proposalHash is not the sha256 of the RFC-0016 envelope on ${where}`);
      // decodeView must give what JSON.parse of the same text gives, by either route.
      const parsed = JSON.parse(json);
      if (!isDeepStrictEqual(pkg.decodeView(mine), parsed)) fatal.push(`package: decodeView(snapshot) differs from JSON.parse on ${where}`);
      if (!isDeepStrictEqual(pkg.decodeView(json), parsed)) fatal.push(`package: decodeView(string) differs from JSON.parse on ${where}`);
      tally.package.identical++;
      tally.package.total++;

      for (const c of contenders) {
        if (c.id === 'package') continue;
        const t = tally[c.id];
        t.total++;
        let theirs;
        try {
          theirs = c.snapshot(item);
        } catch (error) {
          theirs = { error };
        }
        const sameJson = theirs.argsCanonicalJson === json;
        const sameHash = theirs.proposalHash === mine.proposalHash;
        if (sameJson && sameHash) {
          t.identical++;
          continue;
        }
        t.differing++;
        const what = theirs.error
          ? `throws ${theirs.error.message}`
          : !sameJson
            ? firstDifference(json, theirs.argsCanonicalJson)
            : `same JSON, different proposalHash (${theirs.proposalHash} vs ${mine.proposalHash})`;
        if (c.agreement === 'exact') {
          fatal.push(`${c.label} must agree exactly with the package on ${where}: ${what}`);
        } else if (c.agreement === 'lenient') {
          const risks = riskFeatures(item.value);
          if (sameJson || risks.length === 0) fatal.push(`${c.label} disagrees with the package on plain JSON data ${where}: ${what}`);
          else warnings.push(`${c.label} differs on ${where}, which has ${risks.join(', ')} (a legitimate difference of a lenient canonicalizer): ${what}`);
        }
      }
    });
  }
  return { fatal, warnings, tally };
}

// ---------------------------------------------------------------------------------
// Timing

const now = () => process.hrtime.bigint();

/** Runs `fn` on every element of `arr`, `n` times; returns the elapsed nanoseconds. */
function timeBatch(fn, arr, n) {
  const len = arr.length;
  const t0 = now();
  for (let b = 0; b < n; b++) {
    for (let i = 0; i < len; i++) SINK.last = fn(arr[i]);
  }
  return Number(now() - t0);
}

/** timeBatch for an asynchronous `fn`: each operation is awaited before the next starts. */
async function timeBatchAsync(fn, arr, n) {
  const len = arr.length;
  const t0 = now();
  for (let b = 0; b < n; b++) {
    for (let i = 0; i < len; i++) SINK.last = await fn(arr[i]);
  }
  return Number(now() - t0);
}

/**
 * Times one sample of `n` operations of an entry. An entry with `fresh(n)` gets, before
 * the clock starts, an array holding the inputs of n operations to use once each.
 */
function sample(entry, n) {
  if (entry.async) return timeBatchAsync(entry.fn, entry.arr, n);
  if (entry.fresh === undefined) return timeBatch(entry.fn, entry.arr, n);
  const arr = entry.fresh(n);
  const elapsed = timeBatch(entry.fn, arr, 1);
  arr.length = 0;
  return elapsed;
}

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

function median(values) {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

/** Warm-up of at least `warmupNs`, calibrating the batch size to about `targetNs`. */
async function warmUp(entry, warmupNs, targetNs) {
  const perOp = [];
  let n = 1;
  const start = now();
  for (;;) {
    const elapsed = await sample(entry, n);
    perOp.push(elapsed / n);
    const recent = median(perOp.slice(-5));
    const want = Math.max(1, Math.min(entry.maxBatch || 1e7, 1e7, Math.round(targetNs / recent)));
    if (Number(now() - start) >= warmupNs && perOp.length >= 3) {
      entry.batch = want;
      entry.warmupSamples = perOp.length;
      return;
    }
    // Grow at most fourfold a time: the first batches run cold code.
    n = Math.min(want, n * 4);
  }
}

/**
 * Times a group of entries ({ id, label, fn, arr }) interleaved round by round. The
 * first entry is the package: ratios are medians over its median.
 */
async function runGroup(entries, opts, bytesPerOp) {
  const warmupNs = opts.warmupMs * 1e6;
  const targetNs = opts.sampleMs * 1e6;
  for (const entry of entries) {
    await warmUp(entry, warmupNs, targetNs);
    entry.samples = [];
  }
  const k = entries.length;
  for (let r = 0; r < opts.rounds; r++) {
    const offset = r % k;
    const reversed = Math.floor(r / k) % 2 === 1;
    for (let j = 0; j < k; j++) {
      const entry = entries[reversed ? (offset - j + k) % k : (offset + j) % k];
      const elapsed = await sample(entry, entry.batch);
      entry.samples.push(elapsed / entry.batch / 1000); // µs per operation
    }
  }
  const results = entries.map((entry) => {
    const sorted = [...entry.samples].sort((a, b) => a - b);
    const med = quantile(sorted, 0.5);
    return {
      id: entry.id,
      label: entry.label,
      batch: entry.batch,
      warmupSamples: entry.warmupSamples,
      medianUs: med,
      p10Us: quantile(sorted, 0.1),
      p90Us: quantile(sorted, 0.9),
      minUs: sorted[0],
      maxUs: sorted[sorted.length - 1],
      mbPerSec: bytesPerOp / med, // bytes per µs = MB/s
      samplesUs: entry.samples,
    };
  });
  for (const result of results) result.ratio = result.medianUs / results[0].medianUs;
  return results;
}

// ---------------------------------------------------------------------------------
// Output

function fmtUs(x) {
  if (!Number.isFinite(x)) return '-';
  if (x >= 1000) return x.toFixed(0);
  if (x >= 100) return x.toFixed(1);
  if (x >= 10) return x.toFixed(2);
  return x.toFixed(3);
}

function fmtBytes(n) {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} kB`;
  return `${n} B`;
}

function fmtMiB(n) {
  return n === null || n === undefined ? 'n/a' : `${(n / 1048576).toFixed(1)}`;
}

function table(headers, rows, rightAligned) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells) =>
    '  ' +
    cells
      .map((cell, i) => (rightAligned[i] ? String(cell).padStart(widths[i]) : String(cell).padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function timingTable(results) {
  return table(
    ['', 'median us/op', 'p10-p90', 'min-max', 'MB/s', 'vs package', 'ops/sample'],
    results.map((r) => [
      r.label,
      fmtUs(r.medianUs),
      `${fmtUs(r.p10Us)}-${fmtUs(r.p90Us)}`,
      `${fmtUs(r.minUs)}-${fmtUs(r.maxUs)}`,
      r.mbPerSec >= 100 ? r.mbPerSec.toFixed(0) : r.mbPerSec.toFixed(1),
      `${r.ratio.toFixed(2)}x`,
      r.batch,
    ]),
    [false, true, true, true, true, true, true],
  );
}

// ---------------------------------------------------------------------------------

async function main(opts) {
  const meta = machine();
  const contenders = await loadContenders();
  const pkgContender = contenders.find((c) => c.id === 'package');
  const { pkg } = pkgContender;
  const decodeViewOf = pkg.decodeView;
  // An application that uses approvals has a grants object: policies then run inside
  // their evaluation (an AsyncLocalStorage context), which the run group then pays for.
  if (opts.grants) pkg.createApprovalGrants();

  console.log(`tool-argument-snapshot ${meta.package} benchmark${opts.quick ? ' (--quick)' : ''}${opts.grants ? ', a grants object in the process' : ''}`);
  console.log(
    `machine  ${meta.cpu}, ${meta.cores} cores (available parallelism ${meta.availableParallelism}), ${meta.platform}, load avg ${meta.loadAvg.join(' ')}`,
  );
  console.log(`runtime  Node ${meta.node}, V8 ${meta.v8}`);
  console.log(
    `build    ${meta.commit ? `commit ${meta.commit}, ` : ''}addon ${meta.addon.file}${meta.addon.modified ? ` (${fmtBytes(meta.addon.bytes)}, built ${meta.addon.modified})` : ''}`,
  );
  console.log(`date     ${meta.date}`);
  console.log(`method   own hrtime loop; per class and group: >= ${opts.warmupMs} ms warm-up per contender calibrating ops/sample to ~${opts.sampleMs} ms,`);
  console.log(`         then ${opts.rounds} rounds, each timing one sample of every contender in a rotating order; median and spread across rounds.`);
  console.log('         "vs package" = row median / median of the group\'s first row, the package (> 1: the package is faster).');
  console.log('         Nothing about time is asserted.');

  // The load-time group (benches/load-time.js), first: fresh processes, nothing of this one's.
  let loadTime;
  if (opts.groups.includes('load-time')) {
    const { runLoadTimeGroup, printLoadTime } = require('./load-time');
    loadTime = runLoadTimeGroup(opts);
    printLoadTime(loadTime);
  }
  // The mcp group (benches/mcp.js); alone when it is the only group named.
  const mcp = opts.groups.includes('mcp') ? await require('./mcp').runMcpGroup(opts) : undefined;
  if (opts.groups.every((g) => NAMED_ONLY_GROUPS.includes(g))) {
    if (opts.json) fs.writeFileSync(path.resolve(opts.json), `${JSON.stringify({ meta, options: { ...opts }, mcp, loadTime }, null, 2)}\n`);
    return;
  }

  // The corpus: the same item objects are used by every contender.
  const corpus = {};
  for (const className of opts.classes) corpus[className] = buildItems(className);

  // Agreement before timing.
  const agreement = checkAgreement(corpus, contenders);
  const nCalls = Object.values(corpus).reduce((sum, items) => sum + items.length, 0);
  console.log(`\nAgreement with the package (argsCanonicalJson and proposalHash) on ${nCalls} tool calls of ${opts.classes.length} classes`);
  for (const c of contenders) {
    if (c.id === 'package') continue;
    const t = agreement.tally[c.id];
    const rule =
      c.agreement === 'exact'
        ? 'must agree exactly'
        : c.agreement === 'lenient'
          ? 'must agree; only a warning on risky inputs such as integer-like keys'
          : 'not canonical: sorts and checks nothing';
    console.log(`  ${c.label.padEnd(32)} ${String(t.identical).padStart(3)}/${t.total} identical  (${rule})`);
  }
  for (const warning of agreement.warnings) console.log(`  WARNING: ${warning}`);
  if (agreement.fatal.length > 0) {
    for (const failure of agreement.fatal) console.error(`  DISAGREEMENT: ${failure}`);
    console.error(`\n${agreement.fatal.length} disagreement(s) where the outputs must agree: not timing anything.`);
    process.exitCode = 1;
    return;
  }

  const results = { meta, options: { ...opts }, agreement: { tally: agreement.tally, warnings: agreement.warnings }, classes: {}, rss: null, mcp };

  for (const className of opts.classes) {
    const items = corpus[className];
    const values = items.map((item) => item.value);
    const snapshots = items.map((item) => pkg.createSnapshot(item));
    const texts = snapshots.map((s) => s.argsCanonicalJson);
    const canonicalBytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0);
    console.log(
      `\n== ${className}: ${items.length > 1 ? `1 op = ${items.length} different tool calls, each snapshotted separately; ` : ''}canonical JSON ${fmtBytes(canonicalBytes)} per op`,
    );

    const groups = {};
    if (opts.groups.includes('cedar') && className === opts.classes[0])
      groups.cedar = await require('./cedar').runCedarGroup({ pkg, opts, runGroup, timingTable, SINK });
    if (opts.groups.includes('full')) {
      const full = await runGroup(
        contenders.map((c) => ({ id: c.id, label: c.id === 'package' ? `${c.label} (package)` : c.label, fn: c.step, arr: items })),
        opts,
        canonicalBytes,
      );
      console.log('full RFC-0016 step: snapshot (canonical JSON + proposal hash) + policy view + execution view');
      console.log(timingTable(full));
      if (items.length > 1) console.log(`  (per call: package ${fmtUs(full[0].medianUs / items.length)} us; divide any median by ${items.length})`);
      groups.full = full;
    }

    if (opts.groups.includes('canonicalize')) {
      const canon = await runGroup(
        contenders.map((c) => ({
          id: c.id,
          label:
            c.id === 'package'
              ? 'canonicalize() (package)'
              : c.id === 'strict-reference'
                ? 'strict JS reference canonicalize'
                : c.id === 'floor'
                  ? 'floor: JSON.stringify'
                  : c.label.replace(/ \+ sha256$/, ''),
          fn: c.canonicalize,
          arr: values,
        })),
        opts,
        canonicalBytes,
      );
      console.log('canonicalize alone (no hash, no views)');
      console.log(timingTable(canon));
      groups.canonicalize = canon;
    }

    if (opts.groups.includes('prepare')) {
      // prepareToolCall without a schema: the provider's text to a prepared call and its
      // two views. The package's public path; the one native pass it is built on
      // (lib/snapshot/index.js createSnapshotFromText: strict decoding, RFC 8785 and the hash at
      // once, no walk) plus the parse of requestedArguments; the strict reference and the
      // floor parse the text for requestedArguments and once more for the value.
      const requests = items.map((item) => ({ agentName: item.agentName, toolName: item.toolName, rawArguments: JSON.stringify(item.value) }));
      const { createSnapshotFromText } = require('../lib/snapshot');
      const reference = contenders.find((c) => c.id === 'strict-reference');
      const prepare = await runGroup(
        [
          {
            id: 'prepare-package',
            label: 'prepareToolCall + 2 views (package)',
            fn: (r) => {
              const prepared = pkg.prepareToolCall(r);
              // Two policy views stand in for the policy's and the handler's views: the
              // execution view exists only inside executeToolCall (the run group below).
              SINK.view = prepared.policyView();
              return prepared.policyView();
            },
            arr: requests,
          },
          // (Absent from builds before the one native pass: the bench then skips the row.)
          createSnapshotFromText !== undefined && {
            id: 'prepare-one-pass',
            label: 'one native pass + parse + 2 views',
            fn: (r) => {
              const snapshot = createSnapshotFromText(r.agentName, r.toolName, r.rawArguments, false);
              SINK.requested = JSON.parse(r.rawArguments);
              SINK.view = decodeViewOf(snapshot);
              return decodeViewOf(snapshot);
            },
            arr: requests,
          },
          {
            id: 'prepare-reference',
            label: 'strict JS reference',
            fn: (r) => {
              SINK.requested = JSON.parse(r.rawArguments);
              const snapshot = reference.snapshot({ agentName: r.agentName, toolName: r.toolName, value: JSON.parse(r.rawArguments) });
              SINK.view = JSON.parse(snapshot.argsCanonicalJson);
              return JSON.parse(snapshot.argsCanonicalJson);
            },
            arr: requests,
          },
          {
            id: 'prepare-floor',
            label: 'floor: parse + stringify + sha256',
            fn: (r) => {
              SINK.requested = JSON.parse(r.rawArguments);
              const argsCanonicalJson = JSON.stringify(JSON.parse(r.rawArguments));
              SINK.hash = sha256Envelope(r.agentName, r.toolName, argsCanonicalJson);
              SINK.view = JSON.parse(argsCanonicalJson);
              return JSON.parse(argsCanonicalJson);
            },
            arr: requests,
          },
        ].filter(Boolean),
        opts,
        canonicalBytes,
      );
      console.log('prepareToolCall without a schema: provider text -> prepared call (requestedArguments, snapshot) + policy view + execution view');
      console.log(timingTable(prepare));
      groups.prepare = prepare;
    }

    if (opts.groups.includes('run')) {
      // The three-step contract as a run loop uses it, asynchronously: prepareToolCall
      // (no schema), evaluateToolCall with a policy that reads its view and allows, and
      // executeToolCall with a handler that reads its own view. Each operation is awaited
      // before the next starts. The strict reference and the floor do the same work in
      // JavaScript: parse the text for requestedArguments and for the value, snapshot (the
      // floor: stringify + SHA-256), a policy view, the policy awaited, the mutation check
      // (canonicalize the policy's view again and compare), an execution view, the handler.
      const requests = items.map((item) => ({ agentName: item.agentName, toolName: item.toolName, rawArguments: JSON.stringify(item.value) }));
      const reference = contenders.find((c) => c.id === 'strict-reference');
      const policy = async (input) => {
        SINK.policySeen = input.parsedArguments;
        return { decision: 'allow', reason: 'bench' };
      };
      const handler = (view) => {
        SINK.handled = view;
        return view;
      };
      const jsStep = (snapshotOf, canonicalOf) => async (r) => {
        SINK.requested = JSON.parse(r.rawArguments);
        const snapshot = snapshotOf(r);
        const policyView = JSON.parse(snapshot.argsCanonicalJson);
        const result = await policy({ agentName: r.agentName, toolName: r.toolName, parsedArguments: policyView, proposalHash: snapshot.proposalHash });
        if (result.decision !== 'allow' || canonicalOf(policyView) !== snapshot.argsCanonicalJson) throw new Error('bench: not allowed');
        return handler(JSON.parse(snapshot.argsCanonicalJson));
      };
      let receiptsForBench;
      let receiptCalls = 0;
      const run = await runGroup(
        [
          {
            id: 'run-package',
            label: 'prepare + evaluate + execute (package)',
            async: true,
            fn: async (r) => {
              const prepared = pkg.prepareToolCall(r);
              const decision = await pkg.evaluateToolCall({ prepared, policy });
              return pkg.executeToolCall(decision, handler);
            },
            arr: requests,
          },
          ...(typeof pkg.createExecutionReceipts === 'function'
            ? [
                {
                  // The same steps with execution receipts on the memory store: one new call id per
                  // operation (claim, then record completed); a fresh receipts object every 10,000
                  // calls keeps the store's map bounded.
                  id: 'run-package-receipts',
                  label: 'the same with receipts (memory store)',
                  async: true,
                  fn: async (r) => {
                    if (receiptCalls % 10_000 === 0) receiptsForBench = pkg.createExecutionReceipts();
                    receiptCalls += 1;
                    const prepared = pkg.prepareToolCall({
                      agentName: r.agentName,
                      toolName: r.toolName,
                      rawArguments: r.rawArguments,
                      runId: 'bench',
                      toolCallId: `call-${receiptCalls}`,
                    });
                    const decision = await pkg.evaluateToolCall({ prepared, policy });
                    return pkg.executeToolCall(decision, handler, { receipts: receiptsForBench });
                  },
                  arr: requests,
                },
              ]
            : []),
          {
            id: 'run-reference',
            label: 'strict JS reference',
            async: true,
            fn: jsStep((r) => reference.snapshot({ agentName: r.agentName, toolName: r.toolName, value: JSON.parse(r.rawArguments) }), reference.canonicalize),
            arr: requests,
          },
          {
            id: 'run-floor',
            label: 'floor: parse + stringify + sha256',
            async: true,
            fn: jsStep(
              (r) => {
                const argsCanonicalJson = JSON.stringify(JSON.parse(r.rawArguments));
                return { argsCanonicalJson, proposalHash: sha256Envelope(r.agentName, r.toolName, argsCanonicalJson) };
              },
              (view) => JSON.stringify(view),
            ),
            arr: requests,
          },
        ],
        opts,
        canonicalBytes,
      );
      console.log('the three steps, asynchronously: prepareToolCall (no schema) + evaluateToolCall (a policy that allows) + executeToolCall (a handler)');
      console.log(timingTable(run));
      groups.run = run;
    }

    if (opts.groups.includes('decode')) {
      const { decodeView } = pkg;
      const decode = await runGroup(
        [
          { id: 'decodeView-snapshot', label: 'decodeView(snapshot), same snapshot each op (package)', fn: (snapshot) => decodeView(snapshot), arr: snapshots },
          {
            id: 'decodeView-fresh',
            label: 'decodeView(snapshot), first view of each snapshot',
            fn: (snapshot) => decodeView(snapshot),
            // n operations' worth of snapshots never decoded before, made outside the clock;
            // at most about 256 MB of them at once (a first view that copies the value's own
            // template is so fast that a 10 ms sample would otherwise hold thousands).
            maxBatch: Math.max(1, Math.floor(256e6 / (2 * canonicalBytes))),
            fresh: (n) => {
              const arr = [];
              for (let b = 0; b < n; b++) for (const item of items) arr.push(pkg.createSnapshot(item));
              return arr;
            },
          },
          { id: 'decodeView-string', label: 'decodeView(argsCanonicalJson)', fn: (text) => decodeView(text), arr: texts },
          { id: 'JSON.parse', label: 'JSON.parse(argsCanonicalJson)', fn: (text) => JSON.parse(text), arr: texts },
        ],
        opts,
        canonicalBytes,
      );
      console.log('decodeView alone vs JSON.parse of the same argsCanonicalJson (snapshots made beforehand, outside the clock):');
      console.log('the same snapshot decoded again every op; a snapshot never decoded before; its string (the path of a');
      console.log('stored snapshot: strict check, then decode)');
      console.log(timingTable(decode));
      groups.decode = decode;
    }

    results.classes[className] = { callsPerOp: items.length, canonicalBytes, groups };
  }

  let crashed = false;
  if (opts.rss && opts.classes.includes(RSS_CLASS)) {
    const labelOf = (id) => contenders.find((c) => c.id === id).label;
    const rssTable = (rss) =>
      table(
        ['', 'baseline MiB', 'sampled +MiB', 'maxRSS +MiB', 'VmHWM +MiB', 'peak +MiB', 'peak / JSON size'],
        rss.map((r) =>
          r.error
            ? [labelOf(r.contender), 'crashed', '', '', '', '', '']
            : [
                labelOf(r.contender),
                fmtMiB(r.baselineRss),
                fmtMiB(r.sampledDelta),
                fmtMiB(r.maxRssDelta),
                fmtMiB(r.hwmDelta),
                fmtMiB(r.peakDelta),
                `${r.peakPerJsonByte.toFixed(2)}x`,
              ],
        ),
        [false, true, true, true, true, true, true],
      );
    // One full step: the peak a single call adds (issue 20: under 3x the canonical JSON).
    const one = measureRss(
      contenders.map((c) => c.id),
      RSS_CLASS,
      1,
    );
    const many = measureRss(
      contenders.map((c) => c.id),
      RSS_CLASS,
      opts.rssOps,
    );
    results.rss = many;
    results.rssOneStep = one;
    const jsonBytes = one.find((r) => r.jsonBytes !== undefined)?.jsonBytes;
    console.log(
      `\n== peak RSS of the full step on ${RSS_CLASS} (canonical JSON ${jsonBytes === undefined ? '?' : fmtBytes(jsonBytes)} in UTF-8): one child per contender, node --expose-gc,`,
    );
    console.log('   baseline = RSS after loading and gc(); peak = max(RSS after each step, resourceUsage().maxRSS, VmHWM) - baseline');
    console.log('one full step');
    console.log(rssTable(one));
    console.log(`${opts.rssOps} full steps, no collection forced in between`);
    console.log(rssTable(many));
    for (const r of [...one, ...many]) {
      if (r.error) {
        crashed = true;
        console.error(`  CRASH: ${labelOf(r.contender)}: ${r.error}`);
      }
    }
  }

  const summary = markdownSummary(results);
  if (summary !== '') console.log(`\n${summary}`);

  if (opts.json) {
    const file = path.resolve(opts.json);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    const shown = path.relative(process.cwd(), file);
    console.log(`\nresults written to ${shown.startsWith('..') ? file : shown}`);
  }
  if (crashed) process.exitCode = 1;
}

const SUMMARY_CONTENDERS = ['strict-reference', 'canonicalize', 'json-canonicalize', 'sorted-keys', 'floor'];

/**
 * The full step as a Markdown table (docs/performance.md's form): the package's median
 * (p10-p90) and each contender's median with the ratio of medians, contender / package
 * (above 1: the package is faster); then the one-step peak RSS on large.
 */
function markdownSummary(results) {
  const rows = Object.entries(results.classes).filter(([, entry]) => entry.groups.full);
  if (rows.length === 0) return '';
  const fmt = (us) => (us >= 100 ? us.toFixed(0) : us >= 10 ? us.toFixed(1) : us.toFixed(2));
  const labels = {
    'strict-reference': 'strict JS reference',
    canonicalize: 'canonicalize + SHA-256',
    'json-canonicalize': 'json-canonicalize + SHA-256',
    'sorted-keys': 'sorted-keys + SHA-256',
    floor: 'floor',
  };
  const lines = [
    `Full RFC-0016 step on Node ${results.meta.node} (V8 ${results.meta.v8}), ${results.options.rounds} rounds, commit ${results.meta.commit}: median µs per op, contender / package in parentheses`,
    '',
    `| payload | package µs (p10–p90) | ${SUMMARY_CONTENDERS.map((id) => labels[id]).join(' | ')} | package / floor |`,
    `|---|---|${SUMMARY_CONTENDERS.map(() => '---').join('|')}|---|`,
  ];
  for (const [className, entry] of rows) {
    const full = entry.groups.full;
    const pkg = full.find((r) => r.id === 'package');
    const cells = SUMMARY_CONTENDERS.map((id) => {
      const r = full.find((row) => row.id === id);
      return r ? `${fmt(r.medianUs)} (${(r.medianUs / pkg.medianUs).toFixed(2)}x)` : '-';
    });
    const floor = full.find((r) => r.id === 'floor');
    lines.push(
      `| ${className} | ${fmt(pkg.medianUs)} (${fmt(pkg.p10Us)}–${fmt(pkg.p90Us)}) | ${cells.join(' | ')} | ${floor ? (pkg.medianUs / floor.medianUs).toFixed(2) : '-'} |`,
    );
  }
  const one = results.rssOneStep && results.rssOneStep.find((r) => r.contender === 'package' && !r.error);
  if (one)
    lines.push(
      '',
      `Peak RSS of one full step on large over the idle process: ${fmtMiB(one.peakDelta)} MiB, ${one.peakPerJsonByte.toFixed(2)}x the UTF-8 length of its canonical JSON.`,
    );
  return lines.join('\n');
}

function fail(error) {
  if (error instanceof UsageError) {
    console.error(error.message);
    process.exitCode = 2;
    return;
  }
  console.error(error && error.stack ? error.stack : error);
  process.exitCode = 1;
}

/**
 * Runs the benchmark here, or under the runtime(s) asked for: by default Node 26 when it
 * is found and is not this process, else this process, saying which.
 */
function dispatch(argv) {
  const opts = parseArgs(argv);
  if (opts.here) return main(opts);
  const runtimes = require('./runtimes');
  const pass = argv.filter((arg, i) => arg !== '--runtime' && argv[i - 1] !== '--runtime' && !arg.startsWith('--runtime='));
  if (opts.runtimes.length > 1) return runtimes.runMany(opts.runtimes, pass, opts.json);
  const wanted = opts.runtimes.length === 1 ? opts.runtimes[0] : 'node26';
  const command = runtimes.resolve(wanted);
  if (command.missing) {
    if (opts.runtimes.length === 1) throw new UsageError(`${wanted}: ${command.missing}`);
    console.log(`(Node 26 ${command.missing}: running on this Node ${process.version}; \`npm run fetch-node\` or NODE26_BINARY for Node 26)\n`);
    return main(opts);
  }
  if (command.here) return main(opts);
  console.log(`(running under ${command.label}: ${command.file})\n`);
  const { spawnSync } = require('node:child_process');
  const run = spawnSync(command.file, [...command.args, ...pass, '--here'], { cwd: ROOT, stdio: 'inherit', env: runtimes.childEnv() });
  process.exitCode = run.status === null ? 1 : run.status;
  return undefined;
}

/** The command line's entry: `node benches/bench.js ...` (Deno: benches/bench-entry.cjs). */
function run(argv) {
  // The load group needs PostgreSQL and runs alone, with options of its own (benches/load.js).
  const load = require('./load');
  if (load.wanted(argv)) return load.run(argv);
  try {
    const running = dispatch(argv);
    if (running && typeof running.catch === 'function') running.catch(fail);
  } catch (error) {
    fail(error);
  }
}

if (require.main === module) run(process.argv.slice(2));

module.exports = { run, markdownSummary };
