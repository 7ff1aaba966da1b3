import { AddressPolicy, embeddedIpv4, ipv6Groups } from '../../src/infrastructure/net/address-policy';

/** The IPv6 spellings of IPv4 addresses that URL parsing produces, and the policy's answer for each. */
describe('AddressPolicy: IPv6 forms of IPv4 addresses', () => {
  const policy = new AddressPolicy();

  it.each([
    ['::ffff:7f00:1', [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]],
    ['::127.0.0.1', [0, 0, 0, 0, 0, 0, 0x7f00, 1]],
    ['0:0:0:0:0:ffff:127.0.0.1', [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]],
    ['2001:db8::1', [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]],
    ['fe80::1%eth0', [0xfe80, 0, 0, 0, 0, 0, 0, 1]],
  ])('ipv6Groups(%s)', (address, groups) => {
    expect(ipv6Groups(address)).toEqual(groups);
  });

  it.each(['127.0.0.1', 'example.com', '::g', ''])('ipv6Groups(%j) is null', (value) => {
    expect(ipv6Groups(value)).toBeNull();
  });

  it.each([
    ['::7f00:1', '127.0.0.1', 'IPv4-compatible, as WHATWG URL writes [::127.0.0.1]'],
    ['::ffff:0:7f00:1', '127.0.0.1', 'IPv4-translated'],
    ['::ffff:0:808:808', '8.8.8.8', 'IPv4-translated public'],
  ])('embeddedIpv4(%s) is %s (%s)', (v6, v4) => {
    expect(embeddedIpv4(v6)).toBe(v4);
  });

  it.each([
    ['::7f00:1', 'IPv4-compatible loopback'],
    ['::a00:1', 'IPv4-compatible 10.0.0.1'],
    ['::808:808', 'IPv4-compatible public: the deprecated form is refused whatever it embeds'],
    ['::ffff:0:7f00:1', 'IPv4-translated loopback'],
    ['::ffff:0:808:808', 'IPv4-translated public: refused whatever it embeds'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata'],
    ['64:ff9b::808:808', 'NAT64: refused whatever it embeds'],
    ['2002:7f00:1::', '6to4 of loopback'],
  ])('refuses %s (%s)', (address) => {
    expect(policy.isAddressAllowed(address)).toBe(false);
  });

  it('an IPv4-mapped public address is judged by its IPv4 address', () => {
    expect(policy.isAddressAllowed('::ffff:808:808')).toBe(true);
    expect(new AddressPolicy(['8.8.8.0/24']).isAddressAllowed('::ffff:808:808')).toBe(true);
  });
});
