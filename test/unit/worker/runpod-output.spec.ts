import { parseRemoteOutput } from '../../../src/common/worker-protocol/runpod-protocol';

describe("a remote worker's output", () => {
  it('is taken with some seconds and frames processed', () => {
    expect(parseRemoteOutput({ duration_seconds: 4, frames: 100, notes: ['n', 3] })).toMatchObject({ duration_seconds: 4, frames: 100, notes: ['n'] });
  });

  it.each([
    ['no seconds', { duration_seconds: 0, frames: 1 }],
    ['negative seconds (the job completed free)', { duration_seconds: -500, frames: -3 }],
    ['infinite seconds', { duration_seconds: Infinity, frames: 1 }],
    ['no frames', { duration_seconds: 4, frames: 0 }],
    ['frames that are not whole', { duration_seconds: 4, frames: 1.5 }],
    ['seconds as text', { duration_seconds: '4', frames: 100 }],
  ])('is refused with %s', (_case, output) => {
    expect(parseRemoteOutput(output)).toBeNull();
  });
});
