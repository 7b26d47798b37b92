'use strict';
// tool-argument-snapshot/mcp: RFC-0016 at an MCP server (`McpServer` of
// @modelcontextprotocol/sdk 1.x).
//
// Where the SDK still has what RFC-0016 needs, and so where this adapter works:
// - No transport of the SDK hands the server the text of a message: stdio's ReadBuffer
//   calls JSON.parse on each line, Streamable HTTP takes req.json() or a parsedBody, the
//   in-memory transport passes objects. JSON.parse resolves duplicate keys last-wins, so
//   a client (or a proxy) that read the same text first-wins decided on other arguments
//   than the server executes. The gate's transports (`gate.stdioTransport()`,
//   `gate.handleHttp(req, res)`, `gate.createLinkedPair()`) read the text themselves:
//   each message is decoded strictly (the package's decodeRequest, with `arguments` set
//   aside), so a duplicate key, a lone surrogate or an overflowing number outside
//   `arguments` is a JSON-RPC -32600 answer and nothing reaches the server; the exact
//   text of `arguments` (its character range in the message) becomes `rawArguments`.
// - The text travels with its message: the transport puts a key object in place of
//   `params.arguments` (the SDK's JSON-RPC parse keeps that reference) and, when the
//   message reaches the server, hands the text to the tools/call handler in
//   `extra.requestInfo`, an object made for that one message. Nothing is keyed by request
//   id, so two messages with one id never see each other's text.
// - `gateMcpServer` replaces the server's tools/call handler (after letting the SDK set up
//   its tool handlers and capability). The replacement looks the tool up in the server's
//   registry, runs its input schema once through prepareToolCallAsync (the SDK's own
//   validation never runs), evaluates the policy (grants first) and executes the tool's
//   handler through executeToolCall with a new execution view. Tools registered later
//   are gated too.
// - Failures are CallToolResults with `isError: true` and payload-free structuredContent:
//   `{ toolName, stage, code }` for stage json, schema or snapshot; `{ decision, reason,
//   decidedBy }` for a deny; require_approval adds the proposal (sealed when the grants
//   have keys) for an approval given out of band with `grants.grant(sealed)`.
// - A message that reached the handler through another transport (the SDK's own) has no
//   text: its arguments object is snapshotted as it is (strict JSON data, no getter runs),
//   marked `argumentsSource: 'object'`.
// - Elicitation (opt-in) asks the very client being gated: it is a convenience for a
//   person at that client, not an independent approval.

const { randomUUID } = require('node:crypto');
const { requirePeer, invalidArgument, own, readOptions, isWellFormedString, ownDataCopy, setData } = require('./shared');

const types = requirePeer('mcp', '@modelcontextprotocol/sdk', 'the MCP TypeScript SDK 1.x', () => require('@modelcontextprotocol/sdk/types.js'));
const api = require('tool-argument-snapshot');

const {
  prepareToolCallAsync, evaluateToolCall, executeToolCall, decodeRequest, createSnapshot,
  isToolArgumentsValidationError, isToolCallNotAllowedError,
} = api;
const { CallToolRequestSchema, JSONRPCMessageSchema, McpError, ErrorCode } = types;

// Built-ins, captured when the adapter loads.
const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
const ObjectFreeze = Object.freeze;
const ObjectDefineProperty = Object.defineProperty;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectHasOwn = Object.hasOwn;
const ArrayIsArray = Array.isArray;
const ArrayPrototypePush = uncurryThis(Array.prototype.push);
const StringPrototypeCharCodeAt = uncurryThis(String.prototype.charCodeAt);
const StringPrototypeSlice = uncurryThis(String.prototype.slice);
const JSONParse = JSON.parse;
const JSONStringify = JSON.stringify;
const ReflectApply = Reflect.apply;
const NumberIsFinite = Number.isFinite;
const SafeMap = Map;
const SafeWeakMap = WeakMap;
const WeakMapPrototypeGet = uncurryThis(WeakMap.prototype.get);
const WeakMapPrototypeSet = uncurryThis(WeakMap.prototype.set);
const MapPrototypeGet = uncurryThis(Map.prototype.get);
const MapPrototypeSet = uncurryThis(Map.prototype.set);
const SafePromise = Promise;
const PromisePrototypeThen = uncurryThis(Promise.prototype.then);
const BufferConcat = Buffer.concat;
const BufferFrom = Buffer.from;
const BufferPrototypeIndexOf = uncurryThis(Buffer.prototype.indexOf);
const BufferPrototypeSubarray = uncurryThis(Buffer.prototype.subarray);
const isProxy = require('node:util').types.isProxy;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const TextDecoderPrototypeDecode = uncurryThis(TextDecoder.prototype.decode);

