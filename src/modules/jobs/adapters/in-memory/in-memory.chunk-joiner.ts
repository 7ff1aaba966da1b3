import { Readable } from 'node:stream';
import { ObjectStorage } from '../../../storage/ports/object-storage';
import { ChunkJoiner, JoinChunksRequest } from '../../ports/chunk-joiner';

/** Joins by concatenating the chunks' bytes (no media): for use-case tests on in-memory storage. */
export class InMemoryChunkJoiner extends ChunkJoiner {
  readonly joined: JoinChunksRequest[] = [];

  constructor(private readonly storage: ObjectStorage) {
    super();
  }

  async join(request: JoinChunksRequest): Promise<void> {
    const parts: Buffer[] = [];
    for (const key of request.chunkKeys) {
      for await (const piece of await this.storage.openRead(key)) parts.push(piece as Buffer);
    }
    await this.storage.put(request.outputKey, Readable.from([Buffer.concat(parts)]));
    this.joined.push(request);
  }
}
