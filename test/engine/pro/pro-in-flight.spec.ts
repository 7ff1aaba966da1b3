/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 */
import { join, resolve } from 'path';
import { writePromptComposite } from '../../../bench/matting/prompt-composites';
import { loadModel } from '../../../src/engine/models';
import { ProSession } from '../../../src/engine/models/pro/pro-model';
import { SurveyedProSession } from '../../../src/engine/models/pro/surveyed-session';
import { Matte } from '../../../src/engine/types';
import { decodeRgbFrames, MEDIA_DIR } from '../models/support/clips';

const CACHE_DIR = resolve(process.cwd(), '.cache/models');
const CLIPS_DIR = resolve(process.cwd(), '.cache/prompt-composites');
const CLIP = { width: 640, height: 360, fps: 25 };
const MINUTES = 60_000;

/**
 * `pro`'s mattes of `frames`, handed over one by one or all at once (RVM then takes the next frames
 * while a person is tracked, people-matter.ts); a prompt with attributes is surveyed first, frame by frame.
 */
async function mattes(video: string, count: number, textPrompt: string | undefined, allAtOnce: boolean): Promise<{ mattes: Matte[]; framesInFlight?: number; peopleFrames: number }> {
  const session = (await (await loadModel('pro', { cacheDir: CACHE_DIR })).createSession({ ...CLIP, textPrompt })) as ProSession | SurveyedProSession;
  const frames = decodeRgbFrames(video, session.inputWidth, session.inputHeight, count);
  const frameAt = (index: number) => ({ index, width: session.inputWidth, height: session.inputHeight, data: Buffer.from(frames[index]) });
  if (session instanceof SurveyedProSession) {
    for (let i = 0; i < frames.length; i++) await session.surveyFrame(frameAt(i));
    session.finishSurvey();
  }
  const out: Matte[] = [];
  if (allAtOnce) out.push(...(await Promise.all(frames.map((_, index) => session.segment(frameAt(index))))));
  else for (let index = 0; index < frames.length; index++) out.push(await session.segment(frameAt(index)));
  const output = session instanceof SurveyedProSession ? session.output : session;
  await session.close();
  return { mattes: out, framesInFlight: session.framesInFlight, peopleFrames: output.peopleFrames };
}

function expectSameMattes(mattes: Matte[], reference: Matte[], count: number): void {
  expect(mattes).toHaveLength(count);
  for (const [i, matte] of mattes.entries()) expect(Buffer.from(matte.data).equals(Buffer.from(reference[i].data))).toBe(true);
}

describe('pro with several frames in flight', () => {
  it('portrait-pan without a prompt: the mattes it gives frame by frame, RVM on every frame (the first ones at their turn, then ahead)', async () => {
    const video = join(MEDIA_DIR, 'portrait-pan.mp4');
    const [oneByOne, atOnce] = [await mattes(video, 10, undefined, false), await mattes(video, 10, undefined, true)];
    expect(atOnce.framesInFlight).toBe(4);
    expect([oneByOne.peopleFrames, atOnce.peopleFrames]).toEqual([10, 10]);
    expectSameMattes(atOnce.mattes, oneByOne.mattes, 10);
  }, 3 * MINUTES);

  it('"person wearing red jacket" (surveyed first): the output pass in flight gives the mattes it gives frame by frame', async () => {
    const { video } = writePromptComposite('red-blue', CLIPS_DIR);
    const [oneByOne, atOnce] = [await mattes(video, 8, 'person wearing red jacket', false), await mattes(video, 8, 'person wearing red jacket', true)];
    expect(atOnce.framesInFlight).toBe(4);
    expect(atOnce.peopleFrames).toBe(oneByOne.peopleFrames);
    expectSameMattes(atOnce.mattes, oneByOne.mattes, 8);
  }, 3 * MINUTES);

  it('without people asked for ("car"): one frame at a time, as before', async () => {
    const session = await (await loadModel('pro', { cacheDir: CACHE_DIR })).createSession({ ...CLIP, textPrompt: 'car' });
    expect(session.framesInFlight).toBe(1);
    await session.close();
  });
});
