/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 */
import * as ort from 'onnxruntime-node';
import { onnx } from 'onnx-proto';
import { OnnxGraphBuilder } from '../../../src/engine/models/onnx/graph-builder';
import { floatData } from '../../../src/engine/models/onnx/graph-parts';
import { splitSingleOutputConvs } from '../../../src/engine/models/onnx/tap-split';
import { ISNET_HEAD_TAP_RANGE, quantizeIsnet } from '../../../src/engine/models/isnet/isnet-int8';

const { FLOAT } = onnx.TensorProto.DataType;
const [CHANNELS, HEIGHT, WIDTH] = [16, 6, 9];

/** ISNet's last steps: a 16-channel convolution and Relu, then the head (3x3, 16 channels to one logit, with a bias), then the sigmoid */
function lastSteps(): Uint8Array {
  const graph = new OnnxGraphBuilder();
  const weights = graph.addFloatInitializer('w', [CHANNELS, CHANNELS, 1, 1], Float32Array.from({ length: CHANNELS * CHANNELS }, (_, i) => Math.sin(i * 0.7) * 0.5));
  const features = graph.addNode('Relu', [graph.addNode('Conv', ['x', weights], 'features_raw', { kernel_shape: [1, 1] })], 'features');
  const headWeights = graph.addFloatInitializer('head_w', [1, CHANNELS, 3, 3], Float32Array.from({ length: CHANNELS * 9 }, (_, i) => Math.sin(i * 1.9) * 0.4));
  const headBias = graph.addFloatInitializer('head_b', [1], Float32Array.of(-0.3));
  const logit = graph.addNode('Conv', [features, headWeights, headBias], 'logit', { kernel_shape: [3, 3], pads: [1, 1, 1, 1] });
  graph.addNode('Sigmoid', [logit], 'probability');
  return graph.build({
    inputs: [{ name: 'x', elemType: FLOAT, shape: [1, CHANNELS, HEIGHT, WIDTH] }],
    outputs: [{ name: 'probability', elemType: FLOAT, shape: [1, 1, HEIGHT, WIDTH] }],
    opset: 14,
    graphName: 'isnet_head',
  });
}

const x = new ort.Tensor('float32', Float32Array.from({ length: CHANNELS * HEIGHT * WIDTH }, (_, i) => Math.cos(i * 0.37) * 0.3), [1, CHANNELS, HEIGHT, WIDTH]);
const run = async (bytes: Uint8Array) => (await (await ort.InferenceSession.create(bytes)).run({ x })).probability.data as Float32Array;
const largestDifference = (a: Float32Array, b: Float32Array) => Math.max(...a.map((value, i) => Math.abs(value - b[i])));

describe('ISNet in int8: the output head', () => {
  const table: Record<string, [number, number]> = {
    'Conv_features_raw:input': [-2, 2],
    'Conv_features_raw:output': [0, 8],
    'Conv_logit:input': [0, 8],
    'Conv_logit:output': [-270, 16], // a calibrated logit: mostly background far past saturation
  };

  it('runs as a 1x1 convolution to its nine taps and their shifted sum: the same values in fp32, the border included', async () => {
    const float = lastSteps();
    const model = onnx.ModelProto.decode(float);
    expect(splitSingleOutputConvs(model)).toEqual(['Conv_logit']);
    const ops = model.graph!.node!.map((n) => n.opType);
    expect(ops.filter((op) => op === 'Slice')).toHaveLength(9);
    expect(ops.slice(-3)).toEqual(['Slice', 'Sum', 'Sigmoid']);
    const taps = model.graph!.node!.find((n) => n.name === 'Conv_logit')!;
    expect(model.graph!.initializer!.find((t) => t.name === taps.input![1])!.dims!.map(Number)).toEqual([9, CHANNELS, 1, 1]);
    expect(largestDifference(await run(float), await run(onnx.ModelProto.encode(model).finish()))).toBeLessThan(1e-6);
  });

  it('in int8, its taps at the set range rather than the calibrated logit range, its sum in float', async () => {
    const quantized = onnx.ModelProto.decode(quantizeIsnet(lastSteps(), table));
    const convWeights = quantized.graph!.node!.filter((n) => n.opType === 'Conv').map((n) => n.input![1]);
    expect(convWeights).toHaveLength(2);
    expect(convWeights.every((w) => w.endsWith('_dequantized'))).toBe(true);
    const tapScale = quantized.graph!.initializer!.find((t) => t.name === 'Conv_logit_taps_qscale')!;
    const [low, high] = ISNET_HEAD_TAP_RANGE;
    expect(floatData(tapScale)[0]).toBeCloseTo((high - low) / 255, 6);
    expect(quantized.graph!.initializer!.some((t) => t.name === 'logit_qscale')).toBe(false);
  });

  it('keeps the probabilities within about a step of the taps of fp32', async () => {
    const float = lastSteps();
    const step = (ISNET_HEAD_TAP_RANGE[1] - ISNET_HEAD_TAP_RANGE[0]) / 255;
    // nine taps each within half a step, at the sigmoid's slope of at most 1/4: 9/8 of a step at worst, the features' own rounding beside
    expect(largestDifference(await run(float), await run(quantizeIsnet(float, table)))).toBeLessThan(1.5 * step);
  });
});
