'use strict';
// The web streams the gates that pipe a model's stream through a recording or a denial
// writer call (the AI SDK's and Mastra's), captured when such a gate loads: later patching
// of ReadableStream or TransformStream changes nothing they decide. Apart from
// primordials.js because touching either global loads Node's web streams (about 24
// internal modules and 1.7 ms on Node 26), which the gates that never pipe a stream
// (LangChain, OpenAI Agents, MCP) have no use for.

const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);

module.exports = Object.freeze({
  __proto__: null,
  ReadableStreamPrototypePipeThrough: uncurryThis(ReadableStream.prototype.pipeThrough),
  SafeTransformStream: TransformStream,
});
