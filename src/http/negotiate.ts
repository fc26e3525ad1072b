// Response format: the `format` query parameter wins; otherwise the Accept header with q-values
// and wildcards; no preference means JSON. Returns undefined when Accept admits nothing offered.
//
// A malformed Accept may be ignored or refused (RFC 9110 §12.5.1). We ignore malformed ranges one
// by one and negotiate on the well-formed rest, so that one bad entry (often added by a library
// or a proxy) cannot make an otherwise clear request fail, and so that every malformation is
// treated alike: `application/json;q=abc` and `;;;,` both leave nothing well-formed, which is as
// if there were no Accept at all (JSON). Malformed: a range that is not `type/subtype`, `type/*`
// or `*/*` made of RFC 9110 tokens; a parameter that is not `name=token` or `name="quoted"`; a q
// that is not a qvalue (0 to 1 with at most three decimals, so `q=abc`, `q=2`, `q=0.5000`).
import { MediaTypes, type Format } from '../encode/types.js';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const RANGE = new RegExp(`^(${TOKEN})/(${TOKEN})$`);
const PARAMETER = new RegExp(`^(${TOKEN})=(${TOKEN}|"(?:[^"\\\\]|\\\\.)*")$`);
const QVALUE = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/;

/** One element of the list, or undefined when it is malformed. */
function parseRange(element: string): MediaRange | undefined {
  const [mediaRaw = '', ...params] = element.split(';');
  const m = RANGE.exec(mediaRaw.trim().toLowerCase());
  if (!m) return undefined;
  const [, type = '', subtype = ''] = m;
  if (type === '*' && subtype !== '*') return undefined; // '*/json' is no range
  let q = 1;
  for (const raw of params) {
    const param = raw.trim();
    if (param === '') continue; // 'a/b;' : an empty parameter is allowed by the grammar
    const p = PARAMETER.exec(param);
    if (!p) return undefined;
    if ((p[1] ?? '').toLowerCase() === 'q') {
      const value = p[2] ?? '';
      if (!QVALUE.test(value)) return undefined;
      q = Number(value);
    }
  }
  return { type, subtype, q };
}

/** The well-formed ranges; empty list elements (`a/b,,c/d`) are allowed and skipped. */
function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const element of accept.split(',')) {
    if (element.trim() === '') continue;
    const range = parseRange(element);
    if (range) ranges.push(range);
  }
  return ranges;
}

/** q of the most specific range matching `mediaType` (RFC 9110 §12.5.1), 0 when none matches. */
function qualityOf(mediaType: string, ranges: readonly MediaRange[]): number {
  const [type, subtype] = mediaType.split('/') as [string, string];
  let best = -1;
  let quality = 0;
  for (const range of ranges) {
    let specificity: number;
    if (range.type === type && range.subtype === subtype) specificity = 2;
    else if (range.type === type && range.subtype === '*') specificity = 1;
    else if (range.type === '*' && range.subtype === '*') specificity = 0;
    else continue;
    if (specificity > best) {
      best = specificity;
      quality = range.q;
    }
  }
  return quality;
}

/** `offered` in server preference order (JSON first): ties in q go to the earlier one. */
export function negotiateFormat(accept: string | undefined, offered: readonly Format[]): Format | undefined {
  if (accept === undefined || accept.trim() === '') return offered[0];
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return offered[0];
  let chosen: Format | undefined;
  let chosenQ = 0;
  for (const format of offered) {
    const q = qualityOf(MediaTypes[format], ranges);
    if (q > chosenQ) {
      chosen = format;
      chosenQ = q;
    }
  }
  return chosen;
}

/** Whether Accept admits `mediaType` (no Accept, or one with nothing well-formed in it, admits anything). */
export function accepts(accept: string | undefined, mediaType: string): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  const ranges = parseAccept(accept);
  return ranges.length === 0 || qualityOf(mediaType, ranges) > 0;
}

/** negotiateFormat over media types (`offered` in server preference order): the MCP endpoint's JSON or event stream. */
export function negotiateMediaType(accept: string | undefined, offered: readonly string[]): string | undefined {
  if (accept === undefined || accept.trim() === '') return offered[0];
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return offered[0];
  let chosen: string | undefined;
  let chosenQ = 0;
  for (const mediaType of offered) {
    const q = qualityOf(mediaType, ranges);
    if (q > chosenQ) {
      chosen = mediaType;
      chosenQ = q;
    }
  }
  return chosen;
}
