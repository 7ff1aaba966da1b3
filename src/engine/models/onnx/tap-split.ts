import { onnx } from 'onnx-proto';
import { addInitializer, addOnePixelPads, dropUnreadInitializers, floatData } from './graph-parts';
import { isSame3x3 } from './upsample-conv-fold';

const { DataType } = onnx.TensorProto;
const { INTS } = onnx.AttributeProto.AttributeType;

/** a Slice end past any size: the rest of the axis */
const TO_THE_END = 2n ** 62n;

/**
 * Rewrites each "same" 3x3 convolution with one output channel as a 1x1
 * convolution to its nine taps (one output channel per tap) and their sum, each tap shifted into
 * place (a Slice of the taps padded by a pixel), plus the bias. onnxruntime's int8 convolution
 * copies a 3x3 convolution's input out nine times over (im2col) whatever its output channels, and
 * for one output channel that copy is nearly all of it: ISNet's head (64 channels to the foreground
 * logit at 512x512) took 26 ms a run as one int8 convolution, 2.5 ms as the 1x1 one plus about 3 ms
 * of float shifting and summing (AMD EPYC Zen 5, 2 threads). The 1x1 convolution keeps the name (and
 * so the calibrated input range) of the convolution it replaces; the sum gives its output. Returns
 * the names of the convolutions rewritten.
 */
export function splitSingleOutputConvs(model: onnx.IModelProto): string[] {
  const graph = model.graph!;
  const initializers = new Map(graph.initializer!.map((t) => [t.name!, t]));
  const split: string[] = [];
  graph.node = graph.node!.flatMap((conv) => {
    const weights = isSame3x3(conv, initializers) ? initializers.get(conv.input![1])! : undefined;
    const bias = conv.input![2] ? initializers.get(conv.input![2]) : undefined;
    if (!weights || Number(weights.dims![0]) !== 1 || (conv.input![2] && !bias)) return [conv];
    split.push(conv.name!);
    return tapNodes(graph, conv, floatData(weights), Number(weights.dims![1]), bias ? floatData(bias)[0] : 0);
  });
  dropUnreadInitializers(graph);
  return split;
}

function tapNodes(graph: onnx.IGraphProto, conv: onnx.INodeProto, weights: Float32Array, channels: number, bias: number): onnx.INodeProto[] {
  const base = conv.name!;
  const int64 = (name: string, values: bigint[]) => addInitializer(graph, `${base}_${name}`, DataType.INT64, [values.length], BigInt64Array.from(values));
  const perTap = new Float32Array(9 * channels);
  for (let tap = 0; tap < 9; tap++) for (let c = 0; c < channels; c++) perTap[tap * channels + c] = weights[c * 9 + tap];
  const taps = `${base}_taps`;
  const nodes: onnx.INodeProto[] = [
    { opType: 'Conv', name: base, input: [conv.input![0], addInitializer(graph, `${base}_tap_weights`, DataType.FLOAT, [9, channels, 1, 1], perTap)], output: [taps], attribute: [{ name: 'kernel_shape', type: INTS, ints: [1, 1] }] },
    { opType: 'Pad', name: `${taps}_padded`, input: [taps, addOnePixelPads(graph, `${base}_tap_pads`)], output: [`${taps}_padded`] },
  ];
  // tap (dy, dx) of output pixel (y, x) reads padded pixel (y + dy, x + dx): rows dy .. dy + height
  const end = (offset: number) => (offset === 2 ? TO_THE_END : BigInt(offset - 2));
  const axes = int64('tap_axes', [1n, 2n, 3n]);
  for (let tap = 0; tap < 9; tap++) {
    const [dy, dx] = [Math.floor(tap / 3), tap % 3];
    const range = [int64(`tap${tap}_starts`, [BigInt(tap), BigInt(dy), BigInt(dx)]), int64(`tap${tap}_ends`, [BigInt(tap + 1), end(dy), end(dx)]), axes];
    nodes.push({ opType: 'Slice', name: `${taps}_${tap}`, input: [`${taps}_padded`, ...range], output: [`${taps}_${tap}`] });
  }
  const biasName = addInitializer(graph, `${base}_tap_bias`, DataType.FLOAT, [1], Float32Array.of(bias));
  nodes.push({ opType: 'Sum', name: `${base}_sum`, input: [...nodes.slice(2).map((slice) => slice.output![0]), biasName], output: [conv.output![0]] });
  return nodes;
}
