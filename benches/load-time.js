'use strict';
// The load-time group of `npm run bench` (`--groups load-time`, only when named): what
// `require('tool-argument-snapshot')` and each subpath cost a process that has loaded
// nothing else, beside `zod` and the frameworks the adapters work with.
//
// Every sample is a fresh process, `node -e CODE`, whose CODE times its one `require`
// with process.hrtime.bigint() and then prints its RSS (process.memoryUsage.rss()). A
// bare process (`-e` with the same timing code and no require) runs in every round, and
// every target's RSS is given over the bare process's median. Each round runs one sample
// of every target, in an order rotated by the round (reversed every other round), so
// that the machine's load spreads over all of them. Reported per target: the median
// require time and its p10-p90 across rounds, the median wall time of the whole process
// over the bare one's, and the median RSS over the bare one's.
//
// Subpaths are required cold (their framework is not loaded: the adapters resolve it
// when they load and load it at their first use) and, in the rows "after <framework>",
// in a process that required the framework first, as an application does: the row then
// times the subpath alone.

const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');

/** The frameworks each subpath works with (what its application requires first). */
const FRAMEWORKS = [
  ['ai', ['ai']],
  ['langchain', ['@langchain/core/tools', '@langchain/core/messages']],
  ['openai-agents', ['@openai/agents']],
  ['mastra', ['@mastra/core/tools']],
  ['mcp', ['@modelcontextprotocol/sdk/server/mcp.js']],
];

/** The targets: [label, modules required before the timed ones, the timed ones]. */
function targets() {
  const list = [['tool-argument-snapshot', [], ['tool-argument-snapshot']]];
  for (const [subpath] of FRAMEWORKS) list.push([`tool-argument-snapshot/${subpath}`, [], [`tool-argument-snapshot/${subpath}`]]);
  list.push(['zod', [], ['zod']]);
  for (const [subpath, modules] of FRAMEWORKS) {
    list.push([`${modules.join(' + ')} (framework)`, [], modules]);
    list.push([`tool-argument-snapshot/${subpath} after ${modules.join(' + ')}`, modules, [`tool-argument-snapshot/${subpath}`]]);
  }
  return list;
}

/** The child's code: require `before`, then time the requires of `timed` (empty: none), print ms and RSS. */
function childCode(before, timed) {
  const pre = before.map((m) => `require(${JSON.stringify(m)});`).join('');
  const req = timed.map((m) => `require(${JSON.stringify(m)});`).join('');
  return (
    `${pre}const t=process.hrtime.bigint();${req}const ms=Number(process.hrtime.bigint()-t)/1e6;` +
    'process.stdout.write(JSON.stringify({ms,rss:process.memoryUsage.rss()}))'
  );
}

function sample(code) {
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ['-e', code], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  if (child.status !== 0) return { error: String(child.stderr).trim().split('\n').slice(0, 3).join(' ') };
  const { ms, rss } = JSON.parse(child.stdout);
  return { ms, rss, wallMs };
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))];
}

const median = (values) => quantile(values, 0.5);

/**
 * Runs the group: `opts.rounds` samples per target (20 unless given; 3 with --quick).
 * Returns { rounds, bare, rows }, each row { label, requireMs, p10Ms, p90Ms, wallOverBareMs,
 * rssOverBareMiB } or { label, error } for a target that failed to load.
 */
function runLoadTimeGroup(opts = {}) {
  const rounds = opts.quick ? 3 : opts.roundsGiven ? opts.rounds : 20;
  const list = [['bare process', [], []], ...targets()];
  const results = list.map(() => ({ ms: [], rss: [], wall: [], error: null }));
  for (let round = 0; round < rounds; round++) {
    const order = list.map((_, i) => i);
    for (let k = 0; k < round % list.length; k++) order.push(order.shift());
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      if (results[i].error !== null) continue;
      const [, before, timed] = list[i];
      const s = sample(childCode(before, timed));
      if (s.error !== undefined) {
        results[i].error = s.error;
        continue;
      }
      results[i].ms.push(s.ms);
      results[i].rss.push(s.rss);
      results[i].wall.push(s.wallMs);
    }
  }
  const bare = results[0];
  const bareRss = median(bare.rss);
  const bareWall = median(bare.wall);
  const rows = list.slice(1).map(([label], j) => {
    const r = results[j + 1];
    if (r.error !== null) return { label, error: r.error };
    return {
      label,
      requireMs: median(r.ms),
      p10Ms: quantile(r.ms, 0.1),
      p90Ms: quantile(r.ms, 0.9),
      wallOverBareMs: median(r.wall) - bareWall,
      rssOverBareMiB: (median(r.rss) - bareRss) / 1048576,
      rssP10MiB: (quantile(r.rss, 0.1) - bareRss) / 1048576,
      rssP90MiB: (quantile(r.rss, 0.9) - bareRss) / 1048576,
    };
  });
  return { rounds, node: process.version, bare: { rssMiB: bareRss / 1048576, wallMs: bareWall }, rows };
}

function printLoadTime(result) {
  console.log(`\n== load-time: a fresh \`node -e\` per sample, ${result.rounds} rounds, Node ${result.node}`);
  console.log(`bare process: RSS ${result.bare.rssMiB.toFixed(1)} MiB, wall ${result.bare.wallMs.toFixed(1)} ms (the baseline of "over bare")`);
  console.log('| required | require ms, median (p10-p90) | wall ms over bare | RSS MiB over bare (p10-p90) |');
  console.log('|---|---|---|---|');
  for (const row of result.rows) {
    if (row.error !== undefined) {
      console.log(`| ${row.label} | failed: ${row.error} | | |`);
      continue;
    }
    console.log(
      `| ${row.label} | ${row.requireMs.toFixed(2)} (${row.p10Ms.toFixed(2)}-${row.p90Ms.toFixed(2)}) | ${row.wallOverBareMs.toFixed(1)} | ` +
        `${row.rssOverBareMiB.toFixed(2)} (${row.rssP10MiB.toFixed(2)}-${row.rssP90MiB.toFixed(2)}) |`,
    );
  }
}

module.exports = { runLoadTimeGroup, printLoadTime, targets, childCode };

if (require.main === module) {
  const quick = process.argv.includes('--quick');
  const at = process.argv.indexOf('--rounds');
  const rounds = at === -1 ? 20 : Number(process.argv[at + 1]);
  printLoadTime(runLoadTimeGroup({ quick, rounds, roundsGiven: at !== -1 }));
}
