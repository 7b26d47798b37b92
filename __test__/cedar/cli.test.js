'use strict';
// `tool-argument-snapshot cedar validate | explain` (issue 27, item 6), spawned as a user
// runs it. Exit statuses are docs/cli.md's; policy set hashes come from node:crypto over
// the file's bytes; decisions are Cedar's rules (default deny, forbid overrides permit)
// with issue 27's reasons; proposals are made by the package's public API and tampered by
// hand.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { prepareToolCall, createApprovalGrants } = require('../..');

const BIN = path.join(__dirname, '..', '..', 'bin', 'tool-argument-snapshot.js');
const PREFIX = 'tool-argument-snapshot: error: ';
const SECRET_VALUE = 'acct-7731-secret';
const POLICIES = [
  '@id("small")',
  'permit(principal, action == Action::"pay", resource) when { context.input.amount < 400 };',
  '@id("big")',
  '@approval("required")',
  'permit(principal, action == Action::"pay", resource) when { context.input.amount >= 400 };',
  '@id("over-limit")',
  'forbid(principal, action, resource) when { context.input.amount > 100000 };',
  '@id("alice-only")',
  'forbid(principal, action == Action::"pay", resource) when { context has scope && context.scope != "user:alice" };',
  '',
].join('\n');
const TOOLS = { pay: { type: 'object', properties: { to: { type: 'string' }, amount: { type: 'integer' } }, required: ['to', 'amount'] } };
const KEY = { id: 'k1', secret: 'a-secret-of-at-least-thirty-two-bytes' };

let dir;
const file = (name, value) => {
  const where = path.join(dir, name);
  fs.writeFileSync(where, typeof value === 'string' ? value : JSON.stringify(value));
  return where;
};
const run = (args, input) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', input, timeout: 30_000 });
const proposal = (amount) => {
  const p = prepareToolCall({ agentName: 'payments', toolName: 'pay', rawArguments: JSON.stringify({ to: SECRET_VALUE, amount }) });
  return { agentName: p.agentName, toolName: p.toolName, argsCanonicalJson: p.argsCanonicalJson, proposalHash: p.proposalHash };
};
/** No argument value in anything the command wrote. */
const assertNoPayload = (result) => {
  assert.ok(!result.stdout.includes(SECRET_VALUE) && !result.stderr.includes(SECRET_VALUE), 'no argument value is printed');
};

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-cedar-cli-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('cedar validate: a valid set exits 0 with the hash of the file as given', () => {
  const policies = file('policies.cedar', POLICIES);
  const tools = file('tools.json', TOOLS);
  const expected = crypto.createHash('sha256').update(fs.readFileSync(policies)).digest('hex');
  const plain = run(['cedar', 'validate', '--policies', policies, '--tools', tools]);
  assert.equal(plain.status, 0, plain.stderr);
  assert.equal(plain.stdout, `valid\npolicy set hash: ${expected}\n`);
  const json = run(['cedar', 'validate', '--policies', policies, '--tools', tools, '--json']);
  assert.equal(json.status, 0);
  assert.deepEqual(JSON.parse(json.stdout), { valid: true, policySetHash: expected });
  // Without --tools the set is parsed only.
  assert.equal(run(['cedar', 'validate', '--policies', policies]).status, 0);
});

test('cedar validate: a refused set exits 1 with each error, its code, policy id and attribute path', () => {
  const tools = file('tools.json', TOOLS);
  const typo = file('typo.cedar', POLICIES.replace('context.input.amount < 400', 'context.input.amout < 400'));
  const result = run(['cedar', 'validate', '--policies', typo, '--tools', tools, '--json']);
  assert.equal(result.status, 1, result.stderr);
  const { valid, errors } = JSON.parse(result.stdout);
  assert.equal(valid, false);
  assert.equal(errors.length, 1);
  assert.equal(errors[0].code, 'validation_error');
  assert.equal(errors[0].policyId, 'small');
  assert.match(errors[0].message, /input\.amout/);
  assert.doesNotMatch(errors[0].message, /policy0/, "the policy is named by its @id, not by the parser's number");
  const text = run(['cedar', 'validate', '--policies', typo, '--tools', tools]);
  assert.equal(text.status, 1);
  assert.match(text.stdout, /^invalid\nerror: validation_error \(policy "small"\): .*input\.amout/);
  // The same typo without the tools' schema is not a validation error: only parsing is checked.
  assert.equal(run(['cedar', 'validate', '--policies', typo]).status, 0);

  const syntax = run(['cedar', 'validate', '--policies', file('syntax.cedar', 'permit(principal, action resource);'), '--json']);
  assert.equal(syntax.status, 1);
  assert.equal(JSON.parse(syntax.stdout).errors[0].code, 'parse_error');
  const duplicate = run([
    'cedar',
    'validate',
    '--policies',
    file('dup.cedar', '@id("x")\npermit(principal, action, resource);\n@id("x")\nforbid(principal, action, resource);\n'),
    '--json',
  ]);
  assert.equal(duplicate.status, 1);
  assert.deepEqual(
    JSON.parse(duplicate.stdout).errors.map((e) => [e.code, e.policyId]),
    [['duplicate_policy_id', 'x']],
  );
});

