import { spawnSync } from 'node:child_process';
import { withCpuTime } from '../../bench/engine/process-tree';

/** a child that burns some CPU and prints the CPU time it used, in ms (user + system) */
const BURN_AND_REPORT = `
let x = 0; for (let i = 0; i < 3e8; i++) x = (x + i) % 1000003;
const used = process.cpuUsage(); console.log((used.user + used.system) / 1000, x);
`;

describe("withCpuTime (the benchmark's CPU accounting, from /proc)", () => {
  it('counts the CPU time of a child process once it has exited', async () => {
    const ownBefore = process.cpuUsage();
    const { result: child, cpuMs } = await withCpuTime(async () => spawnSync(process.execPath, ['-e', BURN_AND_REPORT], { encoding: 'utf8' }));
    const own = process.cpuUsage(ownBefore);
    // the test process's own threads count too (a Jest worker's garbage collector, or threads left by an earlier spec, under load)
    const ownMs = (own.user + own.system) / 1000;
    const used = cpuMs!;
    const reportedByChild = Number(child.stdout.split(' ')[0]);
    expect(reportedByChild).toBeGreaterThan(100);
    // /proc counts in clock ticks (10 ms); the child's own figure misses its last moments
    expect(used).toBeGreaterThanOrEqual(reportedByChild - 20);
    expect(used).toBeLessThan(reportedByChild + ownMs + 300);
  });
});
