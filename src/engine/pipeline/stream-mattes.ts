/**
 * The streaming core: decoder ffmpeg -> RGB frames -> segmentation session -> mattes -> encoder
 * ffmpeg (pipe:3). The three stages run concurrently (two child processes and the session), each
 * bounded by a few frames: the FrameReader pauses the decoder's pipe, the PipeWriter waits for the
 * encoder to drain. Nothing here depends on the output format: the caller starts the encoder.
 */
import { EngineError, Matte, SegmentationSession } from '../types';
import { ffmpegPath } from '../media/binaries';
import { MediaProcess, MediaProcessError } from '../media/process';
import { buildDecodeArgs, FOREGROUND_PIPE_FD, MATTE_PIPE_FD, SourceSpec } from './ffmpeg-args';
import { FrameReader } from './frame-reader';
import { Size } from './geometry';
import { matteBytes } from './matte';
import { PipeWriter } from './pipe-writer';
import { FramesInFlight } from './frames-in-flight';
import { throwIfAborted } from './abort';
import { estimateForeground } from '../models/image/foreground-colour';
import { resizeRgb } from '../models/image/resample';

export interface StreamMattesJob {
  source: SourceSpec;
  session: SegmentationSession;
  /** starts the encoder once the matte size is known (from the first matte) */
  startEncoder: (matte: Size) => MediaProcess;
  onFrame?: (framesDone: number) => void;
  signal?: AbortSignal;
  /**
   * the encoder also reads each matte's foreground colour (RGB24, at the matte's size) on
   * FOREGROUND_PIPE_FD: the session's own prediction where it makes one (`predictsForeground`),
   * otherwise estimated from the frame and its matte (models/image/foreground-colour.ts)
   */
  withForeground?: boolean;
}

export interface StreamMattesResult {
  frames: number;
  matte: Size;
}

/** decoded frames held in Node at most (the pipe buffers hold a little more) */
const DECODE_AHEAD_FRAMES = 3;
/**
 * Mattes (with their foreground colour, when it is piped) that may wait in Node for the encoder:
 * at least a few, and as many as fit in 1 MB (18 of `light`'s at 320x180). The encoder starts
 * later than the model (about 0.2 s for VP9) and takes longer on some frames (key frames); with
 * room to run ahead, the model works on meanwhile instead of waiting for it. More room did not
 * measure better: the backlog built up is what the encoder finishes alone at the end.
 */
const ENCODE_BEHIND_MATTES = 3;
export const ENCODE_BEHIND_BYTES = 2 ** 20;

/** how many mattes of this size may wait for the encoder */
export function mattesBehindEncoder(matte: Size, withForeground: boolean): number {
  const bytesPerMatte = matte.width * matte.height * (withForeground ? 4 : 1);
  return Math.max(ENCODE_BEHIND_MATTES, Math.floor(ENCODE_BEHIND_BYTES / bytesPerMatte));
}

export async function streamMattes(job: StreamMattesJob): Promise<StreamMattesResult> {
  const { session, signal } = job;
  const input = { width: session.inputWidth, height: session.inputHeight };
  const decoder = new MediaProcess(ffmpegPath(), buildDecodeArgs(job.source, input), { readStdout: true, signal });
  const reader = new FrameReader(decoder.stdout, input.width * input.height * 3, DECODE_AHEAD_FRAMES);
  let output: MatteOutput | undefined;
  let frames = 0;
  const openOutput = (size: Size): MatteOutput => {
    const matteSize = { width: size.width, height: size.height };
    const encoder = job.startEncoder(matteSize);
    const pixels = matteSize.width * matteSize.height;
    const mattesBehind = mattesBehindEncoder(matteSize, job.withForeground === true);
    const foreground = job.withForeground ? new PipeWriter(encoder.inputPipe(FOREGROUND_PIPE_FD), mattesBehind * 3 * pixels) : undefined;
    return { encoder, matteSize, writer: new PipeWriter(encoder.inputPipe(MATTE_PIPE_FD), mattesBehind * pixels), foreground };
  };

  try {
    if (session.matteSize) output = openOutput(session.matteSize);
    const inFlight = FramesInFlight.mattes(session);
    const estimatesForeground = job.withForeground === true && !session.predictsForeground;
    /** the frames whose mattes are still to come, oldest first, when the foreground colour is estimated from them */
    const handed: Buffer[] = [];
    const read = async () => {
      throwIfAborted(signal);
      const frame = await nextFrame(reader, decoder);
      if (frame && estimatesForeground) handed.push(frame);
      return frame;
    };
    for (;;) {
      const matte = await inFlight.next(read);
      if (!matte) break;
      throwIfAborted(signal);
      output ??= openOutput(matte);
      const frame = handed.shift();
      const colour = output.foreground && foregroundBytes(matte, output.matteSize, frame && { ...input, data: frame });
      await Promise.all([
        writeOrExplain(output.writer, matteBytes(matte, output.matteSize), output.encoder),
        output.foreground && writeOrExplain(output.foreground, colour, output.encoder),
      ]);
      frames += 1;
      job.onFrame?.(frames);
    }
    await decoderFinished(decoder);
    if (!output || frames === 0) throw new EngineError('input_invalid', 'the video has no decodable frames');
    await Promise.all([writeOrExplain(output.writer, undefined, output.encoder), output.foreground && writeOrExplain(output.foreground, undefined, output.encoder)]);
    await encoderFinished(output.encoder);
    return { frames, matte: output.matteSize };
  } catch (error) {
    decoder.kill();
    output?.encoder.kill();
    throw signal?.aborted ? new EngineError('canceled', 'processing was canceled') : error;
  }
}

