import { getPriority } from 'node:os';
import { MediaProcess } from '../../../src/engine/media/process';

describe('MediaProcess', () => {
  it('runs its child just below the engine: niceness +2 (at most 19), so the model waits least and the encoder still keeps up', async () => {
    const child = new MediaProcess('/bin/sleep', ['5']);
    try {
      expect(child.pid).toBeDefined();
      expect(getPriority(child.pid)).toBe(Math.min(19, getPriority() + 2));
    } finally {
      child.kill();
      await child.exited.catch(() => undefined);
    }
  });
});
