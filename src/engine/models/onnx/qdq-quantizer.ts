import { onnx } from 'onnx-proto';
import { addInitializer, attribute, attributeText, dropUnreadInitializers, floatData, readersByTensor } from './graph-parts';

const { DataType } = onnx.TensorProto;

/** the range an activation takes, measured on calibration frames */
export interface TensorRange {
  min: number;
  max: number;
}

/** an activation's quantisation: its scale and the names of its scale, zero point, uint8 and dequantised tensors */
interface QuantizedActivation {
  scale: number;
  scaleName: string;
  zeroName: string;
  quantized: string;
  dequantized: string;
}

export interface QuantizedConv {
  node: onnx.INodeProto;
  /** the activation read by the convolution */
  input: string;
  /** the activation quantised after it: its output, or the output of the Relu/Clip that alone follows it */
  output: string;
}

/**
 * The convolutions to run in int8 (`select` picks among the non-depthwise ones) and the activations
 * around them whose ranges calibration must measure.
 */
export function quantizableConvs(model: onnx.IModelProto, select: (node: onnx.INodeProto, weightDims: number[]) => boolean): QuantizedConv[] {
  const graph = model.graph!;
  const initializers = new Map(graph.initializer!.map((t) => [t.name!, t]));
  const consumers = readersByTensor(graph);
  const producers = new Map(graph.node!.flatMap((n) => n.output!.map((o) => [o, n] as const)));
  const convs: QuantizedConv[] = [];
  for (const node of graph.node!) {
    if (node.opType !== 'Conv') continue;
    const weights = initializers.get(node.input![1]);
    const group = attribute(node, 'group')?.i ?? 1;
    const readsActivation = producers.has(node.input![0]) || graph.input!.some((i) => i.name === node.input![0]);
    if (!weights || Number(group) !== 1 || !readsActivation || !select(node, weights.dims!.map(Number))) continue;
    const users = consumers.get(node.output![0]) ?? [];
    const activation = users.length === 1 && isZeroFloorActivation(users[0], initializers) ? users[0] : undefined;
    convs.push({ node, input: node.input![0], output: activation ? activation.output![0] : node.output![0] });
  }
  return convs;
}

/** the model with extra graph outputs, so one run gives the named intermediate activations */
export function withIntermediateOutputs(modelBytes: Uint8Array, names: string[]): Uint8Array {
  const model = onnx.ModelProto.decode(modelBytes);
  const existing = new Set(model.graph!.output!.map((o) => o.name));
  for (const name of names) {
    if (!existing.has(name)) model.graph!.output!.push({ name, type: { tensorType: { elemType: DataType.FLOAT } } });
  }
  return onnx.ModelProto.encode(model).finish();
}

/**
 * Static int8 quantisation in QDQ form, which onnxruntime fuses into QLinearConv: per output
 * channel symmetric int8 weights, int32 bias, uint8 activations with calibrated ranges. Every other
 * op stays float and reads the dequantised activation.
 */
/**
 * A calibration table's key: ranges belong to a convolution (its node name, the same at every input
 * size), not to a tensor: `<node name>:input` or `:output`.
 */
export const rangeKey = (conv: QuantizedConv, side: 'input' | 'output'): string => `${conv.node.name}:${side}`;

/**
 * The bits of the int8 weights. Without 8-bit dot products (x86 with AVX2 only) onnxruntime
 * multiplies uint8 activations by int8 weights with VPMADDUBSW, which adds each pair of products in
 * 16 bits and saturates past 32767: 2 x 255 x 127 does not fit, 2 x 255 x 63 = 32130 does. So 7 bits
 * give the same result on every CPU (onnxruntime's own quantiser calls it reduce_range). RVM and
 * ISNet keep 8: their calibrated activations rarely come near it, and on an AVX2-only AMD EPYC (Zen
 * 3) 8 bits stayed the closer to fp32 (RVM over 30 frames of portrait-pan at 640x360, mean |alpha
 * diff| 2.3e-4 against 2.95e-4 with 7 bits; at `light`'s size on DAVIS breakdance-flare 1.8e-3
 * against 2.7e-3; ISNet's probabilities 2.0e-4, as with VNNI).
 */
