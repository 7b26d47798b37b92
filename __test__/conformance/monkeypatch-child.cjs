'use strict';
// Runs __test__/core/monkeypatch-child.js (a CommonJS .js file, which Deno runs as CommonJS
// only when required from a .cjs file) with the variant given as the first argument.
require('../core/monkeypatch-child.js');
