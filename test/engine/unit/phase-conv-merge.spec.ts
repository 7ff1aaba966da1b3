/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 */
import * as ort from 'onnxruntime-node';
import { onnx } from 'onnx-proto';
import { OnnxGraphBuilder } from '../../../src/engine/models/onnx/graph-builder';
import { mergeSideConvsIntoPhases } from '../../../src/engine/models/onnx/phase-conv-merge';
import { quantizeConvs, quantizableConvs, TensorRange } from '../../../src/engine/models/onnx/qdq-quantizer';
import { foldUpsampledConvs } from '../../../src/engine/models/onnx/upsample-conv-fold';

const { FLOAT } = onnx.TensorProto.DataType;
const [FEATURES, SIDE, OUT, HEIGHT, WIDTH] = [4, 3, 5, 5, 7];
const SIDE_SCALE = 4;

/**
 * As RVM's output block: features [1, FEATURES, H, W] upsampled 2x and convolved (3x3, bias), plus
 * a 3x3 convolution of the full-size image [1, SIDE, 2H, 2W], then `after` (Relu or nothing).
 */
function outputBlock(options: { after?: 'Relu'; sideBias?: boolean; sideStrides?: number[] } = {}): Uint8Array {
  const graph = new OnnxGraphBuilder();
  const kernel = (name: string, out: number, channels: number, seed: number) => graph.addFloatInitializer(name, [out, channels, 3, 3], Float32Array.from({ length: out * channels * 9 }, (_, i) => Math.sin(i * seed) / 3));
  const up = graph.addNode('Resize', ['features', '', graph.addFloatInitializer('scales', [4], Float32Array.of(1, 1, 2, 2))], 'up', { mode: 'linear', coordinate_transformation_mode: 'half_pixel' });
  const bias = graph.addFloatInitializer('b', [OUT], Float32Array.from({ length: OUT }, (_, i) => i / 10 - 0.2));
  const part1 = graph.addNode('Conv', [up, kernel('w1', OUT, FEATURES, 1.3), bias], 'part1', { kernel_shape: [3, 3], pads: [1, 1, 1, 1] });
  const sideBias = options.sideBias ? [graph.addFloatInitializer('b0', [OUT], Float32Array.from({ length: OUT }, (_, i) => 0.05 * i))] : [];
  const part0 = graph.addNode('Conv', ['image', kernel('w0', OUT, SIDE, 0.9), ...sideBias], 'part0', { kernel_shape: [3, 3], pads: [1, 1, 1, 1], strides: options.sideStrides ?? [1, 1] });
  graph.addNode('Add', [part1, part0], options.after ? 'sum' : 'y');
  if (options.after) graph.addNode(options.after, ['sum'], 'y');
  return graph.build({
    inputs: [
      { name: 'features', elemType: FLOAT, shape: [1, FEATURES, HEIGHT, WIDTH] },
      { name: 'image', elemType: FLOAT, shape: [1, SIDE, 2 * HEIGHT, 2 * WIDTH] },
    ],
    outputs: [{ name: 'y', elemType: FLOAT, shape: [1, OUT, 2 * HEIGHT, 2 * WIDTH] }],
    opset: 14,
    graphName: 'output_block',
  });
}

const inputs = () => ({
  features: new ort.Tensor('float32', Float32Array.from({ length: FEATURES * HEIGHT * WIDTH }, (_, i) => Math.cos(i * 0.7) * 2), [1, FEATURES, HEIGHT, WIDTH]),
  image: new ort.Tensor('float32', Float32Array.from({ length: SIDE * 4 * HEIGHT * WIDTH }, (_, i) => (Math.sin(i * 0.37) + 1) / 2), [1, SIDE, 2 * HEIGHT, 2 * WIDTH]),
});

async function outputOf(bytes: Uint8Array): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(bytes);
  return (await session.run(inputs())).y.data as Float32Array;
}

function rewritten(bytes: Uint8Array, merge = true): { count: number; bytes: Uint8Array; ops: string[] } {
  const model = onnx.ModelProto.decode(bytes);
  foldUpsampledConvs(model, () => true);
  const count = merge ? mergeSideConvsIntoPhases(model, SIDE_SCALE) : 0;
  return { count, bytes: onnx.ModelProto.encode(model).finish(), ops: model.graph!.node!.map((node) => node.opType!) };
}

const largestDifference = (a: Float32Array, b: Float32Array) => Math.max(...a.map((value, i) => Math.abs(value - b[i])));

describe('mergeSideConvsIntoPhases', () => {
  it('reads the image at half size beside the features in one convolution: the values of the fold alone, the Relu before the phases are put in place', async () => {
    for (const options of [{ after: 'Relu' as const }, { after: 'Relu' as const, sideBias: true }, {}]) {
      const original = outputBlock(options);
      const { count, bytes, ops } = rewritten(original);
      expect(count).toBe(1);
      expect(ops).toEqual(['Pad', 'SpaceToDepth', 'Mul', 'Pad', 'Concat', 'Conv', ...(options.after ? ['Relu'] : []), 'DepthToSpace']);
      // the image's zero padding is kept exactly: the same values everywhere, the outermost ring included
      expect(largestDifference(await outputOf(rewritten(original, false).bytes), await outputOf(bytes))).toBeLessThan(1e-5);
    }
  });

  it('leaves a side convolution that is strided, and an Add of anything else', () => {
    expect(rewritten(outputBlock({ after: 'Relu', sideStrides: [2, 2] })).count).toBe(0);
    const model = onnx.ModelProto.decode(outputBlock({ after: 'Relu' }));
    expect(mergeSideConvsIntoPhases(model, SIDE_SCALE)).toBe(0); // not folded: no phases to merge into
  });

  it('in int8 the Relu is the quantised output range (zero point 0), and the values stay near fp32', async () => {
    const { bytes } = rewritten(outputBlock({ after: 'Relu' }));
    const convs = quantizableConvs(onnx.ModelProto.decode(bytes), () => true);
    expect(convs).toHaveLength(1);
    expect(convs[0].output).toMatch(/_relu$/);
    const ranges = new Map<string, TensorRange>([
      [convs[0].input, { min: -2, max: 4 }],
      [convs[0].output, { min: 0, max: 3 }],
    ]);
    const quantized = quantizeConvs(bytes, convs, ranges, 7);
    const zeroPoint = onnx.ModelProto.decode(quantized).graph!.initializer!.find((tensor) => tensor.name === `${convs[0].output}_qzero`)!;
    expect(Array.from(zeroPoint.rawData!)).toEqual([0]);
    const expected = await outputOf(bytes);
    const actual = await outputOf(quantized);
    expect(largestDifference(expected, actual)).toBeLessThan(0.06);
    expect(Math.min(...actual)).toBe(0);
  });
});
