/**
 * The YCbCr matrix of a video's pictures, as a player decodes them: the stream's own tag, else by
 * its height (high definition is BT.709, standard BT.601), as players guess for an untagged file.
 * The foreground passes through the pipeline in the source's YCbCr as it is, so what is drawn
 * beside it (a colour or an image) is converted to YCbCr with that matrix, and the output says
 * which it is. Before, backgrounds were converted with BT.601 whatever the source and no output
 * said its matrix: on HD footage the requested #09A246 green came out as 0,140,66 where players
 * showed the foreground right, or the foreground was shifted where they read the background right.
 */
export type ColourMatrix = 'bt709' | 'bt601' | 'bt2020';

/** Above this many lines a picture is high definition (576: PAL's standard definition). */
const STANDARD_DEFINITION_LINES = 576;

const TAGGED: Readonly<Record<string, ColourMatrix>> = {
  bt709: 'bt709',
  smpte170m: 'bt601',
  bt470bg: 'bt601',
  bt2020nc: 'bt2020',
  bt2020c: 'bt2020',
};

/** The matrix of a stream with ffprobe's `color_space` tag (maybe none) and `height` lines; HDR is tone-mapped to BT.709. */
export function colourMatrixOf(colorSpace: string | undefined, height: number, toneMapped: boolean): ColourMatrix {
  if (toneMapped) return 'bt709';
  return TAGGED[colorSpace ?? ''] ?? (height > STANDARD_DEFINITION_LINES ? 'bt709' : 'bt601');
}

/** ffmpeg's `-colorspace` name of a matrix: what an output says it is */
const COLORSPACE_TAG: Readonly<Record<ColourMatrix, string>> = { bt709: 'bt709', bt601: 'smpte170m', bt2020: 'bt2020nc' };

/**
 * The primaries and transfer that go with each matrix, as players take them for a file that names
 * only its matrix: SD's NTSC ones (the same curve and near the same primaries as PAL's), HD's,
 * UHD's standard range (HDR comes out tone-mapped to BT.709).
 */
const PRIMARIES_AND_TRANSFER: Readonly<Record<ColourMatrix, { primaries: string; transfer: string }>> = {
  bt709: { primaries: 'bt709', transfer: 'bt709' },
  bt601: { primaries: 'smpte170m', transfer: 'smpte170m' },
  bt2020: { primaries: 'bt2020', transfer: 'bt2020-10' },
};

/**
 * The output options that tag a video stream with `matrix`, its primaries and its transfer; none
 * where the matrix is unknown. With the matrix alone, mp4 and webm said "unspecified" primaries and
 * transfer, a mov's colr box said so too (editors flag the clip), and a BT.2020 clip was shown with
 * BT.709's primaries.
 */
export function colourTagArgs(matrix: ColourMatrix | undefined): string[] {
  if (!matrix) return [];
  const { primaries, transfer } = PRIMARIES_AND_TRANSFER[matrix];
  return ['-colorspace', COLORSPACE_TAG[matrix], '-color_primaries', primaries, '-color_trc', transfer];
}

/**
 * `setparams` saying the frames' matrix, then a comma; nothing where it is unknown. The frames carry
 * it on to what reads their tag (ProRes writes it in each frame); the conversions themselves name the
 * matrix (matrixOptions).
 */
export function tagFrames(matrix: ColourMatrix | undefined): string {
  return matrix ? `setparams=colorspace=${COLORSPACE_TAG[matrix]},` : '';
}

/**
 * A `scale`'s options that read and write YCbCr with `matrix`; none where it is unknown. The filter
 * that turns the source's frames into what follows converts them itself: a tag alone (tagFrames) was
 * not read where ffmpeg put the conversion at the graph's input, before the tag, so an untagged HD
 * picture became RGB with BT.601 (200,60,40 came out 186,46,41 in GIF, PNG and the decontaminated
 * edge), and an RGB one became YCbCr with BT.601 under a BT.709 tag.
 */
export function matrixOptions(matrix: ColourMatrix | undefined): string[] {
  return matrix ? [`in_color_matrix=${matrix}`, `out_color_matrix=${matrix}`] : [];
}

/** `scale` converting with `matrix` (matrixOptions), then a comma; nothing where it is unknown */
export function convertWith(matrix: ColourMatrix | undefined): string {
  return matrix ? `scale=${matrixOptions(matrix).join(':')},` : '';
}

/** `scale` converting RGB (or any YCbCr with its own tag) to limited-range YCbCr with `matrix`, then a comma; nothing where it is unknown */
export function toMatrix(matrix: ColourMatrix | undefined): string {
  return matrix ? `scale=out_color_matrix=${matrix}:out_range=tv,` : '';
}

/**
 * WebP decoders read YCbCr as BT.601 whatever the file: a BT.709 picture is converted to it, or
 * its colours shift (200,60,40 came out as 186,48,44). `scale` then a comma; nothing for BT.601.
 */
export function toWebpMatrix(matrix: ColourMatrix | undefined): string {
  return matrix && matrix !== 'bt601' ? `scale=in_color_matrix=${matrix}:out_color_matrix=bt601:in_range=tv:out_range=tv,` : '';
}
