import { onnx } from 'onnx-proto';
import { addInitializer, addOnePixelPads, attribute, attributeInts, attributeText, dropUnreadInitializers, floatData, readersByTensor } from './graph-parts';

const { DataType } = onnx.TensorProto;
const { INT, INTS, STRING } = onnx.AttributeProto.AttributeType;

/**
 * The weights a 3x3 convolution applies to the input of a 2x bilinear upsampling (half-pixel
 * centres), per output phase. Upsampled, row 2i is 0.25 x[i-1] + 0.75 x[i] and row 2i+1 is
 * 0.75 x[i] + 0.25 x[i+1]; a 3x3 tap d (-1, 0, 1) at row 2i+p reads upsampled row 2i+p+d, so in
 * phase p the convolution reads x[i-1], x[i], x[i+1] with PHASE_TAPS[p][a][d] times its tap d.
 */
const PHASE_TAPS = [
  [
    [0.75, 0.25, 0],
    [0.25, 0.75, 0.75],
    [0, 0, 0.25],
  ],
  [
    [0.25, 0, 0],
    [0.75, 0.75, 0.25],
    [0, 0.25, 0.75],
  ],
];

/**
 * Rewrites each 2x bilinear upsampling (Resize, linear, half_pixel, scales [1, 1, 2, 2]) read by
 * nothing but a 3x3 convolution (stride 1, padding 1, no groups) that `where` accepts into one
 * convolution at the low size that computes the four output phases at once, put in place by
 * DepthToSpace: the same multiply-adds, without the upsampled tensor. The input is padded by
 * repeating its edge, as the upsampling clamps there, so the values are the same but in the
 * outermost ring of pixels, where the convolution's zero padding of the upsampled tensor becomes
 * the edge repeated: fold only where nothing carries that ring on (a recurrent state would spread
 * it inwards frame after frame). The convolution keeps its name (int8 calibration ranges are keyed
 * by it) and its output. Returns how many were rewritten.
 */
export function foldUpsampledConvs(model: onnx.IModelProto, where: (conv: onnx.INodeProto) => boolean): number {
  const graph = model.graph!;
  const initializers = new Map(graph.initializer!.map((t) => [t.name!, t]));
  const readers = readersByTensor(graph);
  const graphOutputs = new Set(graph.output!.map((output) => output.name!));
  const nodes = [...graph.node!];
  let folded = 0;
  for (const resize of graph.node!) {
    if (!isBilinearDoubling(resize, initializers) || graphOutputs.has(resize.output![0])) continue;
    const users = readers.get(resize.output![0]) ?? [];
    const conv = users[0];
    if (users.length !== 1 || !isSame3x3(conv, initializers) || !where(conv)) continue;
    const weights = initializers.get(conv.input![1])!;
    const [outChannels, inChannels] = weights.dims!.map(Number);
    const base = conv.name!;
    const pads = addOnePixelPads(graph, `${base}_edge_pads`);
    const phaseWeights = addInitializer(graph, `${base}_phase_weights`, DataType.FLOAT, [4 * outChannels, inChannels, 3, 3], phaseKernels(floatData(weights), outChannels * inChannels));
    const bias = conv.input![2] ? initializers.get(conv.input![2]) : undefined;
    const phaseBias = bias ? [addInitializer(graph, `${base}_phase_bias`, DataType.FLOAT, [4 * outChannels], tile(floatData(bias), 4))] : [];
    const padded = `${base}_edge_padded`;
    const phases = `${base}_phases`;
    nodes.splice(
      nodes.indexOf(conv),
      1,
      { opType: 'Pad', name: `${base}_edge_pad`, input: [resize.input![0], pads], output: [padded], attribute: [{ name: 'mode', type: STRING, s: new TextEncoder().encode('edge') }] },
      { opType: 'Conv', name: base, input: [padded, phaseWeights, ...phaseBias], output: [phases], attribute: [{ name: 'kernel_shape', type: INTS, ints: [3, 3] }] },
      { opType: 'DepthToSpace', name: `${base}_phases_to_space`, input: [phases], output: [conv.output![0]], attribute: [{ name: 'blocksize', type: INT, i: 2 }, { name: 'mode', type: STRING, s: new TextEncoder().encode('DCR') }] },
    );
    nodes.splice(nodes.indexOf(resize), 1);
    folded++;
  }
  graph.node = nodes;
  dropUnreadInitializers(graph);
  return folded;
}

/** `kernels` 3x3 kernels -> 4 x as many: phase (py, px) first (2 py + px), DepthToSpace's DCR order */
function phaseKernels(weights: Float32Array, kernels: number): Float32Array {
  const phased = new Float32Array(4 * weights.length);
  for (let py = 0; py < 2; py++) {
    for (let px = 0; px < 2; px++) {
      for (let kernel = 0; kernel < kernels; kernel++) {
        const from = kernel * 9;
        const to = ((2 * py + px) * kernels + kernel) * 9;
        for (let a = 0; a < 3; a++) {
          for (let b = 0; b < 3; b++) {
            let sum = 0;
            for (let dy = 0; dy < 3; dy++) for (let dx = 0; dx < 3; dx++) sum += PHASE_TAPS[py][a][dy] * PHASE_TAPS[px][b][dx] * weights[from + dy * 3 + dx];
            phased[to + a * 3 + b] = sum;
          }
        }
      }
    }
  }
  return phased;
}

function tile(values: Float32Array, times: number): Float32Array {
  const out = new Float32Array(values.length * times);
  for (let t = 0; t < times; t++) out.set(values, t * values.length);
  return out;
}

function isBilinearDoubling(node: onnx.INodeProto, initializers: Map<string, onnx.ITensorProto>): boolean {
  if (node.opType !== 'Resize' || attributeText(node, 'mode') !== 'linear' || attributeText(node, 'coordinate_transformation_mode') !== 'half_pixel') return false;
  const scales = initializers.get(node.input![2] ?? '');
  return scales !== undefined && !node.input![3] && floatData(scales).join() === '1,1,2,2';
}

export function isSame3x3(node: onnx.INodeProto | undefined, initializers: Map<string, onnx.ITensorProto>): node is onnx.INodeProto {
  if (node?.opType !== 'Conv') return false;
  const dims = initializers.get(node.input![1])?.dims?.map(Number) ?? [];
  const unit = (name: string) => attributeInts(node, name).every((v) => v === 1);
  const group = Number(attribute(node, 'group')?.i ?? 1);
  return dims.length === 4 && dims[2] === 3 && dims[3] === 3 && group === 1 && unit('strides') && unit('dilations') && attributeInts(node, 'pads').join() === '1,1,1,1' && attributeText(node, 'auto_pad') === undefined;
}
