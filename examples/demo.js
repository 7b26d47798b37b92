'use strict';
// `npm start`: one scripted agent turn through the RFC-0016 pipeline, printed step by
// step. An allowed call, a denied one, one that needs approval and is resumed with a
// grant, a policy that tries to mutate its arguments, and values the snapshot refuses.

const { z } = require('zod');
const {
  createSnapshot,
  decodeView,
  prepareToolCall,
  evaluateToolCall,
  executeToolCall,
  isToolCallNotAllowedError,
  ToolArgumentsValidationError,
} = require('..');

const AGENT = 'Release assistant';

const writeFile = z.object({
  path: z.string(),
  content: z.string(),
  mode: z.coerce.number().int().default(0o644),
  overwrite: z.boolean().default(false),
});

const deployService = z.object({
  service: z.string(),
  replicas: z.number().int().positive(),
  region: z.string().transform((region) => region.toLowerCase()),
});

/** The application's policy: approvals are grants bound to a proposal hash. */
const grants = new Set();
function policy(input) {
  if (input.toolName === 'write_file') {
    return input.parsedArguments.path.startsWith('/srv/app/')
      ? { decision: 'allow', reason: 'inside the workspace' }
      : { decision: 'deny', reason: 'outside the workspace' };
  }
  if (grants.has(input.proposalHash)) return { decision: 'allow', reason: 'approved by a reviewer' };
  return { decision: 'require_approval', reason: 'deployments need a reviewer' };
}

function show(label, value) {
  console.log(`  ${label.padEnd(18)} ${typeof value === 'string' ? value : JSON.stringify(value)}`);
}

async function step(title, { toolName, rawArguments, schema, policyFn = policy }) {
  console.log(`\n▶ ${title}`);
  show('raw arguments', rawArguments);
  const prepared = prepareToolCall({ agentName: AGENT, toolName, rawArguments, schema });
  show('canonical JSON', prepared.argsCanonicalJson);
  show('proposal hash', prepared.proposalHash);
  // Evaluate, record (here: print), then execute. executeToolCall runs the handler only
  // for an allow, so the demo hands it every decision.
  const decision = await evaluateToolCall({ prepared, policy: policyFn });
  show('decision', `${decision.decision} (${decision.reason}, decided by ${decision.decidedBy})`);
  let received = '(not executed)';
  try {
    await executeToolCall(decision, (args) => {
      received = args;
      return { ok: true };
    });
  } catch (error) {
    if (!isToolCallNotAllowedError(error)) throw error;
    received = `(not executed: ${error.code})`;
  }
  show('handler received', received);
  return decision;
}

async function main() {
  console.log('tool-argument-snapshot: one agent turn under RFC-0016\n');

  console.log('▶ A snapshot and its views');
  const value = { path: '/srv/app/notes.md', tags: ['draft', 'été'], limits: { lines: 1e3, ratio: 0.25 } };
  const snapshot = createSnapshot({ agentName: AGENT, toolName: 'write_file', value });
  show('argsCanonicalJson', snapshot.argsCanonicalJson);
  show('proposalHash', snapshot.proposalHash);
  const policyView = decodeView(snapshot);
  const executionView = decodeView(snapshot);
  show('policy view', policyView);
  show('execution view', executionView);
  show('same object?', String(policyView === executionView));

  await step('An allowed call (zod coerces "420" and fills the default)', {
    toolName: 'write_file',
    rawArguments: '{"path":"/srv/app/README.md","content":"# Hello\\n","mode":"420"}',
    schema: writeFile,
  });

  await step('A denied call', {
    toolName: 'write_file',
    rawArguments: '{"path":"/etc/passwd","content":"root::0:0::/:/bin/sh"}',
    schema: writeFile,
  });

  const suspended = await step('A call that needs approval', {
    toolName: 'deploy_service',
    rawArguments: '{"service":"api","replicas":3,"region":"EU-West-1"}',
    schema: deployService,
  });
  show('proposal', { kind: suspended.proposal.kind, proposalHash: suspended.proposal.proposalHash });
  console.log('  … a reviewer approves exactly that hash');
  grants.add(suspended.proposal.proposalHash);

  await step('Resumed: the same action, spelled differently by the model, matches the grant', {
    toolName: 'deploy_service',
    rawArguments: '{ "region": "eu-west-1", "replicas": 3.0, "service": "api" }',
    schema: deployService,
  });

  await step('Resumed with a different value: the grant does not match', {
    toolName: 'deploy_service',
    rawArguments: '{"service":"api","replicas":30,"region":"eu-west-1"}',
    schema: deployService,
  });

  await step('A policy that mutates its arguments', {
    toolName: 'write_file',
    rawArguments: '{"path":"/srv/app/a.txt","content":"hi"}',
    schema: writeFile,
    policyFn: (input) => {
      input.parsedArguments.path = '/etc/shadow';
      return { decision: 'allow', reason: 'looks fine' };
    },
  });

  console.log('\n▶ Values outside the strict snapshot domain fail before policy runs');
  const refused = [
    ['a Date from a schema transform', z.object({ at: z.string().transform((s) => new Date(s)) }), '{"at":"2026-01-01"}'],
    ['negative zero', (v) => ({ offset: -v.offset }), '{"offset":0}'],
  ];
  for (const [label, schema, rawArguments] of refused) {
    try {
      prepareToolCall({ agentName: AGENT, toolName: 'schedule', rawArguments, schema });
      console.log(`  ${label}: accepted (unexpected)`);
      process.exitCode = 1;
    } catch (error) {
      if (!(error instanceof ToolArgumentsValidationError)) throw error;
      console.log(`  ${label}: ${error.name} stage=${error.stage} code=${error.code}`);
      console.log(`    ${error.message}`);
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
