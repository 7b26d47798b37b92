'use strict';
// Transitional entry while the adapter moves into this folder.
module.exports = require('../mastra.js');
