/**
 * Writes a WebM with a VP9 alpha channel from two VP9 streams: the colour frames and the alpha
 * frames (the alpha as the luma of an ordinary VP9 stream). This is the layout browsers and
 * ffmpeg's libvpx decoder read: one video track with AlphaMode 1, each block a BlockGroup whose
 * BlockAdditional (BlockAddID 1) carries the alpha frame.
 *
 * Why not ffmpeg's own yuva420p encoding: the ffmpeg build the project ships (2018) hands its
 * encoder controls (-cpu-used, -row-mt, -crf) only to the colour encoder and runs the alpha one at
 * libvpx's slowest settings, about 15 fps at 640x360 on two cores with real mattes. Encoding the
 * alpha as a second stream with the same settings and joining them here is several times faster.
 *
 * The file is finished as players need it to seek: the Segment's size, the Duration, and Cues (one
 * per cluster that opens on a key frame) that a SeekHead points to. Those are known only at the
 * end, and take a fixed size (8-byte sizes, positions and duration): the head is written with
 * zeros first and written again over itself once the clusters are down. A video without audio
 * needs no ffmpeg pass after this (webm-output.ts).
 */
import { open } from 'node:fs/promises';
import { EBML_ID as ID, eightByteSize, eightByteUintElement, element, floatElement, idBytes, intElement, stringElement, uintElement } from './ebml';
import { IvfFormatError, IvfFrame, IvfHeader, IvfReader, isVp9KeyFrame } from './ivf-reader';

const TIMECODE_SCALE_NS = 1_000_000; // block times in milliseconds
const TRACK_NUMBER = 1;
const ALPHA_BLOCK_ADD_ID = 1;
/** a block's time is a signed 16-bit offset from its cluster's */
const MAX_CLUSTER_SPAN_MS = 30_000;

/** what the head says of the rest of the file: zeros until the clusters and cues are written */
export interface WebmHeadFacts {
  /** bytes after the Segment's size field */
  segmentSize: number;
  durationMs: number;
  /** the Cues' position from the start of the Segment's data */
  cuesPosition: number;
}

const UNKNOWN_YET: WebmHeadFacts = { segmentSize: 0, durationMs: 0, cuesPosition: 0 };

/** The EBML header, the Segment's start, its SeekHead, Info and Tracks: the same length whatever `facts` say. */
export function webmHead(video: IvfHeader, app: string, facts: WebmHeadFacts = UNKNOWN_YET): Buffer {
  const info = element(ID.Info, [uintElement(ID.TimecodeScale, TIMECODE_SCALE_NS), floatElement(ID.Duration, facts.durationMs), stringElement(ID.MuxingApp, app), stringElement(ID.WritingApp, app)]);
  const track = element(ID.TrackEntry, [
    uintElement(ID.TrackNumber, TRACK_NUMBER),
    uintElement(ID.TrackUID, TRACK_NUMBER),
    uintElement(ID.TrackType, 1), // video
    uintElement(ID.FlagLacing, 0),
    uintElement(ID.MaxBlockAdditionID, ALPHA_BLOCK_ADD_ID),
    stringElement(ID.CodecID, 'V_VP9'),
    uintElement(ID.DefaultDuration, frameNanoseconds(video)),
    element(ID.Video, [uintElement(ID.PixelWidth, video.width), uintElement(ID.PixelHeight, video.height), uintElement(ID.AlphaMode, 1)]),
  ]);
  const tracks = element(ID.Tracks, track);
  const seekHeadBytes = seekHead([0, 0, 0]).length;
  const seeks = seekHead([seekHeadBytes, seekHeadBytes + info.length, facts.cuesPosition]);
  return Buffer.concat([EBML_HEADER, idBytes(ID.Segment), eightByteSize(facts.segmentSize), seeks, info, tracks]);
}

const EBML_HEADER = element(ID.EBML, [
  uintElement(ID.EBMLVersion, 1),
  uintElement(ID.EBMLReadVersion, 1),
  uintElement(ID.EBMLMaxIDLength, 4),
  uintElement(ID.EBMLMaxSizeLength, 8),
  stringElement(ID.DocType, 'webm'),
  uintElement(ID.DocTypeVersion, 4),
  uintElement(ID.DocTypeReadVersion, 2),
]);
/** where the Segment's data starts: after the EBML header, the Segment's ID and its 8-byte size */
const SEGMENT_DATA_START = EBML_HEADER.length + idBytes(ID.Segment).length + 8;

/** where Info, Tracks and Cues start in the Segment's data; 8-byte positions, so its length never changes */
function seekHead([infoAt, tracksAt, cuesAt]: number[]): Buffer {
  const seek = (id: number, position: number) => element(ID.Seek, [element(ID.SeekID, idBytes(id)), eightByteUintElement(ID.SeekPosition, position)]);
  return element(ID.SeekHead, [seek(ID.Info, infoAt), seek(ID.Tracks, tracksAt), seek(ID.Cues, cuesAt)]);
}

function frameNanoseconds(video: IvfHeader): number {
  return Math.round((1e9 * video.timebaseNumerator) / video.timebaseDenominator);
}

function cues(points: readonly { timeMs: number; position: number }[]): Buffer {
  return element(
    ID.Cues,
    points.map(({ timeMs, position }) =>
      element(ID.CuePoint, [uintElement(ID.CueTime, timeMs), element(ID.CueTrackPositions, [uintElement(ID.CueTrack, TRACK_NUMBER), uintElement(ID.CueClusterPosition, position)])]),
    ),
  );
}