/** How long the grant of an accepted elicitation lives if its call never spends it. */
const ELICITED_GRANT_TTL_MS = 5 * 60 * 1000;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INTERNAL_ERROR = -32603;
/** The SDK's limits: a stdio line buffer of 10 MiB, an HTTP body of 4 MiB. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;
const MAX_BODY_BYTES = 4 * 1024 * 1024;

// ---------------------------------------------------------------------------------
// Message text: strict decoding of a whole JSON-RPC message and the exact text of
// `params.arguments`. The scanner below runs only on text JSON.parse accepted, so every
// token it skips is well formed; decodeRequest (the package's strict decoder) then checks
// the message with `arguments` set aside, and prepareToolCallAsync the arguments text.

function isWhitespace(c) {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function skipWhitespace(text, i) {
  while (i < text.length && isWhitespace(StringPrototypeCharCodeAt(text, i))) i++;
  return i;
}

/** The index after the string token starting at i (a `"`). */
function skipString(text, i) {
  i++;
  for (;;) {
    const c = StringPrototypeCharCodeAt(text, i);
    if (c === 0x22) return i + 1;
    i += c === 0x5c ? 2 : 1;
  }
}

/** The index after the value token starting at i (iterative: nesting costs no stack). */
function skipValue(text, i) {
  const first = StringPrototypeCharCodeAt(text, i);
  if (first === 0x22) return skipString(text, i);
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    for (;;) {
      const c = StringPrototypeCharCodeAt(text, i);
      if (c === 0x22) {
        i = skipString(text, i);
        continue;
      }
      if (c === 0x7b || c === 0x5b) depth++;
      else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1;
      i++;
    }
  }
  while (i < text.length) {
    const c = StringPrototypeCharCodeAt(text, i);
    if (c === 0x2c || c === 0x7d || c === 0x5d || isWhitespace(c)) break;
    i++;
  }
  return i;
}

/** The members of the object token starting at i (a `{`): each key (decoded) and its value's range. */
function membersOf(text, i) {
  const members = [];
  i = skipWhitespace(text, i + 1);
  if (StringPrototypeCharCodeAt(text, i) === 0x7d) return members;
  for (;;) {
    const keyEnd = skipString(text, i);
    const key = JSONParse(StringPrototypeSlice(text, i, keyEnd));
    const start = skipWhitespace(text, skipWhitespace(text, keyEnd) + 1);
    const end = skipValue(text, start);
    ArrayPrototypePush(members, { __proto__: null, key, start, end });
    i = skipWhitespace(text, end);
    if (StringPrototypeCharCodeAt(text, i) === 0x7d) return members;
    i = skipWhitespace(text, i + 1);
  }
}

/** The last member named `key`, or undefined. */
function lastMember(members, key) {
  let found;
  for (let i = 0; i < members.length; i++) if (members[i].key === key) found = members[i];
  return found;
}

function isRecord(value) {
  return value !== null && typeof value === 'object' && !ArrayIsArray(value);
}

/** A JSON-RPC error response (payload-free: a fixed message and the decoder's code). */
function errorResponse(id, code, message, data) {
  const error = data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: '2.0', id, error };
}

/** The id of a message for an error answer: a unique, well-formed string or finite number, else null. */
function answerId(members, parsed) {
  let count = 0;
  for (let i = 0; i < members.length; i++) if (members[i].key === 'id') count++;
  if (count !== 1 || !isRecord(parsed)) return null;
  const id = own(parsed, 'id');
  if ((typeof id === 'number' && NumberIsFinite(id)) || isWellFormedString(id)) return id;
  return null;
}

/**
 * The text of `arguments` of each message, by the key object that stands in its place in
 * the message the server receives: a fresh empty record per message (the SDK's request
 * schemas accept only plain records there), found again by identity.
 */
const argumentsTexts = new SafeWeakMap();

function argumentsKey(rawArguments) {
  const key = {};
  WeakMapPrototypeSet(argumentsTexts, key, rawArguments);
  return key;
}

function argumentsTextFor(key) {
  return key !== null && typeof key === 'object' ? WeakMapPrototypeGet(argumentsTexts, key) : undefined;
}

