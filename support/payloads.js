'use strict';
// Deterministic payload corpus for the benchmarks and the differential tests.
// Every payload is generated from a seed, so nothing large is committed and
// every run (and every machine) measures the same values.

function prng(seed) {
  // mulberry32: small, fast, and good enough to spread values over every class.
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'alpha',
  'config',
  'deploy',
  'render',
  'schema',
  'token',
  'vector',
  'window',
  'queue',
  'commit',
  'branch',
  'report',
  'invoice',
  'customer',
  'ticket',
  'region',
];
const UNICODE_WORDS = ['Zoë', 'Łódź', 'Ærøskøbing', 'Ñandú', '東京', 'München', 'Δelta', 'café ☕', 'naïve', '€uro', '😀 smile', 'שלום'];

function pick(rand, list) {
  return list[Math.floor(rand() * list.length)];
}

function words(rand, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(pick(rand, WORDS));
  return out.join(' ');
}

function int(rand, lo, hi) {
  return lo + Math.floor(rand() * (hi - lo + 1));
}

// A double of any magnitude: integers, decimals, tiny and huge exponents, negatives.
function anyDouble(rand) {
  switch (int(rand, 0, 5)) {
    case 0:
      return int(rand, -1e6, 1e6);
    case 1:
      return Math.round(rand() * 1e6) / 100;
    case 2:
      return (rand() - 0.5) * Math.pow(10, int(rand, -30, 30));
    case 3:
      return (rand() < 0.5 ? -1 : 1) * rand() * Math.pow(10, int(rand, -320, -290));
    case 4:
      return (rand() < 0.5 ? -1 : 1) * rand() * Math.pow(10, int(rand, 290, 307));
    default:
      return rand();
  }
}

function codeBlock(rand, lines) {
  const out = [];
  for (let i = 0; i < lines; i++) {
    out.push(`\tconst ${pick(rand, WORDS)}_${i} = "${words(rand, 3)}"; // ${pick(rand, UNICODE_WORDS)}`);
  }
  return out.join('\n');
}

function small(seed = 1) {
  const rand = prng(seed);
  return {
    path: `/srv/app/${pick(rand, WORDS)}/${pick(rand, WORDS)}.ts`,
    content: `export const ${pick(rand, WORDS)} = "${words(rand, 6)}";\n`,
    overwrite: false,
    createDirectories: true,
    mode: 420,
    tags: [pick(rand, WORDS), pick(rand, WORDS), pick(rand, UNICODE_WORDS)],
    options: { encoding: 'utf8', retries: 3, timeoutMs: 2500.5, backup: null, owner: { uid: 1000, gid: 1000 } },
  };
}

// Fifty tool-call shapes of the kinds an agent proposes.
const SHAPES = [
  (r) => ({ query: words(r, 5), limit: int(r, 1, 50), safeSearch: r() < 0.5, lang: pick(r, ['en', 'fr', 'de', 'ja']) }),
  (r) => ({ path: `/repo/src/${pick(r, WORDS)}.ts`, oldText: codeBlock(r, 4), newText: codeBlock(r, 6), replaceAll: false }),
  (r) => ({
    sql: `SELECT id, name FROM ${pick(r, WORDS)} WHERE region = $1 AND total > $2 ORDER BY id LIMIT 100`,
    params: [pick(r, WORDS), int(r, 0, 1e5)],
    readOnly: true,
  }),
  (r) => ({
    method: pick(r, ['GET', 'POST', 'PUT']),
    url: `https://api.example.com/v2/${pick(r, WORDS)}?page=${int(r, 1, 9)}`,
    headers: { Accept: 'application/json', Authorization: `Bearer ${words(r, 1)}.${int(r, 1e8, 1e9)}`, 'X-Request-Id': `${int(r, 1e8, 1e9)}` },
    body: { name: pick(r, UNICODE_WORDS), amount: Math.round(r() * 1e5) / 100 },
  }),
  (r) => ({
    title: `Meeting with ${pick(r, UNICODE_WORDS)}`,
    start: '2026-12-01T09:30:00Z',
    end: '2026-12-01T10:00:00Z',
    attendees: [
      { name: pick(r, UNICODE_WORDS), email: 'a@example.com', optional: false },
      { name: pick(r, UNICODE_WORDS), email: 'b@example.com', optional: true },
    ],
    location: pick(r, UNICODE_WORDS),
    reminders: [10, 60],
  }),
  (r) => ({ command: `git ${pick(r, ['status', 'log --oneline -n 5', 'diff HEAD~1'])}`, cwd: '/repo', timeoutSec: int(r, 5, 120), env: { LANG: 'C.UTF-8' } }),
  (r) => ({
    to: ['ops@example.com'],
    subject: `Re: ${words(r, 4)}`,
    body: `Hello ${pick(r, UNICODE_WORDS)},\n\n${words(r, 30)}\n\n— bot`,
    priority: pick(r, ['low', 'normal', 'high']),
  }),
  (r) => ({ ticket: { id: `T-${int(r, 1000, 9999)}`, status: pick(r, ['open', 'closed']), labels: [pick(r, WORDS), pick(r, WORDS)], assignee: null } }),
  (r) => ({ coordinates: { lat: r() * 180 - 90, lon: r() * 360 - 180 }, radiusKm: int(r, 1, 50), categories: ['café', 'museum'] }),
  (r) => ({ records: Array.from({ length: 5 }, (_, i) => ({ id: i, value: anyDouble(r), label: pick(r, WORDS) })) }),
];

