'use strict';
// The framework subpaths load their gate at its first use (issue 35): requiring
// tool-argument-snapshot/ai, /langchain, /openai-agents or /mastra runs the framework check,
// loads the package, the gates' built-ins record (adapters/gate/primordials.js), the
// package's randomUUID (adapters/gate/ids.js) and, for the gates that pipe a model's
// stream, the web streams (adapters/gate/streams.js), and nothing else of the adapter; the
// first call of an export loads the rest. A missing framework still fails at require with
// the same error, node:crypto is never loaded, and built-ins replaced after the require and
// before that first call are never called by the modules it loads
// (package/subpath-load-child.js).
//
// Load time itself is measured by `npm run bench -- --groups load-time`, never here.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const CHILD = path.join(__dirname, 'subpath-load-child.js');
const LAZY_CHILD = path.join(__dirname, 'lazy-load-child.js');

function run(file, ...args) {
  const result = spawnSync(process.execPath, [file, ...args], { encoding: 'utf8', cwd: __dirname, timeout: 120000 });
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout);
}

const [NODE_MAJOR, NODE_MINOR] = process.versions.node.split('.').map(Number);
// @mastra/core's engines (as __test__/adapters/mastra/mastra-support.js).
const MASTRA_SKIP =
  NODE_MAJOR > 22 || (NODE_MAJOR === 22 && NODE_MINOR >= 13) ? false : `needs Node >= 22.13 (@mastra/core); this is Node ${process.versions.node}`;

/** What each subpath loads of adapters/ at require: its entry, its framework check, and the records captured at load. */
const AT_REQUIRE = {
  ai: [
    'adapters/ai/entry.js',
    'adapters/ai/sdk.js',
    'adapters/gate/ids.js',
    'adapters/gate/peer.js',
    'adapters/gate/primordials.js',
    'adapters/gate/streams.js',
  ],
  langchain: [
    'adapters/gate/ids.js',
    'adapters/gate/peer.js',
    'adapters/gate/primordials.js',
    'adapters/langchain/entry.js',
    'adapters/langchain/gate/core.js',
  ],
  'openai-agents': [
    'adapters/gate/ids.js',
    'adapters/gate/peer.js',
    'adapters/gate/primordials.js',
    'adapters/gate/read.js',
    'adapters/openai-agents/common.js',
    'adapters/openai-agents/entry.js',
  ],
  mastra: [
    'adapters/gate/ids.js',
    'adapters/gate/peer.js',
    'adapters/gate/primordials.js',
    'adapters/gate/streams.js',
    'adapters/mastra/entry.js',
    'adapters/mastra/framework.js',
  ],
  mcp: [
    'adapters/gate/ids.js',
    'adapters/gate/peer.js',
    'adapters/gate/primordials.js',
    'adapters/mcp/entry.js',
    'adapters/mcp/lines.js',
    'adapters/mcp/sdk.js',
  ],
};

/** The error each subpath throws at require without its framework, written out. */
const MISSING = {
  ai: {
    code: 'MODULE_NOT_FOUND',
    packageName: 'ai',
    message: 'tool-argument-snapshot/ai needs the Vercel AI SDK 7 (an optional peer dependency): npm install ai',
  },
  langchain: {
    code: 'MODULE_NOT_FOUND',
    packageName: '@langchain/core',
    message: 'tool-argument-snapshot/langchain needs @langchain/core 1.x (an optional peer dependency): npm install @langchain/core',
  },
  'openai-agents': {
    code: 'MODULE_NOT_FOUND',
    packageName: '@openai/agents',
    message: 'tool-argument-snapshot/openai-agents needs the OpenAI Agents SDK (an optional peer dependency): npm install @openai/agents',
  },
  mastra: {
    code: 'MODULE_NOT_FOUND',
    packageName: '@mastra/core',
    message: 'tool-argument-snapshot/mastra needs Mastra (@mastra/core 1.x) (an optional peer dependency): npm install @mastra/core',
  },
  mcp: {
    code: 'MODULE_NOT_FOUND',
    packageName: '@modelcontextprotocol/server',
    message:
      'tool-argument-snapshot/mcp needs the MCP TypeScript SDK (an optional peer dependency): npm install @modelcontextprotocol/server (2.x), or npm install @modelcontextprotocol/sdk (1.x)',
  },
};

