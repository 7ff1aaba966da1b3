import { onnx } from 'onnx-proto';
import { addInitializer, addOnePixelPads, attribute, attributeText, dropUnreadInitializers, floatData, readersByTensor } from './graph-parts';
import { isSame3x3 } from './upsample-conv-fold';

const { DataType } = onnx.TensorProto;
const { INT, INTS, STRING } = onnx.AttributeProto.AttributeType;

/**
 * Merges a "same" 3x3 convolution of a full-size input into the phase convolution whose output it
 * is added to (upsample-conv-fold.ts: a convolution at half size computing the four output phases,
 * put in place by DepthToSpace). RVM's output block convolves the image (3 channels) beside the
 * upsampled features, and adds the two at full size before its Relu. Here the image goes to half
 * size as its four phases (SpaceToDepth: 12 channels), zero-padded as the full-size convolution
 * pads it, and one convolution reads it beside the features with both kernels, so the sum and the
 * Relu come out of one convolution at half size. In int8 the Relu then folds into the output's
 * quantisation, and the full-size float convolution, the Add, the Relu and onnxruntime's layout
 * changes around them (11 ms of one 47 ms run at `human`'s 640x360) are gone; the image's 12 channels
 * make the int8 convolution about a third longer.
 *
 * `sideScale` multiplies the phased input before it is read (its kernels divided by as much): one
 * uint8 range covers the input the merged convolution reads, so the side input (RVM's image, 0..1)
 * is brought to about the features' range, rather than taking a few dozen of its 256 levels. The
 * same values in fp32, and the merged convolution keeps the Add's name with `_phases`. Returns how
 * many were merged.
 */
export function mergeSideConvsIntoPhases(model: onnx.IModelProto, sideScale: number): number {
  const graph = model.graph!;
  const initializers = new Map(graph.initializer!.map((t) => [t.name!, t]));
  const readers = readersByTensor(graph);
  const producers = new Map(graph.node!.flatMap((node) => node.output!.map((output) => [output, node] as const)));
  const graphOutputs = new Set(graph.output!.map((output) => output.name!));
  const onlyReader = (tensor: string) => (graphOutputs.has(tensor) ? undefined : (readers.get(tensor) ?? []).length === 1 ? readers.get(tensor)![0] : undefined);
  let nodes = [...graph.node!];
  let merged = 0;
  for (const add of graph.node!) {
    const match = add.opType === 'Add' ? matchAt(add, producers, initializers, onlyReader) : undefined;
    if (!match) continue;
    const relu = onlyReader(add.output![0]);
    const last = relu?.opType === 'Relu' ? relu : undefined;
    const steps = mergedSteps(graph, match, initializers, last ?? add, last !== undefined, sideScale);
    const gone = new Set([match.phaseConv, match.toSpace, match.side, add, ...(last ? [last] : [])]);
    nodes = nodes.flatMap((node) => (node === (last ?? add) ? steps : gone.has(node) ? [] : [node]));
    merged++;
  }
  graph.node = nodes;
  dropUnreadInitializers(graph);
  return merged;
}

interface Merge {
  add: onnx.INodeProto;
  phaseConv: onnx.INodeProto;
  toSpace: onnx.INodeProto;
  side: onnx.INodeProto;
}

/** the phase convolution and the side convolution added by `add`, each read by nothing else, with initializer weights and biases */
function matchAt(add: onnx.INodeProto, producers: Map<string, onnx.INodeProto>, initializers: Map<string, onnx.ITensorProto>, onlyReader: (tensor: string) => onnx.INodeProto | undefined): Merge | undefined {
  if (add.input!.length !== 2) return undefined;
  const [toSpace, side] = orderedPair(add.input!.map((name) => producers.get(name)));
  if (!toSpace || !side || !isPhasesToSpace(toSpace) || !isSame3x3(side, initializers)) return undefined;
  const phaseConv = producers.get(toSpace.input![0]);
  if (phaseConv?.opType !== 'Conv' || onlyReader(phaseConv.output![0]) !== toSpace || onlyReader(toSpace.output![0]) !== add || onlyReader(side.output![0]) !== add) return undefined;
  const phaseDims = initializers.get(phaseConv.input![1])?.dims?.map(Number);
  const sideDims = initializers.get(side.input![1])!.dims!.map(Number);
  if (phaseDims?.slice(2).join() !== '3,3' || attribute(phaseConv, 'pads') || phaseDims[0] !== 4 * sideDims[0]) return undefined;
  if ([phaseConv.input![2], side.input![2]].some((bias) => bias && !initializers.has(bias))) return undefined;
  return { add, phaseConv, toSpace, side };
}

