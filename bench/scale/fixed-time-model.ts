/**
 * bench:scale's fake engine: a model module (ENGINE_MODEL_MODULE) whose every frame takes a fixed
 * time (FRAME_MS) and no CPU (a timer), so the wall time of a job measures the scheduling (chunks, queue,
 * join) and not the two cores the benchmark machine has. Mattes: a still ellipse at 160x90.
 */
import { Matte, ModelName, SegmentationModel, SegmentationSession } from '../../src/engine/types';

/** milliseconds a frame (BENCH_FRAME_MS; default 40: a 25 fps model, the class of `light` on a small GPU) */
export const FRAME_MS = Number(process.env.BENCH_FRAME_MS ?? 40);
const SIZE = { width: 160, height: 90 };

function ellipse(): Uint8Array {
  const data = new Uint8Array(SIZE.width * SIZE.height);
  for (let y = 0; y < SIZE.height; y++) {
    for (let x = 0; x < SIZE.width; x++) data[y * SIZE.width + x] = ((x - 80) / 40) ** 2 + ((y - 45) / 35) ** 2 <= 1 ? 255 : 0;
  }
  return data;
}

export async function loadModel(name: ModelName): Promise<SegmentationModel> {
  const data = ellipse();
  return {
    name,
    async createSession(): Promise<SegmentationSession> {
      return {
        inputWidth: SIZE.width,
        inputHeight: SIZE.height,
        matteSize: SIZE,
        notes: [`fixed-time fake model (${FRAME_MS} ms a frame)`],
        async segment(): Promise<Matte> {
          await new Promise((resolve) => setTimeout(resolve, FRAME_MS));
          return { ...SIZE, data };
        },
        async close() {},
      };
    },
  };
}