for (const subpath of Object.keys(AT_REQUIRE)) {
  describe(`tool-argument-snapshot/${subpath}`, () => {
    test('requiring it loads the framework check and the records captured at load, no gate module, no framework, no node:crypto', () => {
      const loaded = run(LAZY_CHILD, 'loaded', subpath);
      assert.deepEqual(
        loaded.files.filter((file) => file.startsWith('adapters/')),
        AT_REQUIRE[subpath],
      );
      assert.deepEqual(loaded.packages, []);
      assert.equal(loaded.crypto, false, 'node:crypto was loaded');
      assert.equal(loaded.webStreams, subpath === 'ai' || subpath === 'mastra', 'web streams');
      // Node's fetch implementation (undici, about 16 MiB on Node 26) loads with no subpath:
      // the MCP gate's 2.x face captures Response, Request and Headers at its first 2.x gate.
      assert.equal(loaded.undici, false, "Node's fetch implementation was loaded");
    });

    test('the first call of each export loads the gate: every module the gate itself loads', () => {
      const first = run(CHILD, 'first', subpath);
      assert.deepEqual(
        first.atRequire.filter((file) => file.startsWith('adapters/')),
        AT_REQUIRE[subpath],
      );
      // Each export refuses null as its gate would (the same error, from the gate's own code).
      assert.ok(
        first.calls.every((line) => line.endsWith(': TypeError ERR_INVALID_ARG_TYPE')),
        first.calls.join('; '),
      );
      const gate = run(CHILD, 'gate', subpath).files;
      const missing = gate.filter((file) => !first.afterCalls.includes(file));
      assert.deepEqual(missing, []);
      assert.ok(gate.length > first.atRequire.length, 'the gate has modules of its own');
    });

    test('without its framework, requiring it throws MODULE_NOT_FOUND naming the package to install', () => {
      assert.deepEqual(run(CHILD, 'missing', subpath), MISSING[subpath]);
    });

    test(
      'built-ins replaced after the require and before the first call are never called by the gate, then or later',
      { skip: subpath === 'mastra' && MASTRA_SKIP },
      () => {
        const patched = run(CHILD, 'patched', subpath);
        const control = run(CHILD, 'control', subpath);
        assert.equal(patched.first, 'gate made');
        assert.ok(!control.outcomes.some((line) => line.startsWith('scenario threw')), control.outcomes.join('\n'));
        assert.deepEqual(patched.outcomes, control.outcomes);
        const shown = Object.keys(patched.hits).map((label) => `${label} x${patched.hits[label]} (first from ${patched.firstHit[label].trim()})`);
        assert.deepEqual(shown, []);
      },
    );
  });
}

test('/mcp in a project with only the 2.x SDK captures the 2.x web classes at require (every gate it can make is a 2.x gate)', () => {
  const loaded = run(CHILD, 'v2only', 'mcp');
  assert.ok(loaded.files.includes('adapters/mcp/v2/web.js'), loaded.files.join(', '));
  assert.equal(loaded.undici, true, "Node's fetch implementation is loaded by the capture");
  assert.equal(
    loaded.files.some(
      (file) => file.startsWith('adapters/mcp/') && !['adapters/mcp/entry.js', 'adapters/mcp/lines.js', 'adapters/mcp/v2/web.js'].includes(file),
    ),
    false,
    'no gate module',
  );
});

test('the LangChain scenario runs calls through receipts (what a built-in captured at a later load would show in)', () => {
  const control = run(CHILD, 'control', 'langchain');
  // Written out here: an allowed call ran, a duplicate key was refused, the replay of call_1
  // was refused by the shared receipts (gate/receipts.js: Date.now, captured at load, prunes them).
  assert.deepEqual(control.outcomes.slice(1), [
    'run call_1: executed ok',
    'run call_2: invalid_input duplicate_key',
    'run call_1: denied call_already_executed',
    'executed [{"amount":5,"to":"bob"}]',
  ]);
});
