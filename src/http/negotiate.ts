// Response format: the `format` query parameter wins; otherwise the Accept header with q-values
// and wildcards; no preference means JSON. Returns undefined when Accept admits nothing offered.
import { MediaTypes, type Format } from '../encode/types.js';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(',')) {
    const [mediaRaw, ...params] = part.split(';');
    const media = (mediaRaw ?? '').trim().toLowerCase();
    const slash = media.indexOf('/');
    if (slash <= 0 || slash === media.length - 1) continue; // malformed ranges are ignored
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=').map((s) => s.trim());
      if (key?.toLowerCase() === 'q' && value !== undefined) {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
      }
    }
    ranges.push({ type: media.slice(0, slash), subtype: media.slice(slash + 1), q });
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