/**
 * One message of a text, checked: `{ message }` to pass on (for tools/call, with its
 * arguments text set aside), or `{ response }` to answer instead.
 */
function checkMessage(text, start, end, parsed) {
  if (StringPrototypeCharCodeAt(text, start) !== 0x7b) return { __proto__: null, message: parsed, response: undefined };
  const members = membersOf(text, start);
  const method = isRecord(parsed) ? own(parsed, 'method') : undefined;
  const params = isRecord(parsed) ? own(parsed, 'params') : undefined;
  let argumentsMember;
  if (method === 'tools/call' && isRecord(params)) {
    const paramsMember = lastMember(members, 'params');
    argumentsMember = lastMember(membersOf(text, paramsMember.start), 'arguments');
  }
  // The whole message, strictly, with the arguments text set aside (it is checked by
  // prepareToolCallAsync, and its failures are the tool's, answered as a CallToolResult).
  const rest = argumentsMember === undefined
    ? StringPrototypeSlice(text, start, end)
    : `${StringPrototypeSlice(text, start, argumentsMember.start)}0${StringPrototypeSlice(text, argumentsMember.end, end)}`;
  try {
    decodeRequest(rest);
  } catch (error) {
    if (!isToolArgumentsValidationError(error)) throw error;
    return { __proto__: null, message: undefined, response: errorResponse(answerId(members, parsed), INVALID_REQUEST, 'Invalid Request', { stage: 'json', code: error.code }) };
  }
  if (method === 'tools/call' && isRecord(params)) {
    const rawArguments = argumentsMember === undefined ? '' : StringPrototypeSlice(text, argumentsMember.start, argumentsMember.end);
    ObjectDefineProperty(params, 'arguments', { __proto__: null, value: argumentsKey(rawArguments), writable: true, enumerable: true, configurable: true });
  }
  return { __proto__: null, message: parsed, response: undefined };
}

/**
 * A message text (or, with `batch`, an array of messages): `{ messages }` to pass on, or
 * `{ response }`: a parse error for text that is not JSON, an invalid request for text
 * that is JSON but not strict JSON (a batch fails whole).
 */
function readMessageText(text, batch) {
  let parsed;
  try {
    parsed = JSONParse(text);
  } catch {
    return { __proto__: null, messages: undefined, response: errorResponse(null, PARSE_ERROR, 'Parse error') };
  }
  const start = skipWhitespace(text, 0);
  if (batch && ArrayIsArray(parsed)) {
    const messages = [];
    let i = skipWhitespace(text, start + 1);
    for (let index = 0; index < parsed.length; index++) {
      const end = skipValue(text, i);
      const checked = checkMessage(text, i, end, parsed[index]);
      if (checked.response !== undefined) return { __proto__: null, messages: undefined, response: { ...checked.response, id: null } };
      ArrayPrototypePush(messages, checked.message);
      i = skipWhitespace(text, skipWhitespace(text, end) + 1);
    }
    return { __proto__: null, messages, response: undefined, batch: true };
  }
  const checked = checkMessage(text, start, skipValue(text, start), parsed);
  if (checked.response !== undefined) return { __proto__: null, messages: undefined, response: checked.response };
  return { __proto__: null, messages: [checked.message], response: undefined, batch: false };
}

