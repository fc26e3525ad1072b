// The browser of the browser tests: Debian's `chromium` (apt-get install chromium; .ci/run installs
// it when it runs as root), driven by playwright-core, which downloads no browser of its own.
// TRADEAPI_CHROMIUM names another binary. Absent, the tests skip with this reason.
import { accessSync, constants } from 'node:fs';

import type { LaunchOptions } from 'playwright-core';

export const CHROMIUM = process.env.TRADEAPI_CHROMIUM ?? '/usr/bin/chromium';

/** Launch options for the system Chromium, or why there is none. */
export function chromiumLaunch(): { options: LaunchOptions } | { skip: string } {
  try {
    accessSync(CHROMIUM, constants.X_OK);
  } catch {
    return { skip: `no Chromium at ${CHROMIUM} (apt-get install chromium, or set TRADEAPI_CHROMIUM)` };
  }
  // Chromium's sandbox refuses to run as root; CI runs as root.
  const root = process.getuid?.() === 0;
  return { options: { executablePath: CHROMIUM, headless: true, args: root ? ['--no-sandbox'] : [] } };
}

/** Loopback only: the page must fetch nothing from anywhere else (no CDN, no validator, no fonts). */
export function isLoopback(url: string): boolean {
  if (url.startsWith('data:') || url.startsWith('blob:') || url === 'about:blank') return true;
  try {
    const host = new URL(url).hostname;
    return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
  } catch {
    return false;
  }
}
