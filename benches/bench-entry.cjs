'use strict';
// Deno runs a .js file under a package.json without "type" as an ES module; this CommonJS
// entry requires the CommonJS benchmark (benches/runtimes.js starts Deno with it).
require('./bench.js').run(process.argv.slice(2));
