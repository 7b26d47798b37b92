'use strict';
// The web classes of the gate's 2.x face (its fetch and its Node handler), captured when
// this file loads: when the subpath is required in a project that has only the 2.x SDK
// (../entry.js), else when the first 2.x gate is made (../index.js). On Node 22 and later
// even reading the property descriptor of `Response`, `Request` or `Headers` loads Node's
// fetch implementation (undici: about 16 MiB of RSS and 15 ms), which a process that makes
// only 1.x gates, or none, never needs; the SDK 2.x that a 2.x gate serves loads it anyway.
// Captured once: later patching of these globals changes nothing the gate decides.
// Everything else the 2.x modules use was captured when the subpath was required
// (../../gate/primordials.js).

const { ObjectFreeze, uncurryThis } = require('../../gate/primordials');
const { Readable } = require('node:stream');

module.exports = ObjectFreeze({
  __proto__: null,
  SafeResponse: Response,
  SafeRequest: Request,
  SafeHeaders: Headers,
  SafeAbortController: AbortController,
  AbortControllerPrototypeAbort: uncurryThis(AbortController.prototype.abort),
  HeadersPrototypeAppend: uncurryThis(Headers.prototype.append),
  HeadersPrototypeForEach: uncurryThis(Headers.prototype.forEach),
  HeadersPrototypeGet: uncurryThis(Headers.prototype.get),
  ResponsePrototypeClone: uncurryThis(Response.prototype.clone),
  ResponsePrototypeText: uncurryThis(Response.prototype.text),
  ReadableStreamPrototypeGetReader: uncurryThis(ReadableStream.prototype.getReader),
  ReaderRead: uncurryThis(ReadableStreamDefaultReader.prototype.read),
  ReaderCancel: uncurryThis(ReadableStreamDefaultReader.prototype.cancel),
  ReadableToWeb: Readable.toWeb,
  ReadableFromWeb: Readable.fromWeb,
});
