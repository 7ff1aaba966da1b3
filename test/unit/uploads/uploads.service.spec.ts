import { FixedClock } from '../../../src/common/clock';
import { SequentialIds } from '../../../src/common/ids';
import { Readable } from 'node:stream';
import { DomainError } from '../../../src/common/errors/domain-error';
import { loadConfig } from '../../../src/config/app-config';
import { InMemoryObjectStorage } from '../../../src/modules/storage/adapters/in-memory/in-memory.object-storage';
import { InMemoryUploadRepository } from '../../../src/modules/uploads/adapters/in-memory/in-memory.upload.repository';
import { UploadsService } from '../../../src/modules/uploads/application/uploads.service';
import { MediaRefusal, ProbedVideo, VideoProbe } from '../../../src/modules/uploads/ports/video-probe';
import { InMemoryUnitOfWork } from '../../../src/common/in-memory.unit-of-work';
import { PortToken } from '../../../src/common/unit-of-work';
import { InMemoryApiKeyRepository } from '../../../src/modules/auth/adapters/in-memory/in-memory.api-key.repository';
import { ApiKeyRepository } from '../../../src/modules/auth/ports/api-key.repository';
import { UploadRepository } from '../../../src/modules/uploads/ports/upload.repository';

class ScriptedProbe extends VideoProbe {
  constructor(private readonly answer: ProbedVideo | MediaRefusal | Error) {
    super();
  }
  async probe(): Promise<ProbedVideo | MediaRefusal> {
    if (this.answer instanceof Error) throw this.answer;
    return this.answer;
  }
  readonly headBytes = 1;
  refusalOfHead(): null {
    return null;
  }
  async probeImage(): Promise<MediaRefusal> {
    return { refused: 'unsupported', reason: 'no images in this test' };
  }
}

/** a database that is down */
class FailingUploadRepository extends InMemoryUploadRepository {
  override async insert(): Promise<void> {
    throw new Error('connection terminated unexpectedly');
  }
}

function uploadsWith(probe: ProbedVideo | MediaRefusal | Error, repository = new InMemoryUploadRepository()) {
  const storage = new InMemoryObjectStorage();
  const clock = FixedClock.at('2026-01-01T00:00:00Z');
  return { storage, uploads: new UploadsService(storage, repository, new ScriptedProbe(probe), loadConfig({ PUBLIC_BASE_URL: 'http://backdrop.test' }), new SequentialIds(), new InMemoryUnitOfWork(new Map<PortToken<unknown>, unknown>([[UploadRepository, repository], [ApiKeyRepository, new InMemoryApiKeyRepository()]])), clock) };
}

describe('UploadsService', () => {
  it('stores a decodable video under a fresh id and gives back its URL, which names it for its owner only', async () => {
    const { storage, uploads } = uploadsWith({ durationSeconds: 4, width: 640, height: 360 });
    const body = await uploads.storeBody(Readable.from([Buffer.from('video bytes')]), 'video/mp4');
    const view = await uploads.register('key_a', 'clip.mp4', body);
    expect(view).toMatchObject({ success: true, filename: 'clip.mp4', size: 11, duration_seconds: 4, video_url: `http://backdrop.test/v1/uploads/${view.video_id}` });
    expect(await storage.stat(body.storageKey)).toMatchObject({ key: body.storageKey, size: 11 });
    expect(uploads.uploadIdFromUrl(view.video_url)).toBe(view.video_id);
    expect(uploads.uploadIdFromUrl('https://elsewhere.example.com/v1/uploads/' + view.video_id)).toBeNull();
    // dated by the injected clock, which retention reads too (it was the system's)
    expect(await uploads.findOwned(view.video_id, 'key_a')).toMatchObject({ durationSeconds: 4, createdAt: new Date('2026-01-01T00:00:00Z') });
    await expect(uploads.findOwned(view.video_id, 'key_b')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('a file that does not decode is removed from storage and refused as unsupported_media_type', async () => {
    const { storage, uploads } = uploadsWith({ refused: 'unsupported', reason: 'the file is plain text' });
    const body = await uploads.storeBody(Readable.from([Buffer.from('not a video')]), 'video/mp4');
    const refused = await uploads.register('key_a', 'x.mp4', body).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe('unsupported_media_type');
    expect(await storage.stat(body.storageKey)).toBeNull();
  });

  it('a file over the size limits is removed from storage and refused as invalid_request naming file', async () => {
    const { storage, uploads } = uploadsWith({ refused: 'too_large', reason: 'the video is 8192x8192, over 4096x4096' });
    const body = await uploads.storeBody(Readable.from([Buffer.from('huge')]), 'video/mp4');
    const refused = await uploads.register('key_a', 'x.mp4', body).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'invalid_request', details: [{ field: 'file', message: expect.stringContaining('8192x8192') }] });
    expect(await storage.stat(body.storageKey)).toBeNull();
  });

  it.each([
    ['its probe failed', new Error('spawn ffprobe EAGAIN'), new InMemoryUploadRepository()],
    ['its row could not be written', { durationSeconds: 4, width: 640, height: 360 }, new FailingUploadRepository()],
  ])('a body that does not become an upload because %s is removed from storage, and the error passes on', async (_case, probe, repository) => {
    const { storage, uploads } = uploadsWith(probe, repository);
    const body = await uploads.storeBody(Readable.from([Buffer.from('video bytes')]), 'video/mp4');
    await expect(uploads.register('key_a', 'clip.mp4', body)).rejects.toThrow(/EAGAIN|connection terminated/);
    expect(await storage.stat(body.storageKey)).toBeNull();
  });
});
