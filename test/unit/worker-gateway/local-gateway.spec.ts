import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { EnginePool } from '../../../src/common/worker-protocol/engine-request';
import { EngineRequest, EngineResult } from '../../../src/engine/types';
import { InMemoryObjectStorage } from '../../../src/modules/storage/adapters/in-memory/in-memory.object-storage';
import { LocalWorkerGateway } from '../../../src/modules/worker-gateway/adapters/local.worker-gateway';

/** an engine that writes a few bytes where it is told */
const writingPool: EnginePool = {
  async run(request: EngineRequest): Promise<EngineResult> {
    await writeFile(request.outputPath, 'output');
    return { durationSeconds: 1, frames: 25, width: 640, height: 360, outputFormat: 'webm', modelUsed: 'light', notes: [] };
  },
  async close() {},
};

/** storage whose disk is full when the output is stored: Node's error names both files */
class FullStorage extends InMemoryObjectStorage {
  override async putFile(key: string, localPath: string): Promise<never> {
    throw Object.assign(new Error(`ENOSPC: no space left on device, copyfile '${localPath}' -> '/srv/data/storage/${key}.x1.partial'`), { code: 'ENOSPC' });
  }
}

describe('LocalWorkerGateway', () => {
  it("fails a job whose output cannot be stored output_failed, without the server's file paths in the error its client reads (they named the scratch and storage folders)", async () => {
    const storage = new FullStorage();
    await storage.put('uploads/vid_1', Readable.from([Buffer.from('video')]));
    const gateway = new LocalWorkerGateway(storage, () => writingPool, tmpdir());
    const task = { jobId: 'job_1', inputKey: 'uploads/vid_1', outputKey: 'outputs/job_1.webm', backgroundImageKey: null, settings: { model: 'light', outputFormat: 'webm', background: { type: 'transparent' }, composition: null, previewDuration: null, textPrompt: null }, maxDurationSeconds: 600 } as const;
    const failure = gateway.process(task, () => undefined);
    await expect(failure).rejects.toMatchObject({ code: 'output_failed' });
    await expect(failure).rejects.toThrow("The output could not be stored: ENOSPC: no space left on device, copyfile '<file>' -> '<file>'");
  });

  it('says in its check where the model cache cannot be written and holds no models (each job failed on its own while health said ok), and ok where it can be written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-cache-'));
    try {
      await writeFile(join(dir, 'not-a-folder'), 'x');
      const unwritable = join(dir, 'not-a-folder', 'models'); // cannot be made, whoever runs this
      expect(await new LocalWorkerGateway(new InMemoryObjectStorage(), () => writingPool, unwritable).check()).toBe(
        `the model cache ${unwritable} (MODEL_CACHE_DIR) cannot be written (ENOTDIR) and holds no models: every job would fail`,
      );
      expect(await new LocalWorkerGateway(new InMemoryObjectStorage(), () => writingPool, join(dir, 'models')).check()).toBe('ok');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
