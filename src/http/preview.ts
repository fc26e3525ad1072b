// A short, bounded rendering of an arbitrary parsed JSON value for a problem detail. JSON.stringify
// would render the whole value (megabytes, or a stack overflow on deep nesting) only for us to cut
// it to a few dozen characters; this walks just far enough to fill the budget.

/** Characters of a received value a detail shows before it is cut with '…'. */
export const PREVIEW_CHARS = 64;

/** JSON-like text of `value`, at most `max` characters plus a trailing '…' when cut. */
export function preview(value: unknown, max: number = PREVIEW_CHARS): string {
  let out = '';
  const full = (): boolean => out.length > max;
  // Each level writes at least one character before descending, so the budget bounds the depth
  // of the recursion as well as the width: no input, however deep or wide, costs more than that.
  const walk = (v: unknown): void => {
    if (full()) return;
    if (Array.isArray(v)) {
      out += '[';
      for (let i = 0; i < v.length && !full(); i++) {
        if (i > 0) out += ',';
        walk(v[i]);
      }
      out += ']';
    } else if (v !== null && typeof v === 'object') {
      out += '{';
      let first = true;
      for (const key in v) {
        if (full()) break;
        if (!Object.hasOwn(v, key)) continue;
        out += `${first ? '' : ','}${quote(key, max)}:`;
        first = false;
        walk((v as Record<string, unknown>)[key]);
      }
      out += '}';
    } else if (typeof v === 'string') {
      out += quote(v, max);
    } else {
      out += String(JSON.stringify(v) ?? v);
    }
  };
  walk(value);
  return out.length > max ? `${out.slice(0, max)}…` : out;
}

/** A JSON string literal of at most about `max` characters of `s` (enough to fill any budget). */
function quote(s: string, max: number): string {
  return JSON.stringify(s.length > max ? s.slice(0, max + 1) : s);
}
