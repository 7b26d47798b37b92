'use strict';
// The gated transport the server connects to: it answers what fails strict decoding or
// reuses an id in flight, and passes the rest on with each tools/call's arguments text
// in `extra.requestInfo` (an object made for that one message).

const { own } = require('../gate/read');
const { types } = require('./sdk');
const { ObjectFreeze, PromisePrototypeThen } = require('../gate/primordials');
const { INTERNAL_ERROR, isRecord, errorResponse, argumentsTextFor, readOneMessage } = require('./messages');
const { InFlightIds, requestIdOf, answeredIdOf, duplicateIdResponse } = require('./ids');

/** The headers of a message read from stdio or the linked pair: none. */
const NO_HEADERS = ObjectFreeze({});

class GatedRequestInfo {
  headers;
  url;
  #rawArguments;
  constructor(base, rawArguments) {
    if (base === undefined) {
      this.headers = NO_HEADERS;
    } else {
      const headers = own(base, 'headers');
      this.headers = headers === undefined ? NO_HEADERS : headers;
      const url = own(base, 'url');
      if (url !== undefined) this.url = url;
    }
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

class GatedTransport {
  onmessage;
  onclose;
  onerror;
  #send;
  #start;
  #close;
  #sessionId;
  #ids = new InFlightIds();

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
    const answered = answeredIdOf(message);
    try {
      return await this.#send(message, options);
    } finally {
      // Answered: the id is free again (a later reuse is the client's to avoid).
      if (answered !== undefined) this.#ids.release(answered);
    }
  }

  /** Claims the request ids of messages read by HTTP: see InFlightIds.claim. */
  claimIds(messages) {
    return this.#ids.claim(messages);
  }

  settleIds(claimed) {
    this.#ids.settle(claimed);
  }

  async close() {
    return this.#close(this);
  }

  /** Passes a message the transport read (and, for HTTP, the SDK parsed) to the server. */
  deliver(message, extra) {
    const found = argumentsTextOf(message);
    this.#deliver(message, extra, found.isToolCall, found.rawArguments, requestIdOf(message));
  }

  /**
   * Passes a message on: `isToolCall` says it is a tools/call with params, and
   * `rawArguments` is its arguments text (undefined: lost); `requestId` is requestIdOf(message).
   */
  #deliver(message, extra, isToolCall, rawArguments, requestId) {
    const onmessage = this.onmessage;
    if (typeof onmessage !== 'function') {
      if (requestId !== undefined) this.#ids.release(requestId);
      return;
    }
    if (isToolCall && rawArguments === undefined) {
      // A tools/call through a gated transport without its text: never guess.
      const id = isRecord(message) ? own(message, 'id') : undefined;
      if (requestId !== undefined) this.#ids.release(requestId);
      if (id !== undefined) {
        PromisePrototypeThen(this.#send(errorResponse(id, INTERNAL_ERROR, 'tool-argument-snapshot/mcp: the message text was lost')), undefined, () => {});
      }
      return;
    }
    if (requestId !== undefined) this.#ids.delivered(requestId);
    let next = extra;
    if (rawArguments !== undefined) {
      next =
        extra === undefined || extra === null
          ? { requestInfo: new GatedRequestInfo(undefined, rawArguments) }
          : {
              authInfo: own(extra, 'authInfo'),
              requestInfo: new GatedRequestInfo(own(extra, 'requestInfo'), rawArguments),
              closeSSEStream: own(extra, 'closeSSEStream'),
              closeStandaloneSSEStream: own(extra, 'closeStandaloneSSEStream'),
            };
    }
    onmessage(message, next);
  }

  /** Reads one message text (stdio line, in-memory text): answers or delivers. */
  receiveText(text) {
    const read = readOneMessage(text);
    if (read.response !== undefined) {
      PromisePrototypeThen(this.#send(read.response), undefined, (error) => this.reportError(error));
      return;
    }
    let message;
    try {
      // The SDK's own check of a JSON-RPC message, as its stdio transport makes it.
      message = types().JSONRPCMessageSchema.parse(read.message);
    } catch (error) {
      this.reportError(error);
      return;
    }
    // The id read once: claimed here, marked delivered by #deliver.
    const requestId = requestIdOf(message);
    if (requestId !== undefined && !this.#ids.claimId(requestId)) {
      PromisePrototypeThen(this.#send(duplicateIdResponse(requestId)), undefined, (error) => this.reportError(error));
      return;
    }
    // The arguments text came with the message read here: no lookup. (A tools/call the
    // SDK's check let through with params that are not a record never reaches the gate's
    // handler: the SDK refuses it.)
    const rawArguments = read.rawArguments;
    this.#deliver(message, undefined, rawArguments !== undefined || argumentsTextOf(message).isToolCall, rawArguments, requestId);
  }

  reportError(error) {
    const onerror = this.onerror;
    if (typeof onerror === 'function') onerror(error);
  }
}

module.exports = { GatedRequestInfo, GatedTransport };
