'use strict';
// Reading gateMcpServer's options, the same on both SDK lines (the elicitation's needs
// aside: a gate's own): the agent, the policy (one function, or one per tool name, looked up
// when a tool is first called: tools may be registered after the gate), the grants,
// elicitation, policyContext and idempotencyScope (functions of the request's extra on 1.x,
// of its context on 2.x), the http options, the receipts, and the approval requests kept
// for a reviewer (proposals.js). Messages name the option, never a value.

const { ObjectFreeze, ReflectApply, SafeMap, MapPrototypeGet, MapPrototypeSet, isProxy } = require('../gate/primordials');
const { invalidArgument, own, readOptions, isWellFormedString } = require('../gate/read');
const { readReceipts } = require('../gate/receipts');
const { readProposalTtl } = require('../gate/options');
const { createKeeping } = require('./proposals');

/**
 * The policy of a tool name, looked up at its first call and kept: the map's entry or the
 * function, behind the grants' policy; null when there is none.
 */
function policiesOf(appPolicy, grants) {
  const policyMap = appPolicy !== null && typeof appPolicy === 'object' && !isProxy(appPolicy) ? appPolicy : undefined;
  if (appPolicy !== undefined && policyMap === undefined && (typeof appPolicy !== 'function' || isProxy(appPolicy))) {
    throw invalidArgument('options.policy must be a function or an object of functions by tool name');
  }
  const policies = new SafeMap();
  return function policyFor(toolName) {
    let policy = MapPrototypeGet(policies, toolName);
    if (policy !== undefined) return policy;
    let base = appPolicy;
    if (policyMap !== undefined) {
      base = own(policyMap, toolName);
      if (base !== undefined && (typeof base !== 'function' || isProxy(base))) throw invalidArgument(`options.policy.${toolName} must be a function`);
    }
    policy = grants === undefined ? base : ReflectApply(own(grants, 'policy'), grants, base === undefined ? [] : [base]);
    if (policy === undefined) policy = null;
    MapPrototypeSet(policies, toolName, policy);
    return policy;
  };
}

/**
 * The gate's record from `options` (`usage`: the message for no options at all; `of`: what
 * policyContext and idempotencyScope are functions of, in their messages).
 */
function readGateOptions(options, usage, of) {
  const opts = readOptions(options, 'gateMcpServer options');
  if (opts === null) throw invalidArgument(usage);
  const agentName = own(opts, 'agentName');
  if (!isWellFormedString(agentName) || agentName === '') throw invalidArgument('options.agentName must be a non-empty, well-formed string');
  const grants = own(opts, 'grants');
  // The policy is checked before the grants (whose policy it is called through only at a call).
  const policyFor = policiesOf(own(opts, 'policy'), grants);
  if (
    grants !== undefined &&
    (grants === null ||
      typeof grants !== 'object' ||
      isProxy(grants) ||
      typeof own(grants, 'policy') !== 'function' ||
      typeof own(grants, 'grant') !== 'function')
  ) {
    throw invalidArgument('options.grants must be an object made by createApprovalGrants');
  }
  const elicitation = own(opts, 'elicitation');
  if (elicitation !== undefined && typeof elicitation !== 'boolean') throw invalidArgument('options.elicitation must be a boolean');
  const contextOf = own(opts, 'policyContext');
  if (contextOf !== undefined && typeof contextOf !== 'function') throw invalidArgument(`options.policyContext must be a function of the request ${of}`);
  const idempotencyScope = own(opts, 'idempotencyScope');
  if (idempotencyScope !== undefined && (typeof idempotencyScope !== 'function' || isProxy(idempotencyScope))) {
    throw invalidArgument(`options.idempotencyScope must be a function of the request ${of}`);
  }
  const httpOptions = readOptions(own(opts, 'http'), 'options.http');
  // Receipts (unless given: those in the grants' store when the grants are durable, else the
  // shared process memory ones; none with false).
  const receipts = readReceipts(opts, grants, 'mcp');
  const proposalTtlMs = readProposalTtl(opts);
  // Each approval request kept in the grants' store for a reviewer (adapters/mcp/proposals.js).
  const keeping = createKeeping(grants, agentName, proposalTtlMs);
  // executeToolCall's options: without and with receipts (made once, never per call).
  const plainOptions = grants === undefined ? undefined : ObjectFreeze({ __proto__: null, grants });
  let keyedOptions;
  if (receipts !== undefined) keyedOptions = ObjectFreeze(grants === undefined ? { __proto__: null, receipts } : { __proto__: null, grants, receipts });
  return {
    agentName,
    grants,
    policyFor,
    elicitation: elicitation === true,
    contextOf,
    idempotencyScope,
    httpOptions,
    receipts,
    proposalTtlMs,
    keeping,
    plainOptions,
    keyedOptions,
  };
}

module.exports = { readGateOptions };