/** One frame as a BlockGroup: the colour frame in the Block, the alpha frame in BlockAdditions. */
export function alphaBlockGroup(color: Buffer, alpha: Buffer, relativeMs: number, referenceMs: number | undefined): Buffer {
  const blockHeader = Buffer.alloc(4);
  blockHeader[0] = 0x80 | TRACK_NUMBER;
  blockHeader.writeInt16BE(relativeMs, 1);
  blockHeader[3] = 0; // no lacing; key-ness of a BlockGroup is the absence of ReferenceBlock
  return element(ID.BlockGroup, [
    element(ID.Block, [blockHeader, color]),
    element(ID.BlockAdditions, element(ID.BlockMore, [uintElement(ID.BlockAddID, ALPHA_BLOCK_ADD_ID), element(ID.BlockAdditional, alpha)])),
    ...(referenceMs === undefined ? [] : [intElement(ID.ReferenceBlock, referenceMs)]),
  ]);
}

function cluster(timecodeMs: number, blocks: Buffer[]): Buffer {
  return element(ID.Cluster, [uintElement(ID.Timecode, timecodeMs), ...blocks]);
}

export interface AlphaMuxResult {
  frames: number;
  keyFrames: number;
}

/**
 * Joins `colorPath` and `alphaPath` (IVF, VP9, frame for frame the same sequence) into a WebM at
 * `outputPath`. A frame is marked as a key frame only where both streams have one, so a reader
 * that seeks there can decode colour and alpha alike.
 */
export async function muxWebmWithAlpha(colorPath: string, alphaPath: string, outputPath: string, app = 'backdrop'): Promise<AlphaMuxResult> {
  const color = await IvfReader.open(colorPath);
  const alpha = await IvfReader.open(alphaPath).catch(async (error) => {
    await color.close();
    throw error;
  });
  const output = await open(outputPath, 'w');
  try {
    checkCompatible(color.header, alpha.header);
    const head = webmHead(color.header, app);
    let written = 0;
    const write = async (bytes: Buffer) => {
      await output.write(bytes);
      written += bytes.length;
    };
    await write(head);
    const toMs = (pts: number) => Math.round((1000 * pts * color.header.timebaseNumerator) / color.header.timebaseDenominator);

    let frames = 0;
    let keyFrames = 0;
    let blocks: Buffer[] = [];
    let clusterStartMs = 0;
    let clusterOpensOnKey = false;
    let previousMs: number | undefined;
    /** a cue per cluster that opens on a key frame, and one for the first (a stream always decodes from its start) */
    const cuePoints: { timeMs: number; position: number }[] = [];
    const writeCluster = async () => {
      if (clusterOpensOnKey || cuePoints.length === 0) cuePoints.push({ timeMs: clusterStartMs, position: written - SEGMENT_DATA_START });
      await write(cluster(clusterStartMs, blocks));
    };
    for (;;) {
      const [colorFrame, alphaFrame] = await Promise.all([color.next(), alpha.next()]);
      if (!colorFrame || !alphaFrame) {
        if (colorFrame || alphaFrame) throw new IvfFormatError(`colour and alpha streams differ in length (frame ${frames})`);
        break;
      }
      const timeMs = toMs(colorFrame.pts);
      const key = isKeyPair(colorFrame, alphaFrame);
      const startCluster = blocks.length === 0 || key || timeMs - clusterStartMs > MAX_CLUSTER_SPAN_MS;
      if (startCluster) {
        if (blocks.length) await writeCluster();
        blocks = [];
        clusterStartMs = timeMs;
        clusterOpensOnKey = key;
      }
      const reference = key || previousMs === undefined ? undefined : previousMs - timeMs;
      blocks.push(alphaBlockGroup(colorFrame.data, alphaFrame.data, timeMs - clusterStartMs, reference));
      previousMs = timeMs;
      frames++;
      if (key) keyFrames++;
    }
    if (previousMs === undefined) throw new IvfFormatError('the streams hold no frames');
    await writeCluster();
    const cuesPosition = written - SEGMENT_DATA_START;
    await write(cues(cuePoints));
    const durationMs = previousMs + frameNanoseconds(color.header) / TIMECODE_SCALE_NS;
    const finished = webmHead(color.header, app, { segmentSize: written - SEGMENT_DATA_START, durationMs, cuesPosition });
    if (finished.length !== head.length) throw new Error('the WebM head changed length once finished');
    await output.write(finished, 0, finished.length, 0);
    return { frames, keyFrames };
  } finally {
    await Promise.allSettled([color.close(), alpha.close(), output.close()]);
  }
}

function checkCompatible(color: IvfHeader, alpha: IvfHeader): void {
  if (color.fourcc !== 'VP90' || alpha.fourcc !== 'VP90') throw new IvfFormatError(`expected VP9 streams, got ${color.fourcc} and ${alpha.fourcc}`);
  if (color.width !== alpha.width || color.height !== alpha.height) {
    throw new IvfFormatError(`colour ${color.width}x${color.height} and alpha ${alpha.width}x${alpha.height} differ in size`);
  }
}

function isKeyPair(color: IvfFrame, alpha: IvfFrame): boolean {
  return isVp9KeyFrame(color.data) && isVp9KeyFrame(alpha.data);
}
