'use strict';
// The adapters' TAS_APPROVED_WITHOUT_GRANT warning is silent when NODE_ENV is `production`
// (issue 16 item 6), on every runtime. Review finding: the gates' warning
// (adapters/gate/warnings.js) read it with own(process.env, 'NODE_ENV'), and own() answers
// undefined for a Proxy; Deno's process.env is a Proxy (Node's and Bun's are not), so under
// Deno the warning was emitted in production too (the Deno test failed on 7e7def7; skips
// visibly without Deno).

const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { deno } = require('../../helpers/services');
const { DENO_FLAGS } = require('../../conformance/runtime.cjs');

test('under Deno, NODE_ENV=production silences the approved-without-grant warning', (t) => {
  const found = deno(t);
  if (found === null) return;
  const script = `
    const seen = [];
    process.on('warning', (w) => { if (w.code === 'TAS_APPROVED_WITHOUT_GRANT') seen.push(w.code); });
    const { approvedWithoutGrantNotice } = require(${JSON.stringify(path.join(__dirname, '..', '..', '..', 'adapters', 'gate', 'warnings.js'))});
    approvedWithoutGrantNotice('ai', 'gate.approve(part)')();
    setTimeout(() => console.log(JSON.stringify(seen)), 50);
  `;
  const file = path.join(require('node:os').tmpdir(), `tas-review-deno-${process.pid}.cjs`);
  require('node:fs').writeFileSync(file, script);
  t.after(() => require('node:fs').rmSync(file, { force: true }));
  const out = spawnSync(found.file, ['run', ...DENO_FLAGS, file], {
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production', DENO_NO_UPDATE_CHECK: '1' },
    timeout: 60000,
  });
  assert.equal(out.status, 0, out.stderr);
  assert.deepEqual(JSON.parse(out.stdout.trim().split('\n').at(-1)), [], 'the warning was emitted with NODE_ENV=production');
});

function warningsOf(env, plant) {
  const script = `
    ${plant}
    const seen = [];
    process.on('warning', (w) => { if (w.code === 'TAS_APPROVED_WITHOUT_GRANT') seen.push(w.code); });
    const { approvedWithoutGrantNotice } = require(${JSON.stringify(path.join(__dirname, '..', '..', '..', 'adapters', 'gate', 'warnings.js'))});
    approvedWithoutGrantNotice('ai', 'gate.approve(part)')();
    setTimeout(() => console.log(JSON.stringify(seen)), 50);
  `;
  const childEnv = { ...process.env, ...env };
  if (env.NODE_ENV === undefined) delete childEnv.NODE_ENV;
  const out = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: childEnv, timeout: 60000 });
  assert.equal(out.status, 0, out.stderr);
  return JSON.parse(out.stdout.trim().split('\n').at(-1));
}

test('under Node, NODE_ENV=production silences the warning, and a NODE_ENV planted on Object.prototype does not', () => {
  assert.deepEqual(warningsOf({ NODE_ENV: 'production' }, ''), []);
  assert.deepEqual(warningsOf({ NODE_ENV: undefined }, ''), ['TAS_APPROVED_WITHOUT_GRANT']);
  assert.deepEqual(warningsOf({ NODE_ENV: undefined }, "Object.prototype.NODE_ENV = 'production';"), ['TAS_APPROVED_WITHOUT_GRANT']);
});
