// Type declarations of tool-argument-snapshot/ai (adapters/ai.js), the RFC-0016 gate for the
// Vercel AI SDK 7. `ai` is an optional peer dependency.

import type { GenericToolApprovalFunction, LanguageModelMiddleware, ToolSet, wrapLanguageModel } from 'ai';
import type {
  ApprovalGrants,
  SuspendedToolProposal,
  ToolCallDecision,
  ToolPolicyInput,
  ToolPolicyResult,
} from 'tool-argument-snapshot';

/**
 * Where a call's arguments came from. `provider_text`: the provider's own string, recorded
 * by the gate's model middleware and strict-decoded. `history`: a resumed call, replayed by
 * the SDK from message history, where only a parsed object exists; `rawArguments` is then
 * the package's RFC 8785 serialization of that object (it must be strict JSON data), not
 * provider evidence, and strict decoding of provider text cannot apply.
 */
export type ArgumentsSource = 'provider_text' | 'history';

/** What the policy sees: the package's policy input plus the SDK call's id and argument source. */
export type AIToolPolicyInput = ToolPolicyInput & {
  readonly toolCallId: string | undefined;
  readonly argumentsSource: ArgumentsSource;
  /** The SDK's `runtimeContext` (approval hook only; undefined when `execute` decides). */
  readonly runtimeContext: unknown;
};

/** What `onDecision` learns with each decision (record it before anything executes). */
export interface AIToolDecisionInfo {
  readonly toolCallId: string | undefined;
  readonly argumentsSource: ArgumentsSource;
  /** True on the SDK's resume path (an approved call replayed from history). */
  readonly resume: boolean;
}

export interface ToolGateOptions<TOOLS extends ToolSet> {
  agentName: string;
  /** The app's AI SDK tools. Tools with an `execute` (not provider-executed) are guarded. */
  tools: TOOLS;
  /**
   * Decides each call from a fresh view. Asked after the grants: an approved hash allows
   * first. Without it, a call without a grant needs approval when `grants` is given, and
   * every call is denied (`policy_not_configured`) when neither is.
   */
  policy?: (input: AIToolPolicyInput) => ToolPolicyResult | Promise<ToolPolicyResult>;
  /** Default: `createApprovalGrants()` (in memory). Share one for approvals across gates. */
  grants?: ApprovalGrants;
  /** The approval function for tools the gate does not guard (default: their needsApproval). */
  toolApproval?: GenericToolApprovalFunction<TOOLS, any, any>;
  /** Called with every decision before the SDK acts on it; a throw stops the run. */
  onDecision?: (decision: ToolCallDecision, info: AIToolDecisionInfo) => void | Promise<void>;
  /** Attach JSON Pointers of failing values to errors (payload keys; off by default). */
  includePath?: boolean;
}

/** A `tool-approval-request` content part of a generateText/streamText result. */
export interface AIToolApprovalRequestPart {
  readonly type: 'tool-approval-request';
  readonly approvalId: string;
  readonly toolCall: { readonly toolCallId: string; readonly toolName: string; readonly input: unknown };
}

export interface ToolGate<TOOLS extends ToolSet> {
  /** Pass as `tools`: the same tools, validated and executed through the package. */
  readonly tools: TOOLS;
  /** Pass as `toolApproval`: the policy's decision (allow / denied / user-approval). */
  readonly toolApproval: GenericToolApprovalFunction<TOOLS, any, any>;
  /** The middleware that records the provider's raw argument strings (innermost). */
  readonly middleware: LanguageModelMiddleware;
  /** `wrapLanguageModel({ model, middleware })`: pass the provider's model directly. */
  model(model: Parameters<typeof wrapLanguageModel>[0]['model']): ReturnType<typeof wrapLanguageModel>;
  /** The SuspendedToolProposal behind an approval request of a result, or undefined. */
  proposalOf(part: AIToolApprovalRequestPart): SuspendedToolProposal | undefined;
  /**
   * Grants exactly that proposal (by hash) and returns the approval response to send back
   * in a `tool` message.
   * @throws {TypeError} when the part is not an approval request made through this gate.
   */
  approve(
    part: AIToolApprovalRequestPart,
    options?: { uses?: number; ttlMs?: number; expiresAt?: number },
  ): Promise<{ type: 'tool-approval-response'; approvalId: string; approved: true }>;
  readonly grants: ApprovalGrants;
}

/** RFC-0016 for an AI SDK app: `model: gate.model(model), tools: gate.tools, toolApproval: gate.toolApproval`. */
export declare function createToolGate<TOOLS extends ToolSet>(options: ToolGateOptions<TOOLS>): ToolGate<TOOLS>;
