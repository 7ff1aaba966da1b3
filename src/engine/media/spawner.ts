/**
 * ffmpeg and ffprobe are started by a small process of the engine's own (spawner-main.ts), not by
 * the engine's process. Node starts a child by fork(): the kernel copies the page tables of the
 * whole process and marks every page it writes copy-on-write, so after each start every thread
 * faults again on each page it writes. The engine's process holds the models (hundreds of MB) and
 * RVM's threads write their working memory on every frame: on a 2-core AMD EPYC VM (3 December
 * 2026), one start of `ffmpeg -version` beside a 13-frame `human` session took the session's CPU
 * from 1.5 to 3.3 s (about 90,000 more page faults) and `light`'s from 0.35 to 0.75 s; a job starts
 * four (ffprobe, the first frame, the decoder, the encoder). The spawner is small and idle, so its
 * forks cost little; it hands the engine the children's pipes (over the IPC channel, as sockets),
 * so frames flow between ffmpeg and the engine directly, as before.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { Socket } from 'node:net';
import { configuredEngineProcessEnv } from '../runner/engine-environment';
import { nodeEntryArgs } from '../runner/typescript-loader';
import { SpawnerReply, SpawnerRequest } from './spawner-protocol';

/**
 * A spawner with no child running is let go after this long (the next start opens another), but in
 * a process that keeps it (keepSpawner): there the next start would fork that process again.
 */
const IDLE_MS = 30_000;

/** what becomes of one child, in this order: started, its pipes, exited (or failed instead) */
export interface SpawnEvents {
  started(pid: number): void;
  pipe(fd: number, socket: Socket): void;
  exited(code: number | null, signal: NodeJS.Signals | null): void;
  failed(message: string): void;
}

export type SpawnRequest = Omit<Extract<SpawnerRequest, { kind: 'spawn' }>, 'kind' | 'id'>;

class Spawner {
  private readonly process: ChildProcess;
  private readonly children = new Map<number, SpawnEvents>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  private gone = false;

  constructor() {
    // the engine's environment (engine-environment.ts): ffmpeg and ffprobe parse untrusted video, and
    // probes in the API process handed them its secrets
    this.process = spawn(process.execPath, nodeEntryArgs(__dirname, 'spawner-main'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: configuredEngineProcessEnv() });
    this.process.on('message', (reply: SpawnerReply, pipe?: Socket) => this.onReply(reply, pipe));
    this.process.on('disconnect', () => this.onGone('the spawner process exited'));
    this.process.on('error', (error) => this.onGone(`the spawner process failed: ${error.message}`));
    // neither the process nor its channel keeps this one alive while no child runs
    this.process.unref();
    this.process.channel?.unref();
  }

  /** starts a child; returns its id for `kill` */
  start(request: SpawnRequest, events: SpawnEvents): number {
    const id = this.nextId++;
    this.children.set(id, events);
    clearTimeout(this.idleTimer);
    this.process.channel?.ref();
    this.send({ kind: 'spawn', id, ...request });
    return id;
  }

  kill(id: number): void {
    if (this.children.has(id)) this.send({ kind: 'kill', id });
  }

  private send(request: SpawnerRequest): void {
    if (this.gone) return;
    this.process.send(request, undefined, undefined, (error) => error && this.onGone(`the spawner process is gone: ${error.message}`));
  }

  private onReply(reply: SpawnerReply, pipe?: Socket): void {
    const events = this.children.get(reply.id);
    if (!events) {
      pipe?.destroy();
      return;
    }
    if (reply.kind === 'started') events.started(reply.pid);
    else if (reply.kind === 'pipe' && pipe) events.pipe(reply.fd, pipe);
    else if (reply.kind === 'exited') this.settle(reply.id, () => events.exited(reply.code, reply.signal));
    else if (reply.kind === 'failed') this.settle(reply.id, () => events.failed(reply.message));
  }

  private settle(id: number, report: () => void): void {
    this.children.delete(id);
    if (this.children.size === 0) {
      this.process.channel?.unref();
      if (!keptWhileIdle) this.idleTimer = setTimeout(() => this.letGo(), IDLE_MS).unref();
    }
    report();
  }

  /** an idle spawner exits when its channel closes (spawner-main.ts) */
  private letGo(): void {
    if (this.children.size > 0 || this.gone) return;
    this.forget();
    this.process.disconnect();
  }

  private onGone(message: string): void {
    if (this.gone) return;
    this.forget();
    const orphans = [...this.children.values()];
    this.children.clear();
    for (const events of orphans) events.failed(message);
  }

  private forget(): void {
    this.gone = true;
    clearTimeout(this.idleTimer);
    if (current === this) current = undefined;
  }
}

let current: Spawner | undefined;
/** whether this process keeps its spawner while idle (keepSpawner) */
let keptWhileIdle = false;

/** this process's spawner, started on first use and again after it exits */
export function spawner(): { start: Spawner['start']; kill: Spawner['kill'] } {
  return (current ??= new Spawner());
}

/**
 * Starts this process's spawner now and keeps it while idle: for a long-lived engine process, at its
 * start, while it is small (before any model loads), so that the spawner's own fork is cheap and no
 * job after an idle spell pays for another of the grown process.
 */
export function keepSpawner(): void {
  keptWhileIdle = true;
  spawner();
}