/** UTF-8 bytes as text, or undefined when they are not UTF-8 (the SDK would put U+FFFD in). */
function decodeUtf8(bytes) {
  try {
    return TextDecoderPrototypeDecode(utf8, bytes);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------
// The request info the tools/call handler receives: the transport's (HTTP headers and
// URL) plus, invisibly, the arguments text of that one message.

class GatedRequestInfo {
  headers;
  url;
  #rawArguments;
  constructor(base, rawArguments) {
    const headers = own(base, 'headers');
    this.headers = headers === undefined ? {} : headers;
    const url = own(base, 'url');
    if (url !== undefined) this.url = url;
    this.#rawArguments = rawArguments;
  }

  static textOf(value) {
    return value !== null && typeof value === 'object' && #rawArguments in value ? value.#rawArguments : undefined;
  }
}

/** Whether a message is a tools/call with params, and the arguments text its transport attached. */
function argumentsTextOf(message) {
  const params = isRecord(message) && own(message, 'method') === 'tools/call' ? own(message, 'params') : undefined;
  const rawArguments = isRecord(params) ? argumentsTextFor(own(params, 'arguments')) : undefined;
  return { __proto__: null, isToolCall: isRecord(params), rawArguments };
}

// ---------------------------------------------------------------------------------
// Transports. Each is what the server connects to; it reads text, answers what fails
// strict decoding itself, and passes the rest to the server with the text attached.

class GatedTransport {
  onmessage;
  onclose;
  onerror;
  #send;
  #start;
  #close;
  #sessionId;

  constructor(start, send, close, sessionId) {
    this.#start = start;
    this.#send = send;
    this.#close = close;
    this.#sessionId = sessionId;
  }

  get sessionId() {
    return this.#sessionId === undefined ? undefined : this.#sessionId();
  }

  async start() {
    return this.#start(this);
  }

  async send(message, options) {
    return this.#send(message, options);
  }

  async close() {
    return this.#close(this);
  }

  /** Passes a message the transport read (and, for HTTP, the SDK parsed) to the server. */
  deliver(message, extra) {
    const onmessage = this.onmessage;
    if (typeof onmessage !== 'function') return;
    const found = argumentsTextOf(message);
    if (found.isToolCall && found.rawArguments === undefined) {
      // A tools/call through a gated transport without its text: never guess.
      const id = isRecord(message) ? own(message, 'id') : undefined;
      if (id !== undefined) {
        PromisePrototypeThen(this.#send(errorResponse(id, INTERNAL_ERROR, 'tool-argument-snapshot/mcp: the message text was lost')), undefined, () => {});
      }
      return;
    }
    let next = extra;
    if (found.rawArguments !== undefined) {
      const base = extra === undefined || extra === null ? undefined : extra;
      next = {
        authInfo: own(base, 'authInfo'),
        requestInfo: new GatedRequestInfo(own(base, 'requestInfo'), found.rawArguments),
        closeSSEStream: own(base, 'closeSSEStream'),
        closeStandaloneSSEStream: own(base, 'closeStandaloneSSEStream'),
      };
    }
    onmessage(message, next);
  }

  /** Reads one message text (stdio line, in-memory text): answers or delivers. */
  receiveText(text) {
    const read = readMessageText(text, false);
    if (read.response !== undefined) {
      PromisePrototypeThen(this.#send(read.response), undefined, (error) => this.reportError(error));
      return;
    }
    let message;
    try {
      // The SDK's own check of a JSON-RPC message, as its stdio transport makes it.
      message = JSONRPCMessageSchema.parse(read.messages[0]);
    } catch (error) {
      this.reportError(error);
      return;
    }
    this.deliver(message, undefined);
  }

  reportError(error) {
    const onerror = this.onerror;
    if (typeof onerror === 'function') onerror(error);
  }
}

/** A stdio transport that keeps each line's text (the SDK's StdioServerTransport, re-read). */
function stdioTransport(options) {
  const opts = readOptions(options, 'stdioTransport options');
  const stdin = (opts !== null && own(opts, 'stdin')) || process.stdin;
  const stdout = (opts !== null && own(opts, 'stdout')) || process.stdout;
  let buffer;
  let started = false;
  let transport;
  const ondata = (chunk) => {
    if (typeof chunk === 'string') chunk = BufferFrom(chunk, 'utf8');
    buffer = buffer === undefined ? chunk : BufferConcat([buffer, chunk]);
    if (buffer.length > MAX_LINE_BYTES) {
      buffer = undefined;
      transport.reportError(new Error(`tool-argument-snapshot/mcp: a stdio line exceeded ${MAX_LINE_BYTES} bytes`));
      return;
    }
    for (;;) {
      const newline = BufferPrototypeIndexOf(buffer, 0x0a);
      if (newline === -1) return;
      let lineEnd = newline;
      if (lineEnd > 0 && buffer[lineEnd - 1] === 0x0d) lineEnd--;
      const line = BufferPrototypeSubarray(buffer, 0, lineEnd);
      buffer = BufferPrototypeSubarray(buffer, newline + 1);
      const text = decodeUtf8(line);
      if (text === undefined) {
        PromisePrototypeThen(transport.send(errorResponse(null, PARSE_ERROR, 'Parse error')), undefined, () => {});
        continue;
      }
      transport.receiveText(text);
    }
  };
  const onerror = (error) => transport.reportError(error);
  transport = new GatedTransport(
    () => {
      if (started) throw new Error('tool-argument-snapshot/mcp: the stdio transport is already started');
      started = true;
      stdin.on('data', ondata);
      stdin.on('error', onerror);
    },
    (message) => new SafePromise((resolve) => {
      if (stdout.write(`${JSONStringify(message)}\n`)) resolve();
      else stdout.once('drain', resolve);
    }),
    (self) => {
      stdin.off('data', ondata);
      stdin.off('error', onerror);
      if (stdin.listenerCount('data') === 0) stdin.pause();
      buffer = undefined;
      if (typeof self.onclose === 'function') self.onclose();
    },
    undefined,
  );
  return transport;
}

/**
 * A linked client/server pair in memory, for tests. The client side sends each message
 * as JSON text (`sendText(text)` sends exact text, as a client with its own serializer
 * would); the server side reads that text as the stdio transport does. What the server
 * sends reaches the client as a fresh copy.
 */
function createLinkedPair() {
  const queued = [];
  let closed = false;
  let client;
  async function closeBoth() {
    if (closed) return;
    closed = true;
    if (typeof server.onclose === 'function') server.onclose();
    if (typeof client.onclose === 'function') client.onclose();
  }
  const server = new GatedTransport(
    () => {
      for (let i = 0; i < queued.length; i++) server.receiveText(queued[i]);
      queued.length = 0;
    },
    async (message) => {
      if (closed) throw new Error('Not connected');
      const copy = JSONParse(JSONStringify(message));
      if (typeof client.onmessage === 'function') client.onmessage(copy);
    },
    closeBoth,
    undefined,
  );
  client = {
    onmessage: undefined,
    onclose: undefined,
    onerror: undefined,
    async start() {},
    async send(message) {
      return client.sendText(JSONStringify(message));
    },
    /** Sends exact text, as a client with its own JSON writer (or a hostile one) would. */
    async sendText(text) {
      if (closed) throw new Error('Not connected');
      if (typeof text !== 'string') throw invalidArgument('sendText expects a string');
      if (typeof server.onmessage === 'function') server.receiveText(text);
      else ArrayPrototypePush(queued, text);
    },
    close: closeBoth,
  };
  return [client, server];
}

// ---------------------------------------------------------------------------------
// Streamable HTTP: the SDK's transport, given the body the gate read and checked.

let streamableHttp;
function httpTransportClass() {
  if (streamableHttp === undefined) {
    streamableHttp = requirePeer('mcp', '@modelcontextprotocol/sdk', 'the MCP TypeScript SDK 1.x', () => require('@modelcontextprotocol/sdk/server/streamableHttp.js')).StreamableHTTPServerTransport;
  }
  return streamableHttp;
}

/** The body of a Node.js request as bytes, at most `limit` (undefined past it). */
function readBody(req, limit) {
  return new SafePromise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > limit) over = true;
      if (!over) ArrayPrototypePush(chunks, chunk);
    });
    req.on('end', () => resolve(over ? undefined : BufferConcat(chunks)));
    req.on('error', reject);
  });
}

