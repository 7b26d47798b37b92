// Type declarations of tool-argument-snapshot/temporal (adapters/temporal/index.js): the
// worker's activities of the Temporal gate. Optional peers: @temporalio/activity and ai.

import type { ToolSet } from 'ai';
import type { DurableCallOutcome, DurableGateOptions, RecordedProposal, ReviewerAnswer } from '../durable/index';

export type { DurableCallOutcome, RecordedProposal, ReviewerAnswer } from '../durable/index';

/** What the workflow passes: the provider's text as the model activity returned it. */
export interface ToolCallRequest {
  readonly toolName: string;
  /** The provider's call id (the policy's `providerToolCallId`; the receipt is keyed by the activity id). */
  readonly toolCallId: string;
  readonly rawArguments: string;
}

export interface ToolActivities {
  /**
   * One attempt of a call, keyed `{ agentName, runId: `${workflowId}/${runId}`, toolCallId: activityId }`.
   * Throws a retryable ApplicationFailure (type `execution_in_progress`, `receipt_store_unavailable`)
   * when it cannot be attempted now.
   */
  runToolCall(request: ToolCallRequest): Promise<DurableCallOutcome>;
  /** Grants the reviewer's answer when it carries the proposal `runToolCall` asked for. */
  grantToolCall(request: { answer: ReviewerAnswer | unknown; proposal: RecordedProposal }): Promise<{ granted: true } | { refused: string }>;
}

/** The activities to register with the Worker (`activities: { ...createToolActivities(options) }`). */
export declare function createToolActivities<TOOLS extends ToolSet>(
  options: DurableGateOptions<TOOLS, { readonly providerToolCallId: string | null }>,
): ToolActivities;
