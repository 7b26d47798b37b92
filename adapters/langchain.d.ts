// Type declarations of tool-argument-snapshot/langchain (adapters/langchain.js), the
// RFC-0016 gate for LangChain.js core 1.x. @langchain/core is an optional peer dependency.
// langchain.d.ts and langchain.d.mts are the same text (a test checks it): TypeScript resolves
// @langchain/core's own types by the importer's module kind, so CommonJS and ESM each need one.

import type { AIMessage, AIMessageChunk, ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { StructuredToolInterface, ToolInputParsingException } from '@langchain/core/tools';
import type {
  ApprovalGrants,
  SuspendedToolProposal,
  ToolArgumentsValidationError,
  ToolCallDecision,
  ToolPolicyInput,
  ToolPolicyResult,
} from 'tool-argument-snapshot';

/**
 * Where a call's arguments came from. `provider_text`: the provider's own string
 * (OpenAI-style `additional_kwargs.tool_calls[].function.arguments`, concatenated
 * `tool_call_chunks[].args`, or the text of an `invalid_tool_calls` entry), strict-decoded.
 * `object`: the integration gave a parsed object (Anthropic, Gemini); `rawArguments` is
 * then the adapter's RFC 8785 serialization of that object, not provider evidence, and
 * strict decoding could not apply (duplicate keys were already collapsed by whoever parsed it).
 */
export type ArgumentsSource = 'provider_text' | 'object';

/** What the policy sees: the package's policy input plus the call's id and argument source. */
export type LangChainToolPolicyInput = ToolPolicyInput & {
  readonly toolCallId: string | undefined;
  readonly argumentsSource: ArgumentsSource;
};

/** A call waiting for approval. Frozen. Grant it with `grants.grant(proposal)`. */
export interface LangChainToolProposal extends SuspendedToolProposal {
  readonly toolCallId: string | undefined;
  readonly argumentsSource: ArgumentsSource;
}

/** LangChain's invalid-input error, with the package's error (no payload) as `cause`. */
export interface LangChainInvalidToolInput extends ToolInputParsingException {
  readonly cause: ToolArgumentsValidationError;
}

interface ToolCallResultBase {
  readonly toolCallId: string | undefined;
  readonly toolName: string;
  readonly argumentsSource: ArgumentsSource;
}

interface DecidedResult extends ToolCallResultBase {
  readonly decision: ToolCallDecision;
  readonly decidedBy: 'policy' | 'runtime';
  readonly reason: string;
}

/** One tool call of the message, as the gate handled it. Frozen. */
export type LangChainToolCallResult =
  /** The tool ran; `message` is LangChain's ToolMessage (`output` when the call had no id). */
  | (DecidedResult & { readonly status: 'executed'; readonly decidedBy: 'policy'; readonly message?: ToolMessage; readonly output?: unknown })
  /**
   * Nothing ran: the policy denied, or the runtime did (`policy_mutated_arguments`,
   * `policy_error`, `invalid_policy_result`, `policy_not_configured`, or
   * `grant_unavailable` when the grant was spent by another attempt first).
   */
  | (DecidedResult & { readonly status: 'denied'; readonly message: ToolMessage })
  /** Nothing ran; the call waits for approval and has no ToolMessage yet. */
  | (DecidedResult & { readonly status: 'pending'; readonly decidedBy: 'policy'; readonly proposal: LangChainToolProposal })
  /** Stage json, schema or snapshot failed: LangChain's invalid-input path, not a decision. */
  | (ToolCallResultBase & { readonly status: 'invalid_input'; readonly error: LangChainInvalidToolInput; readonly message: ToolMessage })
  /** The model named a tool the gate does not have. */
  | (ToolCallResultBase & { readonly status: 'unknown_tool'; readonly message: ToolMessage });

export interface LangChainToolRun {
  /** One ToolMessage per call that is answered (every status but `pending`), in call order. */
  readonly messages: ToolMessage[];
  /** The calls waiting for approval. */
  readonly pending: LangChainToolProposal[];
  readonly results: LangChainToolCallResult[];
}

export interface LangChainToolGate {
  readonly agentName: string;
  /**
   * Runs the tool calls of a model message, one after the other: strict decoding of the
   * provider text, the tool's schema once, the policy on a fresh view, and on allow the
   * tool's own `_call` with its own view (LangChain's callbacks and ToolMessage
   * formatting apply; its zod does not run again). Errors thrown by a tool propagate.
   */
  run(
    message: AIMessage | AIMessageChunk,
    options?: {
      /** Only these calls (to resume approved calls of a stored message). */
      toolCallIds?: readonly string[];
      /** Passed to the tool run (callbacks, signal, tags...). */
      config?: RunnableConfig;
      /** Extra policy input fields (own data properties are copied). */
      policyContext?: object;
    },
  ): Promise<LangChainToolRun>;
}

/**
 * A gate for LangChain tools made with `tool()` or any StructuredTool whose `schema` is a
 * zod (3 or 4) or Standard Schema. Bind the same tools to the model as before.
 * With `grants`, a live grant for exactly this agent, tool and proposal hash allows (and
 * is spent when the call executes); every other call goes to `policy`. Without `policy`
 * (and without grants) every call is denied (`policy_not_configured`).
 * @throws {TypeError} for a bad option, a JSON-schema tool or two tools with one name.
 */
export declare function createToolGate(options: {
  agentName: string;
  tools: readonly StructuredToolInterface[];
  policy?: (input: LangChainToolPolicyInput) => ToolPolicyResult | Promise<ToolPolicyResult>;
  grants?: ApprovalGrants;
  /** Attach JSON Pointers to argument errors (`error.cause.path`); they hold payload keys. */
  includePath?: boolean;
}): LangChainToolGate;
