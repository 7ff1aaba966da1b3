/**
 * The duration of a video measured from its packets' timestamps, which are what the decoder's
 * frames follow. A browser's MediaRecorder writes WebM as a live stream, with no duration and no
 * index (Chrome, Firefox), and so does ffmpeg's `-live 1`: ffprobe reports "N/A", and such uploads,
 * the usual way a web page records a webcam, would be refused. And a stated duration is only a
 * header's word: one edited to say 5 s over 20 minutes of pictures was billed and limited as 5 s,
 * while one cut short still said its whole length (probe.ts weighs the two). Demuxing alone reads
 * every packet's timestamp without decoding anything. Lines are folded into a running span as they
 * arrive, so a file of many small packets costs no memory.
 */
import { ffprobePath } from './binaries';
import { InputPin, pinArgs, PROBE_ARGS } from './input-pin';
import { MediaProcess } from './process';

export interface PacketSpan {
  /** from the first packet's timestamp to the end of the last */
  seconds: number;
  packets: number;
  /**
   * some packets state no presentation time (AVI with B-frames): the decoder guesses its frames',
   * and the first may be shown after the stream's start
   */
  guessedTimes: boolean;
  /**
   * the interval most packets follow their predecessor at (seconds, decode order), averaged over
   * those within INTERVAL_CLUSTER of it; undefined where none is common (frameInterval)
   */
  frameInterval?: number;
}

/** intervals are counted in steps of 10 µs */
const INTERVAL_STEPS_PER_SECOND = 100_000;
/** distinct intervals counted at most: a file of irregular timestamps costs no more memory */
const INTERVALS_COUNTED = 256;
/** intervals this close to the commonest (a share of it, or 1.5 ms: a 1 kHz timebase's rounding) count with it */
const INTERVAL_CLUSTER = { share: 0.05, seconds: 0.0015 };

/** ffprobe, pinned: the packets of stream `stream` (its index in the file) as "pts_time,dts_time,duration_time,flags" lines */
export function buildPacketTimesArgs(path: string, pin: InputPin, stream: number): string[] {
  return ['-v', 'error', ...PROBE_ARGS, ...pinArgs(pin), '-select_streams', String(stream), '-show_entries', 'packet=pts_time,dts_time,duration_time,flags', '-of', 'csv=p=0', '-i', path];
}

/**
 * Folds ffprobe's packet lines, in chunks as they come, into their span. A packet's time is its
 * presentation timestamp, else its decode one (AVI states none of the first). Packets without
 * either count but do not move the span; packets an edit list discards (flag D: the frames before
 * a cut start, there only to decode the first kept one) are not shown and do not count.
 */
export class PacketSpanReader {
  private first = Infinity;
  private last = -Infinity;
  private lastDuration = 0;
  private packets = 0;
  private withoutPresentationTime = 0;
  private pending = '';
  private previousDecodeTime: number | undefined;
  /** how many packets followed their predecessor at each interval, in INTERVAL_STEPS_PER_SECOND */
  private readonly intervals = new Map<number, number>();

  add(chunk: string): void {
    const lines = (this.pending + chunk).split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) this.addLine(line);
  }

  /** the span, or undefined when fewer than two packets had timestamps */
  finish(): PacketSpan | undefined {
    if (this.pending) this.addLine(this.pending);
    this.pending = '';
    if (!(this.last > this.first)) return undefined;
    // a last packet without a duration lasts as long as the average one before it
    const end = this.last + (this.lastDuration || (this.last - this.first) / Math.max(1, this.packets - 1));
    const frameInterval = this.commonInterval();
    return { seconds: end - this.first, packets: this.packets, guessedTimes: this.withoutPresentationTime > 0, ...(frameInterval ? { frameInterval } : {}) };
  }

  /** the commonest interval between packets, averaged with those near it; undefined where it is not a tenth of them */
  private commonInterval(): number | undefined {
    let [commonest, most, total] = [0, 0, 0];
    for (const [step, count] of this.intervals) {
      total += count;
      if (count > most) [commonest, most] = [step, count];
    }
    if (most === 0) return undefined;
    const reach = Math.max(commonest * INTERVAL_CLUSTER.share, INTERVAL_CLUSTER.seconds * INTERVAL_STEPS_PER_SECOND);
    let [sum, near] = [0, 0];
    for (const [step, count] of this.intervals) {
      if (Math.abs(step - commonest) > reach) continue;
      sum += step * count;
      near += count;
    }
    return near * 10 >= total ? sum / near / INTERVAL_STEPS_PER_SECOND : undefined;
  }

  private countInterval(decodeTime: number): void {
    const previous = this.previousDecodeTime;
    this.previousDecodeTime = decodeTime;
    if (previous === undefined || !(decodeTime > previous)) return;
    const step = Math.round((decodeTime - previous) * INTERVAL_STEPS_PER_SECOND);
    const counted = this.intervals.get(step);
    if (counted !== undefined) this.intervals.set(step, counted + 1);
    else if (this.intervals.size < INTERVALS_COUNTED) this.intervals.set(step, 1);
  }

  private addLine(line: string): void {
    const [ptsText, dtsText, durationText, flags = ''] = line.trim().split(',');
    if (!ptsText || flags.includes('D')) return;
    this.packets++;
    if (timeOf(ptsText) === undefined) this.withoutPresentationTime++;
    const pts = timeOf(ptsText) ?? timeOf(dtsText);
    // decode times rise by one frame's interval a packet, B-frames or not; presentation times do not
    const decodeTime = timeOf(dtsText) ?? pts;
    if (decodeTime !== undefined) this.countInterval(decodeTime);
    if (pts === undefined) return;
    this.first = Math.min(this.first, pts);
    if (pts >= this.last) {
      this.last = pts;
      const duration = Number(durationText);
      this.lastDuration = Number.isFinite(duration) && duration > 0 ? duration : 0;
    }
  }
}

/** ffprobe's seconds; undefined for "N/A" and anything else that is not a number */
function timeOf(text: string | undefined): number | undefined {
  const seconds = Number(text);
  return text && text !== 'N/A' && Number.isFinite(seconds) ? seconds : undefined;
}

/** The span of the packets of the video stream at index `stream`, demuxed pinned. */
export async function measurePacketSpan(path: string, pin: InputPin, stream: number, signal?: AbortSignal): Promise<PacketSpan | undefined> {
  const ffprobe = new MediaProcess(ffprobePath(), buildPacketTimesArgs(path, pin, stream), { readStdout: true, signal });
  const reader = new PacketSpanReader();
  ffprobe.stdout.on('data', (chunk: Buffer) => reader.add(chunk.toString('latin1')));
  await ffprobe.exited;
  return reader.finish();
}
