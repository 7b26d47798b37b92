'use strict';
// The gate kernel: what every framework gate does the same way, built on the package's
// public API. Adapters require the module of the concern they need, or this index.

module.exports = {
  primordials: require('./primordials'),
  ...require('./read'),
  ...require('./peer'),
  ...require('./options'),
  ...require('./texts'),
  ...require('./recording'),
  streams: require('./streams'),
  ...require('./same-data'),
  ...require('./decide'),
  ...require('./execute'),
  ...require('./receipts'),
  ...require('./replays'),
  ...require('./pending'),
  ...require('./proposals'),
  ...require('./warnings'),
  ...require('./json-schema'),
};