const HTTP_OPTIONS = ObjectFreeze([
  'sessionIdGenerator', 'enableJsonResponse', 'eventStore', 'onsessioninitialized', 'onsessionclosed',
  'allowedHosts', 'allowedOrigins', 'enableDnsRebindingProtection', 'maxRequestBodySize', 'retryInterval',
]);

function writeJson(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSONStringify(body));
}

// ---------------------------------------------------------------------------------
// The gate.

/** The payload-free result of a call that failed at stage json, schema or snapshot. */
function stageResult(toolName, error) {
  const { stage, code } = error;
  return {
    content: [{ type: 'text', text: `The arguments of tool ${JSONStringify(toolName)} were refused at stage ${stage} [${code}].` }],
    structuredContent: { toolName, stage, code },
    isError: true,
  };
}

function denyResult(reason, decidedBy) {
  return {
    content: [{ type: 'text', text: `The tool call was denied [${reason}].` }],
    structuredContent: { decision: 'deny', reason, decidedBy },
    isError: true,
  };
}

/** What the SDK answers when a tool handler throws (its createToolError). */
function toolErrorResult(error) {
  const message = error !== null && typeof error === 'object' && typeof error.message === 'string' ? error.message : String(error);
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** The arguments of a message that reached the handler as an object: strict JSON data, or a stage error. */
function objectArguments(agentName, toolName, value) {
  return createSnapshot({ agentName, toolName, value: value === undefined ? {} : value }).argsCanonicalJson;
}

const GATE_USAGE = 'gateMcpServer expects (mcpServer, { agentName, policy?, grants?, elicitation?, policyContext?, http? })';

/**
 * Gates an McpServer: replaces its tools/call handling and gives transports that keep
 * the message text. Call it before connecting the server.
 */
function gateMcpServer(mcpServer, options) {
  if (mcpServer === null || typeof mcpServer !== 'object' || isProxy(mcpServer)) throw invalidArgument(GATE_USAGE);
  const server = own(mcpServer, 'server');
  const registry = own(mcpServer, '_registeredTools');
  if (server === undefined || server === null || typeof server !== 'object' || typeof server.setRequestHandler !== 'function' || !isRecord(registry)) {
    throw invalidArgument('gateMcpServer expects an McpServer of @modelcontextprotocol/sdk 1.x');
  }
  if (server.transport !== undefined) throw invalidArgument('gateMcpServer: gate the server before connecting it to a transport');
  const opts = readOptions(options, 'gateMcpServer options');
  if (opts === null) throw invalidArgument(GATE_USAGE);
  const agentName = own(opts, 'agentName');
  if (!isWellFormedString(agentName) || agentName === '') throw invalidArgument('options.agentName must be a non-empty, well-formed string');

  const appPolicy = own(opts, 'policy');
  const policyMap = appPolicy !== null && typeof appPolicy === 'object' && !isProxy(appPolicy) ? appPolicy : undefined;
  if (appPolicy !== undefined && policyMap === undefined && typeof appPolicy !== 'function') {
    throw invalidArgument('options.policy must be a function or an object of functions by tool name');
  }
  const grants = own(opts, 'grants');
  if (grants !== undefined && (grants === null || typeof grants !== 'object' || isProxy(grants)
    || typeof own(grants, 'policy') !== 'function' || typeof own(grants, 'grant') !== 'function')) {
    throw invalidArgument('options.grants must be an object made by createApprovalGrants');
  }
  const elicitation = own(opts, 'elicitation');
  if (elicitation !== undefined && typeof elicitation !== 'boolean') throw invalidArgument('options.elicitation must be a boolean');
  if (elicitation === true && grants === undefined) throw invalidArgument('options.elicitation needs options.grants (an accepted elicitation becomes a grant)');
  const contextOf = own(opts, 'policyContext');
  if (contextOf !== undefined && typeof contextOf !== 'function') throw invalidArgument('options.policyContext must be a function of the request extra');
  const httpOptions = readOptions(own(opts, 'http'), 'options.http');

  // The policy of each tool: the map's entry or the function, behind the grants.
  const policies = new SafeMap();
  function policyFor(toolName) {
    let policy = MapPrototypeGet(policies, toolName);
    if (policy !== undefined) return policy;
    let base = appPolicy;
    if (policyMap !== undefined) {
      base = own(policyMap, toolName);
      if (base !== undefined && typeof base !== 'function') throw invalidArgument(`options.policy.${toolName} must be a function`);
    }
    policy = grants === undefined ? base : ReflectApply(own(grants, 'policy'), grants, base === undefined ? [] : [base]);
    if (policy === undefined) policy = null;
    MapPrototypeSet(policies, toolName, policy);
    return policy;
  }
  const executeOptions = grants === undefined ? undefined : { grants };

  function approvalProposal(decision, scope) {
    const proposal = decision.proposal;
    if (grants !== undefined && own(grants, 'sealing') === true) {
      return ReflectApply(own(grants, 'seal'), grants, [proposal, scope === null ? undefined : { scope }]);
    }
    return { agentName: proposal.agentName, toolName: proposal.toolName, argsCanonicalJson: proposal.argsCanonicalJson, proposalHash: proposal.proposalHash };
  }

  function approvalResult(decision, toolCallId, scope) {
    const proposal = approvalProposal(decision, scope);
    return {
      content: [{ type: 'text', text: `The tool call needs an approval [${decision.reason}]; proposal ${decision.proposalHash}.` }],
      structuredContent: {
        decision: 'require_approval', reason: decision.reason, decidedBy: 'policy',
        toolName: decision.toolName, toolCallId, proposalHash: decision.proposalHash, scope, proposal,
      },
      isError: true,
    };
  }

  /** Asks the client (elicitation): true when a person there accepted. */
  async function elicitApproval(decision, extra) {
    const capabilities = typeof server.getClientCapabilities === 'function' ? server.getClientCapabilities() : undefined;
    const elicit = capabilities !== undefined && capabilities !== null ? capabilities.elicitation : undefined;
    if (elicit === undefined || elicit === null) return undefined;
    let answer;
    try {
      answer = await server.elicitInput({
        mode: 'form',
        message: `Approve ${decision.toolName} with ${decision.argsCanonicalJson}? (${decision.reason}; proposal ${decision.proposalHash})`,
        requestedSchema: { type: 'object', properties: { approve: { type: 'boolean', title: 'Approve this exact call' } }, required: ['approve'] },
      }, { relatedRequestId: extra.requestId });
    } catch {
      // No answer (a client that cannot elicit, a closed connection): no approval.
      return undefined;
    }
    return answer.action === 'accept' && answer.content !== undefined && answer.content !== null && answer.content.approve === true;
  }

  async function callTool(request, extra) {
    const params = request.params;
    const toolName = params.name;
    const tool = own(registry, toolName);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Tool ${toolName} not found`);
    if (own(tool, 'enabled') !== true) throw new McpError(ErrorCode.InvalidParams, `Tool ${toolName} disabled`);
    const execution = own(tool, 'execution');
    const taskSupport = execution !== undefined && execution !== null ? own(execution, 'taskSupport') : undefined;
    if (own(params, 'task') !== undefined || taskSupport === 'required' || taskSupport === 'optional') {
      throw new McpError(ErrorCode.InvalidParams, `Tool ${toolName}: task tools are not gated by tool-argument-snapshot/mcp`);
    }
    const toolCallId = `${extra.requestId}`;
    const text = GatedRequestInfo.textOf(extra.requestInfo);
    const argumentsSource = text === undefined ? 'object' : 'message_text';
    const inputSchema = own(tool, 'inputSchema');

    let prepared;
    try {
      const rawArguments = text === undefined ? objectArguments(agentName, toolName, own(params, 'arguments')) : text;
      prepared = await prepareToolCallAsync({ agentName, toolName, rawArguments, schema: inputSchema, toolCallId });
    } catch (error) {
      if (!isToolArgumentsValidationError(error)) throw error;
      return stageResult(toolName, error);
    }

    // The application's fields (own data only), then the gate's, which win.
    const policyContext = contextOf === undefined ? {} : ownDataCopy(contextOf(extra));
    setData(policyContext, 'toolCallId', toolCallId);
    setData(policyContext, 'argumentsSource', argumentsSource);
    const sessionId = extra.sessionId;
    if (typeof sessionId === 'string') setData(policyContext, 'sessionId', sessionId);
    const grantScope = own(policyContext, 'grantScope');
    const scope = typeof grantScope === 'string' ? grantScope : null;
    const policy = policyFor(toolName);
    let decision = await evaluateToolCall({ prepared, policy: policy === null ? undefined : policy, policyContext, toolCallId });

    if (decision.decision === 'require_approval' && elicitation === true) {
      const approved = await elicitApproval(decision, extra);
      if (approved === false) return denyResult('approval_declined', 'elicitation');
      if (approved === true) {
        // The person's yes is for this call only: granted under a scope no other evaluation
        // has (not the call's own scope, which an identical call of another client or
        // session could share and spend first), then this call is evaluated again in it.
        const elicited = `elicitation:${randomUUID()}`;
        const sealing = own(grants, 'sealing') === true;
        const grantOptions = { uses: 1, ttlMs: ELICITED_GRANT_TTL_MS };
        if (!sealing) setData(grantOptions, 'scope', elicited);
        await ReflectApply(own(grants, 'grant'), grants, [approvalProposal(decision, elicited), grantOptions]);
        const elicitedContext = ownDataCopy(policyContext);
        setData(elicitedContext, 'grantScope', elicited);
        const asked = decision;
        decision = await evaluateToolCall({ prepared, policy, policyContext: elicitedContext, toolCallId });
        if (decision.decision !== 'allow') {
          // Not run after all (a store failure, a deny): the unused grant goes now.
          try {
            await ReflectApply(own(grants, 'revoke'), grants, [{ agentName: asked.agentName, toolName: asked.toolName, proposalHash: asked.proposalHash, scope: elicited }]);
          } catch {
            // It expires (ELICITED_GRANT_TTL_MS); nobody else can name its scope.
          }
        }
      }
    }
    if (decision.decision === 'require_approval') return approvalResult(decision, toolCallId, scope);
    if (decision.decision !== 'allow') return denyResult(decision.reason, decision.decidedBy);

    const handler = own(tool, 'handler');
    let result;
    try {
      result = await executeToolCall(decision, (args) => (inputSchema === undefined ? handler(extra) : handler(args, extra)), executeOptions);
    } catch (error) {
      if (isToolCallNotAllowedError(error) && error.code === 'grant_unavailable') return denyResult('grant_unavailable', 'runtime');
      // The SDK passes this one through (also an McpError of its ES module build).
      if (error !== null && typeof error === 'object' && error.code === ErrorCode.UrlElicitationRequired) throw error;
      return toolErrorResult(error);
    }
    // The SDK's own check of structured output against the tool's output schema.
    if (typeof mcpServer.validateToolOutput === 'function') {
      try {
        await mcpServer.validateToolOutput(tool, result, toolName);
      } catch (error) {
        return toolErrorResult(error);
      }
    }
    return result;
  }

  // The SDK sets up tools/list, tools/call and the tools capability on the first tool;
  // let it (so registering later never collides with the gate's handler), then replace
  // tools/call. Tools registered afterwards are looked up at call time: gated too.
  if (mcpServer._toolHandlersInitialized !== true && typeof mcpServer.setToolRequestHandlers === 'function') mcpServer.setToolRequestHandlers();
  server.setRequestHandler(CallToolRequestSchema, callTool);

  let httpTransport;
  let httpConnected;
  async function connectHttp() {
    if (httpConnected === undefined) {
      const Transport = httpTransportClass();
      const settings = { sessionIdGenerator: randomUUID };
      if (httpOptions !== null) {
        // The SDK's transport options, as own data (an explicit `sessionIdGenerator: undefined` is stateless).
        for (let i = 0; i < HTTP_OPTIONS.length; i++) {
          const descriptor = ObjectGetOwnPropertyDescriptor(httpOptions, HTTP_OPTIONS[i]);
          if (descriptor !== undefined && ObjectHasOwn(descriptor, 'value')) setData(settings, HTTP_OPTIONS[i], descriptor.value);
        }
      }
      const inner = new Transport(settings);
      httpTransport = new GatedTransport(
        (self) => {
          inner.onmessage = (message, extra) => self.deliver(message, extra);
          inner.onerror = (error) => self.reportError(error);
          inner.onclose = () => {
            if (typeof self.onclose === 'function') self.onclose();
          };
          return inner.start();
        },
        (message, sendOptions) => inner.send(message, sendOptions),
        () => inner.close(),
        () => inner.sessionId,
      );
      httpTransport.inner = inner;
      httpTransport.maxBody = typeof settings.maxRequestBodySize === 'number' ? settings.maxRequestBodySize : MAX_BODY_BYTES;
      httpConnected = mcpServer.connect(httpTransport);
    }
    await httpConnected;
    return httpTransport;
  }

  /** Streamable HTTP: one gated transport (one session) for this server, connected on the first request. */
  async function handleHttp(req, res) {
    const transport = await connectHttp();
    const inner = transport.inner;
    if (req.method !== 'POST') return inner.handleRequest(req, res);
    if (req.body !== undefined || req.readableEnded === true) {
      // A body parser ran first: the text is gone, and the gate never guesses.
      writeJson(res, 500, errorResponse(null, INTERNAL_ERROR, 'tool-argument-snapshot/mcp: the request body was read before handleHttp (mount it before any body parser)'));
      return undefined;
    }
    const bytes = await readBody(req, transport.maxBody);
    if (bytes === undefined) {
      writeJson(res, 413, errorResponse(null, -32000, 'Request body too large'));
      return undefined;
    }
    const text = decodeUtf8(bytes);
    const read = text === undefined ? { response: errorResponse(null, PARSE_ERROR, 'Parse error') } : readMessageText(text, true);
    if (read.response !== undefined) {
      writeJson(res, 400, read.response);
      return undefined;
    }
    return inner.handleRequest(req, res, read.batch ? read.messages : read.messages[0]);
  }

  return ObjectFreeze({
    agentName,
    /** A stdio transport (process.stdin and process.stdout unless given) that keeps each message's text. */
    stdioTransport,
    /** A linked [client, server] pair in memory: the client's messages reach the server as text. */
    createLinkedPair,
    handleHttp,
  });
}

module.exports = { gateMcpServer };
