import { chmod, mkdir, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import * as path from 'node:path';
import { isProcessAlive } from '../common/process-alive';

const ROOT_NAME = /^backdrop-process-(\d+)$/;

/**
 * Puts every temporary file of this process under one directory of its own, `<tmp>/backdrop-process-<pid>`
 * (jobs, chunk joins, uploads and inputs in flight, ffmpeg's and the engine processes' files):
 * TMPDIR names it for this process and every process it starts. A process killed with -9 left its
 * job directories behind for good, gigabytes for a long video; each start now removes those of
 * processes that are gone, and empties its own (a container restarted has the same pid). Call it
 * first, before the configuration is read: the engine's processes take their environment from it.
 */
export async function useProcessScratchRoot(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const base = path.resolve(env.TMPDIR || tmpdir());
  await removeRootsOfEndedProcesses(base);
  const root = path.join(base, `backdrop-process-${process.pid}`);
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  // others may read what is made readable in it, as in the system's: the embedded Postgres, run as
  // its own user under root, reads the password file its launcher writes there (each job's own
  // directory, made by mkdtemp, is its owner's alone)
  await chmod(root, 0o755);
  env.TMPDIR = root;
  return root;
}

async function removeRootsOfEndedProcesses(base: string): Promise<void> {
  const names = await readdir(base).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(ROOT_NAME.exec(name)?.[1]);
    if (!pid || pid === process.pid || isProcessAlive(pid)) continue;
    await rm(path.join(base, name), { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * A directory of this process's own under `base` (the worker server's WORKER_WORK_DIR, where each
 * run's input, output and engine files go), after removing those of this host's processes that are
 * gone: a worker server killed with -9 left a whole input there for good. Named by host and pid, so
 * a directory shared by several machines or containers is swept only of this one's.
 */
export async function scratchRootUnder(base: string): Promise<string> {
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, '_');
  const ownName = new RegExp(`^backdrop-process-${host.replace(/\./g, '\\.')}-(\\d+)$`);
  const names = await readdir(base).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(ownName.exec(name)?.[1]);
    if (!pid || pid === process.pid || isProcessAlive(pid)) continue;
    await rm(path.join(base, name), { recursive: true, force: true }).catch(() => undefined);
  }
  const root = path.join(base, `backdrop-process-${host}-${process.pid}`);
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  return root;
}