export type WeightBits = 7 | 8;

/**
 * Quantises those of `convs` whose input and output both have a calibrated range in `table` (keyed by
 * rangeKey); the others stay fp32. A tensor read or written by several convolutions takes the widest.
 */
export function quantizeCalibrated(floatModel: Uint8Array, convs: QuantizedConv[], table: Record<string, [number, number]>): Uint8Array {
  const calibrated = convs.filter((c) => rangeKey(c, 'input') in table && rangeKey(c, 'output') in table);
  const ranges = new Map<string, TensorRange>();
  for (const conv of calibrated) {
    for (const side of ['input', 'output'] as const) {
      const [min, max] = table[rangeKey(conv, side)];
      const seen = ranges.get(conv[side]);
      ranges.set(conv[side], seen ? { min: Math.min(seen.min, min), max: Math.max(seen.max, max) } : { min, max });
    }
  }
  return quantizeConvs(floatModel, calibrated, ranges);
}

/** `convs` in int8: activations uint8 at `ranges`, weights symmetric per output channel in `weightBits` */
export function quantizeConvs(modelBytes: Uint8Array, convs: QuantizedConv[], ranges: Map<string, TensorRange>, weightBits: WeightBits = 8): Uint8Array {
  const model = onnx.ModelProto.decode(modelBytes);
  const graph = model.graph!;
  const initializers = new Map(graph.initializer!.map((t) => [t.name!, t]));
  const added: onnx.INodeProto[] = [];
  const quantized = new Map<string, QuantizedActivation>();

  const quantizeActivation = (name: string): number => {
    const done = quantized.get(name);
    if (done) return done.scale;
    const range = ranges.get(name);
    if (!range) throw new Error(`no calibrated range for ${name}`);
    const { scale, zeroPoint } = uint8Params(range);
    const scaleName = addInitializer(graph, `${name}_qscale`, DataType.FLOAT, [], Float32Array.of(scale));
    const zeroName = addInitializer(graph, `${name}_qzero`, DataType.UINT8, [], Uint8Array.of(zeroPoint));
    const q = `${name}_quantized`;
    const dq = `${name}_dequantized`;
    added.push({ opType: 'QuantizeLinear', name: `${q}_node`, input: [name, scaleName, zeroName], output: [q] });
    added.push({ opType: 'DequantizeLinear', name: `${dq}_node`, input: [q, scaleName, zeroName], output: [dq] });
    quantized.set(name, { scale, scaleName, zeroName, quantized: q, dequantized: dq });
    return scale;
  };

  const nodes = new Map(graph.node!.map((n) => [n.name!, n]));
  /** output channels by quantised activation */
  const outChannels = new Map<string, number>();
  for (const { node: found, input, output } of convs) {
    const node = nodes.get(found.name!)!; // the same node in this decoding of the model
    const inputScale = quantizeActivation(input);
    quantizeActivation(output);
    const weights = initializers.get(node.input![1])!;
    const dims = weights.dims!.map(Number);
    outChannels.set(quantized.get(output)!.quantized, dims[0]);
    const { values, scales } = int8PerChannel(floatData(weights), dims[0], weightBits);
    const wName = addInitializer(graph, `${weights.name}_int8`, DataType.INT8, dims, values);
    const wScale = addInitializer(graph, `${weights.name}_scale`, DataType.FLOAT, [dims[0]], scales);
    const wZero = addInitializer(graph, `${weights.name}_zero`, DataType.INT8, [dims[0]], new Int8Array(dims[0]));
    const wDq = `${weights.name}_dequantized`;
    added.push({ opType: 'DequantizeLinear', name: `${wDq}_node`, input: [wName, wScale, wZero], output: [wDq], attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }] });
    node.input![1] = wDq;
    const bias = node.input![2] ? initializers.get(node.input![2]) : undefined;
    if (bias) {
      const biasScales = scales.map((s) => s * inputScale);
      const biasValues = Int32Array.from(floatData(bias), (b, c) => Math.round(b / biasScales[c]));
      const bName = addInitializer(graph, `${bias.name}_int32`, DataType.INT32, [dims[0]], biasValues);
      const bScale = addInitializer(graph, `${bias.name}_scale`, DataType.FLOAT, [dims[0]], biasScales);
      const bZero = addInitializer(graph, `${bias.name}_zero`, DataType.INT32, [dims[0]], new Int32Array(dims[0]));
      const bDq = `${bias.name}_dequantized`;
      added.push({ opType: 'DequantizeLinear', name: `${bDq}_node`, input: [bName, bScale, bZero], output: [bDq], attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }] });
      node.input![2] = bDq;
    }
  }

  // every reader of a quantised activation reads its dequantised copy (the Q/DQ nodes read the original)
  for (const node of graph.node!) {
    node.input = node.input!.map((name) => quantized.get(name)?.dequantized ?? name);
  }
  moveDepthToSpaceBeforeDequantize([...graph.node!, ...added], quantized, added);
  const onConvBytes = (node: onnx.INodeProto) => node.opType === 'DepthToSpace' && outChannels.has(node.input![0]) && (attributeText(node, 'mode') ?? 'DCR') === 'DCR';
  graph.node = graph.node!.flatMap((node) => (onConvBytes(node) ? channelsLastDepthToSpace(graph, node, outChannels.get(node.input![0])!) : [node]));
  const quantizedOutput = graph.output!.find((output) => quantized.has(output.name!));
  if (quantizedOutput) throw new Error(`graph output ${quantizedOutput.name} would be quantised`);
  graph.node = topologicalOrder([...graph.node!, ...added], graph);
  dropUnreadInitializers(graph);
  return onnx.ModelProto.encode(model).finish();
}

