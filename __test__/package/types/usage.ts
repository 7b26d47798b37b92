// Compiled with `tsc --strict --noEmit` by __test__/package/types.test.js: the declarations in
// index.d.ts must accept ordinary usage and reject misuse (the @ts-expect-error lines).
import {
  authorizeToolCall,
  canonicalize,
  createSnapshot,
  decodeRequest,
  decodeView,
  ERROR_CODES,
  MAX_DEPTH,
  prepareToolCall,
  proposalHash,
  SnapshotDomainError,
  ToolArgumentsValidationError,
  type PreparedToolCall,
  type SnapshotErrorCode,
  type SnapshotValue,
  type SuspendedToolProposal,
  type ToolArgumentSnapshot,
  type ToolCallOutcome,
  type ToolPolicyInput,
  type ToolPolicyResult,
} from '../../..';

const json: string = canonicalize({ a: 1 }, { includePath: true });
const snapshot: ToolArgumentSnapshot = createSnapshot({ agentName: 'a', toolName: 't', value: { a: 1 } });
// @ts-expect-error the snapshot is read-only
snapshot.proposalHash = 'x';
const view: SnapshotValue = decodeView(snapshot);
const fromText: SnapshotValue = decodeView(json);
const hash: string = proposalHash({ agentName: 'a', toolName: 't', argsCanonicalJson: json });
const requested: unknown = decodeRequest('{}', { toolName: 't' });
const depth: number = MAX_DEPTH;
const codes: readonly SnapshotErrorCode[] = ERROR_CODES;

try {
  canonicalize(new Date());
} catch (error) {
  if (error instanceof SnapshotDomainError) {
    const code: SnapshotErrorCode = error.code;
    const path: string | undefined = error.path;
    void code, path;
  }
  if (error instanceof ToolArgumentsValidationError) {
    const stage: 'json' | 'schema' | 'snapshot' = error.stage;
    void stage;
  }
}

const zodLike = { parse: (value: unknown) => value as { city: string } };
const prepared: PreparedToolCall = prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{}', schema: zodLike });
// An untyped schema function: its output type is unknown.
const prepared2: PreparedToolCall<unknown> = prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{}', schema: (v) => v });

// A policy typed with an application's own result interface (no index signature).
interface AppPolicyResult {
  decision: 'allow' | 'deny' | 'require_approval';
  reason: string;
  policyVersion?: string;
}
async function appPolicy(input: ToolPolicyInput): Promise<AppPolicyResult> {
  return input.proposalHash.length === 64 ? { decision: 'allow', reason: 'ok', policyVersion: 'v1' } : { decision: 'deny', reason: 'no' };
}

async function run(): Promise<void> {
  const outcome: ToolCallOutcome<number, AppPolicyResult> = await authorizeToolCall({
    prepared,
    policy: appPolicy,
    execute: (args: SnapshotValue) => (args === null ? 0 : 1),
    policyContext: { runContext: { user: 'u' }, turn: 1 },
  });
  if (outcome.decision === 'allow') {
    const result: number = outcome.result;
    const version: string | undefined = outcome.policyResult.policyVersion;
    void result, version;
  } else if (outcome.decision === 'require_approval') {
    const proposal: SuspendedToolProposal = outcome.proposal;
    const kind: 'tool' = proposal.kind;
    void kind;
  }
  const simple = await authorizeToolCall({
    prepared: prepared2,
    policy: (): ToolPolicyResult => ({ decision: 'deny', reason: 'closed' }),
    execute: async () => 'done',
  });
  void simple;
  await authorizeToolCall({
    prepared,
    // @ts-expect-error a decision outside the three is refused
    policy: () => ({ decision: 'maybe', reason: 'x' }),
    execute: () => 1,
  });
}

void json, view, fromText, hash, requested, depth, codes, run;
