import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers the scheduling priority of the calling thread alone, `by` niceness below the process (up
 * to 19). On Linux a thread is a task with a niceness of its own, named by /proc/thread-self;
 * lowering it needs no privilege. Elsewhere the thread keeps the process's priority. Returns
 * whether it was lowered.
 */
export function lowerThreadPriority(by: number): boolean {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    setPriority(threadId, Math.min(19, getPriority() + by));
    return true;
  } catch {
    return false;
  }
}
