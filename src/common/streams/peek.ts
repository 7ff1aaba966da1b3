import { PassThrough, Readable } from 'node:stream';

/**
 * Reads the first `bytes` of a stream (fewer when it ends sooner) without losing them: resolves with
 * that head and `replay`, which then carries every byte of the stream from the first. An error of
 * the stream before the head is read rejects; one after it destroys `replay` with that error.
 */
export function peek<T extends PassThrough>(stream: Readable, bytes: number, replay: T): Promise<{ head: Buffer; replay: T }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = (): void => {
      stream.off('data', onData);
      stream.off('end', finish);
      stream.off('error', reject);
      stream.pause();
      const head = Buffer.concat(chunks);
      // The consumer attaches its own handlers later; an early error stays recorded on the stream (`errored`) for it.
      replay.on('error', () => undefined);
      replay.write(head);
      stream.on('error', (error) => replay.destroy(error));
      stream.pipe(replay);
      stream.resume();
      resolve({ head, replay });
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= bytes) finish();
    };
    stream.on('data', onData);
    stream.once('end', finish);
    stream.once('error', reject);
  });
}
