'use strict';
// Keeping, listing and resuming proposals that wait for a reviewer: the grants' methods
// read once, the namespaced key of a kept proposal, keep and grant options, granting a
// kept record once, and the TAS_NO_PENDING_PROPOSAL error of approve and decline.

const { BufferFrom, BufferPrototypeToString, ObjectDefineProperty, ReflectApply, SafeError } = require('./primordials');
const { own, setData } = require('./read');

/** The code of the error every adapter's approve (and decline) answers when nothing waits for the call. */
const NO_PENDING_PROPOSAL = 'TAS_NO_PENDING_PROPOSAL';

/**
 * The Error an adapter's `approve` rejects with when no proposal waits for approval of the
 * call (approved or declined before, run, expired, never asked under this agent and scope,
 * or a second approval of the same request): `code: 'TAS_NO_PENDING_PROPOSAL'`. The
 * message says what the adapter looked for, never a payload.
 */
function noPendingProposalError(message) {
  const error = new SafeError(message ?? 'no proposal is waiting for approval for this tool call (approved or declined before, expired, or never asked)');
  ObjectDefineProperty(error, 'code', { __proto__: null, value: NO_PENDING_PROPOSAL, enumerable: true, writable: true, configurable: true });
  return error;
}

/** A grants method read once as an own data function, or undefined. */
function grantsMethod(grants, name) {
  const method = own(grants, name);
  return typeof method === 'function' ? method : undefined;
}

/** The grants' proposal methods, read once, each called with the grants as `this`. */
function proposalStore(grants) {
  const keep = grantsMethod(grants, 'keepProposal');
  const kept = grantsMethod(grants, 'keptProposal');
  const forget = grantsMethod(grants, 'forgetProposal');
  return {
    /** Whether the grants keep proposals at all (their store has the proposal methods). */
    present: keep !== undefined && kept !== undefined && forget !== undefined,
    keep: (key, proposal, options) => ReflectApply(keep, grants, [key, proposal, options]),
    kept: (key) => ReflectApply(kept, grants, [key]),
    forget: (key) => ReflectApply(forget, grants, [key]),
  };
}

/** The run id a proposal is kept under: the adapter, agent and grant scope, then the run. */
function keptRunId(prefix, agentName, scope, runId) {
  const scopePart = scope === null ? '-' : `${scope.length}:${scope}`;
  return `${prefix} ${agentName.length}:${agentName} ${scopePart} ${runId}`;
}

/**
 * The id a reviewer names a kept proposal by (`tool-argument-snapshot pending` lists it,
 * `grant --id` and `decline --id` take it): the base64url form of the UTF-8 of its store
 * key, the run id's length, `:`, the run id, then the call id (docs/cli.md).
 */
function keptIdOf(key) {
  return BufferPrototypeToString(BufferFrom(`${key.runId.length}:${key.runId}${key.toolCallId}`, 'utf8'), 'base64url');
}

/** The options of keepProposal: the grant scope and, when given, the proposal's ttl. */
function keepOptions(scope, proposalTtlMs) {
  const options = { scope };
  if (proposalTtlMs !== undefined) setData(options, 'ttlMs', proposalTtlMs);
  return options;
}

const GRANT_OPTION_NAMES = ['uses', 'ttlMs', 'expiresAt'];

/** The options of grants.grant: `uses`, `ttlMs`, `expiresAt` of approve's options (own data), and the scope. */
function grantOptions(given, scope) {
  const passed = {};
  if (given !== null) {
    for (let i = 0; i < GRANT_OPTION_NAMES.length; i++) {
      const value = own(given, GRANT_OPTION_NAMES[i]);
      if (value !== undefined) setData(passed, GRANT_OPTION_NAMES[i], value);
    }
  }
  setData(passed, 'scope', scope);
  return passed;
}

/**
 * Grants `record` once. When another approval of the same sealed record granted it first
 * (its nonce is recorded: `seal_used`), rejects with `notPending()` instead.
 */
async function grantOnce(grant, grants, record, passed, isApprovalGrantError, notPending) {
  try {
    await ReflectApply(grant, grants, [record, passed]);
  } catch (error) {
    if (isApprovalGrantError(error) && own(error, 'code') === 'seal_used') throw notPending();
    throw error;
  }
}

module.exports = {
  NO_PENDING_PROPOSAL,
  noPendingProposalError,
  grantsMethod,
  proposalStore,
  keptRunId,
  keptIdOf,
  keepOptions,
  grantOptions,
  grantOnce,
};
