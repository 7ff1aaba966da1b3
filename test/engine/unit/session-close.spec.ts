import { OriginalSession } from '../../../src/engine/models/original/original-model';
import { PeopleMatter } from '../../../src/engine/models/pro/people-matter';
import { ProSession } from '../../../src/engine/models/pro/pro-model';
import { RvmSession } from '../../../src/engine/models/rvm/rvm-session';

/**
 * RVM's model is shared by the videos matted at once; each session's recurrent state lives on its
 * inference thread until the session's stream is ended. `original` and `pro` end theirs on close.
 */
function rvmSession(): { rvm: RvmSession; closed: () => number } {
  let closed = 0;
  const rvm = { inputWidth: 640, inputHeight: 360, close: async () => void closed++ } as unknown as RvmSession;
  return { rvm, closed: () => closed };
}

describe('sessions that read RVM free its state on close', () => {
  it('original', async () => {
    const { rvm, closed } = rvmSession();
    const isnet = { width: 1024, height: 1024 };
    const session = new OriginalSession({ full: isnet, small: isnet } as never, rvm, {} as never, { width: 640, height: 360 });
    await session.close();
    expect(closed()).toBe(1);
  });

  it('pro with people asked for (and without: nothing to free)', async () => {
    const { rvm, closed } = rvmSession();
    await new ProSession({} as never, {} as never, new Set([0]), 16 / 9, new PeopleMatter(rvm, 4)).close();
    expect(closed()).toBe(1);
    await expect(new ProSession({} as never, {} as never, new Set([2]), 16 / 9).close()).resolves.toBeUndefined();
  });
});
