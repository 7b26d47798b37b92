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

module.exports = { requirePeer };
