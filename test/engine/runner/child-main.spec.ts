import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeEntryArgs } from '../../../src/engine/runner/typescript-loader';
import { ChildConfig } from '../../../src/engine/runner/messages';

describe('engine child process', () => {
  it('leaves quietly when its parent is gone before it could say it is ready (no EPIPE crash)', async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 'engine-child-'));
    try {
      const config: ChildConfig = { cacheDir, modelModule: join(__dirname, '..', 'support', 'fake-model-module.ts') };
      const child = spawn(process.execPath, [...nodeEntryArgs(join(__dirname, '..', '..', '..', 'src', 'engine', 'runner'), 'child-main'), JSON.stringify(config)], {
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      // the parent lets go of the channel at once, as a parent that crashed does
      child.disconnect();
      const exitCode = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: '' });
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  }, 30000);
});
