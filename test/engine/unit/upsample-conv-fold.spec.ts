/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 */
import * as ort from 'onnxruntime-node';
import { onnx } from 'onnx-proto';
import { OnnxGraphBuilder } from '../../../src/engine/models/onnx/graph-builder';
import { quantizeConvs, quantizableConvs, TensorRange } from '../../../src/engine/models/onnx/qdq-quantizer';
import { foldUpsampledConvs } from '../../../src/engine/models/onnx/upsample-conv-fold';

const { FLOAT } = onnx.TensorProto.DataType;
const [IN, OUT, HEIGHT, WIDTH] = [3, 4, 5, 7];
const everywhere = () => true;

/**
 * x [1, IN, H, W] -> 2x bilinear upsampling -> 3x3 convolution with bias -> Relu -> y [1, OUT, 2H, 2W];
 * `extraReader`: something else reads the upsampled tensor too; `convAfter`: a second 3x3 convolution
 * and a Sigmoid in place of the Relu
 */
function upsampledConv(options: { scale?: number; strides?: number[]; extraReader?: boolean; convAfter?: boolean } = {}): Uint8Array {
  const graph = new OnnxGraphBuilder();
  const scale = options.scale ?? 2;
  const up = graph.addNode('Resize', ['x', '', graph.addFloatInitializer('scales', [4], Float32Array.of(1, 1, scale, scale))], 'up', { mode: 'linear', coordinate_transformation_mode: 'half_pixel' });
  const weights = graph.addFloatInitializer('w', [OUT, IN, 3, 3], Float32Array.from({ length: OUT * IN * 9 }, (_, i) => Math.sin(i * 1.3) / 3));
  const bias = graph.addFloatInitializer('b', [OUT], Float32Array.from({ length: OUT }, (_, i) => i / 10 - 0.1));
  const conv = graph.addNode('Conv', [up, weights, bias], 'conv', { kernel_shape: [3, 3], pads: [1, 1, 1, 1], strides: options.strides ?? [1, 1] });
  if (options.convAfter) {
    // a second convolution reads the first's output, put in place (RVM's output block)
    const after = graph.addFloatInitializer('w_after', [OUT, OUT, 3, 3], Float32Array.from({ length: OUT * OUT * 9 }, (_, i) => Math.cos(i * 0.9) / 4));
    graph.addNode('Sigmoid', [graph.addNode('Conv', [conv, after], 'after', { kernel_shape: [3, 3], pads: [1, 1, 1, 1] })], 'y');
  } else graph.addNode('Relu', [conv], 'y');
  const outputs = [{ name: 'y', elemType: FLOAT, shape: [1, OUT, -1, -1] }];
  if (options.extraReader) {
    graph.addNode('Neg', [up], 'also');
    outputs.push({ name: 'also', elemType: FLOAT, shape: [1, IN, -1, -1] });
  }
  return graph.build({ inputs: [{ name: 'x', elemType: FLOAT, shape: [1, IN, HEIGHT, WIDTH] }], outputs, opset: 14, graphName: 'upsampled_conv' });
}

const input = () => new ort.Tensor('float32', Float32Array.from({ length: IN * HEIGHT * WIDTH }, (_, i) => Math.cos(i * 0.7) * 2), [1, IN, HEIGHT, WIDTH]);

async function outputOf(bytes: Uint8Array): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(bytes);
  return (await session.run({ x: input() })).y.data as Float32Array;
}

function folded(bytes: Uint8Array, where: (conv: onnx.INodeProto) => boolean = everywhere): { count: number; bytes: Uint8Array; ops: string[] } {
  const model = onnx.ModelProto.decode(bytes);
  const count = foldUpsampledConvs(model, where);
  return { count, bytes: onnx.ModelProto.encode(model).finish(), ops: model.graph!.node!.map((node) => node.opType!) };
}

/** the largest |a - b| inside the outermost ring of pixels and on it */
function differences(a: Float32Array, b: Float32Array): { inside: number; ring: number } {
  const [height, width] = [2 * HEIGHT, 2 * WIDTH];
  let [inside, ring] = [0, 0];
  a.forEach((value, i) => {
    const x = i % width;
    const y = Math.floor(i / width) % height;
    const difference = Math.abs(value - b[i]);
    if (x === 0 || y === 0 || x === width - 1 || y === height - 1) ring = Math.max(ring, difference);
    else inside = Math.max(inside, difference);
  });
  return { inside, ring };
}

