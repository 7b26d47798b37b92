'use strict';
// The query options of a Claude Agent SDK gate: the application's options with the gate's
// PreToolUse hook (the only one: an application PreToolUse hook that changed the input
// would run after the decision), its in-process server beside the application's servers,
// and its canUseTool.

const { isProxy, ObjectGetOwnPropertyNames } = require('../gate/primordials');
const { invalidArgument, own, setData, readOptions } = require('../gate/read');

/** The application's hooks with the gate's PreToolUse hooks. */
function mergedHooks(appHooks, preToolUse) {
  const merged = {};
  if (appHooks !== undefined) {
    if (appHooks === null || typeof appHooks !== 'object' || isProxy(appHooks)) throw invalidArgument('queryOptions: options.hooks must be an object');
    const events = ObjectGetOwnPropertyNames(appHooks);
    for (let i = 0; i < events.length; i++) {
      if (events[i] === 'PreToolUse')
        throw invalidArgument("queryOptions: options.hooks.PreToolUse is the gate's (a PreToolUse hook could change the input after the decision)");
      setData(merged, events[i], own(appHooks, events[i]));
    }
  }
  setData(merged, 'PreToolUse', preToolUse);
  return merged;
}

/** The application's MCP servers with the gate's in-process server (when it has one). */
function mergedServers(appServers, server, serverName) {
  const merged = {};
  if (appServers !== undefined) {
    if (appServers === null || typeof appServers !== 'object' || isProxy(appServers))
      throw invalidArgument('queryOptions: options.mcpServers must be an object');
    const names = ObjectGetOwnPropertyNames(appServers);
    for (let i = 0; i < names.length; i++) {
      if (server !== undefined && names[i] === serverName) throw invalidArgument("queryOptions: options.mcpServers has a server of the gate's serverName");
      setData(merged, names[i], own(appServers, names[i]));
    }
  }
  if (server !== undefined) setData(merged, serverName, server);
  return merged;
}

/** The gate's queryOptions(given): `hooks` the gate's hooks, `server` its in-process server (or undefined). */
function queryOptionsOf(hooks, server, serverName, canUseTool) {
  return function queryOptions(given) {
    const base = readOptions(given, 'queryOptions options');
    const result = {};
    if (base !== null) {
      const names = ObjectGetOwnPropertyNames(base);
      for (let i = 0; i < names.length; i++) setData(result, names[i], own(base, names[i]));
    }
    if (own(result, 'canUseTool') !== undefined) throw invalidArgument("queryOptions: options.canUseTool is the gate's (every call is decided by its policy)");
    setData(result, 'hooks', mergedHooks(own(result, 'hooks'), hooks.PreToolUse));
    setData(result, 'mcpServers', mergedServers(own(result, 'mcpServers'), server, serverName));
    setData(result, 'canUseTool', canUseTool);
    return result;
  };
}

module.exports = { queryOptionsOf };
