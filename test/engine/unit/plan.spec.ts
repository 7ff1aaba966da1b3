import { ProbedVideo } from '../../../src/engine/media/probe';
import { planJob } from '../../../src/engine/pipeline/plan';
import { EngineRequest } from '../../../src/engine/types';

const video: ProbedVideo = {
  durationSeconds: 700,
  fps: 25,
  width: 640,
  height: 360,
  rotation: 0,
  frameCount: 17500,
  hasAudio: true,
  hasAlpha: false,
  videoCodec: 'h264',
  formatName: 'mov,mp4',
  videoStream: 0,
  pin: { demuxer: 'mov', maxPixels: 18874368 },
};
const request: EngineRequest = { inputPath: '/in.mp4', outputPath: '/out.webm', model: 'light', outputFormat: 'webm', background: { type: 'transparent' } };

describe('planJob', () => {
  it('refuses input longer than the limit (600 s by default)', () => {
    expect(() => planJob(request, video)).toThrow(expect.objectContaining({ code: 'input_too_long' }));
    expect(() => planJob({ ...request, maxDurationSeconds: 800 }, video)).not.toThrow();
  });

  it('takes a video exactly as long as the limit, and refuses one a hundredth of a second longer', () => {
    expect(() => planJob({ ...request, maxDurationSeconds: video.durationSeconds }, video)).not.toThrow();
    expect(() => planJob({ ...request, maxDurationSeconds: video.durationSeconds }, { ...video, durationSeconds: video.durationSeconds + 0.01 })).toThrow(expect.objectContaining({ code: 'input_too_long' }));
  });

  it('accepts a preview of a long input: only the preview is processed', () => {
    const plan = planJob({ ...request, previewDuration: 2 }, video);
    expect(plan.processedSeconds).toBe(2);
    expect(plan.source.durationLimit).toBe(2);
    expect(plan.framesExpected).toBe(50);
  });

  it('reads the whole input when the preview is longer than it', () => {
    const plan = planJob({ ...request, previewDuration: 30 }, { ...video, durationSeconds: 4 });
    expect(plan.source.durationLimit).toBeUndefined();
    expect(plan.processedSeconds).toBe(4);
  });

  it("ends the sound where the picture ends: the packets' span where measured (a header within its tolerance of it cut the sound before the last picture), a preview's end within it", () => {
    const short = { ...video, durationSeconds: 99.2, packetSpanSeconds: 100 };
    expect(planJob(request, short).source.pictureSeconds).toBe(100);
    expect(planJob(request, { ...short, packetSpanSeconds: undefined }).source.pictureSeconds).toBe(99.2);
    expect(planJob({ ...request, previewDuration: 2 }, short).source.pictureSeconds).toBe(2);
  });

  it('keeps audio only in formats that carry it', () => {
    const short = { ...video, durationSeconds: 4 };
    expect(planJob(request, short).keepAudio).toBe(true);
    expect(planJob({ ...request, outputFormat: 'gif' }, short).keepAudio).toBe(false);
    expect(planJob(request, { ...short, hasAudio: false }).keepAudio).toBe(false);
  });

  it('composites a transparent mp4 over black, and says so', () => {
    const plan = planJob({ ...request, outputFormat: 'mp4' }, { ...video, durationSeconds: 4 });
    expect(plan.background).toEqual({ type: 'color', rgb: [0, 0, 0] });
    expect(plan.notes).toEqual(['mp4 has no alpha channel: composited over black']);
    expect(plan.layout.canvas).toEqual({ width: 640, height: 360 });
  });

  it('refuses a non-positive preview', () => {
    expect(() => planJob({ ...request, previewDuration: 0 }, video)).toThrow(expect.objectContaining({ code: 'input_invalid' }));
  });

  it('carries the gate\'s pins: the source\'s, and an image background\'s', () => {
    const withImage: EngineRequest = { ...request, maxDurationSeconds: 800, background: { type: 'image', imagePath: '/bg' } };
    const plan = planJob(withImage, video, { pin: { demuxer: 'png_pipe', maxPixels: 80000000 } });
    expect(plan.source.pin).toEqual({ demuxer: 'mov', maxPixels: 18874368 });
    expect(plan.background).toEqual({ type: 'image', imagePath: '/bg', pin: { demuxer: 'png_pipe', maxPixels: 80000000 } });
    expect(() => planJob(withImage, video)).toThrow(/input gate/);
  });

  it('says non-square pixels are written at the display size', () => {
    const plan = planJob({ ...request, previewDuration: 5 }, { ...video, anamorphic: true });
    expect(plan.source.anamorphic).toBe(true);
    expect(plan.notes).toEqual(["input's pixels are not square: written at its display size, 640x360"]);
  });

  it('carries interlacing to the source, and says it is deinterlaced', () => {
    const plan = planJob({ ...request, previewDuration: 5 }, { ...video, interlaced: true });
    expect(plan.source.interlaced).toBe(true);
    expect(plan.notes).toEqual(['input is interlaced: deinterlaced, a frame for each frame']);
  });

  it("carries the input's own alpha to the source, and says it is kept", () => {
    const plan = planJob({ ...request, previewDuration: 5 }, { ...video, hasAlpha: true });
    expect(plan.source.hasAlpha).toBe(true);
    expect(plan.notes).toEqual(['input has an alpha channel of its own: what it leaves transparent stays transparent']);
    const overColour = planJob({ ...request, previewDuration: 5, background: { type: 'color', rgb: [0, 128, 0] } }, { ...video, hasAlpha: true });
    expect(overColour.notes).toEqual(['input has an alpha channel of its own: the background shows where it is transparent']);
    const hdr = planJob({ ...request, previewDuration: 5 }, { ...video, hasAlpha: true, hdr: { transfer: 'smpte2084', primaries: 'bt2020', matrix: 'bt2020nc' } });
    expect(hdr.source.hasAlpha).toBe(false); // tone-mapped in a format without alpha: not claimed
    expect(hdr.notes.some((note) => note.includes('alpha'))).toBe(false);
  });

  it('carries an HDR signal to the source, and says it is tone-mapped', () => {
    const hdr = { transfer: 'smpte2084', primaries: 'bt2020', matrix: 'bt2020nc' } as const;
    const plan = planJob({ ...request, previewDuration: 5 }, { ...video, hdr });
    expect(plan.source.hdr).toEqual(hdr);
    expect(plan.notes).toEqual(['input is HDR (PQ): tone-mapped to SDR (BT.709)']);
    expect(planJob({ ...request, previewDuration: 5 }, video).source.hdr).toBeUndefined();
  });
});
