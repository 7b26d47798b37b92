'use strict';
// createCedarPolicy loads and decides under Bun and Deno (the binaries the other runtime
// tests use, found by __test__/helpers/services.js): skipped with the reason when absent, and
// failed instead under TAS_REQUIRE_SERVICES=1, as every test of helpers/services.js does.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { bun, deno, requires } = require('../helpers/services');
const { DENO_FLAGS, BUN_FLAGS } = require('../conformance/runtime.cjs');

const ROOT = path.join(__dirname, '..', '..');
const SCRIPT = `
const pkg = require(${JSON.stringify(ROOT)});
const policy = pkg.createCedarPolicy({ policies: '@id("small")\\npermit(principal, action == Action::"transfer", resource) when { context.input.amount < 400 };\\n@id("no-mallory")\\nforbid(principal, action, resource) when { context.input.to == "mallory" };' });
(async () => {
  const out = [];
  for (const raw of ['{"to":"bob","amount":5}', '{"to":"bob","amount":500}', '{"to":"mallory","amount":5}']) {
    const d = await pkg.evaluateToolCall({ prepared: pkg.prepareToolCall({ agentName: 'a', toolName: 'transfer', rawArguments: raw }), policy });
    out.push(d.reason + ':' + d.policyResult.policies.join(','));
  }
  let code = 'none';
  try { pkg.createCedarPolicy({ policies: 'permit(' }); } catch (e) { code = pkg.isCedarPolicyError(e) ? e.code : 'other'; }
  out.push(code);
  console.log(out.join(' '));
})();
`;
const EXPECTED = 'permitted:small no_permit: forbidden:no-mallory parse_error';

for (const kind of ['bun', 'deno']) {
  test(`createCedarPolicy decides under ${kind === 'bun' ? 'Bun' : 'Deno'}`, requires(kind), (t) => {
    const runtime = kind === 'bun' ? bun(t) : deno(t);
    if (runtime === null) return; // skipped, with the reason
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-cedar-runtime-'));
    try {
      const file = path.join(dir, 'decide.cjs');
      fs.writeFileSync(file, SCRIPT);
      const args = kind === 'bun' ? [...BUN_FLAGS, file] : ['run', ...DENO_FLAGS, file];
      const run = spawnSync(runtime.file, args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout.trim(), EXPECTED);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
