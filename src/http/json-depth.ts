// Bounds the nesting of a JSON body before it is parsed. Anything that later walks the parsed
// value recursively (TypeBox's checker and error iterator, JSON.stringify for a detail) would
// overflow the stack on a few thousand levels, which fit easily in a 64 KiB body; a trade request
// needs two levels ({"request": {...}}), so 32 leaves room and costs nothing to enforce.

/** Deepest nesting of arrays and objects accepted in a request body. */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/**
 * Whether `bytes` (UTF-8 JSON text) opens more than `limit` arrays/objects at once, counting
 * brackets and braces outside strings in one linear pass. Exact for valid JSON; for invalid JSON
 * the answer does not matter, since JSON.parse refuses it anyway (and the scan stays linear).
 * Multi-byte UTF-8 sequences never contain bytes below 0x80, so scanning bytes is safe.
 */
export function nestsDeeperThan(bytes: Uint8Array, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === BACKSLASH) i++; // the escaped character cannot end the string
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) {
      inString = true;
    } else if (b === OPEN_BRACKET || b === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (b === CLOSE_BRACKET || b === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}