test('cedar: usage errors exit 2, unreadable or malformed input exits 3', () => {
  const policies = file('policies.cedar', POLICIES);
  const usage = [
    ['cedar'],
    ['cedar', 'frobnicate', '--policies', policies],
    ['cedar', 'validate'],
    ['cedar', 'validate', '--policies', policies, 'extra.json'],
    ['cedar', 'validate', '--policies', policies, '--key-env', 'X'],
    ['cedar', 'explain', '--policies', policies],
    ['cedar', 'explain', '--policies', policies, 'a.json', 'b.json'],
    ['cedar', 'validate', '--policies', '-'],
    ['cedar', 'validate', '--policies'],
  ];
  for (const args of usage) {
    const result = run(args);
    assert.equal(result.status, 2, args.join(' '));
    assert.ok(result.stderr.startsWith(PREFIX), args.join(' '));
    assert.equal(result.stdout, '');
  }
  const missing = run(['cedar', 'validate', '--policies', path.join(dir, 'absent.cedar')]);
  assert.equal(missing.status, 3);
  assert.match(missing.stderr, /\(stage input, code ENOENT\)\n$/);
  const notJson = run(['cedar', 'validate', '--policies', policies, '--tools', file('bad-tools.json', '{"pay":')]);
  assert.equal(notJson.status, 3);
  assert.match(notJson.stderr, /code invalid_json/);
  const notMap = run(['cedar', 'validate', '--policies', policies, '--tools', file('list-tools.json', [TOOLS.pay])]);
  assert.equal(notMap.status, 3);
  assert.match(notMap.stderr, /code not_a_tools_map/);
  const latin1 = path.join(dir, 'latin1.cedar');
  fs.writeFileSync(latin1, Buffer.from([0x70, 0xe9, 0x0a]));
  const notUtf8 = run(['cedar', 'validate', '--policies', latin1]);
  assert.equal(notUtf8.status, 3);
  assert.match(notUtf8.stderr, /code invalid_json/);
});

test('cedar explain: the decision, reason, determining policies and set hash of a stored proposal', () => {
  const policies = file('policies.cedar', POLICIES);
  const tools = file('tools.json', TOOLS);
  const hash = crypto.createHash('sha256').update(POLICIES).digest('hex');
  const cases = [
    [5, 'allow', 'permitted', ['small']],
    [500, 'require_approval', 'approval_required', ['big']],
    [200000, 'deny', 'forbidden', ['over-limit']],
  ];
  for (const [amount, decision, reason, ids] of cases) {
    const stored = proposal(amount);
    const result = run(['cedar', 'explain', '--policies', policies, '--tools', tools, '--json', file(`p${amount}.json`, stored)]);
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), {
      decision,
      reason,
      policies: ids,
      policySetHash: hash,
      agentName: 'payments',
      toolName: 'pay',
      proposalHash: stored.proposalHash,
      scope: null,
    });
    assertNoPayload(result);
  }
  // Default deny: another tool no policy names; standard input as the proposal.
  const other = prepareToolCall({ agentName: 'payments', toolName: 'refund', rawArguments: '{"amount":1}' });
  const denied = run(
    ['cedar', 'explain', '--policies', policies, '-'],
    JSON.stringify({
      agentName: other.agentName,
      toolName: other.toolName,
      argsCanonicalJson: other.argsCanonicalJson,
      proposalHash: other.proposalHash,
    }),
  );
  assert.equal(denied.status, 0, denied.stderr);
  assert.match(denied.stdout, /^decision: +deny\nreason: +no_permit\npolicies: +none\n/);
});

