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

/** A deceptive character as the `\u` escapes of its UTF-16 code units (a surrogate pair outside the BMP). */
function unicodeEscape(c) {
  let out = '';
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/**
 * JSON text (as JSON.stringify writes it) with its deceptive characters (see DECEPTIVE)
 * written as `\u` escapes: JSON.stringify alone leaves DEL, the C1 controls, U+2028/U+2029
 * and the bidi controls raw. Outside strings JSON.stringify writes only ASCII punctuation,
 * digits and letters, so every character replaced is inside a string literal, and the text
 * parses back to the same value.
 */
function escapeDeceptive(jsonText) {
  return jsonText.replace(DECEPTIVE, unicodeEscape);
}

/** A string as a JSON string literal whose deceptive characters are escaped too. */
function displayString(text) {
  return escapeDeceptive(JSON.stringify(text));
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

/**
 * An expiry (ms since the epoch) as printed: `never` for null, the ISO 8601 time, or, for
 * a time a Date cannot hold (past year 275760: a long --ttl, a record's own number), the
 * number of milliseconds itself. Never a throw after the work is done.
 */
function expiryText(expiresAt) {
  if (expiresAt === null) return 'never';
  const date = new Date(expiresAt);
  return Number.isNaN(date.getTime()) ? `${expiresAt} ms since 1970-01-01T00:00:00.000Z` : date.toISOString();
}

/**
 * Prints one JSON object (every --json output): its deceptive characters as `\u` escapes,
 * as the text form shows names, so no terminal or log viewer interprets a C1 control or
 * reorders a line by a bidi control. JSON.parse gives back the same value: a string field
 * holding canonical JSON (argsCanonicalJson) is that exact text once parsed.
 */
function writeJson(object) {
  process.stdout.write(`${escapeDeceptive(JSON.stringify(object))}\n`);
}

module.exports = { DECEPTIVE, quoteArgument, displayString, escapeDeceptive, warnIfDeceptive, expiryText, writeJson };
