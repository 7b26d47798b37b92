// Type declarations of tool-argument-snapshot/mcp (adapters/mcp/index.js), the RFC-0016 gate for
// an McpServer of @modelcontextprotocol/sdk 1.x (an optional peer dependency).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { StreamableHTTPServerTransportOptions } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type {
  ApprovalGrants,
  ExecutionReceipts,
  ProposalFields,
  SealedProposal,
  SnapshotValue,
  ToolPolicyInput,
  ToolPolicyResult,
} from 'tool-argument-snapshot';

/**
 * Where a call's arguments came from. `message_text`: the exact text of `arguments` in the
 * JSON-RPC message, read by one of the gate's transports and strict-decoded. `object`: the
 * message reached the server through another transport (the SDK's own), which had already
 * parsed it (duplicate keys resolved last-wins); `rawArguments` is then the package's
 * RFC 8785 serialization of that object.
 */
export type McpArgumentsSource = 'message_text' | 'object';

/** The `extra` the SDK passes to request handlers. */
export type McpRequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * What the policy sees: the package's policy input, the JSON-RPC request id, the
 * arguments' source, the session id, the idempotency key the request named, and the
 * fields your `policyContext` returned. `parsedArguments` is `T`, `unknown` unless the
 * gate is given the tools' argument types (`gateMcpServer<{ pay: { to: string } }>`):
 * the tools of an McpServer are not typed here, and a policy must narrow what it reads.
 */
export type McpPolicyInput<T = unknown> = ToolPolicyInput<T> & {
  readonly toolCallId: string;
  readonly argumentsSource: McpArgumentsSource;
  readonly sessionId?: string;
  /** The request's `_meta["tool-argument-snapshot/idempotency-key"]`, when it named one. */
  readonly idempotencyKey?: string;
};

export type McpPolicy<T = unknown> = (input: McpPolicyInput<T>) => ToolPolicyResult | Promise<ToolPolicyResult>;

/**
 * The argument types of the gated tools by tool name, the type parameter of
 * `gateMcpServer`, for example `{ pay: { to: string; amount: number } }`. It types what
 * the policies read; the tools' own input schemas decide what runs.
 */
export type McpToolArguments = object;

/** The policy input of a call of one of `Tools`: `toolName` says which, and narrows `parsedArguments`. */
export type McpToolPolicyInput<Tools extends McpToolArguments> = {
  [K in keyof Tools & string]: McpPolicyInput<Tools[K]> & { readonly toolName: K };
}[keyof Tools & string];

/**
 * The `policy` option: one function for every tool, or one per tool name. Without
 * `Tools`, every policy reads `parsedArguments` as `unknown`; with `Tools`, the map names
 * only its tools, each policy gets its tool's arguments, and one function for all gets
 * an input whose `toolName` narrows them.
 */
export type McpPolicyOption<Tools extends McpToolArguments = {}> = [keyof Tools & string] extends [never]
  ? McpPolicy<unknown> | { readonly [toolName: string]: McpPolicy<unknown> }
  :
      | ((input: McpToolPolicyInput<Tools>) => ToolPolicyResult | Promise<ToolPolicyResult>)
      | { readonly [K in keyof Tools & string]?: McpPolicy<Tools[K]> };

export interface GateMcpServerOptions<Tools extends McpToolArguments = {}> {
  agentName: string;
  /**
   * One function for every tool, or one per tool name. A tool without an entry is denied
   * (`policy_not_configured`) without grants, and needs an approval with grants. Asked
   * first: its allow and its deny are final, the grants answer only its `require_approval`.
   */
  policy?: McpPolicyOption<Tools>;
  /**
   * When the policy answers `require_approval`, a live grant for exactly this call allows
   * it once. With keys, an approval result carries a sealed proposal. Each approval request
   * is kept in their store (`grants.keepProposal`) for a reviewer: `tool-argument-snapshot
   * pending` lists it under the result's `pendingId`.
   */
  grants?: ApprovalGrants;
  /**
   * Execution receipts for calls whose request names an idempotency key in its `_meta`
   * (`tool-argument-snapshot/idempotency-key`): a retry of such a call runs nothing. By
   * default the receipts kept in the grants' store when the grants have one of the
   * application's (SQLite, PostgreSQL, Redis: `grants.executionReceipts()`), else one
   * process-wide memory receipts object shared by the gates of the process; `false` for
   * none; or a `createExecutionReceipts` object. A call without a key is executed without
   * receipts.
   */
  receipts?: ExecutionReceipts | false;
  /** How long a kept approval request (and its seal) lives, in milliseconds; by default until granted or declined. */
  proposalTtlMs?: number;
  /**
   * The scope of idempotency keys: the receipt key's `runId` for a call (a non-empty,
   * well-formed string, for example the authenticated client's id), or null/undefined for
   * none (the key alone, the default). Keys of different scopes never meet.
   */
  idempotencyScope?: (extra: McpRequestExtra) => string | null | undefined;
  /**
   * On require_approval, ask the connected client (MCP elicitation, form mode) to approve
   * the exact canonical arguments; an accepted answer becomes a single-use grant. Off by
   * default. The client being gated answers it: a convenience for a person at that
   * client, not an independent approval. Needs `grants`.
   */
  elicitation?: boolean;
  /**
   * Extra policy-input fields from the request's `extra` (its `authInfo`, `sessionId`,
   * `requestInfo`), for example `{ grantScope: 'user:' + extra.authInfo?.clientId }`.
   * Own enumerable data fields are copied; the gate's fields win.
   */
  policyContext?: (extra: McpRequestExtra) => object;
  /**
   * Options of the SDK's StreamableHTTPServerTransport behind `handleHttp` (default: a
   * session per server with random UUIDs; `sessionIdGenerator: undefined` is stateless).
   */
  http?: StreamableHTTPServerTransportOptions;
}

