/** Where the ffmpeg and ffprobe executables live: the environment wins over the bundled npm builds. */
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import ffprobeInstaller from '@ffprobe-installer/ffprobe';

export function ffmpegPath(): string {
  return process.env.FFMPEG_PATH ?? ffmpegInstaller.path;
}

export function ffprobePath(): string {
  return process.env.FFPROBE_PATH ?? ffprobeInstaller.path;
}
