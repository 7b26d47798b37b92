'use strict';
// What a command prints: JSON lines, strings shown with their deceptive characters
// escaped, and the warning about such characters in canonical JSON.

const { PROGRAM } = require('./errors.js');

// Characters a terminal draws as nothing, or that reorder what follows, by Unicode
// property rather than by list: controls (Cc: DEL and the C1 controls, U+0085
// included; JCS escapes only U+0000..U+001F), format characters (Cf: soft hyphen, the
// Arabic letter mark, zero-width and bidirectional marks, embeddings, overrides and
// isolates, word joiner and invisible operators, U+206A..U+206F, the interlinear
// annotation characters U+FFF9..U+FFFB, the BOM, musical formatting U+1D173..U+1D17A,
// the tag characters that can smuggle invisible ASCII), Default_Ignorable_Code_Point
// (the combining grapheme joiner U+034F, the Mongolian variation selectors
// U+180B..U+180F, variation selectors, the Hangul fillers, and the code points
// reserved to be invisible), every Bidi_Control, and the line and paragraph
// separators.
const DECEPTIVE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\u2028\u2029]/gu;

/** An argument as it may appear in a usage message: quoted, controls escaped. */
function quoteArgument(text) {
  return displayString(text.length > 40 ? `${text.slice(0, 40)}...` : text);
}

/** `U+XXXX` of a character. */
function codePointLabel(c) {
  return `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * A string as a JSON string literal whose deceptive characters (see DECEPTIVE) are
 * escaped too: JSON.stringify alone leaves DEL, the C1 controls, U+2028/U+2029 and the
 * bidi controls raw. Characters outside the BMP are escaped as their surrogate pair.
 */
function displayString(text) {
  return JSON.stringify(text).replace(DECEPTIVE, (c) => {
    let out = '';
    for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}

function warnIfDeceptive(canonicalJson) {
  const found = canonicalJson.match(DECEPTIVE);
  if (found === null) return;
  const codePoints = [...new Set(found)].map(codePointLabel);
  const listed = codePoints.length > 8 ? `${codePoints.slice(0, 8).join(', ')}, ...` : codePoints.join(', ');
  process.stderr.write(
    `${PROGRAM}: warning: the canonical JSON contains ${found.length} invisible or bidirectional control ` +
      `character(s) (${listed}); a terminal may not show exactly what was hashed\n`,
  );
}

function writeJson(object) {
  process.stdout.write(`${JSON.stringify(object)}\n`);
}

module.exports = { DECEPTIVE, quoteArgument, displayString, warnIfDeceptive, writeJson };
