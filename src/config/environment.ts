/**
 * The one reader of the process environment. Entry points hand it to their typed configuration
 * (loadConfig, loadWorkerConfig) and set the engine's ffmpeg builds from it; nothing else reads it.
 */
import type { MediaBinaries } from '../engine/media/binaries';
import { AppConfig, loadConfig } from './app-config';

export function processEnvironment(): NodeJS.ProcessEnv {
  return process.env;
}

/** FFMPEG_PATH / FFPROBE_PATH (README's configuration table); unset: the bundled npm builds */
export function mediaBinariesFromEnvironment(env: NodeJS.ProcessEnv = process.env): MediaBinaries {
  return { ffmpeg: env.FFMPEG_PATH || undefined, ffprobe: env.FFPROBE_PATH || undefined };
}

/** The admin CLI talks to the database only: it needs no admin token of its own. */
export function loadAdminCliConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  return loadConfig({ ...env, ADMIN_TOKEN: env.ADMIN_TOKEN ?? 'not-needed-by-the-cli-0000' });
}
