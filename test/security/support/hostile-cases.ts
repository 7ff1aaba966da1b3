/**
 * The hostile-media suite's cases: each a file an attacker controls, generated at test time, that
 * the service must refuse (synchronously) or fail cleanly (a job ending `input_invalid`), whichever
 * door it comes through.
 */
import { bombPngRgba, codecLiarAvi, disguised, gab2Avi, h264, clip, hlsPlaylist, htmlPage, jpegZipPolyglot, liarDimensionsAvi, svgImage, truncatedMp4 } from '../../support/hostile-media';

export type Door = 'upload' | 'video_url' | 'image_url';
export const DOORS: readonly Door[] = ['upload', 'video_url', 'image_url'];

export interface HostileCase {
  name: string;
  /** the name it is uploaded and served under */
  fileName: string;
  make: () => Promise<Buffer>;
  /** decompression bombs: the worker's memory is measured while they are submitted */
  bomb?: boolean;
}

export interface Secrets {
  /** a local text file holding the marker */
  textPath: string;
  /** a local video file (another job's output, say) */
  videoPath: string;
  /** a loopback server no request may reach */
  victimUrl: string;
}

const playlistCases = (secrets: Secrets, extension: string): HostileCase[] => [
  ['file: segments', hlsPlaylist(`file://${secrets.videoPath}`, `file://${secrets.textPath}`)],
  ['http: segments', hlsPlaylist(`${secrets.victimUrl}/segment0.ts`, 'http://169.254.169.254/latest/meta-data/')],
  ['concat: segments', hlsPlaylist(`concat:${secrets.videoPath}|${secrets.textPath}`)],
  ['subfile: segments', hlsPlaylist(`subfile,,start,0,end,0,,:${secrets.textPath}`, `subfile,,start,0,end,0,,:${secrets.videoPath}`)],
].map(([what, bytes]) => ({ name: `HLS playlist named .${extension}, ${what}`, fileName: `clip.${extension}`, make: async () => bytes as Buffer }));

export function hostileCases(secrets: Secrets): HostileCase[] {
  return [
    ...playlistCases(secrets, 'mp4'),
    ...playlistCases(secrets, 'png'),
    { name: 'MP4 signature over an HLS playlist (passes the sniffing; the pinned demuxer does not read HLS)', fileName: 'clip.mp4', make: async () => disguised('mp4', hlsPlaylist(`file://${secrets.videoPath}`)) },
    { name: 'PNG signature over an HLS playlist (passes the sniffing; the pinned decoder does not read HLS)', fileName: 'background.png', make: async () => disguised('png', hlsPlaylist(`file://${secrets.videoPath}`)) },
    { name: 'AVI whose GAB2 subtitle chunk holds an HLS playlist', fileName: 'clip.avi', make: async () => gab2Avi(hlsPlaylist(`file://${secrets.textPath}`, `${secrets.victimUrl}/gab2.ts`)) },
    { name: 'SVG named as a PNG', fileName: 'background.png', make: async () => svgImage() },
    { name: 'HTML named as a JPEG', fileName: 'background.jpg', make: async () => htmlPage() },
    { name: 'truncated MP4 (no moov)', fileName: 'clip.mp4', make: truncatedMp4 },
    { name: '0-byte file', fileName: 'clip.mp4', make: async () => Buffer.alloc(0) },
    { name: 'JPEG+ZIP polyglot', fileName: 'background.jpg', make: jpegZipPolyglot },
    { name: 'decompression-bomb PNG (10000x10000 RGBA in a few hundred KB)', fileName: 'background.png', make: () => bombPngRgba(10000, 10000), bomb: true },
    { name: 'video over the frame limit (4112x64)', fileName: 'wide.mp4', make: () => clip('4112x64', 0.3, h264, 'mp4') },
    { name: 'video declaring 12000x12000 over 64x48 frames', fileName: 'clip.avi', make: () => liarDimensionsAvi(12000, 12000), bomb: true },
    { name: 'video whose stream claims H.264 but holds MJPEG', fileName: 'clip.avi', make: codecLiarAvi },
  ];
}