/** uint8 with zero exactly representable (zero padding), and zero point 0 when the range starts at 0 */
export function uint8Params(range: TensorRange): { scale: number; zeroPoint: number } {
  const min = Math.min(0, range.min);
  const max = Math.max(0, range.max, min + 1e-6);
  const scale = (max - min) / 255;
  return { scale, zeroPoint: Math.max(0, Math.min(255, Math.round(-min / scale))) };
}

/** symmetric int8 per output channel in `bits` (weights laid out output channel first) */
export function int8PerChannel(weights: Float32Array, channels: number, bits: WeightBits): { values: Int8Array; scales: Float32Array } {
  const size = weights.length / channels;
  const largest = 2 ** (bits - 1) - 1;
  const values = new Int8Array(weights.length);
  const scales = new Float32Array(channels);
  for (let c = 0; c < channels; c++) {
    let peak = 0;
    for (let i = c * size; i < (c + 1) * size; i++) peak = Math.max(peak, Math.abs(weights[i]));
    const scale = (scales[c] = peak > 0 ? peak / largest : 1);
    for (let i = c * size; i < (c + 1) * size; i++) values[i] = Math.round(weights[i] / scale);
  }
  return { values, scales };
}

/** Relu, or Clip with a lower bound of 0: a uint8 zero point of 0 makes them redundant after quantisation */
function isZeroFloorActivation(node: onnx.INodeProto, initializers: Map<string, onnx.ITensorProto>): boolean {
  if (node.opType === 'Relu') return true;
  if (node.opType !== 'Clip' || !node.input![1]) return false;
  const low = initializers.get(node.input![1]);
  return low !== undefined && floatData(low)[0] === 0;
}

function topologicalOrder(nodes: onnx.INodeProto[], graph: onnx.IGraphProto): onnx.INodeProto[] {
  const available = new Set<string>(['', ...graph.input!.map((i) => i.name!), ...graph.initializer!.map((t) => t.name!)]);
  const ordered: onnx.INodeProto[] = [];
  let pending = nodes;
  while (pending.length) {
    const next: onnx.INodeProto[] = [];
    for (const node of pending) {
      if (node.input!.every((name) => available.has(name))) {
        ordered.push(node);
        for (const output of node.output!) available.add(output);
      } else next.push(node);
    }
    if (next.length === pending.length) throw new Error(`the quantised graph has a cycle or a missing input (${next[0].name})`);
    pending = next;
  }
  return ordered;
}