interface MatteOutput {
  encoder: MediaProcess;
  writer: PipeWriter;
  matteSize: Size;
  foreground?: PipeWriter;
}

/**
 * The matte's foreground colour for its pipe: the session's own (a copy: the session may reuse its
 * buffers), or, given the frame it was made from, estimated from that frame and the matte.
 */
function foregroundBytes(matte: Matte, pipeSize: Size, frame?: Size & { data: Buffer }): Buffer {
  if (matte.width !== pipeSize.width || matte.height !== pipeSize.height) throw new EngineError('output_failed', 'a matte changed size mid-video');
  if (frame) {
    const { width, height } = matte;
    const rgb = frame.width === width && frame.height === height ? frame.data : resizeRgb(frame.data, frame.width, frame.height, width, height);
    const estimate = estimateForeground(rgb, matte.data, width, height); // the frame's own bytes or a fresh array: no copy needed
    return Buffer.from(estimate.buffer, estimate.byteOffset, estimate.byteLength);
  }
  if (!matte.foreground || matte.foreground.length !== pipeSize.width * pipeSize.height * 3) {
    throw new EngineError('output_failed', 'the session promised a foreground colour with every matte and did not give one');
  }
  return Buffer.from(matte.foreground);
}

async function nextFrame(reader: FrameReader, decoder: MediaProcess): Promise<Buffer | undefined> {
  try {
    return await reader.next();
  } catch {
    await decoderFinished(decoder); // a decoder that died mid-frame explains itself
    throw new EngineError('input_invalid', 'the decoder stopped inside a frame');
  }
}

async function decoderFinished(decoder: MediaProcess): Promise<void> {
  try {
    await decoder.exited;
  } catch (error) {
    throw decodingFailure(error as Error);
  }
}

/**
 * A decoder's failure as the job's: the input's fault where it read something it could not decode;
 * not where it was stopped from outside (MediaProcessError.interrupted: an OOM kill, the spawner
 * gone), which failed a good video as input_invalid, a final refusal never tried again.
 */
export function decodingFailure(error: Error): EngineError {
  if (error instanceof MediaProcessError && error.interrupted) return new EngineError('output_failed', `the decoder was stopped, not by the video: ${error.message}`);
  return new EngineError('input_invalid', `decoding failed: ${error.message}`);
}

async function encoderFinished(encoder: MediaProcess): Promise<void> {
  try {
    await encoder.exited;
  } catch (error) {
    throw new EngineError('output_failed', `encoding failed: ${(error as Error).message}`);
  }
}

/** Writes a matte (or ends the pipe); when the encoder has died, reports why it did. */
async function writeOrExplain(writer: PipeWriter, bytes: Buffer | undefined, encoder: MediaProcess): Promise<void> {
  try {
    if (bytes) await writer.write(bytes);
    else await writer.end();
  } catch (pipeError) {
    await encoderFinished(encoder);
    throw new EngineError('output_failed', `the encoder stopped reading mattes: ${(pipeError as Error).message}`);
  }
}
