import { spawnSync } from 'node:child_process';
import { cpuTimeMs } from '../../bench/engine/process-tree';

/** a child that burns some CPU and prints the CPU time it used, in ms (user + system) */
const BURN_AND_REPORT = `
let x = 0; for (let i = 0; i < 3e8; i++) x = (x + i) % 1000003;
const used = process.cpuUsage(); console.log((used.user + used.system) / 1000, x);
`;

describe("cpuTimeMs (the benchmark's CPU accounting, from /proc)", () => {
  it('adds the CPU time of a child process once it has exited', () => {
    const before = cpuTimeMs()!;
    const child = spawnSync(process.execPath, ['-e', BURN_AND_REPORT], { encoding: 'utf8' });
    const used = cpuTimeMs()! - before;
    const reportedByChild = Number(child.stdout.split(' ')[0]);
    expect(reportedByChild).toBeGreaterThan(100);
    // /proc counts in clock ticks (10 ms); the child's own figure misses its last moments
    expect(used).toBeGreaterThanOrEqual(reportedByChild - 20);
    expect(used).toBeLessThan(reportedByChild + 300);
  });

  it("includes this process's own CPU time", () => {
    const before = cpuTimeMs()!;
    const ownBefore = process.cpuUsage();
    let x = 0;
    for (let i = 0; i < 1e8; i++) x = (x + i) % 1000003;
    const own = process.cpuUsage(ownBefore);
    expect(x).toBeGreaterThanOrEqual(0);
    expect(cpuTimeMs()! - before).toBeGreaterThanOrEqual((own.user + own.system) / 1000);
  });
});
