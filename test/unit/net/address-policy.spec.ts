import { AddressPolicy, embeddedIpv4 } from '../../../src/infrastructure/net/address-policy';

const policy = new AddressPolicy();

describe('AddressPolicy.isAddressAllowed (no allow-list)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback, top of 127/8'],
    ['0.0.0.0', 'this host'],
    ['0.1.2.3', '0/8'],
    ['10.0.0.1', 'private 10/8'],
    ['10.255.255.255', 'private 10/8, top'],
    ['172.16.0.1', 'private 172.16/12, bottom'],
    ['172.31.255.255', 'private 172.16/12, top'],
    ['192.168.1.1', 'private 192.168/16'],
    ['169.254.169.254', 'link-local / cloud metadata'],
    ['100.64.0.1', 'CGNAT 100.64/10'],
    ['100.127.255.255', 'CGNAT, top'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.2.1', 'TEST-NET-1'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast, SSDP'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fe80::1', 'IPv6 link-local'],
    ['fc00::1', 'IPv6 unique local fc00::/7'],
    ['fd12:3456::1', 'IPv6 unique local fd'],
    ['fd00:ec2::254', 'AWS IPv6 metadata'],
    ['ff02::1', 'IPv6 multicast'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback, dotted'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['::FFFF:7F00:1', 'IPv4-mapped loopback, upper case'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata, hex'],
    ['0:0:0:0:0:ffff:7f00:1', 'IPv4-mapped loopback, uncompressed'],
    ['0:0:0:0:0:ffff:127.0.0.1', 'IPv4-mapped loopback, uncompressed dotted'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
  ])('refuses %s (%s)', (address) => {
    expect(policy.isAddressAllowed(address)).toBe(false);
  });

  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['172.32.0.1'],
    ['172.15.255.255'],
    ['100.63.255.255'],
    ['100.128.0.0'],
    ['11.0.0.1'],
    ['9.255.255.255'],
    ['126.255.255.255'],
    ['128.0.0.1'],
    ['169.253.255.255'],
    ['192.167.255.255'],
    ['223.255.255.255'],
    ['2606:4700:4700::1111'],
    ['2001:4860:4860::8888'],
    ['::ffff:8.8.8.8'],
    ['::ffff:808:808'],
  ])('allows public %s', (address) => {
    expect(policy.isAddressAllowed(address)).toBe(true);
  });

  it.each(['localhost', 'example.com', '', '127.0.0.1:80', '[::1]', '256.0.0.1', '127.1', '2130706433', 'not an ip'])('refuses non-address %j', (value) => {
    expect(policy.isAddressAllowed(value)).toBe(false);
  });
});

describe('AddressPolicy allow-list', () => {
  it("a CIDR '127.0.0.0/8' lets loopback through, mapped forms included", () => {
    const dev = new AddressPolicy(['127.0.0.0/8']);
    expect(dev.isAddressAllowed('127.0.0.1')).toBe(true);
    expect(dev.isAddressAllowed('127.255.255.254')).toBe(true);
    expect(dev.isAddressAllowed('::ffff:127.0.0.1')).toBe(true);
    expect(dev.isAddressAllowed('::ffff:7f00:1')).toBe(true);
  });

  it('a CIDR lets nothing else through', () => {
    const dev = new AddressPolicy(['127.0.0.0/8']);
    expect(dev.isAddressAllowed('10.0.0.1')).toBe(false);
    expect(dev.isAddressAllowed('169.254.169.254')).toBe(false);
    expect(dev.isAddressAllowed('::1')).toBe(false);
    expect(dev.isAddressAllowed('8.8.8.8')).toBe(true);
  });

  it('a single IPv4 address lets exactly that address through', () => {
    const dev = new AddressPolicy(['10.0.0.5']);
    expect(dev.isAddressAllowed('10.0.0.5')).toBe(true);
    expect(dev.isAddressAllowed('10.0.0.4')).toBe(false);
    expect(dev.isAddressAllowed('10.0.0.6')).toBe(false);
  });

  it('a single IPv6 address and an IPv6 CIDR', () => {
    expect(new AddressPolicy(['::1']).isAddressAllowed('::1')).toBe(true);
    const one = new AddressPolicy(['fe80::1']);
    expect(one.isAddressAllowed('fe80::1')).toBe(true);
    expect(one.isAddressAllowed('fe80::2')).toBe(false);
    const ula = new AddressPolicy(['fd00::/8']);
    expect(ula.isAddressAllowed('fd12::1')).toBe(true);
    expect(ula.isAddressAllowed('fc00::1')).toBe(false);
  });

  it('a host name is allow-listed by name, case-insensitively, without opening addresses', () => {
    const dev = new AddressPolicy(['minio.internal']);
    expect(dev.isHostAllowListed('minio.internal')).toBe(true);
    expect(dev.isHostAllowListed('MINIO.Internal')).toBe(true);
    expect(dev.isHostAllowListed('other.internal')).toBe(false);
    expect(dev.isHostAllowListed('sub.minio.internal')).toBe(false);
    expect(dev.isAddressAllowed('127.0.0.1')).toBe(false);
  });

  it('an empty allow-list names no host', () => {
    expect(policy.isHostAllowListed('localhost')).toBe(false);
  });
});

describe('embeddedIpv4', () => {
  it.each([
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['::ffff:a9fe:a9fe', '169.254.169.254'],
    ['::ffff:808:808', '8.8.8.8'],
    ['::127.0.0.1', '127.0.0.1'],
  ])('%s -> %s', (v6, v4) => {
    expect(embeddedIpv4(v6)).toBe(v4);
  });

  it.each(['2606:4700:4700::1111', '::1', 'fe80::1', '8.8.8.8'])('%s has none', (address) => {
    expect(embeddedIpv4(address)).toBeNull();
  });
});
