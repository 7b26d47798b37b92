// Type declarations of tool-argument-snapshot, room diff (lib/diff.js): a reviewer's diff.
// Re-exported by index.d.ts (the package root); imports only from rooms below it.

import type { SnapshotValue } from './snapshot/index';

// ---------------------------------------------------------------------------------
// A reviewer's diff (lib/diff.js).

/** One difference between an approved and a proposed snapshot (see diffSnapshots). */
export interface SnapshotDiffEntry {
  /**
   * RFC 6901 JSON Pointer of the member or element ('' is the whole value; "~" is written
   * "~0" and "/" is written "~1"). Made of the payload's own keys: treat it as sensitive.
   */
  readonly path: string;
  /**
   * 'added': only in the proposed value; 'removed': only in the approved value;
   * 'changed': in both and different (a change of type is not descended into).
   */
  readonly kind: 'added' | 'removed' | 'changed';
  /** With `includeValues: true`, absent for 'added': the approved value at `path`, a fresh decoded copy. */
  readonly approved?: SnapshotValue;
  /** With `includeValues: true`, absent for 'removed': the proposed value at `path`, a fresh decoded copy. */
  readonly proposed?: SnapshotValue;
}

/**
 * Where a proposed call's arguments differ from an approved one's, for a reviewer. Both
 * sides (snapshots, prepared calls, decisions, SuspendedToolProposals, sealed proposals or
 * records loaded from storage) are verified as verifySnapshot verifies them and decoded
 * afresh from their verified canonical JSON. Returns a frozen array of frozen entries in
 * canonical key order (RFC 8785 member order, depth first, arrays by index); equal
 * arguments give `[]`. Paths hold payload keys and, with `includeValues`, entries hold
 * payload values. A diff is a reviewer's aid, never an authorization: an approval binds
 * the proposal hash.
 * @throws {SnapshotDomainError} when either side does not verify (the verifySnapshot codes).
 * @throws {TypeError} code `ERR_INVALID_ARG_VALUE` when the agents or the tools differ;
 * `ERR_INVALID_ARG_TYPE` when `options` is not an object or is a Proxy.
 */
export declare function diffSnapshots(approved: unknown, proposed: unknown, options?: { includeValues?: boolean }): readonly SnapshotDiffEntry[];