test('cedar explain: a tampered proposal is refused with its code before any decision', () => {
  const policies = file('policies.cedar', POLICIES);
  const stored = proposal(200000);
  const tampered = { ...stored, argsCanonicalJson: stored.argsCanonicalJson.replace('200000', '5') };
  const result = run(['cedar', 'explain', '--policies', policies, file('tampered.json', tampered)]);
  assert.equal(result.status, 3);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /\(stage snapshot, code hash_mismatch\)\n$/);
  assertNoPayload(result);
  const notRecord = run(['cedar', 'explain', '--policies', policies, file('not-record.json', { hello: 1 })]);
  assert.equal(notRecord.status, 3);
  assert.match(notRecord.stderr, /code not_a_snapshot/);
  // A refused policy set is exit 1 as with validate, once the proposal verified.
  const typo = file('typo.cedar', POLICIES.replace('context.input.amount < 400', 'context.input.amout < 400'));
  const refused = run(['cedar', 'explain', '--policies', typo, '--tools', file('tools.json', TOOLS), file('ok.json', proposal(5))]);
  assert.equal(refused.status, 1);
  assert.match(refused.stdout, /^invalid\nerror: validation_error/);
});

test('cedar explain: a sealed proposal is verified with the key ring, and its scope reaches context.scope', () => {
  const policies = file('policies.cedar', POLICIES);
  const keys = file('keys.json', [KEY]);
  const grants = createApprovalGrants({ keys: [KEY] });
  const explain = (sealed) => run(['cedar', 'explain', '--policies', policies, '--key-file', keys, '--json', file('sealed.json', sealed)]);
  const alice = explain(grants.seal(proposal(5), { scope: 'user:alice' }));
  assert.equal(alice.status, 0, alice.stderr);
  assert.deepEqual(JSON.parse(alice.stdout).reason, 'permitted');
  assert.equal(JSON.parse(alice.stdout).scope, 'user:alice');
  const bob = explain(grants.seal(proposal(5), { scope: 'user:bob' }));
  assert.deepEqual([JSON.parse(bob.stdout).reason, JSON.parse(bob.stdout).policies], ['forbidden', ['alice-only']]);
  const sealed = grants.seal(proposal(5), { scope: 'user:alice' });
  const forged = explain({ ...sealed, scope: 'user:mallory' });
  assert.equal(forged.status, 3);
  assert.match(forged.stderr, /\(stage seal, code bad_signature\)\n$/);
  // With --json the refusal is also the one object on standard output, as every command does.
  assert.deepEqual(Object.keys(JSON.parse(forged.stdout)), ['error']);
  assert.equal(JSON.parse(forged.stdout).error.code, 'bad_signature');
  const otherKeys = file('other-keys.json', [{ id: 'k9', secret: 'another-secret-of-thirty-two-bytes!!' }]);
  const unknown = run(['cedar', 'explain', '--policies', policies, '--key-file', otherKeys, file('sealed2.json', sealed)]);
  assert.equal(unknown.status, 3);
  assert.match(unknown.stderr, /code unknown_key/);
});

test('cedar --json escapes what a terminal would interpret: policy ids, names and messages parse back exactly (issue 33)', () => {
  // Written out from the issue: controls, DEL, C1 and the bidirectional formatting characters.
  const codes = [0x1b, 0x7f, 0x85, 0x9b, 0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
  const tricky = String.fromCharCode(...codes);
  const raw = (text) =>
    [...text.slice(0, -1)].filter((c) => c.charCodeAt(0) <= 0x1f || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f) || codes.includes(c.charCodeAt(0)));
  const id = `small\u202e${tricky}`;
  const policies = file('tricky.cedar', POLICIES.replace('@id("small")', `@id("${id}")`));
  const tools = file('tools.json', TOOLS);
  const agentName = `payments\u2066${tricky}`;
  const p = prepareToolCall({ agentName, toolName: 'pay', rawArguments: JSON.stringify({ to: `bob\u009b${tricky}`, amount: 5 }) });
  const stored = file('tricky.json', { agentName: p.agentName, toolName: p.toolName, argsCanonicalJson: p.argsCanonicalJson, proposalHash: p.proposalHash });
  const explained = run(['cedar', 'explain', '--policies', policies, '--tools', tools, '--json', stored]);
  assert.equal(explained.status, 0, explained.stderr);
  assert.deepEqual(raw(explained.stdout), [], 'no raw character in explain --json');
  assert.deepEqual(JSON.parse(explained.stdout), {
    decision: 'allow',
    reason: 'permitted',
    policies: [id],
    policySetHash: crypto.createHash('sha256').update(fs.readFileSync(policies)).digest('hex'),
    agentName,
    toolName: 'pay',
    proposalHash: p.proposalHash,
    scope: null,
  });
  const typo = file('tricky-typo.cedar', POLICIES.replace('@id("small")', `@id("${id}")`).replace('context.input.amount < 400', 'context.input.amout < 400'));
  const refused = run(['cedar', 'validate', '--policies', typo, '--tools', tools, '--json']);
  assert.equal(refused.status, 1, refused.stderr);
  assert.deepEqual(raw(refused.stdout), [], 'no raw character in validate --json');
  assert.equal(JSON.parse(refused.stdout).errors[0].policyId, id);
});

