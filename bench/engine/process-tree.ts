/**
 * Resident memory of a process and its descendants (the engine's ffmpeg children), and the CPU
 * time a process and its finished children used, from /proc (Linux).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const PAGE_BYTES = 4096;

/** the fields of /proc/<pid>/stat after "pid (comm)", from `state` on (comm may hold spaces and parentheses); a thread's too (`self/task/<tid>`) */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

export function parentOf(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields ? Number(fields[1]) : undefined;
}

function residentBytes(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE_BYTES;
  } catch {
    return 0;
  }
}

/** the children of `pid`, from /proc/<pid>/task/<tid>/children (none once it has exited) */
export function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
        .split(' ')
        .filter(Boolean)
        .map(Number),
    );
  } catch {
    return [];
  }
}

/** every process's parent, from a scan of /proc (for kernels without the children lists) */
function childrenByScan(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const parent = parentOf(pid);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  return children;
}

/** the children of any process: from the kernel's children lists where it keeps them, else from one scan of /proc */
function childrenLookup(): (pid: number) => number[] {
  const scanned = existsSync(`/proc/${process.pid}/task/${process.pid}/children`) ? undefined : childrenByScan();
  return (pid) => (scanned ? (scanned.get(pid) ?? []) : childrenOf(pid));
}

/**
 * The processes under `root`, from the children lists of the tree's threads where the kernel
 * keeps them: the sampler runs on the engine's thread every 100 ms, and a scan of every
 * process's stat file took about 3 ms a sample (1.5% of `human`'s CPU time in bench:matting).
 */
export function descendantsOf(root: number): number[] {
  const childrenOfAny = childrenLookup();
  const found: number[] = [];
  const pending = childrenOfAny(root);
  while (pending.length) {
    const pid = pending.pop()!;
    found.push(pid);
    pending.push(...childrenOfAny(pid));
  }
  return found;
}

/** Reads something of this process every interval between start and stop (and at both). */
abstract class IntervalSampler {
  private timer: NodeJS.Timeout | undefined;

  start(intervalMs = 100): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  protected abstract sample(): void;
}

/** Samples this process's RSS and that of the whole tree under it, keeping the peaks. */
export class RssSampler extends IntervalSampler {
  peakSelf = 0;
  peakTree = 0;

  protected sample(): void {
    const self = process.memoryUsage.rss();
    const tree = self + descendantsOf(process.pid).reduce((sum, pid) => sum + residentBytes(pid), 0);
    this.peakSelf = Math.max(this.peakSelf, self);
    this.peakTree = Math.max(this.peakTree, tree);
  }
}

/**
 * The CPU time each thread of this process used between start and stop: whether one thread bounds
 * a run (RVM's stages run on threads of their own) where the CPU-bound minimum assumes none does.
 * A thread is read until it exits, so up to one interval of its time is missed; threads that exist
 * at start count from there, threads started later from zero. Empty without /proc.
 */
export class ThreadCpuSampler extends IntervalSampler {
  private readonly atStart = new Map<string, number>();
  private readonly latest = new Map<string, number>();
  private started = false;

  /** the CPU ms of each thread seen, by thread id */
  perThread(): Map<number, number> {
    return new Map([...this.latest].map(([tid, ms]) => [Number(tid), ms - (this.atStart.get(tid) ?? 0)]));
  }

  /** the CPU ms of the `count` busiest threads, busiest first */
  busiest(count: number): number[] {
    return [...this.perThread().values()].sort((a, b) => b - a).slice(0, count);
  }

  protected sample(): void {
    let tids: string[];
    try {
      tids = readdirSync('/proc/self/task');
    } catch {
      return;
    }
    for (const tid of tids) {
      const fields = statFields(`self/task/${tid}`);
      if (!fields) continue; // exited since the listing
      // fields[11] and fields[12] are utime and stime (stat fields 14 and 15), in clock ticks
      const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks();
      if (!this.started) this.atStart.set(tid, ms);
      this.latest.set(tid, ms);
    }
    this.started = true;
  }
}

let clockTicksPerSecond: number | undefined;

function clockTicks(): number {
  if (clockTicksPerSecond === undefined) {
    try {
      clockTicksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicksPerSecond = 100;
    }
  }
  return clockTicksPerSecond;
}

/**
 * CPU milliseconds (user + system) used so far by this process (all its threads), its children
 * that have exited and been waited for, and its live children with theirs: the spawner
 * (src/engine/media/spawner.ts), which starts ffmpeg and waits for it, so finished ffmpeg runs count
 * there. Undefined where /proc is missing. Differences of two readings give a run's CPU time, to 10 ms.
 */
export function cpuTimeMs(): number | undefined {
  const fields = statFields('self');
  if (!fields) return undefined;
  // fields[11] to [14] are utime, stime, cutime and cstime (stat fields 14 to 17), in clock ticks
  const ticks = (stat: string[]) => Number(stat[11]) + Number(stat[12]) + Number(stat[13]) + Number(stat[14]);
  const children = childrenLookup()(process.pid).reduce((sum, pid) => {
    const stat = statFields(pid);
    return sum + (stat ? ticks(stat) : 0);
  }, 0);
  const exitedChildrenMs = ((Number(fields[13]) + Number(fields[14])) * 1000) / clockTicks();
  const self = process.cpuUsage();
  return (self.user + self.system) / 1000 + exitedChildrenMs + (children * 1000) / clockTicks();
}

/** Runs `run` and returns its result with the CPU time it took (see cpuTimeMs; undefined without /proc). */
export async function withCpuTime<T>(run: () => Promise<T>): Promise<{ result: T; cpuMs?: number }> {
  const before = cpuTimeMs();
  const result = await run();
  const after = cpuTimeMs();
  return { result, cpuMs: before === undefined || after === undefined ? undefined : after - before };
}
