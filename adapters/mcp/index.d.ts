// Type declarations of tool-argument-snapshot/mcp (adapters/mcp/index.js), the RFC-0016 gate for
// an McpServer of @modelcontextprotocol/sdk 1.x or a server factory of
// @modelcontextprotocol/server 2.x (both optional peer dependencies). The 2.x side is
// described by what the gate needs (structural types), so it imports nothing from 2.x.

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
  : ((input: McpToolPolicyInput<Tools>) => ToolPolicyResult | Promise<ToolPolicyResult>) | { readonly [K in keyof Tools & string]?: McpPolicy<Tools[K]> };

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
export declare function gateMcpServer<Tools extends McpToolArguments = {}>(mcpServer: GateableMcpServer, options: GateMcpServerOptions<Tools>): McpServerGate;

// ---------------------------------------------------------------------------------------
// @modelcontextprotocol/server 2.x (the 2026-07-28 specification).

/** What the 2.x SDK passes a request handler, as far as the gate and your callbacks read it (its ServerContext). */
export interface McpServerContextV2 {
  readonly mcpReq: { readonly id: string | number; readonly method: string; readonly _meta?: Record<string, unknown> };
  readonly http?: { readonly authInfo?: { readonly clientId?: string; readonly [field: string]: unknown }; readonly req?: Request };
  readonly sessionId?: string;
}

/** What createMcpHandler passes the server factory (its McpRequestContext). */
export interface McpServerFactoryContextV2 {
  readonly era: 'legacy' | 'modern';
  readonly authInfo?: unknown;
  readonly requestInfo?: Request;
}

/** An McpServer of @modelcontextprotocol/server 2.x, described by what the gate needs (either build fits). */
export interface GateableMcpServerV2 {
  connect(transport: any): Promise<void>;
  registerTool(...args: any[]): unknown;
  toolInputSchemaJson(name: string): unknown;
  readonly server: object;
}

/** The factory createMcpHandler takes: a new McpServer for each request. */
export type McpServerFactoryV2 = (context: McpServerFactoryContextV2) => GateableMcpServerV2 | Promise<GateableMcpServerV2>;

/** createMcpHandler's options the gate passes on, and the createMcpHandler to use (default: the CommonJS build's). */
export interface GateMcpHttpOptionsV2 {
  legacy?: 'stateless' | 'reject';
  responseMode?: 'auto' | 'sse' | 'json';
  maxRequestBodySize?: number;
  keepAliveMs?: number;
  maxSubscriptions?: number;
  bus?: unknown;
  onerror?: (error: Error) => void;
  /**
   * The SDK's createMcpHandler, from the build your server factory imports (an ES module
   * application passes `createMcpHandler` of its `import`). The default is the CommonJS
   * build's; a factory whose servers are of the ES module build moves the gate to that
   * build's handler on the first request (which then makes its server twice).
   */
  createMcpHandler?: (factory: any, options?: any) => { fetch(request: Request, options?: any): Promise<Response>; close(): Promise<void> };
}

export interface GateMcpServerOptionsV2<Tools extends McpToolArguments = {}> extends Omit<
  GateMcpServerOptions<Tools>,
  'idempotencyScope' | 'policyContext' | 'http' | 'receipts'
> {
  /**
   * Execution receipts for calls whose request names an idempotency key, and for the
   * retry of an approval (keyed by its requestState): by default the receipts kept in the
   * grants' own store (grants.executionReceipts()), else the shared memory receipts;
   * `false` for none.
   */
  receipts?: ExecutionReceipts | false;
  /**
   * The principal of a request: the scope of its idempotency keys (the receipt key's
   * `runId`) and whom an approval's requestState is issued to. Default (for the state):
   * the authenticated client, `ctx.http.authInfo.clientId`.
   */
  idempotencyScope?: (ctx: McpServerContextV2) => string | null | undefined;
  /** Extra policy-input fields from the request's context (own enumerable data fields; the gate's win). */
  policyContext?: (ctx: McpServerContextV2) => object;
  /** How long an approval's requestState (and the proposal kept with it) can be used: default 15 minutes. */
  proposalTtlMs?: number;
  /**
   * On require_approval of a 2026-07-28 request, also ask the client in-band (a form
   * elicitation in the input_required answer); an accepted answer grants the sealed state.
   * The client being gated answers it. Needs `grants` with a key ring.
   */
  elicitation?: boolean;
  http?: GateMcpHttpOptionsV2;
}

