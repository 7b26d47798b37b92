'use strict';
// Serving a gated SDK 2.x server factory: the application's factory wrapped so that each
// McpServer it makes for a request gets the gate's tools/call handler, createMcpHandler's
// handlers behind the gate's fetch (http.js), and the switch to the ES module build's
// handler when the factory makes servers of that build.

const {
  ArrayPrototypeUnshift,
  ObjectFreeze,
  PromisePrototypeThen,
  SafeWeakSet,
  WeakSetPrototypeAdd,
  WeakSetPrototypeHas,
  isProxy,
} = require('../../gate/primordials');
const { invalidArgument, own, setData } = require('../../gate/read');
const { requirePeer } = require('../../gate/peer');
const { gatedFetch, recordOf } = require('./http');

/** createMcpHandler's options the gate passes on (own data properties of `options.http`). */
const HANDLER_OPTIONS = ObjectFreeze(['legacy', 'onerror', 'responseMode', 'bus', 'maxSubscriptions', 'keepAliveMs', 'maxRequestBodySize']);

/** Whether a 2.x McpServer: its Server, its tool registry and the method createMcpHandler checks tools with. */
function isV2Server(product) {
  if (product === null || typeof product !== 'object' || isProxy(product)) return false;
  const server = own(product, 'server');
  return (
    server !== null &&
    typeof server === 'object' &&
    typeof server.setRequestHandler === 'function' &&
    typeof product.toolInputSchemaJson === 'function' &&
    own(product, '_registeredTools') !== undefined
  );
}

/** The CommonJS build of the SDK 2.x: its createMcpHandler, and its McpServer class (which that handler checks servers against). */
function loadCommonJsBuild() {
  return requirePeer('mcp', '@modelcontextprotocol/server', 'the MCP TypeScript SDK 2.x', () => require('@modelcontextprotocol/server'));
}

/**
 * The factory maker: `makeGatedFactory(recordsOf, checkBuild)` is the application's factory,
 * its servers gated by `callTool`: `recordsOf(context)` gives the function that finds the
 * gate's reading of a request by its id (one Request over HTTP, the connection's requests
 * in flight over stdio); `checkBuild(product, context)` throws for a server the SDK's entry
 * point cannot serve (another build's).
 */
function gatedFactoryMaker(factory, callTool) {
  const gated = new SafeWeakSet();
  return (recordsOf, checkBuild) =>
    async function gatedFactory(context) {
      const product = await factory(context);
      if (!isV2Server(product)) throw invalidArgument('gateMcpServer: the server factory must return a new McpServer of @modelcontextprotocol/server 2.x');
      if (WeakSetPrototypeHas(gated, product) || product.server.transport !== undefined) {
        throw invalidArgument('gateMcpServer: the server factory must return a new McpServer for each request');
      }
      checkBuild(product, context);
      WeakSetPrototypeAdd(gated, product);
      const recordFor = recordsOf(context);
      const era = own(context, 'era');
      // The SDK sets up tools/list, tools/call and the tools capability on the first tool; then tools/call is the gate's.
      if (product._toolHandlersInitialized !== true && typeof product.setToolRequestHandlers === 'function') product.setToolRequestHandlers();
      product.server.setRequestHandler('tools/call', (request, ctx) => callTool(product, recordFor, era, request, ctx));
      return product;
    };
}

/** createMcpHandler's options of `options.http` (null: none) and the createMcpHandler given there, if any. */
function readHandlerOptions(httpOptions) {
  const handlerOptions = {};
  let createHandler;
  if (httpOptions !== null) {
    for (let i = 0; i < HANDLER_OPTIONS.length; i++) {
      const value = own(httpOptions, HANDLER_OPTIONS[i]);
      if (value !== undefined) setData(handlerOptions, HANDLER_OPTIONS[i], value);
    }
    createHandler = own(httpOptions, 'createMcpHandler');
    if (createHandler !== undefined && typeof createHandler !== 'function')
      throw invalidArgument('options.http.createMcpHandler must be the createMcpHandler of @modelcontextprotocol/server');
  }
  return { handlerOptions, createHandler };
}

/**
 * The HTTP side of a gate: `fetch` (each POST read and checked by the gate first) and the
 * handlers it serves with (`handlers[0]` the current one; `close()` closes them all).
 */
function serveHttp(makeGatedFactory, httpOptions) {
  const { handlerOptions, createHandler: given } = readHandlerOptions(httpOptions);
  let createHandler = given;
  // The requests whose server was of the other build, and the errors that said so (not the application's to see).
  const otherBuild = new SafeWeakSet();
  const marks = new SafeWeakSet();
  const appOnerror = own(handlerOptions, 'onerror');
  if (appOnerror !== undefined && typeof appOnerror !== 'function') throw invalidArgument('options.http.onerror must be a function');
  setData(handlerOptions, 'onerror', (error) => {
    if (error !== null && typeof error === 'object' && WeakSetPrototypeHas(marks, error)) return;
    if (appOnerror !== undefined) appOnerror(error);
  });
  let commonJsServer;
  // Over HTTP: one request, one message, found by its Request object when the server is made.
  const gatedFactory = makeGatedFactory(
    (context) => {
      const record = recordOf(own(context, 'requestInfo'));
      return () => record;
    },
    (product, context) => {
      if (commonJsServer === undefined || product instanceof commonJsServer) return;
      // createMcpHandler of one build serves the McpServers of that build only: this request
      // is served again by the other build's handler (the gate's fetch sees the mark).
      const requestInfo = own(context, 'requestInfo');
      if (requestInfo !== null && typeof requestInfo === 'object') WeakSetPrototypeAdd(otherBuild, requestInfo);
      const mismatch = invalidArgument(
        "gateMcpServer: the server factory returned an McpServer of the ES module build of @modelcontextprotocol/server; pass that build's createMcpHandler: gateMcpServer(factory, { http: { createMcpHandler } })",
      );
      WeakSetPrototypeAdd(marks, mismatch);
      throw mismatch;
    },
  );
  if (createHandler === undefined) {
    const build = loadCommonJsBuild();
    createHandler = build.createMcpHandler;
    commonJsServer = build.McpServer;
  }
  const handlers = [createHandler(gatedFactory, handlerOptions)];
  let switching;
  /**
   * The factory makes servers of the ES module build (an ES module application that gave no
   * createMcpHandler): from now on the requests go to that build's handler.
   */
  function switchBuild() {
    if (switching === undefined) {
      switching = PromisePrototypeThen(import('@modelcontextprotocol/server'), (esm) => {
        commonJsServer = undefined;
        ArrayPrototypeUnshift(handlers, esm.createMcpHandler(gatedFactory, handlerOptions));
      });
    }
    return switching;
  }
  const maxBody = own(handlerOptions, 'maxRequestBodySize');
  const fetch = gatedFetch(
    () => handlers[0],
    maxBody,
    (request) => WeakSetPrototypeHas(otherBuild, request),
    switchBuild,
  );
  return { fetch, handlers };
}

module.exports = { gatedFactoryMaker, serveHttp };
