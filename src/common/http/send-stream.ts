import { pipeline, Readable } from 'node:stream';
import type { Response } from 'express';

/**
 * Streams `body` as the response (null: a HEAD's, the headers alone). A client that goes away mid-download ends the read too, and a
 * read that fails drops the connection (the status line has gone out): with `pipe`, an aborted
 * download left its source open, a stored file's descriptor held until garbage collection.
 */
export function sendStream(body: Readable | null, res: Response): void {
  if (!body) res.end(); // a HEAD: the headers alone
  else pipeline(body, res, () => undefined);
}