function realistic(seed = 7) {
  const rand = prng(seed);
  const out = [];
  for (let i = 0; i < 50; i++) {
    const base = SHAPES[i % SHAPES.length](rand);
    // Vary the shape so the fifty calls are fifty different objects, not ten repeated.
    base[`v${i}`] = i % 3 === 0 ? words(rand, 2) : i % 3 === 1 ? int(rand, 0, 1000) : rand() < 0.5;
    out.push(base);
  }
  return out;
}

function medium(seed = 3) {
  const rand = prng(seed);
  const records = [];
  for (let i = 0; i < 100; i++) {
    records.push({
      id: i,
      name: `${pick(rand, UNICODE_WORDS)} ${pick(rand, WORDS)}`,
      email: `${pick(rand, WORDS)}${i}@example.com`,
      score: anyDouble(rand),
      active: rand() < 0.5,
      tags: [pick(rand, WORDS), pick(rand, WORDS)],
      address: { city: pick(rand, UNICODE_WORDS), zip: `${int(rand, 10000, 99999)}` },
      note: rand() < 0.3 ? null : words(rand, 8),
    });
  }
  return { records, total: records.length };
}

function large(seed = 5) {
  const rand = prng(seed);
  // A few keys holding long strings with non-ASCII characters and characters that need escaping.
  const piece = () => `${words(rand, 6)} ${pick(rand, UNICODE_WORDS)} "quoted" back\\slash\ttab\nnewline \u0001 `;
  const out = {};
  for (let k = 0; k < 4; k++) {
    const parts = [];
    let size = 0;
    while (size < 250_000) {
      const p = piece();
      parts.push(p);
      size += p.length;
    }
    out[`blob${k}`] = parts.join('');
  }
  out.encoding = 'utf-8';
  return out;
}

function numberHeavy(seed = 11) {
  const rand = prng(seed);
  const values = [];
  for (let i = 0; i < 10_000; i++) {
    const v = anyDouble(rand);
    values.push(v === 0 ? 0 : v); // never -0, which the strict domain rejects
  }
  return { values };
}

function wide(seed = 13) {
  const rand = prng(seed);
  const out = {};
  for (let i = 0; i < 5_000; i++) {
    // Some keys are integer-like, which JavaScript enumerates first and JCS sorts as strings.
    const key = i % 5 === 0 ? String(int(rand, 0, 1e6)) : `${pick(rand, WORDS)}_${i}`;
    out[key] = i % 2 === 0 ? i : pick(rand, WORDS);
  }
  return out;
}

// Objects whose integer-like keys V8 keeps as elements, not as named properties: a
// quarter of 5,000 keys, mixed with string keys in insertion order. V8 lists them first
// and in ascending numeric order; RFC 8785 sorts them among the others as strings.
// Dense: "0".."1249" (fast elements). Sparse: 1,250 integers scattered up to 2^32 - 2,
// the largest array index (dictionary elements).
function intKeysDense(seed = 19) {
  const rand = prng(seed);
  const out = {};
  let next = 0;
  for (let i = 0; i < 5_000; i++) {
    const key = i % 4 === 0 ? String(next++) : `${pick(rand, WORDS)}_${i}`;
    out[key] = i % 2 === 0 ? int(rand, 0, 1e6) : pick(rand, WORDS);
  }
  return out;
}

function intKeysSparse(seed = 23) {
  const rand = prng(seed);
  const out = {};
  for (let i = 0; i < 5_000; i++) {
    let key;
    if (i % 4 === 0) {
      do key = String(int(rand, 0, 4294967294));
      while (Object.hasOwn(out, key));
    } else {
      key = `${pick(rand, WORDS)}_${i}`;
    }
    out[key] = i % 2 === 0 ? int(rand, 0, 1e6) : pick(rand, WORDS);
  }
  return out;
}

// A wide object whose every fourth key is integer-like ("0", "4", "8", ..., which V8 keeps
// as holey elements and lists first) and the others "key_1", "key_2", ... (one shared
// four-unit prefix); values alternate between integers and short strings.
function wideIntKeys(seed = 29) {
  const rand = prng(seed);
  const out = {};
  for (let i = 0; i < 5_000; i++) {
    const key = i % 4 === 0 ? String(i) : `key_${i}`;
    out[key] = i % 2 === 0 ? int(rand, 0, 1e6) : pick(rand, WORDS);
  }
  return out;
}

function deep(seed = 17, depth = 200) {
  const rand = prng(seed);
  let v = { leaf: words(rand, 2), n: 1.5 };
  for (let i = 0; i < depth - 1; i++) v = i % 2 === 0 ? { level: i, child: v } : [i, v];
  return v;
}

const CLASSES = { small, realistic, medium, large, numberHeavy, wide, intKeysDense, intKeysSparse, wideIntKeys, deep };

module.exports = { prng, anyDouble, CLASSES, small, realistic, medium, large, numberHeavy, wide, intKeysDense, intKeysSparse, wideIntKeys, deep };
