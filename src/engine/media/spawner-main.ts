/**
 * The spawner process (spawner.ts): starts ffmpeg and ffprobe for the process that started it and
 * hands it their pipes. Small and idle, it forks cheaply; when its parent goes away it kills what
 * it started and exits.
 */
import { ChildProcess, spawn, StdioOptions } from 'node:child_process';
import { setPriority } from 'node:os';
import { Readable, Writable } from 'node:stream';
import { SpawnerReply, SpawnerRequest } from './spawner-protocol';

const children = new Map<number, ChildProcess>();

function reply(message: SpawnerReply, handle?: unknown): void {
  if (process.connected) process.send!(message, handle as never, undefined, () => undefined);
}

function start(request: Extract<SpawnerRequest, { kind: 'spawn' }>): void {
  const stdio: StdioOptions = ['ignore', request.readStdout ? 'pipe' : 'ignore', 'pipe'];
  for (let i = 0; i < request.extraInputPipes; i++) stdio.push('pipe');
  const child = spawn(request.binary, request.args, { stdio });
  if (child.pid === undefined) {
    child.once('error', (error) => reply({ kind: 'failed', id: request.id, message: error.message }));
    return;
  }
  children.set(request.id, child);
  try {
    setPriority(child.pid, request.niceness);
  } catch {
    // not permitted here: the child keeps the spawner's priority
  }
  for (const pipe of child.stdio) if (pipe) stopReading(pipe);
  reply({ kind: 'started', id: request.id, pid: child.pid });
  // each pipe goes to the engine, and this process's end of it is closed once sent
  child.stdio.forEach((pipe, fd) => pipe && reply({ kind: 'pipe', id: request.id, fd }, pipe));
  child.once('exit', (code, signal) => {
    children.delete(request.id);
    reply({ kind: 'exited', id: request.id, code, signal });
  });
}

/**
 * Node starts reading a child's output pipes at once, and a pipe is sent only after the engine has
 * acknowledged the one before it: what this process read meanwhile would stay here, lost to the
 * engine (the head of stderr, 0.3 MB of a raw video's stdout, seen in trials). Reading is stopped
 * before the first turn of the event loop, so the bytes wait in the pipe for the engine.
 */
function stopReading(pipe: Readable | Writable): void {
  const handle = (pipe as unknown as { _handle?: { reading?: boolean; readStop?: () => number } })._handle;
  if (!handle?.reading) return;
  handle.reading = false;
  handle.readStop?.();
}

process.on('message', (request: SpawnerRequest) => {
  if (request.kind === 'spawn') start(request);
  else children.get(request.id)?.kill('SIGKILL');
});

function shutDown(): void {
  for (const child of children.values()) child.kill('SIGKILL');
  process.exit(0);
}

process.on('disconnect', shutDown);

/**
 * A parent killed while a pipe was on its way to it can leave the channel's end without a
 * `disconnect` here (seen about one time in three, sending to a parent killed at once): the
 * parent's going is also checked twice a second.
 */
const parent = process.ppid;
setInterval(() => (process.ppid !== parent || !process.connected) && shutDown(), 500).unref();