describe('foldUpsampledConvs', () => {
  it('runs the convolution at the low size on the four phases: the same values inside the outermost ring of pixels', async () => {
    const original = upsampledConv();
    const { count, bytes, ops } = folded(original);
    expect(count).toBe(1);
    expect(ops).toEqual(['Pad', 'Conv', 'DepthToSpace', 'Relu']);
    const { inside, ring } = differences(await outputOf(original), await outputOf(bytes));
    expect(inside).toBeLessThan(1e-5);
    // on the ring the zero padding of the upsampled tensor has become its edge repeated
    expect(ring).toBeGreaterThan(1e-3);
  });

  it('leaves an upsampling read by anything else, a strided convolution, another scale and what `where` refuses', () => {
    expect(folded(upsampledConv({ extraReader: true })).count).toBe(0);
    expect(folded(upsampledConv({ strides: [2, 2] })).count).toBe(0);
    expect(folded(upsampledConv({ scale: 3 })).count).toBe(0);
    expect(folded(upsampledConv(), () => false).count).toBe(0);
  });

  it('in int8, the phases are put in place on the quantised bytes (channels-last, as onnxruntime runs QLinearConv) and the dequantisation follows', async () => {
    const { bytes } = folded(upsampledConv());
    const convs = quantizableConvs(onnx.ModelProto.decode(bytes), () => true);
    const ranges = new Map<string, TensorRange>(convs.flatMap((conv) => [[conv.input, { min: -2, max: 2 }], [conv.output, { min: -3, max: 3 }]]));
    // 7-bit weights: inputs across their whole range would saturate onnxruntime's int8 kernel on a CPU without 8-bit dot products (qdq-quantizer.ts WeightBits)
    const quantized = quantizeConvs(bytes, convs, ranges, 7);
    const model = onnx.ModelProto.decode(quantized);
    const nodes = model.graph!.node!;
    expect(nodes.filter((node) => node.opType === 'DepthToSpace')).toHaveLength(0);
    const phases = nodes.find((node) => node.opType === 'QuantizeLinear' && node.input![0].endsWith('_phases'))!.output![0];
    const first = nodes.find((node) => node.input!.includes(phases))!;
    expect(first.opType).toBe('Transpose');
    expect(first.attribute![0].ints!.map(Number)).toEqual([0, 2, 3, 1]);
    const last = nodes.find((node) => node.opType === 'Reshape' && nodes.some((reader) => reader.opType === 'DequantizeLinear' && reader.input![0] === node.output![0]))!;
    // the phases' own dequantisation, read by nothing now, is gone
    expect(nodes.filter((node) => node.opType === 'DequantizeLinear' && node.input![0] === phases)).toHaveLength(0);
    const [expected, actual] = [await outputOf(bytes), await outputOf(quantized)];
    expect(Math.max(...expected.map((value, i) => Math.abs(value - actual[i])))).toBeLessThan(0.05);

    // the same bytes as one DepthToSpace: its steps (named after the fold's DepthToSpace) replaced by one
    const steps = nodes.filter((node) => node.name!.startsWith(first.name!.replace(/_nhwc$/, '')));
    expect(steps).toContain(first);
    expect(steps).toContain(last);
    const toSpace: onnx.INodeProto = { opType: 'DepthToSpace', name: 'to_space', input: [phases], output: [last.output![0]], attribute: [{ name: 'blocksize', type: onnx.AttributeProto.AttributeType.INT, i: 2 }] };
    model.graph!.node = nodes.flatMap((node) => (node === first ? [toSpace] : steps.includes(node) ? [] : [node]));
    const withDepthToSpace = await outputOf(onnx.ModelProto.encode(model).finish());
    expect(Buffer.from(actual.buffer).equals(Buffer.from(withDepthToSpace.buffer))).toBe(true);
  });

  it('in int8, a second int8 convolution may read the phases put in place: the graph loads and keeps its values', async () => {
    const { bytes } = folded(upsampledConv({ convAfter: true }));
    const convs = quantizableConvs(onnx.ModelProto.decode(bytes), () => true);
    expect(convs).toHaveLength(2);
    const ranges = new Map<string, TensorRange>(convs.flatMap((conv) => [[conv.input, { min: -3, max: 3 }], [conv.output, { min: -6, max: 6 }]]));
    const quantized = quantizeConvs(bytes, convs, ranges, 7);
    const names = onnx.ModelProto.decode(quantized).graph!.node!.flatMap((node) => node.output!);
    expect(new Set(names).size).toBe(names.length);
    const [expected, actual] = [await outputOf(bytes), await outputOf(quantized)];
    expect(Math.max(...expected.map((value, i) => Math.abs(value - actual[i])))).toBeLessThan(0.02);
  });
});
