// Type declarations of tool-argument-snapshot/genkit (adapters/genkit/index.js), the
// RFC-0016 gate for Genkit tools. `genkit` 1.42 is an optional peer dependency.

import type { Genkit, GenerateMiddleware, MiddlewareRef, ToolAction, ToolRequestPart } from 'genkit';
import type {
  ApprovalGrants,
  ExecutionReceipts,
  FromJsonSchemaOptions,
  ProposalFields,
  SchemaOutput,
  SealedProposal,
  SnapshotValue,
  SuspendedToolProposal,
} from 'tool-argument-snapshot';
import type { ToolArgumentsErrorCode, ToolPolicyInput, ToolPolicyResult, ToolSchema } from 'tool-argument-snapshot';

/** The output type of a tool's input schema (zod 3 or 4, a Standard Schema; a JSON Schema or none: the decoded JSON). */
export type GenkitSchemaOutput<S> = [S] extends [undefined] ? SnapshotValue : [S] extends [ToolSchema] ? SchemaOutput<S> : SnapshotValue;

/**
 * One tool of the gate. `inputSchema`: Genkit's `z` (zod 3), zod 4, any schema with a
 * Standard JSON Schema form, or a JSON Schema; it runs once, in the package. `execute` gets
 * the package's execution view of its output and the tool request's run options.
 */
export interface GenkitGateTool<S = unknown> {
  description: string;
  inputSchema?: S;
  execute: (args: GenkitSchemaOutput<S>, ctx: unknown) => unknown;
}

type Schemas = Record<string, unknown>;
/** The `tools` option for schemas `S`. */
export type GenkitGateTools<S extends Schemas> = { [K in keyof S]: GenkitGateTool<S[K]> };

/** Where a call's arguments come from: the object Genkit's model plugin parsed (the tool request's input). */
export type GenkitArgumentsSource = 'genkit_input';

/** What the gate adds to a policy's input. */
export interface GenkitPolicyContext {
  /** The tool request's ref (the provider's call id). */
  readonly toolCallId: string;
  /** The run id given to `gate.use({ runId })`, when given. */
  readonly runId?: string;
  readonly argumentsSource: GenkitArgumentsSource;
  /** True for a restart (`resume.restart`): it runs only on a grant of its hash. */
  readonly resume: boolean;
  readonly grantScope?: string;
}

/** The policy input of a call of tool `NAME` with arguments `ARGS`. */
export type GenkitToolPolicyInputOf<NAME extends string, ARGS> = ToolPolicyInput<ARGS> & { readonly toolName: NAME } & GenkitPolicyContext;

/** The policy input of a call of any tool of the gate: a union discriminated by `toolName`. */
export type GenkitToolPolicyInput<S extends Schemas = Schemas> = { [K in keyof S & string]: GenkitToolPolicyInputOf<K, GenkitSchemaOutput<S[K]>> }[keyof S &
  string];

type PolicyFn<I> = (input: I) => ToolPolicyResult | Promise<ToolPolicyResult>;

/** One policy for every tool of the gate. */
export type GenkitToolPolicy<S extends Schemas = Schemas> = PolicyFn<GenkitToolPolicyInput<S>>;

/** A policy per tool; a tool without one needs a grant (with `grants`) or is denied (`policy_not_configured`). */
export type GenkitToolPolicies<S extends Schemas = Schemas> = { [K in keyof S & string]?: PolicyFn<GenkitToolPolicyInputOf<K, GenkitSchemaOutput<S[K]>>> };

/** A decision of `evaluateToolCall`, as `onDecision` receives it (frozen). */
export interface GenkitDecision {
  readonly decision: 'allow' | 'deny' | 'require_approval';
  readonly reason: string;
  readonly decidedBy: 'policy' | 'runtime';
  readonly agentName: string;
  readonly toolName: string;
  readonly argsCanonicalJson: string;
  readonly proposalHash: string;
  readonly proposal?: SuspendedToolProposal;
}

export interface GenkitDecisionInfo {
  readonly toolCallId: string;
  readonly runId: string | null;
  readonly argumentsSource: GenkitArgumentsSource;
  readonly resume: boolean;
}

