'use strict';
// The web face of a gated 2.x server: `fetch(request, options)` in front of the SDK's
// createMcpHandler. It reads the body itself (bounded), decodes it once, strictly (the
// package's decodeRequest with `arguments` set aside), checks that the Mcp-Method and
// Mcp-Name headers agree with the decoded message, and hands the SDK that decoded message
// as its `parsedBody`; the text of `arguments` is kept for the gated tools/call handler of
// the server made for this very request (found by the Request object, one per message).

const { own, invalidArgument } = require('../../gate/read');
const {
  ArrayIsArray,
  ArrayPrototypePush,
  BufferConcat,
  BufferFrom,
  BufferPrototypeToString,
  JSONParse,
  JSONStringify,
  ObjectHasOwn,
  ObjectKeys,
  PromisePrototypeThen,
  RegExpPrototypeTest,
  SafePromise,
  SafeTextDecoder,
  SafeWeakMap,
  StringPrototypeSlice,
  StringPrototypeStartsWith,
  TextDecoderPrototypeDecode,
  WeakMapPrototypeGet,
  WeakMapPrototypeSet,
  isProxy,
} = require('../../gate/primordials');
const { isArgumentsText } = require('tool-argument-snapshot');
const { PARSE_ERROR, INVALID_REQUEST, INTERNAL_ERROR, isRecord, errorResponse, argumentsTextFor, readMessageText, decodeUtf8 } = require('../messages');

const {
  AbortControllerPrototypeAbort,
  HeadersPrototypeAppend,
  HeadersPrototypeForEach,
  HeadersPrototypeGet,
  ReadableFromWeb,
  ReadableStreamPrototypeGetReader,
  ReadableToWeb,
  ReaderCancel,
  ReaderRead,
  ResponsePrototypeClone,
  ResponsePrototypeText,
  SafeAbortController,
  SafeHeaders,
  SafeRequest,
  SafeResponse,
} = require('./web');

const utf8 = new SafeTextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The SDK's limit: a POST body of 4 MiB. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** The code of a header that disagrees with the body (SEP-2243's HeaderMismatch, as the 2026-07-28 schema and SDK 2.x assign it). */
const HEADER_MISMATCH = -32020;

/** The decoded message of each request the gate read, by its Request object. */
const records = new SafeWeakMap();

/** What the gate read of `request` (`{ message, rawArguments }`), or undefined. */
function recordOf(request) {
  return request !== null && typeof request === 'object' ? WeakMapPrototypeGet(records, request) : undefined;
}

