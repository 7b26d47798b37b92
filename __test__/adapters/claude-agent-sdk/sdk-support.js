'use strict';
// What the Claude Agent SDK gate's tests run against. Everything is the SDK's own except the
// model: the SDK's query() spawns its real Claude Code CLI (the binary the SDK installs),
// which talks to the SDK over its real stream-json control protocol (hook callbacks,
// can_use_tool requests, the in-process MCP server's tools/call). The CLI's model requests go
// to ANTHROPIC_BASE_URL: here a local HTTP server speaking the Anthropic Messages API, which
// answers each request with the next scripted assistant turn, streamed the way the API
// streams it (a tool_use's input as input_json_delta text: the provider's raw arguments).

const http = require('node:http');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/**
 * A scripted Messages API. `turns`: an array (or a function of (request, index)) of
 * assistant turns, each a list of blocks `{ type: 'text', text }` or
 * `{ type: 'tool_use', id, name, input }` where `input` is the raw JSON text the model sends.
 * Past the script, the model answers "done". `requests` keeps every request body.
 */
function startModel(turns) {
  const requests = [];
  let index = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url.startsWith('/v1/messages') || req.url.startsWith('/v1/messages/count_tokens')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"type":"error","error":{"type":"not_found_error","message":"not scripted"}}');
        return;
      }
      const request = JSON.parse(body);
      requests.push(request);
      const i = index++;
      const turn = (typeof turns === 'function' ? turns(request, i) : turns[i]) ?? [{ type: 'text', text: 'done' }];
      const stopReason = turn.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
      const message = {
        id: `msg_${i + 1}`,
        type: 'message',
        role: 'assistant',
        model: request.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      };
      if (!request.stream) {
        const content = turn.map((b) => (b.type === 'tool_use' ? { type: 'tool_use', id: b.id, name: b.name, input: JSON.parse(b.input) } : b));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...message, content, stop_reason: stopReason }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      event('message_start', { message });
      turn.forEach((block, k) => {
        if (block.type === 'tool_use') {
          event('content_block_start', { index: k, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
          event('content_block_delta', { index: k, delta: { type: 'input_json_delta', partial_json: block.input } });
        } else {
          event('content_block_start', { index: k, content_block: { type: 'text', text: '' } });
          event('content_block_delta', { index: k, delta: { type: 'text_delta', text: block.text } });
        }
        event('content_block_stop', { index: k });
      });
      event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 1 } });
      event('message_stop', {});
      res.end();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}`, requests, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

/** A home and a working folder for the CLI (it keeps sessions under HOME/.claude). */
function cliFolders(prefix = 'tas-claude-') {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work');
  fs.mkdirSync(home);
  fs.mkdirSync(cwd);
  return { root, home, cwd, remove: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/** The environment the CLI runs with: the scripted model, no network traffic of its own. */
function cliEnv(modelUrl, home) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'sk-test-not-a-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
}

/** The tool_result blocks of the requests the CLI sent the model, by tool_use id. */
function toolResults(requests) {
  const results = {};
  for (const request of requests) {
    for (const message of request.messages) {
      if (message.role !== 'user' || !Array.isArray(message.content)) continue;
      for (const block of message.content) {
        if (block.type !== 'tool_result') continue;
        const text = typeof block.content === 'string' ? block.content : block.content.map((c) => c.text ?? '').join('');
        results[block.tool_use_id] = { text, isError: block.is_error === true };
      }
    }
  }
  return results;
}

/** Runs one query to its end; the messages it yielded. */
async function runQuery(query, prompt, options) {
  const messages = [];
  for await (const message of query({ prompt, options })) messages.push(message);
  return messages;
}

module.exports = { startModel, cliFolders, cliEnv, toolResults, runQuery };
