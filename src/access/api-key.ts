// API-key check. Both sides are hashed first so that timingSafeEqual compares equal lengths and
// the time taken reveals neither the key nor its length.
import { createHash, timingSafeEqual } from 'node:crypto';

import type { KeyCheck } from '../http/policy.js';

export type { KeyCheck };

export function apiKeyCheck(secret: string | undefined): KeyCheck | undefined {
  if (secret === undefined || secret === '') return undefined;
  const expected = createHash('sha256').update(secret).digest();
  return (presented) => {
    const digest = createHash('sha256').update(presented ?? '').digest();
    // Evaluate both so that a missing key costs the same as a wrong one.
    const same = timingSafeEqual(digest, expected);
    return presented !== undefined && same;
  };
}
