// Type declarations of tool-argument-snapshot/temporal/workflow (adapters/temporal/workflow.js):
// the workflow's side of the Temporal gate, for the workflow sandbox. Optional peer: ai.

import type { LanguageModelMiddleware, ToolSet, wrapLanguageModel } from 'ai';
import type { RecordedProposal, ReviewerAnswer } from '../durable/index';
import type { ToolActivities } from './index';

export type { RecordedProposal, ReviewerAnswer } from '../durable/index';

/** What `approval` is given for a call that needs a reviewer. */
export interface WorkflowApprovalRequest {
  readonly toolName: string;
  readonly toolCallId: string;
  readonly reason: string;
  readonly proposal: RecordedProposal;
}

export interface WorkflowToolGateOptions<TOOLS extends ToolSet> {
  /** The tools the model is shown (description, inputSchema); an execute here is never called. */
  tools: TOOLS;
  /** The activities, from `proxyActivities<ToolActivities>(...)`. */
  runToolCall: ToolActivities['runToolCall'];
  grantToolCall: ToolActivities['grantToolCall'];
  /** Resolves the reviewer's answer (for example once a signal arrived: `condition`). Without it, a call that needs approval is denied. */
  approval?: (request: WorkflowApprovalRequest) => Promise<ReviewerAnswer>;
}

export interface WorkflowToolGate<TOOLS extends ToolSet> {
  readonly tools: TOOLS;
  /** Wrap the model (`temporalProvider.languageModel(...)`): records each tool call's provider text. */
  model(model: Parameters<typeof wrapLanguageModel>[0]['model']): ReturnType<typeof wrapLanguageModel>;
  readonly middleware: LanguageModelMiddleware;
}

export declare function createWorkflowToolGate<TOOLS extends ToolSet>(options: WorkflowToolGateOptions<TOOLS>): WorkflowToolGate<TOOLS>;
