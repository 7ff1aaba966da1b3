/** Resident memory of a process and its descendants (the engine's ffmpeg children), from /proc. */
import { readdirSync, readFileSync } from 'node:fs';

const PAGE_BYTES = 4096;

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function residentBytes(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE_BYTES;
  } catch {
    return 0;
  }
}

export function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const parent = parentOf(pid);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const found: number[] = [];
  const pending = [...(children.get(root) ?? [])];
  while (pending.length) {
    const pid = pending.pop()!;
    found.push(pid);
    pending.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** Samples this process's RSS and that of the whole tree under it, keeping the peaks. */
export class RssSampler {
  peakSelf = 0;
  peakTree = 0;
  private timer: NodeJS.Timeout | undefined;

  start(intervalMs = 100): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  private sample(): void {
    const self = process.memoryUsage.rss();
    const tree = self + descendantsOf(process.pid).reduce((sum, pid) => sum + residentBytes(pid), 0);
    this.peakSelf = Math.max(this.peakSelf, self);
    this.peakTree = Math.max(this.peakTree, tree);
  }
}
