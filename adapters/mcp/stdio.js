'use strict';
// The text transports: stdio (the SDK's StdioServerTransport, re-read so each line's text
// is kept) and a linked client/server pair in memory whose client sends JSON text.

const { invalidArgument, own, readOptions } = require('../gate/read');
const {
  ArrayPrototypePush,
  BufferConcat,
  BufferFrom,
  BufferPrototypeIndexOf,
  BufferPrototypeSubarray,
  JSONStringify,
  PromisePrototypeThen,
  SafeError,
  SafePromise,
} = require('../gate/primordials');
const { PARSE_ERROR, errorResponse, decodeUtf8 } = require('./messages');
const { GatedTransport } = require('./transport');

/** The SDK's limit: a stdio line buffer of 10 MiB. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

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
      transport.reportError(new SafeError(`tool-argument-snapshot/mcp: a stdio line exceeded ${MAX_LINE_BYTES} bytes`));
      return;
    }
    while (buffer !== undefined) {
      const newline = BufferPrototypeIndexOf(buffer, 0x0a);
      if (newline === -1) return;
      let lineEnd = newline;
      if (lineEnd > 0 && buffer[lineEnd - 1] === 0x0d) lineEnd--;
      const line = BufferPrototypeSubarray(buffer, 0, lineEnd);
      // Nothing left: no buffer (the next chunk is then taken as it is, not copied).
      buffer = newline + 1 === buffer.length ? undefined : BufferPrototypeSubarray(buffer, newline + 1);
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
      if (started) throw new SafeError('tool-argument-snapshot/mcp: the stdio transport is already started');
      started = true;
      stdin.on('data', ondata);
      stdin.on('error', onerror);
    },
    (message) =>
      new SafePromise((resolve) => {
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
 * sends reaches the client as it is, as over the SDK's InMemoryTransport.
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
      if (closed) throw new SafeError('Not connected');
      // As the SDK's InMemoryTransport: the object itself (the client's SDK parses it into its own).
      if (typeof client.onmessage === 'function') client.onmessage(message);
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
      if (closed) throw new SafeError('Not connected');
      if (typeof text !== 'string') throw invalidArgument('sendText expects a string');
      if (typeof server.onmessage === 'function') server.receiveText(text);
      else ArrayPrototypePush(queued, text);
    },
    close: closeBoth,
  };
  return [client, server];
}

module.exports = { stdioTransport, createLinkedPair };
