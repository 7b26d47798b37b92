// Type declarations of tool-argument-snapshot, room receipts (lib/receipts/): execution receipts.
// Re-exported by index.d.ts (the package root); imports only from rooms below it.

import type { ExecutionReceiptStore, ExecutionReceiptKey } from '../stores/index';

// ---------------------------------------------------------------------------------
// Execution receipts: once per tool call (lib/receipts/, docs/receipts.md).

/** Options of createExecutionReceipts, read as own data properties (a Proxy is refused). */
export interface ExecutionReceiptsOptions {
  /** Any grant store of the package, or one with the six receipt methods (default: process memory). */
  store?: ExecutionReceiptStore;
  /** How long a claim holds before it reads as outcome_unknown (ms; default 5 minutes). */
  leaseMs?: number;
  /** How long a receipt with an outcome is kept after it (ms; default 24 hours). An unfinished claim is kept until `forget`. */
  retentionMs?: number;
  /** Keep a result that is JSON data (RFC 8785 JSON) and resolve it on a replay (default false). */
  keepResults?: boolean;
  /** Release the claim of a failed handler so a retry runs (default false). */
  retryFailed?: boolean;
  /** The clock, integer ms (default Date.now). Stores never use their own. */
  now?: () => number;
  /** How long the store may take at claim before receipt_store_unavailable (ms; default 5000). */
  timeoutMs?: number;
}

/** A receipt as `receipts.get` reads it: payload-free; `outcome_unknown` is an in-progress claim past its lease. */
export interface ExecutionReceipt {
  readonly agentName: string;
  readonly runId: string | null;
  readonly toolCallId: string;
  readonly status: 'in_progress' | 'completed' | 'failed' | 'outcome_unknown';
  readonly proposalHash: string;
  readonly claimedAt: number;
  readonly leaseExpiresAt: number;
  readonly completedAt: number | null;
  readonly expiresAt: number;
  /** Whether a result is kept (keepResults and a JSON-data result). */
  readonly hasResult: boolean;
}

/** Pass as `receipts` to executeToolCall or authorizeToolCall. */
export interface ExecutionReceipts {
  get(key: ExecutionReceiptKey): Promise<ExecutionReceipt | null>;
  /** Deletes a receipt whatever it says, so a new run of the key may happen: an operator's decision. */
  forget(key: ExecutionReceiptKey): Promise<boolean>;
  /** Deletes the receipts whose outcome is past its retention (never an unfinished claim); resolves how many. */
  prune(): Promise<number>;
  /** Whether the application gave the store (false: this process's memory). */
  readonly durable: boolean;
}

/** Execution receipts: at most one run per { agentName, runId, toolCallId }, bound to the proposal hash. */
export declare function createExecutionReceipts(options?: ExecutionReceiptsOptions): ExecutionReceipts;
