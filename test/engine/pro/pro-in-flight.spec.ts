/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 */
import { resolve } from 'path';
import { writePromptComposite } from '../../../bench/matting/prompt-composites';
import { loadModel } from '../../../src/engine/models';
import { ProSession, SurveyedFrame } from '../../../src/engine/models/pro/pro-model';
import { SurveyedProSession } from '../../../src/engine/models/pro/surveyed-session';
import { Matte } from '../../../src/engine/types';
import { decodeRgbFrames } from '../models/support/clips';

const CACHE_DIR = resolve(process.cwd(), '.cache/models');
const CLIPS_DIR = resolve(process.cwd(), '.cache/prompt-composites');
const CLIP = { width: 640, height: 360, fps: 25 };
const MINUTES = 60_000;

/** every frame given at once, or each once the one before it is done; the results in order */
async function fed<T>(count: number, allAtOnce: boolean, feed: (index: number) => Promise<T>): Promise<T[]> {
  if (allAtOnce) return Promise.all(Array.from({ length: count }, (_, index) => feed(index)));
  const out: T[] = [];
  for (let index = 0; index < count; index++) out.push(await feed(index));
  return out;
}

/**
 * `pro`'s mattes of `frames`, handed over one by one or all at once (RVM then takes the next frames
 * while a person is tracked, people-matter.ts); a prompt with attributes is surveyed first, its
 * frames handed over the same way, and the tracks the survey kept after each frame are returned.
 */
async function mattes(video: string, count: number, textPrompt: string, allAtOnce: boolean): Promise<{ mattes: Matte[]; framesInFlight?: number; peopleFrames: number; surveyed?: SurveyedFrame[] }> {
  const session = (await (await loadModel('pro', { cacheDir: CACHE_DIR })).createSession({ ...CLIP, textPrompt })) as ProSession | SurveyedProSession;
  const frames = decodeRgbFrames(video, session.inputWidth, session.inputHeight, count);
  const frameAt = (index: number) => ({ index, width: session.inputWidth, height: session.inputHeight, data: Buffer.from(frames[index]) });
  if (session instanceof SurveyedProSession) {
    await fed(frames.length, allAtOnce, (index) => session.surveyFrame(frameAt(index)));
    session.finishSurvey();
  }
  const out = await fed(frames.length, allAtOnce, (index) => session.segment(frameAt(index)));
  const output = session instanceof SurveyedProSession ? session.output : session;
  await session.close();
  return { mattes: out, framesInFlight: session.framesInFlight, peopleFrames: output.peopleFrames, surveyed: session instanceof SurveyedProSession ? session.surveyed : undefined };
}

function expectSameMattes(mattes: Matte[], reference: Matte[], count: number): void {
  expect(mattes).toHaveLength(count);
  for (const [i, matte] of mattes.entries()) expect(Buffer.from(matte.data).equals(Buffer.from(reference[i].data))).toBe(true);
}

describe('pro with several frames in flight', () => {
  it('"person wearing red jacket": the survey and the output pass in flight give the tracks and mattes they give frame by frame', async () => {
    const { video } = writePromptComposite('red-blue', CLIPS_DIR);
    const [oneByOne, atOnce] = [await mattes(video, 10, 'person wearing red jacket', false), await mattes(video, 10, 'person wearing red jacket', true)];
    expect(atOnce.framesInFlight).toBe(4);
    expect(atOnce.surveyed).toHaveLength(10);
    expect(atOnce.surveyed).toEqual(oneByOne.surveyed);
    expect(atOnce.peopleFrames).toBe(oneByOne.peopleFrames);
    expectSameMattes(atOnce.mattes, oneByOne.mattes, 10);
  }, 3 * MINUTES);

  it('without people asked for ("car"): one frame at a time, as before', async () => {
    const session = await (await loadModel('pro', { cacheDir: CACHE_DIR })).createSession({ ...CLIP, textPrompt: 'car' });
    expect(session.framesInFlight).toBe(1);
    await session.close();
  });
});
