'use strict';
// Runs __test__/monkeypatch-child.js (a CommonJS .js file, which Deno runs as CommonJS
// only when required from a .cjs file) with the variant given as the first argument.
require('../monkeypatch-child.js');
