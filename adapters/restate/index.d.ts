// Type declarations of tool-argument-snapshot/restate (adapters/restate/index.js): AI SDK
// tools as steps of a Restate handler. Optional peers: @restatedev/restate-sdk and ai.

import type { LanguageModelMiddleware, ToolSet, wrapLanguageModel } from 'ai';
import type { ApprovalGrants, ExecutionReceipts } from 'tool-argument-snapshot';
import type { DurableGateOptions, RecordedProposal } from '../durable/index';

export type { DurableCallOutcome, RecordedProposal, ReviewerAnswer } from '../durable/index';

/** What the reviewer's side is sent, once per call needing approval (inside a step: send it idempotently by `awakeableId`). */
export interface RestateApprovalRequest {
  /** Resolve it with the answer: `ctx.resolveAwakeable(id, answer)` or `POST /restate/awakeables/{id}/resolve`. */
  readonly awakeableId: string;
  readonly toolName: string;
  readonly toolCallId: string;
  readonly reason: string;
  /** What the reviewer approves; the answer carries it back (`{ approved: true, proposal }`). */
  readonly proposal: RecordedProposal;
}

export interface RestateToolGateOptions<TOOLS extends ToolSet> extends DurableGateOptions<TOOLS, { readonly toolCallId: string }> {
  /** Without it, a call that needs approval is denied (`approval_required`). */
  approvals?: { request(request: RestateApprovalRequest): void | Promise<void> };
}

export interface RestateToolGate<TOOLS extends ToolSet> {
  /** Pass as `tools`: each call is prepared from the journaled provider text and decided and executed in one `ctx.run`. */
  readonly tools: TOOLS;
  /** `wrapLanguageModel` with the recording middleware: wrap the model `durableCalls(ctx)` made durable. */
  model(model: Parameters<typeof wrapLanguageModel>[0]['model']): ReturnType<typeof wrapLanguageModel>;
  readonly middleware: LanguageModelMiddleware;
  readonly grants: ApprovalGrants;
  readonly receipts: ExecutionReceipts | undefined;
  /** The invocation id: a receipt's `runId` is `${invocationId}/${model step}`. */
  readonly invocationId: string;
}

/** A gate for one invocation of a Restate handler (`ctx`: the handler's context). */
export declare function createRestateToolGate<TOOLS extends ToolSet>(
  ctx: {
    run: (...args: any[]) => PromiseLike<any>;
    awakeable: (...args: any[]) => { id: string; promise: PromiseLike<any> };
    request(): { readonly id: string };
  },
  options: RestateToolGateOptions<TOOLS>,
): RestateToolGate<TOOLS>;
