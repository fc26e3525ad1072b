// Cross-site protection (issue 22 item 7). Listening on 127.0.0.1 keeps other machines out, not
// the web pages the user opens: a page can make the browser reach 127.0.0.1 by DNS rebinding (its
// own name, re-resolved to 127.0.0.1: the browser then sends `Host: attacker.example` and lets the
// page read the answers as same-origin), and a WebSocket is not bound by the same-origin policy
// at all. What guards a server depends on what else does:
//
// - Full variant without a key: nothing else, so both rules below apply to every request.
//   Host must be an IP literal, localhost, the listen host or a TRADEAPI_ALLOWED_HOSTS name
//   (rebinding needs a name the attacker controls: an IP address is never one), else 421. A browser
//   Origin must be the server's own or one of this machine's, else 403: that also stops a foreign
//   page's bodiless cross-site POST (select, subscribe), which needs no CORS to be sent.
// - Read-only variant (its key is mandatory): the browser applies API_CORS_ORIGINS to the HTTP
//   routes; a WebSocket upgrade gets the same list here, since no browser checks it.
// - Full variant with a key: the key, which a browser never adds on its own, is the protection.
import { isIP } from 'node:net';

import type { Config } from '../config/index.js';
import type { HttpRequest } from '../http/adapter.js';
import type { SiteCheck } from '../http/policy.js';
import { ProblemError, received } from '../http/problem.js';

export class SiteGuard implements SiteCheck {
  private readonly names: ReadonlySet<string>;

  private constructor(
    /** Full variant without a key: the Host rule, and the Origin rule on every request. */
    private readonly keyless: boolean,
    /** Host names (besides IP literals) a keyless server answers to, and whose pages it serves. */
    names: readonly string[],
    /** Read-only mode: API_CORS_ORIGINS, applied to WebSocket upgrades. */
    private readonly corsOrigins: '*' | ReadonlySet<string> | undefined,
  ) {
    this.names = new Set(names);
  }

  /** The guard a configuration needs, or undefined when it needs none (full variant with a key). */
  static of(config: Config): SiteGuard | undefined {
    if (config.readOnly) {
      const origins = config.readOnly.corsOrigins;
      return new SiteGuard(false, [], origins === '*' ? '*' : new Set(origins));
    }
    if (config.secretKey !== undefined) return undefined;
    const listen = hostnameOf(isIP(config.host) === 6 ? `[${config.host}]` : config.host);
    return new SiteGuard(true, ['localhost', ...(listen === undefined ? [] : [listen]), ...config.allowedHosts], undefined);
  }

  /**
   * Throws the problem that refuses this request, if any. `upgrade`: a WebSocket upgrade at the
   * /ws path. Runs before anything else, public routes included: a rebound page must not read
   * even /health or the docs.
   */
  check(req: HttpRequest, upgrade: boolean): void {
    const host = req.header('host');
    const hostname = host === undefined || host === '' ? undefined : hostnameOf(host);
    if (this.keyless && host !== undefined && host !== '' && !(hostname !== undefined && (isIpLiteral(hostname) || this.names.has(hostname)))) {
      throw new ProblemError(
        'misdirectedRequest',
        `without a key this server answers only to IP addresses, localhost, its listen host and the names in TRADEAPI_ALLOWED_HOSTS; Host ${received(host)} is none of them. Add the name to TRADEAPI_ALLOWED_HOSTS (behind a proxy: the name it forwards), or set TRADEAPI_SECRET_KEY`,
      );
    }
    const origin = req.header('origin');
    // No Origin: not a browser's cross-origin request (non-browser clients are not a page's tools).
    if (origin === undefined || !(this.keyless || (upgrade && this.corsOrigins !== undefined))) return;
    if (this.originAllowed(origin, hostname)) return;
    throw new ProblemError(
      'originNotAllowed',
      this.keyless
        ? `a page from Origin ${received(origin)} may not use this server: without a key only its own pages and pages of this machine (localhost, TRADEAPI_ALLOWED_HOSTS) may; set TRADEAPI_SECRET_KEY to serve other pages that hold the key`
        : `Origin ${received(origin)} is not in API_CORS_ORIGINS: a page from it may not open this WebSocket`,
    );
  }

  private originAllowed(origin: string, hostname: string | undefined): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // 'null' (a sandboxed or file: page) among others
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    if (this.corsOrigins === '*' || this.corsOrigins?.has(url.origin)) return true;
    // The server's own page, as the browser reached it. The port and scheme are left out: a proxy
    // changes both (nginx forwards the name without the port, TLS ends there).
    if (hostname !== undefined && url.hostname === hostname) return true;
    return this.keyless && (isLoopback(url.hostname) || this.names.has(url.hostname));
  }
}

/** The host name of a Host header (or a host[:port]) as the URL parser writes it; undefined when it is not one. */
function hostnameOf(authority: string): string | undefined {
  if (/[\s/?#@\\]/.test(authority)) return undefined;
  try {
    return new URL(`http://${authority}`).hostname;
  } catch {
    return undefined;
  }
}

function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith('[') || isIP(hostname) === 4;
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || (isIP(hostname) === 4 && hostname.startsWith('127.'));
}
