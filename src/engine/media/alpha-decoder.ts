/** the decoders that read a VP8 or VP9 stream's alpha: ffmpeg's own drop it (a WebM's own transparency came out opaque) */
export type AlphaDecoder = 'libvpx' | 'libvpx-vp9';

/** by ffprobe's codec name: the decoder for such a stream with alpha */
export const ALPHA_DECODERS: Readonly<Record<string, AlphaDecoder>> = { vp8: 'libvpx', vp9: 'libvpx-vp9' };

/** the options before `-i` that choose `decoder` for the video; none for ffmpeg's own */
export function decoderArgs(decoder: AlphaDecoder | undefined): string[] {
  return decoder ? ['-c:v', decoder] : [];
}
