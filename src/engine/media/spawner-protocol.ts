/** What the engine and its spawner process (spawner-main.ts) say to each other over the IPC channel. */

export type SpawnerRequest =
  | {
      kind: 'spawn';
      id: number;
      binary: string;
      args: readonly string[];
      /** stdout as a pipe handed back (else discarded) */
      readStdout: boolean;
      /** writable pipes handed back as the child's fd 3, 4, ... */
      extraInputPipes: number;
      /** the child's niceness (set by the spawner where permitted) */
      niceness: number;
    }
  | { kind: 'kill'; id: number };

export type SpawnerReply =
  | { kind: 'started'; id: number; pid: number }
  /** sent with the engine's end of the child's pipe `fd` as the handle */
  | { kind: 'pipe'; id: number; fd: number }
  | { kind: 'exited'; id: number; code: number | null; signal: NodeJS.Signals | null }
  | { kind: 'failed'; id: number; message: string };
