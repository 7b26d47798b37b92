'use strict';
// A model's stream piped through a recorder: its tool calls held until its response is
// complete, the response then recorded (the AI SDK's and Mastra's gates). The web streams it
// calls are captured when it loads (streams.js), only by the gates that record a stream.

const { ArrayPrototypePush } = require('./primordials');
const { ReadableStreamPrototypePipeThrough, SafeTransformStream } = require('./streams');
const { own, ownDataCopy, setData } = require('./read');

/**
 * The stream result of a model's doStream with its stream piped through a recorder: the
 * chunks `isHeld` selects (gated tool calls) are held until the response is complete (its
 * `finish` chunk, or its end), handed to `recordResponse(calls, otherIds)`, and passed on
 * right before `finish`, so an id used twice is known before the framework sees either call.
 */
function recordingResult(result, isHeld, recordResponse) {
  let held = [];
  let otherIds = [];
  const release = (controller) => {
    const calls = held;
    recordResponse(calls, otherIds);
    held = [];
    otherIds = [];
    for (let i = 0; i < calls.length; i++) controller.enqueue(calls[i]);
  };
  const recording = new SafeTransformStream({
    transform(chunk, controller) {
      if (isHeld(chunk)) {
        ArrayPrototypePush(held, chunk);
        return;
      }
      const type = chunk !== null && typeof chunk === 'object' ? own(chunk, 'type') : undefined;
      // Another tool's call is passed on at once; its id still counts for the response.
      if (type === 'tool-call') ArrayPrototypePush(otherIds, own(chunk, 'toolCallId'));
      else if (type === 'finish') release(controller);
      controller.enqueue(chunk);
    },
    flush(controller) {
      release(controller);
    },
  });
  const copy = ownDataCopy(result);
  setData(copy, 'stream', ReadableStreamPrototypePipeThrough(own(result, 'stream'), recording));
  return copy;
}

module.exports = { recordingResult };
