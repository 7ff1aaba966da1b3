import { BlockList, isIP } from 'node:net';

/** Address ranges the server never connects to on a stranger's behalf (IANA special-purpose registries). */
const BLOCKED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4], ['255.255.255.255', 32],
];
/**
 * `::/96` (IPv4-compatible, deprecated) and `::ffff:0:0:0/96` (IPv4-translated) are refused whole; their
 * public embedded addresses have no business being spelled that way. IPv4-mapped `::ffff:0:0/96` is
 * judged by the IPv4 address inside it (see `embeddedIpv4`).
 */
const BLOCKED_V6: Array<[string, number]> = [
  ['::', 96], ['::ffff:0:0:0', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32],
  ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['fd00:ec2::254', 128],
];

const blocked = new BlockList();
for (const [net, prefix] of BLOCKED_V4) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of BLOCKED_V6) blocked.addSubnet(net, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (any spelling: compressed, upper case, dotted tail); null if it is not one. */
export function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string | undefined): number[] => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const groups = tail === undefined ? left : [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : null;
}

/**
 * The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`, `::ffff:7f00:1`), IPv4-compatible (`::a.b.c.d`)
 * or IPv4-translated (`::ffff:0:a.b.c.d`) IPv6 address; null for any other address.
 */
export function embeddedIpv4(address: string): string | null {
  const groups = ipv6Groups(address);
  if (!groups) return null;
  const [a, b, c, d, e, f, g, h] = groups;
  // mapped ::ffff:0:0/96 and compatible ::/96 (e = 0), translated ::ffff:0:0:0/96 (e = ffff, f = 0)
  const embeds = a === 0 && b === 0 && c === 0 && d === 0 && ((e === 0 && (f === 0xffff || f === 0)) || (e === 0xffff && f === 0));
  // `::` and `::1` are IPv6's own unspecified and loopback addresses, not IPv4 0.0.0.0 / 0.0.0.1.
  if (!embeds || (e === 0 && f === 0 && g === 0)) return null;
  return `${g >> 8}.${g & 255}.${h >> 8}.${h & 255}`;
}

export class AddressPolicy {
  private readonly allowed = new BlockList();
  private readonly allowedHosts = new Set<string>();

  /** `allowList`: CIDRs, single addresses or host names the operator trusts (development, tests). */
  constructor(allowList: readonly string[] = []) {
    for (const entry of allowList) {
      const [net, prefix] = entry.split('/');
      const family = isIP(net);
      if (family === 4) this.allowed.addSubnet(net, prefix ? Number(prefix) : 32, 'ipv4');
      else if (family === 6) this.allowed.addSubnet(net, prefix ? Number(prefix) : 128, 'ipv6');
      else this.allowedHosts.add(entry.toLowerCase());
    }
  }

  /** True for a host name the operator listed; exact match only (no subdomains, no trailing-dot variant). */
  isHostAllowListed(host: string): boolean {
    return this.allowedHosts.has(host.toLowerCase());
  }

  /** True when the server may connect to this IP address. */
  isAddressAllowed(address: string): boolean {
    const family = isIP(address);
    if (family === 0) return false;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (this.allowed.check(address, type)) return true;
    if (family === 6) {
      const v4 = embeddedIpv4(address);
      const groups = ipv6Groups(address);
      // Only the mapped form is judged by its IPv4 address; compatible and translated forms stay refused below.
      if (v4 && groups && groups[5] === 0xffff && groups[4] === 0) return this.isAddressAllowed(v4);
    }
    return !blocked.check(address, type);
  }
}
