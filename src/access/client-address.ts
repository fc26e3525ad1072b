// Who a request counts against for the read-only rate limit: the socket's peer address or, behind
// `trustProxy` reverse proxies, the address X-Forwarded-For names that many hops from the right.
// Proxies append the address they received the request from, so the right-most entries are the
// trusted ones; entries further left are whatever the client sent, and are never used (a client
// could otherwise pick its own key).
//
// Only a syntactically valid IP address identifies a client, in one canonical spelling per address,
// so that a value can neither open a fresh rate-limit bucket per request (any string used to: 20 000
// unique 8 KB values were 20 000 buckets) nor count one address as several. Anything else is
// treated as if the header were absent: the socket address.
import { isIP, SocketAddress } from 'node:net';

import type { HttpRequest } from '../http/adapter.js';

/**
 * How much of X-Forwarded-For is read, from its right end: room for more than the 10 hops
 * API_TRUST_PROXY allows even in the longest form accepted ('[IPv6]:port', 47 characters).
 */
export const MAX_FORWARDED_CHARS = 1024;

const PORT = /^\d{1,5}$/;

function validPort(port: string): boolean {
  return PORT.test(port) && Number(port) <= 65_535;
}

/**
 * The canonical spelling of an IP address, or undefined when `raw` is not one. Accepted: an IPv4 or
 * IPv6 address, IPv4 with a port (`203.0.113.7:5678`), IPv6 in brackets with or without a port
 * (`[2001:db8::1]:443`): some proxies (Azure Application Gateway, IIS ARR) append the client's port,
 * and the port says nothing about who the client is, so it is dropped. IPv6 is lower-cased and
 * compressed, an IPv4-mapped IPv6 address (`::ffff:203.0.113.7`, what a dual-stack socket reports)
 * becomes the IPv4 address. Refused: zone identifiers (`fe80::1%eth0`, meaningful only on the
 * proxy's own link) and everything else.
 */
export function canonicalIp(raw: string): string | undefined {
  let address = raw.trim();
  if (address.startsWith('[')) {
    const close = address.indexOf(']');
    if (close < 0) return undefined;
    const rest = address.slice(close + 1);
    if (rest !== '' && !(rest.startsWith(':') && validPort(rest.slice(1)))) return undefined;
    address = address.slice(1, close);
    if (isIP(address) !== 6) return undefined;
  } else if (address.indexOf(':') !== -1 && address.indexOf(':') === address.lastIndexOf(':')) {
    // Exactly one colon: IPv4 with a port (IPv6 has at least two).
    const [host = '', port = ''] = address.split(':');
    if (!validPort(port)) return undefined;
    address = host;
    if (isIP(address) !== 4) return undefined;
  }
  if (address.includes('%')) return undefined;
  switch (isIP(address)) {
    case 4:
      return address; // isIP admits only the dotted-decimal form without leading zeros
    case 6: {
      const canonical = new SocketAddress({ address, family: 'ipv6' }).address;
      const mapped = canonical.startsWith('::ffff:') ? canonical.slice('::ffff:'.length) : undefined;
      return mapped !== undefined && isIP(mapped) === 4 ? mapped : canonical;
    }
    default:
      return undefined;
  }
}

export function clientAddress(req: HttpRequest, trustProxy: number): string {
  const socket = canonicalIp(req.remoteAddress) ?? req.remoteAddress;
  if (trustProxy === 0) return socket;
  const forwarded = req.header('x-forwarded-for');
  if (forwarded === undefined) return socket;
  // Only the right end is read; an entry cut by that limit is dropped rather than misread.
  const cut = forwarded.length > MAX_FORWARDED_CHARS;
  const pieces = (cut ? forwarded.slice(-MAX_FORWARDED_CHARS) : forwarded).split(',');
  if (cut) pieces.shift();
  const hops = pieces.map((s) => s.trim()).filter((s) => s !== '');
  if (hops.length === 0) return socket;
  // Fewer entries than proxies: the left-most is the furthest address known.
  const entry = hops[Math.max(0, hops.length - trustProxy)] as string;
  return canonicalIp(entry) ?? socket;
}
