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
 * What the policy sees: the package's policy input (with `T` for parsedArguments; the
 * tools of an McpServer are not typed here, so it is `any` unless you name it), the
 * JSON-RPC request id, the arguments' source, the session id, and the fields your
 * `policyContext` returned.
 */
export type McpPolicyInput<T = any> = ToolPolicyInput<T> & {
  readonly toolCallId: string;
  readonly argumentsSource: McpArgumentsSource;
  readonly sessionId?: string;
};

export type McpPolicy<T = any> = (input: McpPolicyInput<T>) => ToolPolicyResult | Promise<ToolPolicyResult>;

export interface GateMcpServerOptions {
  agentName: string;
  /**
   * One function for every tool, or one per tool name. A tool without an entry is denied
   * (`policy_not_configured`) without grants, and needs an approval with grants. Asked
   * after the grants.
   */
  policy?: McpPolicy | { readonly [toolName: string]: McpPolicy };
  /**
   * Grants first: a live grant for exactly this call allows it once. With keys, an
   * approval result carries a sealed proposal.
   */
  grants?: ApprovalGrants;
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
 * `elicitation` without `grants`.
 */
export declare function gateMcpServer(mcpServer: GateableMcpServer, options: GateMcpServerOptions): McpServerGate;

export type { SnapshotValue };
