import { buildPacketTimesArgs, PacketSpanReader } from '../../../src/engine/media/packet-span';
import { FfprobeOutput, parseProbeOutput, withPacketSpan } from '../../../src/engine/media/probe';

const spanOf = (...chunks: string[]) => {
  const reader = new PacketSpanReader();
  for (const chunk of chunks) reader.add(chunk);
  return reader.finish();
};

describe('PacketSpanReader', () => {
  it('spans the first timestamp to the end of the last packet, lines split across chunks', () => {
    expect(spanOf('0.000000,0.000000,0.040000,K_\n0.04', '0000,0.040000,0.040000,__\n0.080000,0.080000,0.040000,__\n')).toEqual({ seconds: 0.12, packets: 3, guessedTimes: false, frameInterval: 0.04 });
  });

  it('takes packets in decode order (B-frames), a stream not starting at 0, and a last line without a newline', () => {
    expect(spanOf('1.000000,0.960000,0.040000,K_\n1.120000,1.000000,0.040000,__\n1.040000,1.040000,0.040000,__\n1.080000,1.080000,0.040000,__')).toEqual({ seconds: expect.closeTo(0.16, 9), packets: 4, guessedTimes: false, frameInterval: 0.04 });
  });

  it('gives a last packet without a duration the average interval; packets without a timestamp count only', () => {
    expect(spanOf('0.000000,N/A,N/A,K_\nN/A,N/A,N/A,__\n0.100000,N/A,N/A,__\n0.200000,N/A,N/A,__\n')).toEqual({ seconds: expect.closeTo(0.2 + 0.2 / 3, 9), packets: 4, guessedTimes: true, frameInterval: 0.1 });
  });

  it('takes the decode timestamp where a packet has no presentation one (AVI), and says the frames\' times are then guessed', () => {
    expect(spanOf('N/A,0.000000,0.100000,K__\nN/A,0.100000,0.100000,___\nN/A,0.200000,0.100000,___\n')).toEqual({ seconds: expect.closeTo(0.3, 9), packets: 3, guessedTimes: true, frameInterval: 0.1 });
  });

  it("leaves out the packets an edit list discards (the frames before a cut's start)", () => {
    expect(spanOf('-1.320000,-1.400000,0.040000,KD_\n-1.280000,-1.360000,0.040000,_D_\n0.000000,-0.080000,0.040000,___\n0.040000,-0.040000,0.040000,___\n')).toEqual({ seconds: expect.closeTo(0.08, 9), packets: 2, guessedTimes: false, frameInterval: 0.04 });
  });

  /** packet lines at decode times `times` (seconds), each its own presentation time */
  const packetsAt = (times: number[]) => times.map((time) => `${time.toFixed(6)},${time.toFixed(6)},N/A,__\n`).join('');

  it('finds the interval most frames follow each other at, however long a pause between them', () => {
    // 30 fps in a 30 kHz timebase: 31 frames, the last held for 3 s, 30 more
    const held = [...Array.from({ length: 31 }, (_, n) => (n * 1001) / 30000), ...Array.from({ length: 30 }, (_, n) => 4 + (n * 1001) / 30000)];
    expect(spanOf(packetsAt(held))?.frameInterval).toBeCloseTo(1001 / 30000, 4); // counted in steps of 10 µs
    // a browser's WebM: 30 fps rounded to its 1 ms timebase (33, 33, 34 ms)
    const rounded = Array.from({ length: 90 }, (_, n) => Math.round((n * 1000) / 30) / 1000);
    expect(spanOf(packetsAt(rounded))?.frameInterval).toBeCloseTo(1 / 30, 4);
  });

  it('finds no frame interval where no interval is common (timestamps all over the place)', () => {
    const irregular = Array.from({ length: 40 }, (_, n) => (n * (n + 1)) / 100); // each interval 20 ms longer than the last
    expect(spanOf(packetsAt(irregular))?.frameInterval).toBeUndefined();
  });

  it('has no span with fewer than two timestamps', () => {
    expect(spanOf('')).toBeUndefined();
    expect(spanOf('0.5,0.5,0.04,K_\n')).toBeUndefined();
    expect(spanOf('N/A,N/A,N/A,K_\nN/A,N/A,N/A,__\n')).toBeUndefined();
  });

  it('reads the chosen video stream, pinned', () => {
    expect(buildPacketTimesArgs('/in/a.webm', { demuxer: 'matroska' }, 1)).toEqual([
      '-v', 'error', '-max_alloc', '268435456', '-protocol_whitelist', 'file,pipe', '-format_whitelist', 'matroska', '-f', 'matroska',
      '-select_streams', '1', '-show_entries', 'packet=pts_time,dts_time,duration_time,flags', '-of', 'csv=p=0', '-i', '/in/a.webm',
    ]);
  });
});