/** The approval an input_required answer describes, in its `_meta["tool-argument-snapshot/approval"]`. */
export interface McpStateApproval {
  decision: 'require_approval';
  reason: string;
  decidedBy: 'policy';
  toolName: string;
  proposalHash: string;
  /** The id of the kept proposal (the CLI's `pending` lists it, `grant --id` grants it), or null when the store keeps none. */
  pendingId: string | null;
  /** The proposal sealed by the grants' key ring (the state's own seal): grant it, unchanged, with `grants.grant`. */
  proposal: SealedProposal;
}

/**
 * The answer of a 2026-07-28 tools/call that needs an approval: send the same call again,
 * with the same arguments and `requestState`, once the proposal is granted.
 */
export interface McpInputRequired {
  resultType: 'input_required';
  requestState: string;
  inputRequests?: Record<string, unknown>;
  _meta: { 'tool-argument-snapshot/approval': McpStateApproval };
}

/**
 * The denial reasons of a retry with a requestState (`decidedBy: 'runtime'`): a state that
 * does not verify or is not the gate's form, expired, issued for another tool or another
 * principal, arguments whose hash is not the approved one, a state that ran already.
 */
export type McpRequestStateRefusal =
  | 'request_state_invalid'
  | 'request_state_expired'
  | 'request_state_tool_mismatch'
  | 'request_state_principal_mismatch'
  | 'request_state_arguments_changed'
  | 'request_state_used';

export interface McpServerGateV2 {
  readonly agentName: string;
  /**
   * The web face (a Request to a Response, as createMcpHandler's `fetch`): each POST body is
   * read and decoded strictly by the gate, its Mcp-Method and Mcp-Name headers checked
   * against it (-32020 on a mismatch), then served by the SDK's handler with a gated server
   * from the factory. `authInfo` is passed through (validated by you).
   */
  fetch(request: Request, options?: { authInfo?: { clientId?: string; token?: string; scopes?: string[]; [field: string]: unknown } }): Promise<Response>;
  /**
   * A Node.js `(req, res)` handler (node:http, Express before any body parser): the request
   * made a web Request for `fetch`, the Response written back (streamed). `req.auth`, set by
   * an authentication middleware, is passed as `authInfo`.
   */
  handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Closes the exchanges in flight (the SDK handler's close). */
  close(): Promise<void>;
  /** The SDK's handler (its `notify` and `bus`). Serve through `fetch`: the handler's own fetch runs no gated call. */
  readonly handler: { fetch(request: Request, options?: any): Promise<Response>; close(): Promise<void>; readonly [field: string]: unknown };
  /**
   * Serves one stdio connection with the SDK's serveStdio (a server from the factory for it),
   * each line read by the gate: UTF-8 checked, decoded once, strictly; ids in flight kept.
   * `serveStdio`: the one of the build the factory's servers are of (default: the CommonJS
   * build's, which refuses an ES module server with an error saying so).
   */
  serveStdio(options?: {
    stdin?: Readable;
    stdout?: Writable;
    legacy?: 'serve' | 'reject';
    onerror?: (error: Error) => void;
    maxSubscriptions?: number;
    serveStdio?: (factory: any, options?: any) => { close(): Promise<void> };
  }): { close(): Promise<void> };
}

/**
 * Gates the servers a factory of @modelcontextprotocol/server 2.x makes, one per request,
 * served through createMcpHandler behind the gate's `fetch`. Policies read
 * `parsedArguments` as `unknown`; for typed policies, name the tools' argument types and
 * the line: `gateMcpServer<Tools, 'v2'>(factory, options)` (two type arguments, so that a
 * 1.x call with one, `gateMcpServer<Tools>(server, options)`, is checked against the 1.x
 * signature alone).
 * @throws {TypeError} a 2.x McpServer instead of a factory, a missing agentName,
 * `elicitation` without grants that seal, a bad `proposalTtlMs`.
 */
export declare function gateMcpServer(serverFactory: McpServerFactoryV2, options: GateMcpServerOptionsV2): McpServerGateV2;
export declare function gateMcpServer<Tools extends McpToolArguments, Line extends 'v2'>(
  serverFactory: McpServerFactoryV2,
  options: GateMcpServerOptionsV2<Tools>,
): McpServerGateV2;

/** The `_meta` member of a tools/call request that names its idempotency key. */
export type McpIdempotencyKeyName = 'tool-argument-snapshot/idempotency-key';

export type { SnapshotValue };
