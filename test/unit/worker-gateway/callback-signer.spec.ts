import { CallbackSigner } from '../../../src/modules/worker-gateway/adapters/remote-http/callback-signer';

const NOW = 1_900_000_000;
const query = (url: string) => new URL(url).searchParams;

describe('CallbackSigner', () => {
  it("accepts a callback URL signed before URL_SIGNING_SECRET changed until it expires (a remote worker's final status was refused), and signs with the current secret", () => {
    const before = query(new CallbackSigner('s'.repeat(32)).url('https://api.example.com', 'job_a', 600, NOW));
    const rotated = new CallbackSigner('t'.repeat(32), [{ secret: 's'.repeat(32) }]);
    expect(rotated.verify('job_a', before.get('expires') ?? undefined, before.get('signature') ?? undefined, NOW)).toBe('valid');
    expect(rotated.verify('job_b', before.get('expires') ?? undefined, before.get('signature') ?? undefined, NOW)).toBe('invalid');
    expect(rotated.verify('job_a', before.get('expires') ?? undefined, before.get('signature') ?? undefined, NOW + 601)).toBe('expired');
    expect(new CallbackSigner('t'.repeat(32)).verify('job_a', before.get('expires') ?? undefined, before.get('signature') ?? undefined, NOW)).toBe('invalid');
    expect(new CallbackSigner('t'.repeat(32), [{ secret: 's'.repeat(32), expiringBy: NOW + 599 }]).verify('job_a', before.get('expires') ?? undefined, before.get('signature') ?? undefined, NOW)).toBe('invalid');
    const after = query(rotated.url('https://api.example.com', 'job_a', 600, NOW));
    expect(new CallbackSigner('t'.repeat(32)).verify('job_a', after.get('expires') ?? undefined, after.get('signature') ?? undefined, NOW)).toBe('valid');
  });
});
