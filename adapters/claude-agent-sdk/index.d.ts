// Type declarations of tool-argument-snapshot/claude-agent-sdk (adapters/claude-agent-sdk/
// index.js), the RFC-0016 gate for the Claude Agent SDK. `@anthropic-ai/claude-agent-sdk`
// 0.3 is an optional peer dependency (and zod 4, its own peer, for the gate's own tools).

import type { CanUseTool, HookCallback, HookCallbackMatcher, McpSdkServerConfigWithInstance, Options, PermissionResult } from '@anthropic-ai/claude-agent-sdk';
import type {
  AgentInput,
  BashInput,
  FileEditInput,
  FileReadInput,
  FileWriteInput,
  GlobInput,
  GrepInput,
  NotebookEditInput,
  TodoWriteInput,
  WebFetchInput,
  WebSearchInput,
} from '@anthropic-ai/claude-agent-sdk/sdk-tools';
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
import type { ToolPolicyInput, ToolPolicyResult, ToolSchema } from 'tool-argument-snapshot';

/** An MCP tool result (what an in-process tool answers the model). */
export interface ClaudeCallToolResult {
  content: Array<{ type: 'text'; text: string } | { type: string; [field: string]: unknown }>;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  [field: string]: unknown;
}

/**
 * One of the application's own tools, served on the gate's in-process MCP server.
 * `inputSchema`: zod 4 (or any schema with a Standard JSON Schema form) or a JSON Schema;
 * it runs once, in the package. `execute` gets the package's execution view of its output.
 */
export interface ClaudeGateTool<S = unknown> {
  description: string;
  inputSchema?: S;
  execute: (
    args: ClaudeSchemaOutput<S>,
    extra: unknown,
  ) => ClaudeCallToolResult | string | SnapshotValue | Promise<ClaudeCallToolResult | string | SnapshotValue>;
  annotations?: Record<string, unknown>;
}

/** The output type of a tool's input schema (a JSON Schema or none: the decoded JSON). */
export type ClaudeSchemaOutput<S> = [S] extends [undefined] ? SnapshotValue : [S] extends [ToolSchema] ? SchemaOutput<S> : SnapshotValue;

/** The inputs of the SDK's built-in tools, as the SDK declares them (what the CLI parsed). */
export interface ClaudeBuiltinInputs {
  Agent: AgentInput;
  Task: AgentInput;
  Bash: BashInput;
  Edit: FileEditInput;
  Read: FileReadInput;
  Write: FileWriteInput;
  Glob: GlobInput;
  Grep: GrepInput;
  NotebookEdit: NotebookEditInput;
  TodoWrite: TodoWriteInput;
  WebFetch: WebFetchInput;
  WebSearch: WebSearchInput;
}

/** Where a call's arguments come from: the object the SDK's CLI parsed from the model's tool_use. */
export type ClaudeArgumentsSource = 'sdk_input';

/** What the gate adds to a policy's input. */
export interface ClaudePolicyContext {
  /** The model's tool_use id. */
  readonly toolCallId: string;
  /** The SDK's session id (what `resume` takes). */
  readonly sessionId: string;
  /** The tool's name in the SDK: `mcp__SERVER__TOOL` for the gate's own tools. */
  readonly sdkToolName: string;
  readonly argumentsSource: ClaudeArgumentsSource;
  /** The subagent, for a call made inside one. */
  readonly agentId?: string;
  /** The call's grant scope, when the gate has one. */
  readonly grantScope?: string;
}

/** The gate's own tools' input schemas by tool name (what `tools` is inferred as). */
type Schemas = Record<string, unknown>;
/** The `tools` option for schemas `S`. */
export type ClaudeGateTools<S extends Schemas> = { [K in keyof S]: ClaudeGateTool<S[K]> };

/** The policy input of a call of tool `NAME` with arguments `ARGS`. */
export type ClaudeToolPolicyInputOf<NAME extends string, ARGS> = ToolPolicyInput<ARGS> & { readonly toolName: NAME } & ClaudePolicyContext;

type OwnInputs<S extends Schemas> = string extends keyof S
  ? never
  : { [K in keyof S & string]: ClaudeToolPolicyInputOf<K, ClaudeSchemaOutput<S[K]>> }[keyof S & string];
type BuiltinInputs = { [K in keyof ClaudeBuiltinInputs]: ClaudeToolPolicyInputOf<K, ClaudeBuiltinInputs[K]> }[keyof ClaudeBuiltinInputs];

/**
 * The policy input of any call: the gate's own tools (typed by their schema), the SDK's
 * built-in tools (typed by the SDK's declarations), or any other tool (untyped JSON).
 */
export type ClaudeToolPolicyInput<S extends Schemas = {}> = OwnInputs<S> | BuiltinInputs | ClaudeToolPolicyInputOf<string, SnapshotValue>;

/** One policy for every call. */
export type ClaudeToolPolicy<S extends Schemas = {}> = (input: ClaudeToolPolicyInput<S>) => ToolPolicyResult | Promise<ToolPolicyResult>;

type PolicyFn<I> = (input: I) => ToolPolicyResult | Promise<ToolPolicyResult>;

/**
 * A policy per tool name: the gate's own tools by their name, the SDK's tools by the SDK's
 * name (`Bash`, `mcp__other__tool`). A call of a tool without an entry needs a grant (with
 * `grants`) or is denied (`policy_not_configured`).
 */
