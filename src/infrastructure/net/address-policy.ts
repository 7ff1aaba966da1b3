import { BlockList, isIP } from 'node:net';

/** Address ranges the server never connects to on a stranger's behalf (IANA special-purpose registries). */
const BLOCKED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4], ['255.255.255.255', 32],
];
const BLOCKED_V6: Array<[string, number]> = [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32],
  ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['fd00:ec2::254', 128],
];

const blocked = new BlockList();
for (const [net, prefix] of BLOCKED_V4) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of BLOCKED_V6) blocked.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped or -compatible IPv6 address (::ffff:a.b.c.d, ::ffff:7f00:1). */
export function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/.exec(lower.replace(/^::/, '0:'));
  if (dotted && lower.startsWith('::')) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const high = parseInt(hex[1], 16);
    const low = parseInt(hex[2], 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return null;
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
      if (v4) return this.isAddressAllowed(v4);
    }
    return !blocked.check(address, type);
  }
}