function jsonResponse(status, body) {
  return new SafeResponse(JSONStringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** The body of a web Request as bytes, at most `limit` (undefined past it). */
async function readBody(request, limit) {
  const body = request.body;
  if (body === null) return BufferFrom('');
  const reader = ReadableStreamPrototypeGetReader(body);
  const chunks = [];
  let size = 0;
  for (;;) {
    const step = await ReaderRead(reader);
    if (step.done) break;
    size += step.value.byteLength;
    if (size > limit) {
      PromisePrototypeThen(ReaderCancel(reader), undefined, () => {});
      return undefined;
    }
    ArrayPrototypePush(chunks, step.value);
  }
  return BufferConcat(chunks);
}

/** The field a method's Mcp-Name header mirrors (SEP-2243), or undefined. */
function nameField(method) {
  if (method === 'tools/call' || method === 'prompts/get') return 'name';
  if (method === 'resources/read') return 'uri';
  return undefined;
}

/** A header value without the optional whitespace around it (RFC 9110). */
function trimOws(value) {
  let start = 0;
  let end = value.length;
  while (start < end && (value[start] === ' ' || value[start] === '\t')) start++;
  while (end > start && (value[end - 1] === ' ' || value[end - 1] === '\t')) end--;
  return StringPrototypeSlice(value, start, end);
}

/** A header value as SEP-2243 encodes it: plain, or `=?base64?...?=` (UTF-8); undefined when the encoding is broken. */
function decodeHeaderValue(value) {
  if (!StringPrototypeStartsWith(value, '=?base64?') || value.length < 11 || StringPrototypeSlice(value, -2) !== '?=') return value;
  const b64 = StringPrototypeSlice(value, 9, value.length - 2);
  if (!RegExpPrototypeTest(/^[A-Za-z0-9+/]*={0,2}$/, b64) || b64.length % 4 !== 0) return undefined;
  const bytes = BufferFrom(b64, 'base64');
  if (BufferPrototypeToString(bytes, 'base64') !== b64) return undefined;
  try {
    return TextDecoderPrototypeDecode(utf8, bytes);
  } catch {
    return undefined;
  }
}

/**
 * Whether the request's Mcp-Method and Mcp-Name headers, when sent, agree with the decoded
 * message (its method, and its `params.name` or `params.uri`). A missing header is the
 * SDK's to answer (it requires them on 2026-07-28 requests); `Mcp-Param-*` headers are
 * checked by the SDK against the arguments the gate decoded (its answer is made
 * payload-free, see scrubMismatch).
 */
function headersAgree(headers, message) {
  if (!isRecord(message)) return true;
  const method = own(message, 'method');
  if (typeof method !== 'string') return true;
  const methodHeader = HeadersPrototypeGet(headers, 'mcp-method');
  if (methodHeader !== null && trimOws(methodHeader) !== method) return false;
  const field = nameField(method);
  const nameHeader = field === undefined ? null : HeadersPrototypeGet(headers, 'mcp-name');
  if (nameHeader === null) return true;
  const params = own(message, 'params');
  const value = isRecord(params) ? own(params, field) : undefined;
  const decoded = decodeHeaderValue(trimOws(nameHeader));
  return decoded !== undefined && (typeof value !== 'string' || decoded === value);
}

function answerId(message) {
  const id = isRecord(message) ? own(message, 'id') : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function mismatchResponse(id) {
  return jsonResponse(400, errorResponse(id, HEADER_MISMATCH, 'Bad Request: the request headers and body disagree', { code: 'header_mismatch' }));
}

/**
 * The SDK's own -32020 answers (an `Mcp-Param-*` header against the arguments) quote the
 * argument's value: the gate answers them with its own payload-free error instead.
 */
async function scrubMismatch(response, id) {
  if (response.status !== 400) return response;
  let body;
  try {
    body = JSONParse(await ResponsePrototypeText(ResponsePrototypeClone(response)));
  } catch {
    return response;
  }
  const error = isRecord(body) ? own(body, 'error') : undefined;
  if (!isRecord(error) || own(error, 'code') !== HEADER_MISMATCH) return response;
  return mismatchResponse(id);
}

/**
 * A tools/call's params with its arguments back in place for the SDK (the value decoded
 * with the message, or none), and the arguments for the gate: its ArgumentsText, '' (no
 * `arguments` member), or the text of arguments that are not strict JSON.
 */
function restoreArguments(message) {
  if (!isRecord(message) || own(message, 'method') !== 'tools/call') return undefined;
  const params = own(message, 'params');
  if (!isRecord(params)) return undefined;
  const rawArguments = argumentsTextFor(own(params, 'arguments'));
  if (rawArguments === undefined) return undefined;
  if (rawArguments === '') {
    delete params.arguments;
  } else {
    // decodeRequest made `arguments` an own data property: assigning it runs no setter.
    params.arguments = isArgumentsText(rawArguments) ? rawArguments.decode() : {};
  }
  return rawArguments;
}

/**
 * The gate's fetch in front of the SDK's McpHttpHandler (`handlerOf()`, the current one):
 * `(request, options?)` with `options.authInfo` passed through. `servedByOtherBuild(request)`
 * says the factory's server for it was of the other build of the SDK; `switchBuild()` then
 * moves to that build's handler, and the request is served again from its text.
 */
function gatedFetch(handlerOf, maxBodyBytes, servedByOtherBuild, switchBuild) {
  const limit = maxBodyBytes === undefined ? MAX_BODY_BYTES : maxBodyBytes;

  /** Reads `text` for `request` and hands it to the handler: the Response. */
  async function dispatch(request, text, authInfo) {
    const read = readMessageText(text, true);
    if (read.response !== undefined) return jsonResponse(400, read.response);
    if (read.batch || ArrayIsArray(read.messages[0])) {
      // JSON-RPC batches left MCP in 2025-06-18 and may not hold 2026-07-28 requests: refused whole.
      return jsonResponse(400, errorResponse(null, INVALID_REQUEST, 'Invalid Request', { code: 'batch_not_supported' }));
    }
    const message = read.messages[0];
    const rawArguments = restoreArguments(message);
    const id = answerId(message);
    if (!headersAgree(request.headers, message)) return mismatchResponse(id);
    WeakMapPrototypeSet(records, request, { __proto__: null, message, rawArguments });
    const response = await handlerOf().fetch(request, authInfo === undefined ? { parsedBody: message } : { authInfo, parsedBody: message });
    return scrubMismatch(response, id);
  }

  return async function fetch(request, options) {
    if (request === null || typeof request !== 'object' || isProxy(request)) throw invalidArgument('gate.fetch expects a web Request');
    if (options !== undefined && options !== null && (typeof options !== 'object' || isProxy(options)))
      throw invalidArgument('gate.fetch options must be an object');
    const authInfo = options === undefined || options === null ? undefined : own(options, 'authInfo');
    if (options !== undefined && options !== null && ObjectHasOwn(options, 'parsedBody')) {
      return jsonResponse(
        500,
        errorResponse(
          null,
          INTERNAL_ERROR,
          'tool-argument-snapshot/mcp: a parsed body was given; the gate reads the request text itself (mount it before any body parser)',
        ),
      );
    }
    if (request.method !== 'POST') return authInfo === undefined ? handlerOf().fetch(request) : handlerOf().fetch(request, { authInfo });
    if (request.bodyUsed) {
      return jsonResponse(
        500,
        errorResponse(null, INTERNAL_ERROR, 'tool-argument-snapshot/mcp: the request body was read before the gate (mount it before any body parser)'),
      );
    }
    const bytes = await readBody(request, limit);
    if (bytes === undefined) return jsonResponse(413, errorResponse(null, -32000, 'Request body too large'));
    const text = decodeUtf8(bytes);
    if (text === undefined) return jsonResponse(400, errorResponse(null, PARSE_ERROR, 'Parse error'));
    const response = await dispatch(request, text, authInfo);
    if (!servedByOtherBuild(request)) return response;
    await switchBuild();
    // The same request again, from its text, for the handler of the server's build.
    const again = new SafeRequest(request.url, { method: 'POST', headers: request.headers, body: text, signal: request.signal });
    return dispatch(again, text, authInfo);
  };
}

/**
 * A Node.js `(req, res)` handler in front of the gate's fetch (as 1.x's handleHttp): the
 * request made a web Request whose body is the Node stream (read by the gate, never parsed
 * before), the Response written back, streamed (an SSE answer as it comes). A request whose
 * body a parser already read is answered with an error: the text is gone. `req.auth` (an
 * authentication middleware's, as the 1.x transport reads it) is passed as `authInfo`.
 */
function nodeHandler(fetch) {
  return async function handleHttp(req, res) {
    if (req.body !== undefined || req.readableEnded === true) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSONStringify(
          errorResponse(null, INTERNAL_ERROR, 'tool-argument-snapshot/mcp: the request body was read before handleHttp (mount it before any body parser)'),
        ),
      );
      return;
    }
    const headers = new SafeHeaders();
    const names = ObjectKeys(req.headers);
    for (let i = 0; i < names.length; i++) {
      const value = req.headers[names[i]];
      if (typeof value === 'string') HeadersPrototypeAppend(headers, names[i], value);
      else if (ArrayIsArray(value)) for (let j = 0; j < value.length; j++) HeadersPrototypeAppend(headers, names[i], value[j]);
    }
    const controller = new SafeAbortController();
    res.on('close', () => AbortControllerPrototypeAbort(controller));
    const method = req.method;
    const host = typeof req.headers.host === 'string' ? req.headers.host : 'localhost';
    const init = { method, headers, signal: controller.signal };
    if (method !== 'GET' && method !== 'HEAD') {
      init.body = ReadableToWeb(req);
      init.duplex = 'half';
    }
    // An authentication middleware's `req.auth` (validated by it) is the request's authInfo, as on 1.x.
    const auth = own(req, 'auth');
    const request = new SafeRequest(`http://${host}${req.url}`, init);
    const response = await (auth !== null && typeof auth === 'object' ? fetch(request, { authInfo: auth }) : fetch(request));
    const out = {};
    HeadersPrototypeForEach(response.headers, (value, name) => {
      out[name] = value;
    });
    res.writeHead(response.status, out);
    if (response.body === null) {
      res.end();
      return;
    }
    await new SafePromise((resolve) => {
      const body = ReadableFromWeb(response.body);
      body.on('error', () => {
        res.destroy();
        resolve();
      });
      res.on('close', resolve);
      body.pipe(res);
    });
  };
}

module.exports = { MAX_BODY_BYTES, HEADER_MISMATCH, gatedFetch, recordOf, nodeHandler };
