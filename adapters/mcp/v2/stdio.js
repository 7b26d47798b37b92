'use strict';
// stdio on the MCP TypeScript SDK 2.x: the SDK's serveStdio (one connection, a server from
// the factory for it, the 2026-07-28 discovery or the 2025 handshake) over a transport of
// the gate's that reads each line's text itself: decoded once, strictly (the package's
// decodeRequest, `arguments` set aside), UTF-8 checked, ids in flight kept. The gated
// tools/call handler finds the reading of its request by the request's id, unique while it
// is in flight in the connection.

const { own, readOptions, invalidArgument, setData } = require('../../gate/read');
const {
  BufferConcat,
  BufferFrom,
  BufferPrototypeIndexOf,
  BufferPrototypeSubarray,
  JSONStringify,
  MapPrototypeDelete,
  MapPrototypeGet,
  MapPrototypeHas,
  MapPrototypeSet,
  PromisePrototypeThen,
  SafeError,
  SafeMap,
  SafePromise,
  isProxy,
} = require('../../gate/primordials');
const { requirePeer } = require('../../gate/peer');
const { PARSE_ERROR, isRecord, errorResponse, readOneMessage, decodeUtf8 } = require('../messages');
const { requestIdOf, answeredIdOf, duplicateIdResponse } = require('../ids');

/** The SDK's limit: a stdio line buffer of 10 MiB. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** The gate's stdio transport for serveStdio: a Transport whose lines the gate reads itself. */
class GatedStdioTransport {
  onmessage;
  onclose;
  onerror;
  #stdin;
  #stdout;
  #buffer;
  #started = false;
  // request id -> the gate's reading ({ message, rawArguments }) while it is in flight
  #inFlight = new SafeMap();
  #ondata;
  #onerror;

  constructor(stdin, stdout) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#ondata = (chunk) => this.#read(chunk);
    this.#onerror = (error) => this.#report(error);
  }

  async start() {
    if (this.#started) throw new SafeError('tool-argument-snapshot/mcp: the stdio transport is already started');
    this.#started = true;
    this.#stdin.on('data', this.#ondata);
    this.#stdin.on('error', this.#onerror);
  }

  send(message) {
    const answered = answeredIdOf(message);
    if (answered !== undefined) MapPrototypeDelete(this.#inFlight, answered);
    return new SafePromise((resolve) => {
      if (this.#stdout.write(`${JSONStringify(message)}\n`)) resolve();
      else this.#stdout.once('drain', resolve);
    });
  }

  async close() {
    this.#stdin.off('data', this.#ondata);
    this.#stdin.off('error', this.#onerror);
    if (this.#stdin.listenerCount('data') === 0 && typeof this.#stdin.pause === 'function') this.#stdin.pause();
    this.#buffer = undefined;
    if (typeof this.onclose === 'function') this.onclose();
  }

  /** The reading of request `id` while it is in flight, or undefined. */
  recordOf(id) {
    return MapPrototypeGet(this.#inFlight, id);
  }

  #report(error) {
    if (typeof this.onerror === 'function') this.onerror(error);
  }

  #answer(response) {
    PromisePrototypeThen(this.send(response), undefined, (error) => this.#report(error));
  }

  #read(chunk) {
    if (typeof chunk === 'string') chunk = BufferFrom(chunk, 'utf8');
    this.#buffer = this.#buffer === undefined ? chunk : BufferConcat([this.#buffer, chunk]);
    if (this.#buffer.length > MAX_LINE_BYTES) {
      this.#buffer = undefined;
      this.#report(new SafeError(`tool-argument-snapshot/mcp: a stdio line exceeded ${MAX_LINE_BYTES} bytes`));
      return;
    }
    while (this.#buffer !== undefined) {
      const buffer = this.#buffer;
      const newline = BufferPrototypeIndexOf(buffer, 0x0a);
      if (newline === -1) return;
      let lineEnd = newline;
      if (lineEnd > 0 && buffer[lineEnd - 1] === 0x0d) lineEnd--;
      const line = BufferPrototypeSubarray(buffer, 0, lineEnd);
      this.#buffer = newline + 1 === buffer.length ? undefined : BufferPrototypeSubarray(buffer, newline + 1);
      const text = decodeUtf8(line);
      if (text === undefined) {
        this.#answer(errorResponse(null, PARSE_ERROR, 'Parse error'));
        continue;
      }
      this.#receive(text);
    }
  }

  #receive(text) {
    const read = readOneMessage(text);
    if (read.response !== undefined) {
      this.#answer(read.response);
      return;
    }
    const message = read.message;
    const requestId = requestIdOf(message);
    if (requestId !== undefined && MapPrototypeHas(this.#inFlight, requestId)) {
      // An id still in flight in this connection: the first request keeps it.
      this.#answer(duplicateIdResponse(requestId));
      return;
    }
    // The SDK gets `arguments` as readOneMessage leaves them (an empty record in their place):
    // no header on stdio is checked against them, and the call's are the package's decoding.
    const isToolCall = isRecord(message) && own(message, 'method') === 'tools/call';
    if (requestId !== undefined) {
      MapPrototypeSet(this.#inFlight, requestId, { __proto__: null, message, rawArguments: isToolCall ? read.rawArguments : undefined });
    }
    if (typeof this.onmessage === 'function') this.onmessage(message);
  }
}

const STDIO_OPTIONS = ['legacy', 'onerror', 'maxSubscriptions'];

/**
 * Serves one stdio connection (process.stdin and process.stdout unless given) with the SDK's
 * serveStdio (`options.serveStdio`, else the CommonJS build's) and a factory whose servers
 * the gate gates: the SDK's StdioServerHandle (`close()`).
 */
function serveGatedStdio(makeGatedFactory, options) {
  const opts = readOptions(options, 'serveStdio options');
  const stdin = (opts !== null && own(opts, 'stdin')) || process.stdin;
  const stdout = (opts !== null && own(opts, 'stdout')) || process.stdout;
  let serve = opts === null ? undefined : own(opts, 'serveStdio');
  if (serve !== undefined && (typeof serve !== 'function' || isProxy(serve)))
    throw invalidArgument('options.serveStdio must be the serveStdio of @modelcontextprotocol/server/stdio');
  let commonJsServer;
  if (serve === undefined) {
    serve = requirePeer('mcp', '@modelcontextprotocol/server', 'the MCP TypeScript SDK 2.x', () => require('@modelcontextprotocol/server/stdio')).serveStdio;
    commonJsServer = requirePeer('mcp', '@modelcontextprotocol/server', 'the MCP TypeScript SDK 2.x', () => require('@modelcontextprotocol/server')).McpServer;
  }
  const transport = new GatedStdioTransport(stdin, stdout);
  const factory = makeGatedFactory(
    () => (id) => transport.recordOf(id),
    (product) => {
      if (commonJsServer !== undefined && !(product instanceof commonJsServer)) {
        throw invalidArgument(
          "gateMcpServer: the server factory returned an McpServer of the ES module build of @modelcontextprotocol/server; pass that build's serveStdio: gate.serveStdio({ serveStdio })",
        );
      }
    },
  );
  const serveOptions = { transport };
  if (opts !== null) {
    for (let i = 0; i < STDIO_OPTIONS.length; i++) {
      const value = own(opts, STDIO_OPTIONS[i]);
      if (value !== undefined) setData(serveOptions, STDIO_OPTIONS[i], value);
    }
  }
  return serve(factory, serveOptions);
}

module.exports = { serveGatedStdio, GatedStdioTransport };