test('cedar validate --tools reads an MCP tools/list result as saved, bare or in its JSON-RPC response', async () => {
  // The result a real MCP server answers to tools/list, through the SDK's own client.
  const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
  const { InMemoryTransport } = require('@modelcontextprotocol/sdk/inMemory.js');
  const { z } = require('zod');
  const server = new McpServer({ name: 'payments', version: '1.0.0' });
  server.registerTool(
    'pay',
    { description: 'Pays', inputSchema: { to: z.string(), amount: z.number().int() }, annotations: { destructiveHint: true } },
    async () => ({ content: [{ type: 'text', text: 'paid' }] }),
  );
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'cli-test', version: '1.0.0' });
  await client.connect(clientTransport);
  const listed = await client.listTools();
  await client.close();
  assert.deepEqual(
    listed.tools.map((t) => t.name),
    ['pay'],
  );
  assert.equal(listed.tools[0].inputSchema.properties.amount.type, 'integer');

  const policies = file('policies.cedar', POLICIES);
  const typo = file('typo.cedar', POLICIES.replace('context.input.amount < 400', 'context.input.amout < 400'));
  const expected = crypto.createHash('sha256').update(POLICIES).digest('hex');
  const formats = {
    'list.json': listed,
    'list-text.json': JSON.stringify(listed, null, 2),
    'response.json': { jsonrpc: '2.0', id: 2, result: listed },
  };
  for (const [name, content] of Object.entries(formats)) {
    const tools = file(name, content);
    const valid = run(['cedar', 'validate', '--policies', policies, '--tools', tools, '--json']);
    assert.equal(valid.status, 0, `${name}: ${valid.stderr}`);
    assert.deepEqual(JSON.parse(valid.stdout), { valid: true, policySetHash: expected });
    // The schema was read: a typo of its attribute is refused, as with a schema map.
    const refused = run(['cedar', 'validate', '--policies', typo, '--tools', tools, '--json']);
    assert.equal(refused.status, 1, name);
    const { errors } = JSON.parse(refused.stdout);
    assert.deepEqual(
      errors.map((e) => [e.code, e.policyId]),
      [['validation_error', 'small']],
      name,
    );
    assert.match(errors[0].message, /input\.amout/);
    // A tool the list does not hold is unknown: a policy naming it is refused.
    const other = run([
      'cedar',
      'validate',
      '--policies',
      file('other.cedar', '@id("r") permit(principal, action == Action::"refund", resource) when { context.input.amount < 5 };'),
      '--tools',
      tools,
    ]);
    assert.equal(other.status, 1, name);
  }
  // explain reads it too.
  const stored = file('p-list.json', proposal(200000));
  const explained = run([
    'cedar',
    'explain',
    '--policies',
    policies,
    '--tools',
    file('response2.json', { jsonrpc: '2.0', id: 'x', result: listed }),
    '--json',
    stored,
  ]);
  assert.equal(explained.status, 0, explained.stderr);
  assert.equal(JSON.parse(explained.stdout).reason, 'forbidden');
  assertNoPayload(explained);

  const rejected = {
    'error-response.json': { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
    'other-response.json': { jsonrpc: '2.0', id: 2, result: { resources: [] } },
    'no-schema.json': { tools: [{ name: 'pay', description: 'Pays' }] },
    'no-name.json': { tools: [{ inputSchema: TOOLS.pay }] },
    'twice.json': {
      tools: [
        { name: 'pay', inputSchema: TOOLS.pay },
        { name: 'pay', inputSchema: TOOLS.pay },
      ],
    },
  };
  for (const [name, content] of Object.entries(rejected)) {
    const result = run(['cedar', 'validate', '--policies', policies, '--tools', file(name, content)]);
    assert.equal(result.status, 3, name);
    assert.match(result.stderr, /\(stage tools, code not_a_tools_map\)\n$/, name);
    assert.equal(result.stdout, '');
  }
  // A schema map with a tool named "tools" or "jsonrpc" stays a schema map.
  const named = run([
    'cedar',
    'validate',
    '--policies',
    file('named.cedar', '@id("t") permit(principal, action == Action::"tools", resource) when { context.input.amount < 5 };'),
    '--tools',
    file('named.json', { tools: TOOLS.pay, jsonrpc: TOOLS.pay }),
  ]);
  assert.equal(named.status, 0, named.stdout + named.stderr);
});
