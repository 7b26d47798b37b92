'use strict';
// Loading an adapter's framework, an optional peer dependency: when it is not installed,
// the error names the adapter and the package to install.

const { ObjectDefineProperty, SafeError } = require('./primordials');

/**
 * Requires an optional peer dependency of an adapter. When it is not installed, throws an
 * Error with `code: 'MODULE_NOT_FOUND'` whose message names the adapter and the package to
 * install; any other failure of the peer (a broken install) is rethrown as it is.
 */
function requirePeer(adapter, name, what, load) {
  try {
    return load();
  } catch (error) {
    if (error === null || typeof error !== 'object' || error.code !== 'MODULE_NOT_FOUND') throw error;
    const missing = new SafeError(`tool-argument-snapshot/${adapter} needs ${what} (an optional peer dependency): npm install ${name}`);
    ObjectDefineProperty(missing, 'code', { __proto__: null, value: 'MODULE_NOT_FOUND', enumerable: true, writable: false, configurable: true });
    ObjectDefineProperty(missing, 'packageName', { __proto__: null, value: name, enumerable: true, writable: false, configurable: true });
    throw missing;
  }
}

/**
 * An optional peer that the adapter needs only when it is first used: its name is
 * resolved now (`resolve`, a require.resolve: without the package, requiring the subpath
 * throws the error above), and `load` runs at the first call of the function returned,
 * which then returns what it returned. Requiring a subpath thus costs the framework
 * nothing; an application that uses the adapter has loaded its framework anyway.
 */
function peerModule(adapter, name, what, resolve, load) {
  requirePeer(adapter, name, what, resolve);
  let loaded;
  let done = false;
  return function peer() {
    if (!done) {
      loaded = requirePeer(adapter, name, what, load);
      done = true;
    }
    return loaded;
  };
}

module.exports = { requirePeer, peerModule };
