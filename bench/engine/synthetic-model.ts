/**
 * A model that costs nothing: an ellipse matte at 256x144. The memory section uses it when the
 * real models are not installed, since what it measures is the pipeline, not inference.
 */
import { Matte, SegmentationModel, SegmentationSession } from '../../src/engine/types';

const SIZE = { width: 256, height: 144 };

export const syntheticModel: SegmentationModel = {
  name: 'light',
  async createSession(): Promise<SegmentationSession> {
    const data = new Uint8Array(SIZE.width * SIZE.height);
    for (let y = 0; y < SIZE.height; y++) {
      for (let x = 0; x < SIZE.width; x++) {
        data[y * SIZE.width + x] = ((x - 128) / 60) ** 2 + ((y - 72) / 60) ** 2 <= 1 ? 255 : 0;
      }
    }
    return {
      inputWidth: SIZE.width,
      inputHeight: SIZE.height,
      notes: ['synthetic model (no inference)'],
      async segment(): Promise<Matte> {
        return { ...SIZE, data };
      },
      async close() {},
    };
  },
};
