import { readdirSync, readlinkSync } from 'node:fs';
import type { Response } from 'superagent';

/** Files this process holds open under `dir` (Linux: /proc/self/fd); the app of startTestApp runs in this process. */
export function openFilesUnder(dir: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(dir) ? [target] : [];
    } catch {
      return []; // closed between the listing and the read
    }
  });
}

/** supertest's `.parse()` for a body kept as bytes: `res.body` is a Buffer whatever the content type */
export function bytesBody(res: Response, done: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}
