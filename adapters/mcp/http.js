'use strict';
// Streamable HTTP: the SDK's transport, one session per gate, connected on the first
// request and given the body the gate read and checked itself (strict decoding, ids in
// flight): each HTTP request gets one answer, its own.

const { own, setData } = require('../gate/read');
const {
  ArrayPrototypePush,
  BufferConcat,
  JSONStringify,
  ObjectFreeze,
  ObjectGetOwnPropertyDescriptor,
  ObjectHasOwn,
  SafePromise,
  randomUUID,
} = require('../gate/primordials');
const { PARSE_ERROR, INTERNAL_ERROR, errorResponse, readMessageText, decodeUtf8 } = require('./messages');
const { duplicateIdResponse } = require('./ids');
const { GatedTransport } = require('./transport');
const { httpTransportClass } = require('./sdk');

/** The SDK's limit: an HTTP body of 4 MiB. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

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
  'sessionIdGenerator',
  'enableJsonResponse',
  'eventStore',
  'onsessioninitialized',
  'onsessionclosed',
  'allowedHosts',
  'allowedOrigins',
  'enableDnsRebindingProtection',
  'maxRequestBodySize',
  'retryInterval',
]);

function writeJson(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSONStringify(body));
}

/** The handleHttp of a gated server (`httpOptions`: the SDK transport's options, or null). */
function httpHandler(mcpServer, httpOptions) {
  /** @type {GatedTransport & { inner?: any, maxBody?: number }} the gated transport, with the SDK's transport inside and its body limit */
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
      writeJson(
        res,
        500,
        errorResponse(null, INTERNAL_ERROR, 'tool-argument-snapshot/mcp: the request body was read before handleHttp (mount it before any body parser)'),
      );
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
    // An id still in flight in this session: answered here, before the SDK routes it.
    const sessionHeader = own(req.headers, 'mcp-session-id');
    const ids = inner.sessionId === undefined || sessionHeader === inner.sessionId ? transport.claimIds(read.messages) : undefined;
    if (ids !== undefined && ids.duplicate !== undefined) {
      writeJson(res, 400, duplicateIdResponse(ids.duplicate));
      return undefined;
    }
    try {
      return await inner.handleRequest(req, res, read.batch ? read.messages : read.messages[0]);
    } finally {
      if (ids !== undefined) transport.settleIds(ids.claimed);
    }
  }
  return handleHttp;
}

module.exports = { httpHandler };