export interface GenkitToolGateOptions<S extends Schemas = Schemas> {
  agentName: string;
  tools: GenkitGateTools<S>;
  /** The Genkit instance to define the tools in (`ai.defineTool`); without it they are dynamic tools. */
  ai?: Genkit;
  policy?: GenkitToolPolicy<NoInfer<S>> | GenkitToolPolicies<NoInfer<S>>;
  grants?: ApprovalGrants;
  /** Default: the receipts in the grants' own store, for runs with a run id; `false`: none. */
  receipts?: ExecutionReceipts | false;
  grantScope?: string | null;
  proposalTtlMs?: number;
  onDecision?: (decision: GenkitDecision, info: GenkitDecisionInfo) => void | Promise<void>;
  includePath?: boolean;
  jsonSchemaOptions?: FromJsonSchemaOptions;
}

/** What the gate answers the model for a call that did not run (no payload). */
export interface GenkitNotExecutedOutput {
  error: true;
  message: string;
  decision: 'deny' | 'require_approval';
  /** The policy's reason, or the runtime's: `approved_without_grant`, `not_decided_by_gate`, a receipt's code, `grant_unavailable`, `grant_store_unavailable`. */
  reason: string;
  decidedBy: 'policy' | 'runtime';
}

/** What the gate answers the model for invalid input (no payload). */
export interface GenkitInvalidInputOutput {
  error: true;
  message: string;
  stage: 'json' | 'schema' | 'snapshot';
  code: ToolArgumentsErrorCode;
}

/** What the gate's interrupt says, under `interrupt.metadata.interrupt['tool-argument-snapshot']`. */
export interface GenkitApprovalRequest {
  readonly proposal: SealedProposal | ProposalFields;
  readonly reason: string;
  readonly decidedBy: 'policy' | 'runtime';
  readonly runId: string | null;
  readonly grantScope?: string;
}

/** What `approve`, `decline`, `keptProposal` and `pending` take: an interrupt of the gate, or its ids. */
export type GenkitApprovalRef = ToolRequestPart | { runId?: string | null; toolCallId: string; grantScope?: string | null };

export type GenkitPendingCall =
  | {
      readonly runId: string | null;
      readonly toolCallId: string;
      readonly toolName: string;
      readonly proposal: SealedProposal | ProposalFields;
      readonly error?: undefined;
    }
  | {
      readonly runId: string | null;
      readonly toolCallId: string;
      readonly error: { readonly name: 'ApprovalGrantError' | 'SnapshotDomainError'; readonly code: string };
      readonly proposal?: undefined;
    };

export interface GenkitToolGate<S extends Schemas = Schemas> {
  /** The Genkit tools, for `generate({ tools })`. */
  readonly tools: readonly ToolAction[];
  /** The same tools by name (`tool.restart(interrupt)` for `resume.restart`). */
  readonly toolsByName: { readonly [K in keyof S]: ToolAction };
  /** The gate's generate middleware. */
  readonly middleware: GenerateMiddleware;
  /** The `use` entry of a generate: the middleware with the run's id (and grant scope). */
  use(config?: { runId?: string; grantScope?: string }): MiddlewareRef;
  keptProposal(request: GenkitApprovalRef): Promise<SealedProposal | ProposalFields | undefined>;
  pending(source: GenkitApprovalRef | readonly GenkitApprovalRef[]): Promise<GenkitPendingCall[]>;
  approve(request: GenkitApprovalRef, options?: { uses?: number; ttlMs?: number; expiresAt?: number }): Promise<SealedProposal | ProposalFields>;
  decline(request: GenkitApprovalRef): Promise<void>;
  readonly grants: ApprovalGrants;
  readonly receipts: ExecutionReceipts | undefined;
}

/** The key of the gate's interrupt metadata. */
export declare const INTERRUPT_METADATA_KEY: 'tool-argument-snapshot';

export declare function createToolGate<S extends Schemas>(options: GenkitToolGateOptions<S>): GenkitToolGate<S>;
