/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 */
import * as ort from 'onnxruntime-node';
import { onnx } from 'onnx-proto';
import { OnnxGraphBuilder } from '../../../src/engine/models/onnx/graph-builder';
import { floatData } from '../../../src/engine/models/onnx/graph-parts';
import { ISNET_LOGIT_RANGE, quantizeIsnet } from '../../../src/engine/models/isnet/isnet-int8';

const { FLOAT } = onnx.TensorProto.DataType;
const [CHANNELS, SIZE] = [16, 6];

/** ISNet's last steps: a 16-channel convolution and Relu, then the head (16 channels to one logit), then the sigmoid */
function lastSteps(): Uint8Array {
  const graph = new OnnxGraphBuilder();
  const weights = graph.addFloatInitializer('w', [CHANNELS, CHANNELS, 1, 1], Float32Array.from({ length: CHANNELS * CHANNELS }, (_, i) => Math.sin(i * 0.7) * 0.5));
  const features = graph.addNode('Relu', [graph.addNode('Conv', ['x', weights], 'features_raw', { kernel_shape: [1, 1] })], 'features');
  const headWeights = graph.addFloatInitializer('head_w', [1, CHANNELS, 1, 1], Float32Array.from({ length: CHANNELS }, (_, i) => (i % 2 ? 4 : -3)));
  const logit = graph.addNode('Conv', [features, headWeights], 'logit', { kernel_shape: [1, 1] });
  graph.addNode('Sigmoid', [logit], 'probability');
  return graph.build({
    inputs: [{ name: 'x', elemType: FLOAT, shape: [1, CHANNELS, SIZE, SIZE] }],
    outputs: [{ name: 'probability', elemType: FLOAT, shape: [1, 1, SIZE, SIZE] }],
    opset: 14,
    graphName: 'isnet_head',
  });
}

describe('ISNet in int8: the output head', () => {
  const table: Record<string, [number, number]> = {
    'Conv_features_raw:input': [-2, 2],
    'Conv_features_raw:output': [0, 8],
    'Conv_logit:input': [0, 8],
    'Conv_logit:output': [-270, 16], // a calibrated logit: mostly background far past saturation
  };

  it('is quantised too, its logit at the set range rather than the calibrated one', async () => {
    const float = lastSteps();
    const model = onnx.ModelProto.decode(float);
    const names = model.graph!.node!.filter((n) => n.opType === 'Conv').map((n) => n.name);
    expect(names).toEqual(['Conv_features_raw', 'Conv_logit']);
    const quantized = onnx.ModelProto.decode(quantizeIsnet(float, table));
    const convWeights = quantized.graph!.node!.filter((n) => n.opType === 'Conv').map((n) => n.input![1]);
    expect(convWeights.every((w) => w.endsWith('_dequantized'))).toBe(true);
    const logitScale = quantized.graph!.initializer!.find((t) => t.name === 'logit_qscale')!;
    const [low, high] = ISNET_LOGIT_RANGE;
    expect(floatData(logitScale)[0]).toBeCloseTo((high - low) / 255, 6);
  });

  it('keeps the probabilities near 0.5 within a step of the logit', async () => {
    const float = lastSteps();
    const x = new ort.Tensor('float32', Float32Array.from({ length: CHANNELS * SIZE * SIZE }, (_, i) => Math.cos(i * 0.37) * 0.3), [1, CHANNELS, SIZE, SIZE]);
    const run = async (bytes: Uint8Array) => (await (await ort.InferenceSession.create(bytes)).run({ x })).probability.data as Float32Array;
    const [exact, quantized] = [await run(float), await run(quantizeIsnet(float, table))];
    const step = (ISNET_LOGIT_RANGE[1] - ISNET_LOGIT_RANGE[0]) / 255;
    for (let i = 0; i < exact.length; i++) expect(Math.abs(exact[i] - quantized[i])).toBeLessThan(step); // the sigmoid's slope is at most 1/4
  });
});
