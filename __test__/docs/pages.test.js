'use strict';
// Doc errors found in review: each page checked against the code or the declarations.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const read = (name) => fs.readFileSync(path.join(__dirname, '..', '..', name), 'utf8');

test('the symbol docs/approvals.md names is the one the package registers on the global object', () => {
  const named = [...read('docs/approvals.md').matchAll(/Symbol\.for\('(tool-argument-snapshot\.[^']+)'\)/g)].map((m) => m[1]);
  assert.ok(named.length > 0, 'approvals.md names the symbol');
  // A fresh process: load the package and evaluate once, then look on globalThis.
  const script = `
    const { prepareToolCall, authorizeToolCall, createApprovalGrants } = require(${JSON.stringify(path.join(__dirname, '..', '..'))});
    const grants = createApprovalGrants();
    const prepared = prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{}' });
    Promise.resolve(authorizeToolCall({ prepared, policy: grants.policy(), execute: () => 1 })).then(() => {
      const names = Object.getOwnPropertySymbols(globalThis).map((s) => Symbol.keyFor(s)).filter((k) => k && k.startsWith('tool-argument-snapshot.'));
      process.stdout.write(JSON.stringify(names));
    });`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const registered = JSON.parse(run.stdout);
  assert.ok(registered.length > 0, 'the package registers a symbol');
  for (const name of named) assert.ok(registered.includes(name), `approvals.md names ${name}; the package registers ${registered.join(', ')}`);
});

test("every package docs/events.md's OpenTelemetry block requires has an install line", () => {
  const page = read('docs/events.md');
  const start = page.indexOf('## An OpenTelemetry span per attempt');
  assert.notEqual(start, -1);
  const section = page.slice(start, page.indexOf('\n## ', start + 1) === -1 ? undefined : page.indexOf('\n## ', start + 1));
  const required = [...section.matchAll(/require\('(@opentelemetry\/[^']+)'\)/g)].map((m) => m[1]);
  assert.ok(required.length >= 2);
  const installs = [...section.matchAll(/npm install ([^\n`]+)/g)].flatMap((m) => m[1].trim().split(/\s+/));
  for (const name of required) assert.ok(installs.includes(name), `${name} is required but not installed in the page`);
});

test("docs/api.md's PolicyDecision gives require_approval a proposal, as the declarations do (lib/run/index.d.ts)", () => {
  const dts = read('lib/run/index.d.ts');
  const from = dts.indexOf('export type PolicyDecision<');
  const declared = dts.slice(from, dts.indexOf('});', from));
  assert.match(declared, /readonly proposal: SuspendedToolProposal<T>/, 'lib/run/index.d.ts requires the proposal');
  const line = read('docs/api.md')
    .split('\n')
    .find((l) => l.startsWith('type PolicyDecision<'));
  assert.ok(line, 'api.md shows PolicyDecision');
  assert.ok(!/proposal\?/.test(line), `api.md shows an optional proposal: ${line}`);
  assert.match(line, /'require_approval'[^|]*proposal: SuspendedToolProposal<T>/);
});

test('every TypeScript block of the docs is erasable: Node strips its types without a transform (no parameter properties, enums or namespaces)', (t) => {
  // Node's type stripping refuses syntax that needs a transform; the strip runs in a child
  // process per block under a Node line that has it (Node 20 does not: skipped there).
  const node = [process.execPath, path.join(__dirname, '..', '..', '.tmp', 'node-lines', '26', 'bin', 'node')].find(
    (bin) => fs.existsSync(bin) && spawnSync(bin, ['-e', "require('node:module').stripTypeScriptTypes('let a: number = 1')"]).status === 0,
  );
  if (node === undefined) {
    t.skip('no Node line with module.stripTypeScriptTypes here (Node >= 22.13; npm run fetch-node)');
    return;
  }
  const pages = [
    'README.md',
    ...fs
      .readdirSync(path.join(__dirname, '..', '..', 'docs'), { recursive: true })
      .filter((f) => f.endsWith('.md'))
      .map((f) => path.join('docs', f)),
  ];
  let blocks = 0;
  for (const page of pages) {
    for (const match of read(page).matchAll(/(<!-- declarations -->\s*)?```ts\n([\s\S]*?)```/g)) {
      if (match[1] !== undefined) continue; // declarations, checked against index.d.ts instead
      blocks++;
      const run = spawnSync(
        node,
        [
          '-e',
          "const m=require('node:module');let s='';process.stdin.on('data',(d)=>s+=d).on('end',()=>{try{m.stripTypeScriptTypes(s)}catch(e){process.stdout.write(String(e.code));process.exit(1)}})",
        ],
        { input: match[2], encoding: 'utf8' },
      );
      assert.equal(run.status, 0, `a TypeScript block of ${page} needs a transform (${run.stdout})`);
    }
  }
  assert.ok(blocks > 0, 'the docs have TypeScript blocks');
});

test("README's Documentation section names every command of bin/commands/, and cedar's subcommands (issue 33, item 7)", () => {
  const readme = read('README.md');
  const start = readme.indexOf('\n## Documentation\n');
  assert.notEqual(start, -1, 'README has a Documentation section');
  const next = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, next === -1 ? undefined : next);
  const dir = path.join(__dirname, '..', '..', 'bin', 'commands');
  const commands = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .map((f) => require(path.join(dir, f)).name);
  assert.ok(commands.length >= 9, `the commands: ${commands.join(', ')}`);
  for (const name of commands) assert.ok(section.includes(`\`${name}\``) || section.includes(`\`${name} `), `README's docs list does not name \`${name}\``);
  // cedar's subcommands, as its usage lines print them.
  const subcommands = [...require(path.join(dir, 'cedar.js')).usage.matchAll(/cedar (\w+)/g)].map((m) => m[1]);
  assert.deepEqual([...new Set(subcommands)].sort(), ['explain', 'validate']);
  for (const sub of subcommands) assert.ok(section.includes(`\`cedar ${sub}\``), `README's docs list does not name \`cedar ${sub}\``);
});
