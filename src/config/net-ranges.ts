// IP address ranges in CIDR notation (TRADEAPI_COMPRESS_NEAR): parsed once at start-up, asked per
// request. The matching is node's own (net.BlockList), which also finds an IPv4 address written as
// IPv4-mapped IPv6 (::ffff:10.0.0.1) in an IPv4 range.
import { BlockList, isIP } from 'node:net';

/** A set of address ranges; `contains` takes an address as src/access/client-address.ts spells it. */
export class NetRanges {
  private readonly list = new BlockList();

  /** `ranges`: [address, prefix length] pairs, already checked (parseNetRanges). */
  private constructor(readonly cidrs: readonly string[], ranges: ReadonlyArray<readonly [string, number]>) {
    for (const [address, prefix] of ranges) this.list.addSubnet(address, prefix, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }

  /** True when `address` (an IPv4 or IPv6 address; anything else is in no range) lies in a range. */
  contains(address: string): boolean {
    const family = isIP(address);
    if (family === 0) return false;
    return this.list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }

  /** As logged: the ranges in the form they were given (a bare address as /32 or /128). */
  toJSON(): readonly string[] {
    return this.cidrs;
  }

  /**
   * Comma-separated CIDRs (`10.0.0.0/8`, `fd00::/8`; a bare address is that one address). Throws
   * an Error whose message says what is wrong with which entry; the caller names the variable.
   */
  static parse(text: string): NetRanges {
    const cidrs: string[] = [];
    const ranges: Array<readonly [string, number]> = [];
    const items = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
    if (items.length === 0) throw new Error('no range given');
    for (const item of items) {
      const slash = item.indexOf('/');
      const address = slash < 0 ? item : item.slice(0, slash);
      const family = address.includes('%') ? 0 : isIP(address);
      if (family === 0) throw new Error(`${JSON.stringify(item)} is not an IP address or a CIDR range such as 10.0.0.0/8 or fd00::/8`);
      const bits = family === 6 ? 128 : 32;
      const prefixText = slash < 0 ? String(bits) : item.slice(slash + 1);
      const prefix = Number(prefixText);
      if (!/^\d{1,3}$/.test(prefixText) || prefix > bits) {
        throw new Error(`${JSON.stringify(item)}: the prefix length of an IPv${family} range must be 0 to ${bits}`);
      }
      cidrs.push(`${address}/${prefix}`);
      ranges.push([address, prefix]);
    }
    return new NetRanges(cidrs, ranges);
  }
}

/**
 * The default of TRADEAPI_COMPRESS_NEAR: loopback and the private ranges, where a link is fast
 * enough that compressing costs more time than it saves (docs/api.md#compression).
 */
export const DEFAULT_NEAR_RANGES = ['127.0.0.0/8', '::1/128', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7', 'fe80::/10'] as const;
