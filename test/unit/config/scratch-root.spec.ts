import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { useProcessScratchRoot } from '../../../src/config/scratch-root';

/** a pid no process has now: one that has just ended */
function endedPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

describe('the process scratch root', () => {
  const base = mkdtempSync(path.join(tmpdir(), 'scratch-root-spec-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it("takes <tmp>/backdrop-process-<pid> as TMPDIR, removing the roots of processes that are gone (killed with -9, their job files stayed for good) and keeping live ones' and anything else", async () => {
    const ended = path.join(base, `backdrop-process-${endedPid()}`);
    const living = path.join(base, `backdrop-process-${process.ppid}`);
    const other = path.join(base, 'backdrop-job-x');
    for (const dir of [ended, living, other]) {
      mkdirSync(path.join(dir, 'backdrop-job-1'), { recursive: true });
      writeFileSync(path.join(dir, 'backdrop-job-1', 'frames.raw'), 'x');
    }
    const own = path.join(base, `backdrop-process-${process.pid}`);
    mkdirSync(own);
    writeFileSync(path.join(own, 'left-by-an-earlier-process-with-this-pid'), 'x'); // a container restarted

    const env: NodeJS.ProcessEnv = { TMPDIR: base };
    expect(await useProcessScratchRoot(env)).toBe(own);
    expect(env.TMPDIR).toBe(own);
    expect(readdirSync(own)).toEqual([]);
    expect([existsSync(ended), existsSync(living), existsSync(other)]).toEqual([false, true, true]);
  });
});