/** the nodes that replace the match, the last giving `result`'s output (with `relu`, the Relu before the phases are put in place) */
function mergedSteps(graph: onnx.IGraphProto, { add, phaseConv, side }: Merge, initializers: Map<string, onnx.ITensorProto>, result: onnx.INodeProto, relu: boolean, sideScale: number): onnx.INodeProto[] {
  const [phaseWeights, sideWeights] = [initializers.get(phaseConv.input![1])!, initializers.get(side.input![1])!];
  const [, featureChannels] = phaseWeights.dims!.map(Number);
  const [outChannels, sideChannels] = sideWeights.dims!.map(Number);
  const base = `${add.name}_phases`;
  const weights = mergedKernels(floatData(phaseWeights), featureChannels, floatData(sideWeights), outChannels, sideChannels, sideScale);
  const biases = [phaseConv.input![2], side.input![2]].map((name) => (name ? initializers.get(name) : undefined));
  const step = (opType: string, name: string, input: string[], attribute: onnx.IAttributeProto[] = []): onnx.INodeProto => ({ opType, name: `${base}${name}`, input, output: [`${base}${name}`], attribute });
  const steps = [
    step('SpaceToDepth', '_side_phased', [side.input![0]], [{ name: 'blocksize', type: INT, i: 2 }]),
    step('Mul', '_side_scaled', [`${base}_side_phased`, addInitializer(graph, `${base}_side_scale`, DataType.FLOAT, [], Float32Array.of(sideScale))]),
    step('Pad', '_side_padded', [`${base}_side_scaled`, addOnePixelPads(graph, `${base}_side_pads`)]),
    step('Concat', '_input', [phaseConv.input![0], `${base}_side_padded`], [{ name: 'axis', type: INT, i: 1 }]),
    step('Conv', '', [`${base}_input`, addInitializer(graph, `${base}_weights`, DataType.FLOAT, [4 * outChannels, featureChannels + 4 * sideChannels, 3, 3], weights), mergedBias(graph, base, biases, outChannels)], [{ name: 'kernel_shape', type: INTS, ints: [3, 3] }]),
  ];
  if (relu) steps.push(step('Relu', '_relu', [base]));
  const toSpace = step('DepthToSpace', '_to_space', [steps[steps.length - 1].output![0]], [{ name: 'blocksize', type: INT, i: 2 }, { name: 'mode', type: STRING, s: new TextEncoder().encode('DCR') }]);
  return [...steps, { ...toSpace, output: [result.output![0]] }];
}

/** the phase convolution's bias [4 O] plus the side convolution's [O] in every phase */
function mergedBias(graph: onnx.IGraphProto, base: string, [phase, side]: (onnx.ITensorProto | undefined)[], outChannels: number): string {
  const sum = phase ? floatData(phase).slice() : new Float32Array(4 * outChannels);
  const sideValues = side ? floatData(side) : new Float32Array(outChannels);
  for (let i = 0; i < sum.length; i++) sum[i] += sideValues[i % outChannels];
  return addInitializer(graph, `${base}_bias`, DataType.FLOAT, [4 * outChannels], sum);
}

/** [the DepthToSpace, the other producer] in that order, whichever input of the Add each is */
function orderedPair([a, b]: (onnx.INodeProto | undefined)[]): [onnx.INodeProto | undefined, onnx.INodeProto | undefined] {
  return a?.opType === 'DepthToSpace' ? [a, b] : [b, a];
}

function isPhasesToSpace(node: onnx.INodeProto): boolean {
  return node.opType === 'DepthToSpace' && Number(attribute(node, 'blocksize')?.i) === 2 && (attributeText(node, 'mode') ?? 'DCR') === 'DCR';
}

/**
 * The phase kernels [4 O, F, 3, 3] with the side kernels [O, S, 3, 3] beside them, read at half size
 * from SpaceToDepth's channels ((2 qy + qx) S + s). Output phase (py, px) at half-size (i, j) is
 * full-size (2i + py, 2j + px); the side kernel's tap dy there reads full-size row 2i + py + dy,
 * which is half-size row i + a in phase qy, for py + dy = 2a + qy, and likewise across.
 */
function mergedKernels(phase: Float32Array, features: number, side: Float32Array, outChannels: number, sideChannels: number, sideScale: number): Float32Array {
  const inputs = features + 4 * sideChannels;
  const out = new Float32Array(4 * outChannels * inputs * 9);
  for (let p = 0; p < 4 * outChannels; p++) out.set(phase.subarray(p * features * 9, (p + 1) * features * 9), p * inputs * 9);
  for (let py = 0; py < 2; py++) {
    for (let px = 0; px < 2; px++) {
      for (let o = 0; o < outChannels; o++) {
        const row = ((2 * py + px) * outChannels + o) * inputs;
        for (let s = 0; s < sideChannels; s++) {
          for (let dy = -1; dy <= 1; dy++) {
            for (let dx = -1; dx <= 1; dx++) {
              const [a, qy] = [Math.floor((py + dy) / 2), (((py + dy) % 2) + 2) % 2];
              const [b, qx] = [Math.floor((px + dx) / 2), (((px + dx) % 2) + 2) % 2];
              const channel = features + (2 * qy + qx) * sideChannels + s;
              out[((row + channel) * 3 + (a + 1)) * 3 + (b + 1)] = side[((o * sideChannels + s) * 3 + (dy + 1)) * 3 + (dx + 1)] / sideScale;
            }
          }
        }
      }
    }
  }
  return out;
}