/**
 * A DepthToSpace that reads a dequantised activation moves its bytes instead (it only reorders
 * values, and one scale holds for the whole tensor): four times fewer bytes to move, and the
 * dequantisation follows it. The activation's own dequantisation is dropped when nothing else reads it.
 */
function moveDepthToSpaceBeforeDequantize(nodes: onnx.INodeProto[], quantized: Map<string, QuantizedActivation>, added: onnx.INodeProto[]): void {
  const activations = new Map([...quantized.values()].map((activation) => [activation.dequantized, activation]));
  for (const node of nodes) {
    const activation = node.opType === 'DepthToSpace' ? activations.get(node.input![0]) : undefined;
    if (activation === undefined) continue;
    const spaced = node.output![0];
    // named apart from `${spaced}_quantized`, which an int8 convolution reading `spaced` quantises again (onnxruntime drops that pair)
    node.input = [activation.quantized];
    node.output = [`${spaced}_spaced_quantized`];
    added.push({ opType: 'DequantizeLinear', name: `${spaced}_spaced_dequantized_node`, input: [node.output[0], activation.scaleName, activation.zeroName], output: [spaced] });
  }
  const read = new Set([...nodes, ...added].flatMap((node) => node.input!));
  for (let i = added.length - 1; i >= 0; i--) {
    if (added[i].opType === 'DequantizeLinear' && activations.has(added[i].output![0]) && !read.has(added[i].output![0])) added.splice(i, 1);
  }
}

/**
 * A DepthToSpace (DCR) on the bytes of an int8 convolution's output, done in channels-last order:
 * onnxruntime runs QLinearConv channels-last and transposes its output to NCHW, so the first
 * transpose here cancels that one, the phases are put in place moving runs of blocksize x C bytes
 * instead of single bytes, and one transpose goes back to NCHW. At `human`'s 640x360 (RVM's output
 * block, 16 channels; AMD EPYC Zen 4, one thread): DepthToSpace 7.1 ms, the transposes here 3.0;
 * the values the same. `channels`: the convolution's output channels (blocksize^2 x C).
 */
function channelsLastDepthToSpace(graph: onnx.IGraphProto, toSpace: onnx.INodeProto, channels: number): onnx.INodeProto[] {
  const block = Number(attribute(toSpace, 'blocksize')!.i);
  const perPhase = channels / (block * block);
  const [input, output, base] = [toSpace.input![0], toSpace.output![0], toSpace.name!];
  const shape = (name: string, values: number[]) => addInitializer(graph, `${base}_${name}`, DataType.INT64, [values.length], BigInt64Array.from(values.map(BigInt)));
  const perm = (values: number[]): onnx.IAttributeProto[] => [{ name: 'perm', type: onnx.AttributeProto.AttributeType.INTS, ints: values }];
  const step = (opType: string, inputs: string[], out: string, attribute: onnx.IAttributeProto[] = []): onnx.INodeProto => ({ opType, name: `${base}_${out}`, input: inputs, output: [`${base}_${out}`], attribute });
  const nodes = [
    step('Transpose', [input], 'nhwc', perm([0, 2, 3, 1])), // [N, h, w, b*b*C]
    step('Reshape', [`${base}_nhwc`, shape('rows_shape', [0, 0, 0, block, -1])], 'rows'), // [N, h, w, b, b*C]
    step('Transpose', [`${base}_rows`], 'rows_placed', perm([0, 1, 3, 2, 4])), // [N, h, b, w, b*C]
    step('Reshape', [`${base}_rows_placed`, shape('columns_shape', [0, 0, 0, -1, perPhase])], 'placed'), // [N, h, b, w*b, C]
    step('Transpose', [`${base}_placed`], 'nchw', perm([0, 4, 1, 2, 3])), // [N, C, h, b, w*b]
    step('Shape', [`${base}_nchw`], 'dims'),
    step('Slice', [`${base}_dims`, shape('last', [4]), shape('end', [5])], 'width'),
    step('Concat', [shape('leading', [0, 0, -1]), `${base}_width`], 'space_shape', [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }]),
  ];
  nodes.push({ opType: 'Reshape', name: `${base}_space`, input: [`${base}_nchw`, `${base}_space_shape`], output: [output] }); // [N, C, h*b, w*b]
  return nodes;
}
