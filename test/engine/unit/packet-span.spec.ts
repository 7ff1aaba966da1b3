import { buildPacketTimesArgs, PacketSpanReader } from '../../../src/engine/media/packet-span';
import { FfprobeOutput, parseProbeOutput, withPacketSpan } from '../../../src/engine/media/probe';

const spanOf = (...chunks: string[]) => {
  const reader = new PacketSpanReader();
  for (const chunk of chunks) reader.add(chunk);
  return reader.finish();
};

describe('PacketSpanReader', () => {
  it('spans the first timestamp to the end of the last packet, lines split across chunks', () => {
    expect(spanOf('0.000000,0.040000\n0.04', '0000,0.040000\n0.080000,0.040000\n')).toEqual({ seconds: 0.12, packets: 3 });
  });

  it('takes packets in decode order (B-frames), a stream not starting at 0, and a last line without a newline', () => {
    expect(spanOf('1.000000,0.040000\n1.120000,0.040000\n1.040000,0.040000\n1.080000,0.040000')).toEqual({ seconds: expect.closeTo(0.16, 9), packets: 4 });
  });

  it('gives a last packet without a duration the average interval; packets without a timestamp count only', () => {
    expect(spanOf('0.000000,N/A\nN/A,N/A\n0.100000,N/A\n0.200000,N/A\n')).toEqual({ seconds: expect.closeTo(0.2 + 0.2 / 3, 9), packets: 4 });
  });

  it('has no span with fewer than two timestamps', () => {
    expect(spanOf('')).toBeUndefined();
    expect(spanOf('0.5,0.04\n')).toBeUndefined();
    expect(spanOf('N/A,N/A\nN/A,N/A\n')).toBeUndefined();
  });

  it('reads the chosen video stream, pinned', () => {
    expect(buildPacketTimesArgs('/in/a.webm', { demuxer: 'matroska' }, 1)).toEqual([
      '-v', 'error', '-protocol_whitelist', 'file,pipe', '-format_whitelist', 'matroska', '-f', 'matroska',
      '-select_streams', '1', '-show_entries', 'packet=pts_time,duration_time', '-of', 'csv=p=0', '-i', '/in/a.webm',
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

  it("keeps the stream's own average rate", () => {
    expect(parseProbeOutput(withPacketSpan(live('25/1'), { seconds: 4, packets: 90 })).fps).toBe(25);
  });
});