export type ClaudeToolPolicies<S extends Schemas = {}> = (string extends keyof S
  ? {}
  : { [K in keyof S & string]?: PolicyFn<ClaudeToolPolicyInputOf<K, ClaudeSchemaOutput<S[K]>>> }) & {
  [K in Exclude<keyof ClaudeBuiltinInputs, string extends keyof S ? never : keyof S>]?: PolicyFn<ClaudeToolPolicyInputOf<K, ClaudeBuiltinInputs[K]>>;
} & { [K in `mcp__${string}`]?: PolicyFn<ClaudeToolPolicyInputOf<string, SnapshotValue>> };

/** A decision of `evaluateToolCall`, as `onDecision` receives it (frozen). */
export interface ClaudeDecision {
  readonly decision: 'allow' | 'deny' | 'require_approval';
  readonly reason: string;
  readonly decidedBy: 'policy' | 'runtime';
  readonly agentName: string;
  readonly toolName: string;
  readonly argsCanonicalJson: string;
  readonly proposalHash: string;
  readonly proposal?: SuspendedToolProposal;
}

/** What `onDecision` learns with each decision (record it before anything runs). */
export interface ClaudeDecisionInfo {
  readonly toolCallId: string;
  readonly sessionId: string;
  readonly sdkToolName: string;
  readonly argumentsSource: ClaudeArgumentsSource;
}

export interface ClaudeToolGateOptions<S extends Schemas = {}> {
  agentName: string;
  /** The application's own tools, served in process as `mcp__SERVER__NAME`. */
  tools?: ClaudeGateTools<S>;
  /** The in-process MCP server's name (default `gate`). */
  serverName?: string;
  /** Not an inference site of the tools (NoInfer): its keys may name the SDK's tools. */
  policy?: ClaudeToolPolicy<NoInfer<S>> | ClaudeToolPolicies<NoInfer<S>>;
  grants?: ApprovalGrants;
  /** Default: the receipts in the grants' own store (memory receipts for memory grants); `false`: none. */
  receipts?: ExecutionReceipts | false;
  grantScope?:
    | string
    | null
    | ((call: { readonly sessionId: string; readonly agentId?: string }) => string | null | undefined | Promise<string | null | undefined>);
  proposalTtlMs?: number;
  onDecision?: (decision: ClaudeDecision, info: ClaudeDecisionInfo) => void | Promise<void>;
  includePath?: boolean;
  jsonSchemaOptions?: FromJsonSchemaOptions;
}

/** What `approve`, `decline` and `keptProposal` take. */
export interface ClaudeApprovalRequest {
  sessionId: string;
  toolUseId: string;
  grantScope?: string | null;
}

/** A call waiting for a reviewer, as `pending` lists it. */
export type ClaudePendingCall =
  | {
      readonly sessionId: string;
      readonly toolUseId: string;
      readonly toolName: string;
      readonly proposal: SealedProposal | ProposalFields;
      readonly error?: undefined;
    }
  | {
      readonly sessionId: string;
      readonly toolUseId: string;
      readonly error: { readonly name: 'ApprovalGrantError' | 'SnapshotDomainError'; readonly code: string };
      readonly proposal?: undefined;
    };

/** What `pending` reads: approval requests, SDK result messages (their `permission_denials`), or arrays of these. */
export type ClaudePendingSource =
  | ClaudeApprovalRequest
  | { session_id: string; permission_denials: ReadonlyArray<{ tool_use_id: string }> }
  | ReadonlyArray<ClaudeApprovalRequest | { session_id: string; permission_denials: ReadonlyArray<{ tool_use_id: string }> }>;

export interface ClaudeToolGate {
  /** `{ PreToolUse: [{ hooks: [preToolUse] }] }`: the query's hooks option (the only PreToolUse hook). */
  readonly hooks: { readonly PreToolUse: readonly HookCallbackMatcher[] };
  readonly preToolUse: HookCallback;
  /** For calls an ask rule sends on after the hook: allows only the input the gate handed over. */
  readonly canUseTool: (toolName: string, input: Record<string, unknown>, options: Parameters<CanUseTool>[2]) => Promise<PermissionResult>;
  /** `{ [serverName]: server }` when the gate has tools of its own. */
  readonly mcpServers: Readonly<Record<string, McpSdkServerConfigWithInstance>>;
  readonly serverName: string;
  /** The SDK's names of the gate's own tools (`mcp__SERVER__NAME`), for `allowedTools`. */
  readonly toolNames: readonly string[];
  /** The query options with the gate's hook, server and canUseTool added to yours. */
  queryOptions(options?: Options): Options;
  keptProposal(request: ClaudeApprovalRequest): Promise<SealedProposal | ProposalFields | undefined>;
  pending(source: ClaudePendingSource, options?: { grantScope?: string | null }): Promise<ClaudePendingCall[]>;
  approve(request: ClaudeApprovalRequest, options?: { uses?: number; ttlMs?: number; expiresAt?: number }): Promise<SealedProposal | ProposalFields>;
  decline(request: ClaudeApprovalRequest): Promise<void>;
  readonly grants: ApprovalGrants;
  readonly receipts: ExecutionReceipts | undefined;
}

export declare function createToolGate<S extends Schemas = {}>(options: ClaudeToolGateOptions<S>): ClaudeToolGate;