describe('withPacketSpan', () => {
  const live = (avgFrameRate: string): FfprobeOutput => ({
    streams: [{ codec_type: 'video', codec_name: 'vp8', width: 640, height: 480, avg_frame_rate: avgFrameRate, r_frame_rate: '1000/1' }],
    format: { format_name: 'matroska,webm' },
  });

  it('gives a live WebM its measured duration, and its measured rate where it has no average one', () => {
    const measured = parseProbeOutput(withPacketSpan(live('0/0'), { seconds: 4, packets: 120 }));
    expect([measured.durationSeconds, measured.fps, measured.frameCount]).toEqual([4, 30, 120]);
  });

  it('gives a live WebM that states its duration (remuxed, or its duration written in) its measured rate, not its timebase of 1000', () => {
    const remuxed: FfprobeOutput = { ...live('0/0'), format: { format_name: 'matroska,webm', duration: '3.980000' } };
    expect(parseProbeOutput(withPacketSpan(remuxed, { seconds: 4, packets: 120 }))).toMatchObject({ durationSeconds: 3.98, fps: 30 });
  });

  it("keeps the stream's own average rate", () => {
    expect(parseProbeOutput(withPacketSpan(live('25/1'), { seconds: 4, packets: 90 })).fps).toBe(25);
  });

  const stating = (duration: string, avgFrameRate: string, nbFrames?: string): FfprobeOutput => ({
    streams: [{ codec_type: 'video', codec_name: 'h264', width: 640, height: 360, avg_frame_rate: avgFrameRate, r_frame_rate: '10/1', duration, nb_frames: nbFrames }],
    format: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration },
  });

  it('keeps a stated duration the packets agree with (within half a second, or 1%)', () => {
    expect(parseProbeOutput(withPacketSpan(stating('4.000000', '25/1'), { seconds: 4.4, packets: 110 })).durationSeconds).toBe(4);
    expect(parseProbeOutput(withPacketSpan(stating('600.000000', '25/1'), { seconds: 605.9, packets: 15148 })).durationSeconds).toBe(600);
    expect(parseProbeOutput(withPacketSpan(stating('4.000000', '25/1'), { seconds: 4.6, packets: 115 })).durationSeconds).toBe(4.6);
  });

  it('takes the span over a header that says less than the file holds, and its rate with it (mp4 works the rate out of the stated length)', () => {
    // 20 s of 10 fps pictures whose header was edited to say 5 s: ffmpeg's average rate became 40 fps
    const forged = parseProbeOutput(withPacketSpan(stating('5.000000', '40/1', '200'), { seconds: 20, packets: 200 }));
    expect([forged.durationSeconds, forged.fps, forged.frameCount]).toEqual([20, 10, 200]);
  });

  it('takes the span over a header that says more than the file holds (a file cut short)', () => {
    const cutShort = parseProbeOutput(withPacketSpan(stating('40.000000', '10/1'), { seconds: 3.7, packets: 37 }));
    expect([cutShort.durationSeconds, cutShort.fps, cutShort.frameCount]).toEqual([3.7, 10, 37]);
  });
});
