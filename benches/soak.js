#!/usr/bin/env node
'use strict';
// The leak soak's entry point: `node benches/soak.js [--cycles N] [--max-growth-mb M]
// [--mode snapshot|prepared] [--json]`. The soak itself is support/soak.js, which the
// short run of the tests starts too.

require('../support/soak.js');
