import { int8PerChannel } from '../../../src/engine/models/onnx/qdq-quantizer';

describe('int8PerChannel', () => {
  const weights = Float32Array.of(0.5, -1, 0.25, 2, -0.5, 1);

  it.each([
    [8, 127],
    [7, 63],
  ] as const)('at %i bits each output channel spans +-%i, its scale the channel peak over that', (bits, largest) => {
    const { values, scales } = int8PerChannel(weights, 2, bits);
    expect([...scales]).toEqual([1 / largest, 2 / largest].map(Math.fround));
    expect(Math.max(...values.map(Math.abs))).toBe(largest);
    expect(values[1]).toBe(-largest);
    expect(values[3]).toBe(largest);
    values.forEach((value, i) => expect(Math.abs(value * scales[i < 3 ? 0 : 1] - weights[i])).toBeLessThanOrEqual(scales[i < 3 ? 0 : 1] / 2 + 1e-6));
  });
});
