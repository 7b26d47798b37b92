// Type declarations of tool-argument-snapshot, room grants (lib/grants/): approval grants.
// Re-exported by index.d.ts (the package root); imports only from rooms below it.

import type { ToolPolicyInput, ToolPolicyResult } from '../run/index';
import type { ExecutionReceipts } from '../receipts/index';
import type { ApprovalGrantStore, ApprovalGrantRecord, ApprovalGrantQuery } from '../stores/index';

// ---------------------------------------------------------------------------------
// Approval grants bound to the proposal hash and an optional scope (lib/grants/).

/** A key of the ring: `id` non-empty; `secret` a string (its UTF-8 bytes) or bytes, at least 32 bytes. */
export interface ApprovalKey {
  id: string;
  secret: string | Uint8Array;
}

export interface ApprovalGrantsOptions {
  /** Default: an in-memory store (one process). */
  store?: ApprovalGrantStore;
  /** The clock, in milliseconds. Default: `Date.now`. */
  now?: () => number;
  /** Default uses of a grant. Default: 1 (single use). */
  uses?: number;
  /** Default lifetime of a grant in milliseconds. Default: none (grants do not expire). */
  ttlMs?: number;
  /**
   * A key ring: the first key seals, every key verifies. With keys, `grant` accepts only
   * sealed proposals that verify, are live and were never granted before.
   */
  keys?: readonly ApprovalKey[];
  /**
   * How long a granted seal's nonce is kept past the seal's expiry, so that processes whose
   * clocks disagree by less never grant one seal twice. Default: one day (86,400,000 ms).
   */
  nonceRetentionMs?: number;
}

/**
 * A sealed proposal: a plain JSON object signed with HMAC-SHA256 (lowercase hex) over
 * the UTF-8 RFC 8785 form of the same object without `signature` (docs/approvals.md).
 */
export interface SealedProposal {
  v: 1;
  agentName: string;
  toolName: string;
  argsCanonicalJson: string;
  proposalHash: string;
  keyId: string;
  /** 128 random bits, 32 lowercase hex digits. */
  nonce: string;
  /** Until when the seal can be granted (the grants' clock), or null. */
  expiresAt: number | null;
  /** The scope the grant will have, or null. */
  scope: string | null;
  signature: string;
}

/** The snapshot fields of a proposal: a SuspendedToolProposal, a decision, a snapshot or a stored record. */
export interface ProposalFields {
  agentName: string;
  toolName: string;
  argsCanonicalJson: string;
  proposalHash: string;
}

/** Where an adapter keeps a proposal: one run, one call. */
export interface ProposalKey {
  runId: string;
  toolCallId: string;
}

export interface ApprovalGrants {
  /**
   * Grants exactly this action. Without keys: `approved` is a SuspendedToolProposal, a
   * decision, or a stored record, checked with `verifySnapshot` first. With keys: only a
   * sealed proposal that verifies, is not expired and was never granted.
   * @throws {SnapshotDomainError} `not_a_snapshot`, `not_canonical` or `hash_mismatch`.
   * @throws {ApprovalGrantError} with keys: `not_sealed`, `unknown_key`, `bad_signature`,
   * `seal_expired`, `seal_used`.
   * @throws {TypeError} a Proxy, bad options, or a `scope` other than the sealed one.
   */
  grant(
    approved: ProposalFields | SealedProposal,
    options?: { uses?: number; ttlMs?: number; expiresAt?: number; scope?: string | null },
  ): Promise<ApprovalGrantRecord>;
  /**
   * Seals a proposal for an approval that leaves the server (synchronous).
   * @throws {TypeError} without keys.
   */
  seal(proposal: ProposalFields, options?: { ttlMs?: number; scope?: string | null }): SealedProposal;
  /**
   * Verifies a sealed proposal without granting it (for a reviewer's display): its
   * signature, its expiry on the grants' clock and its hash; returns a fresh copy.
   * @throws {TypeError} without keys. @throws {ApprovalGrantError} (not `seal_used`).
   * @throws {SnapshotDomainError}.
   */
  verify(sealed: unknown): SealedProposal;
  /** Whether these grants seal (a key ring was given). */
  readonly sealing: boolean;
  /** Whether the grants keep their records in a store the application gave (false: this process's memory). */
  readonly durable: boolean;
  /**
   * The execution receipts kept in the grants' own store (one object per store), or null
   * when the grants live in this process's memory or the store lacks the six receipt
   * operations. Every gate given these grants uses them by default.
   */
  executionReceipts(): ExecutionReceipts | null;
  /** Whether a live grant matches (a read; spends nothing). */
  has(query: ApprovalGrantQuery): Promise<boolean>;
  /** Removes every grant of this action and scope (needs `store.delete`). */
  revoke(query: ApprovalGrantQuery): Promise<void>;
  /** Removes expired and used-up grants, nonces and kept proposals (needs `store.prune`). */
  prune(): Promise<number>;
  /**
   * A policy that asks `fallback` first (default: `{ decision: 'require_approval', reason:
   * 'approval_required' }`) and returns its answer, except that a `require_approval` is
   * answered allow (`reason: 'approval_granted'`) when a live grant matches the call's
   * agent, tool, hash and `policyContext.grantScope`: an allow or a deny of `fallback` is
   * final, and looks nothing up. Looking spends nothing: the evaluation that relied on the
   * grant spends one use right before its handler runs, however the result is copied.
   * Called with anything but the input evaluateToolCall made, it answers as `fallback`.
   */
  policy<I extends ToolPolicyInput<any>>(fallback?: (input: I) => ToolPolicyResult | Promise<ToolPolicyResult>): (input: I) => Promise<ToolPolicyResult>;
  /**
   * The `grants` hook of `executeToolCall` / `authorizeToolCall`: for an allow whose
   * evaluation relied on grants, spends them (once, whoever asks first) and returns
   * whether it did; for any other allow returns true and spends nothing; otherwise false.
   */
  spend(decision: unknown): Promise<boolean>;
  /** Keeps a proposal for a run and a call (sealed with keys). Returns what was kept. */
  keepProposal(key: ProposalKey, proposal: ProposalFields, options?: { ttlMs?: number; scope?: string | null }): Promise<SealedProposal | ProposalFields>;
  /** The proposal kept for a run and a call, verified again, or undefined. */
  keptProposal(key: ProposalKey): Promise<SealedProposal | ProposalFields | undefined>;
  forgetProposal(key: ProposalKey): Promise<void>;
  /**
   * A page of the proposals kept in the store (for a review screen or the CLI's `pending`):
   * each verified as keptProposal does, or, when it does not verify, only its `error`
   * (ApprovalGrantError or SnapshotDomainError, such as `bad_signature` or `hash_mismatch`),
   * never its text. `limit` 1 to 1000 (default 100); pass `cursor` from the previous page.
   * Needs a store with listProposals (every store of the package has it).
   */
  listProposals(options?: { limit?: number; cursor?: string | null }): Promise<{ proposals: KeptProposalEntry[]; cursor: string | null }>;
}

/** One entry of ApprovalGrants.listProposals: its ids, and the verified proposal or the error. */
export interface KeptProposalEntry {
  runId: string | null;
  toolCallId: string | null;
  proposal?: SealedProposal | ProposalFields;
  error?: Error & { code: string };
}

/** Approval grants bound to agent, tool, proposal hash and scope, spent when the call executes. */
export declare function createApprovalGrants(options?: ApprovalGrantsOptions): ApprovalGrants;
