import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { ThreadCpuSampler, withCpuTime } from '../../bench/engine/process-tree';

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

/** a thread that burns about 400 ms of CPU, reports its thread id and its own CPU time from /proc (ms), and exits when told */
const THREAD_BURN_AND_REPORT = `
const { parentPort } = require('node:worker_threads');
const { readFileSync, readlinkSync } = require('node:fs');
const { execFileSync } = require('node:child_process');
// before the thread reads its CPU: forking a large process (a Jest worker after model specs) costs the thread tens of ms
const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
const ownMs = () => {
  const stat = readFileSync('/proc/thread-self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks;
};
// burns until the thread itself has used 300 ms of CPU (a wall-clock span gave a starved thread too little), for at most 20 s
const started = ownMs();
const giveUpAt = Date.now() + 20000;
let x = 0;
while (ownMs() - started < 300 && Date.now() < giveUpAt) for (let i = 0; i < 1e6; i += 1) x = (x + 1) % 1000003;
parentPort.postMessage({ tid: Number(readlinkSync('/proc/thread-self').split('/').pop()), ms: ownMs() });
parentPort.once('message', () => process.exit(0));
`;

describe("ThreadCpuSampler (the benchmark's busiest threads)", () => {
  // the test process's other threads may be busier (threads an earlier spec left in the Jest worker): the worker is found by its id
  it('gives a thread started during the run the CPU time the thread itself reads, and ranks the threads busiest first', async () => {
    const sampler = new ThreadCpuSampler();
    sampler.start(20);
    const worker = new Worker(THREAD_BURN_AND_REPORT, { eval: true });
    const [own] = (await once(worker, 'message')) as [{ tid: number; ms: number }];
    sampler.stop(); // read while the thread still lives
    worker.postMessage('exit');
    await once(worker, 'exit');
    expect(own.ms).toBeGreaterThan(100);
    const perThread = sampler.perThread();
    const sampled = perThread.get(own.tid)!;
    // both are clock ticks (10 ms); the thread idles between its reading and the sampler's
    expect(Math.abs(sampled - own.ms)).toBeLessThanOrEqual(20);
    // the busiest thread used at least what the worker did, and the ranking runs busiest first, `count` long
    const ranked = sampler.busiest(2);
    expect(ranked).toHaveLength(2);
    expect(ranked[0]).toBeGreaterThanOrEqual(sampled);
    expect(ranked[0]).toBeGreaterThanOrEqual(ranked[1]);
  });

  it('counts a thread that existed at start from there, not from its birth', () => {
    const sampler = new ThreadCpuSampler();
    let x = 0;
    for (let i = 0; i < 1e8; i++) x = (x + i) % 1000003; // this thread's CPU before the run (over 100 ms)
    sampler.start(1000);
    sampler.stop();
    expect(Math.max(...sampler.busiest(100))).toBeLessThanOrEqual(20);
  });
});
