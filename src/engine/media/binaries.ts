/**
 * Where the ffmpeg and ffprobe executables live: the bundled npm builds, unless the entry point
 * configured others (FFMPEG_PATH / FFPROBE_PATH, read by src/config) with useMediaBinaries.
 */
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import ffprobeInstaller from '@ffprobe-installer/ffprobe';

export interface MediaBinaries {
  ffmpeg?: string;
  ffprobe?: string;
}

let configured: MediaBinaries = {};

/** Set once at start by the process's entry point; engine children get the same from their parent. */
export function useMediaBinaries(binaries: MediaBinaries): void {
  configured = { ...binaries };
}

export function configuredMediaBinaries(): MediaBinaries {
  return { ...configured };
}

export function ffmpegPath(): string {
  return configured.ffmpeg ?? ffmpegInstaller.path;
}

export function ffprobePath(): string {
  return configured.ffprobe ?? ffprobeInstaller.path;
}
