import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { nodeEntryArgs } from '../../../src/engine/runner/typescript-loader';

const SECRETS = { ADMIN_TOKEN: 'adm_'.padEnd(40, 'x'), DATABASE_URL: 'postgres://backdrop:a-password@db:5432/backdrop' };

describe("the spawner's children (ffmpeg and ffprobe, which parse untrusted video)", () => {
  it("see the engine's environment, not the process's secrets (a probe in the API process gave ffprobe DATABASE_URL's password and ADMIN_TOKEN)", async () => {
    const host = nodeEntryArgs(join(__dirname, 'support'), 'spawner-env-host');
    const { stdout } = await promisify(execFile)(process.execPath, host, { env: { ...process.env, ...SECRETS } });
    const names = stdout.split('\n').map((line) => line.slice(0, line.indexOf('=')));
    expect(names).toEqual(expect.arrayContaining(['PATH', 'ORT_DISABLE_TELEMETRY']));
    expect(names.filter((name) => name in SECRETS)).toEqual([]);
  });
});