/** `structuredContent` of a call refused at stage json, schema or snapshot (no payload). */
export interface McpStageFailure {
  toolName: string;
  stage: 'json' | 'schema' | 'snapshot';
  code: string;
}

/** `structuredContent` of a denied call (no payload). */
export interface McpDenial {
  decision: 'deny';
  /**
   * The policy's reason, a runtime reason, `grant_unavailable`, `approval_declined`, or a
   * receipts refusal (`call_already_executed`, `call_id_conflict`, `execution_in_progress`,
   * `outcome_unknown`, `receipt_store_unavailable`).
   */
  reason: string;
  decidedBy: 'policy' | 'runtime' | 'elicitation';
}

/** `structuredContent` of a call that needs an approval: grant `proposal` out of band. */
export interface McpApprovalRequest {
  decision: 'require_approval';
  reason: string;
  decidedBy: 'policy';
  toolName: string;
  toolCallId: string;
  proposalHash: string;
  /** The call's grant scope (`policyContext`'s `grantScope`), or null; a seal carries it too. */
  scope: string | null;
  /** Sealed when the grants have keys (pass it to `grants.grant`), else the four snapshot fields. */
  proposal: SealedProposal | ProposalFields;
  /**
   * The id the request is kept under in the grants' store, as `tool-argument-snapshot
   * pending` lists it (`grant --id`, `decline --id`); absent when the grants' store keeps
   * no proposals.
   */
  pendingId?: string;
}

/** The client side of the linked in-memory pair. */
export interface McpTextClientTransport extends Transport {
  /** Sends exact text, as a client with its own JSON writer (or a hostile one) would. */
  sendText(text: string): Promise<void>;
}

export interface McpServerGate {
  readonly agentName: string;
  /** A stdio transport that keeps each message's text (process.stdin / process.stdout unless given). */
  stdioTransport(options?: { stdin?: Readable; stdout?: Writable }): Transport;
  /** `[client, server]` in memory: the client's messages reach the server as JSON text. For tests. */
  createLinkedPair(): [McpTextClientTransport, Transport];
  /**
   * Streamable HTTP: reads and checks the body itself, then hands it to the SDK's
   * transport (connected on the first request; one session per server). Mount it before
   * any body parser: a request whose body was already read is answered with an error.
   */
  handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/**
 * An McpServer of @modelcontextprotocol/sdk 1.x, described by what the gate needs, so that
 * the SDK's CommonJS and ES module builds (whose classes TypeScript keeps apart) both fit.
 */
export interface GateableMcpServer {
  connect(transport: Transport): Promise<void>;
  registerTool(...args: any[]): unknown;
  readonly server: object;
}

/**
 * Gates an McpServer: its tools/call handling is replaced (each tool's input schema runs
 * once, in the package), and the gate's transports keep each message's text. Call it
 * before connecting the server; tools registered later are gated too.
 * @throws {TypeError} for a server already connected, a missing agentName, a Proxy, or
 * `elicitation` without `grants`, receipts not made by createExecutionReceipts.
 *
 * `Tools` (optional) gives the argument types of the tools by name, which the policies
 * then read typed; without it `parsedArguments` is `unknown`.
 */
export declare function gateMcpServer<Tools extends McpToolArguments = {}>(
  mcpServer: GateableMcpServer,
  options: GateMcpServerOptions<Tools>,
): McpServerGate;

/** The `_meta` member of a tools/call request that names its idempotency key. */
export type McpIdempotencyKeyName = 'tool-argument-snapshot/idempotency-key';

export type { SnapshotValue };
