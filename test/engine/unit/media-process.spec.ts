import { getPriority } from 'node:os';
import { MediaProcess } from '../../../src/engine/media/process';

describe('MediaProcess', () => {
  it('runs its child below the engine: niceness +10 (at most 19), so the model is the one that waits least', async () => {
    const child = new MediaProcess('/bin/sleep', ['5']);
    try {
      expect(child.pid).toBeDefined();
      expect(getPriority(child.pid)).toBe(Math.min(19, getPriority() + 10));
    } finally {
      child.kill();
      await child.exited.catch(() => undefined);
    }
  });
});
