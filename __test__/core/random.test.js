'use strict';
// randomUUID (lib/random.js): RFC 9562 version 4 UUIDs from the operating system through the
// addon, lowercase 8-4-4-4-12, without node:crypto (a fresh process checks the module list).

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { randomUUID } = require('../..');

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('randomUUID gives version 4, variant 10xx UUIDs in lowercase, a new one each call', () => {
  const seen = new Set();
  for (let i = 0; i < 2000; i++) {
    const id = randomUUID();
    assert.equal(typeof id, 'string');
    assert.match(id, V4);
    seen.add(id);
  }
  assert.equal(seen.size, 2000);
  assert.equal(randomUUID.length, 0);
});

test('its random bits are spread: every hex digit of the 30 random positions turns up, and no position stays fixed', () => {
  const positions = [];
  for (let i = 0; i < 36; i++) if (![8, 13, 14, 18, 19, 23].includes(i)) positions.push(i);
  const digits = positions.map(() => new Set());
  for (let i = 0; i < 1000; i++) {
    const id = randomUUID();
    positions.forEach((at, k) => digits[k].add(id[at]));
  }
  for (let k = 0; k < positions.length; k++) assert.equal(digits[k].size, 16, `position ${positions[k]}`);
});

test('a process that makes ids loads no node:crypto', () => {
  // A script file, not \`node -e\` (whose own setup loads node:crypto).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-random-'));
  const script = path.join(dir, 'ids.js');
  fs.writeFileSync(
    script,
    `const { randomUUID } = require(${JSON.stringify(path.join(__dirname, '..', '..'))});
    const id = randomUUID();
    process.stdout.write(JSON.stringify({ id, crypto: process.moduleLoadList.includes('NativeModule crypto') }));`,
  );
  let result;
  try {
    result = spawnSync(process.execPath, [script], { encoding: 'utf8' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(result.status, 0, result.stderr);
  const out = JSON.parse(result.stdout);
  assert.match(out.id, V4);
  assert.equal(out.crypto, false);
});
