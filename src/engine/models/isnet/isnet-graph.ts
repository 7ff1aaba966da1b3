import { onnx } from 'onnx-proto';
import { attribute, int64Data } from '../onnx/graph-parts';
import { halfToFloat } from '../tflite/tensor-data';

/**
 * Rewrites of the ISNet ONNX graph shipped by @imgly (trained and exported at 1024x1024):
 * fp16 -> fp32 (onnxruntime's CPU kernels run fp16 convolutions several times slower),
 * Resize targets that follow another input size, a single output, and uint8 RGB input.
 */

export const ISNET_EXPORT_SIZE = 1024;
/**
 * The output `original` and `pro` read: the side output of ISNet's second decoder stage (a quarter
 * of the input's size, scaled up to it), not the final one of its first stage, whose decoder (an
 * RSU-7 at half the input's size, a quarter of the model's work) is then pruned with the outputs not
 * read. Measured in int8 on every 10th frame of car-slide, portrait-pan and five DAVIS clips (AMD
 * EPYC Zen 5, 2 threads, whole frames): mean IoU 0.8729 -> 0.8712, a run 439 -> 334 ms (median);
 * the third stage's output 0.8630 in 281 ms, the fourth's 0.8455 in 257.
 */
export const ISNET_OUTPUT = '1890';

const FLOAT = onnx.TensorProto.DataType.FLOAT;
const FLOAT16 = onnx.TensorProto.DataType.FLOAT16;
const UINT8 = onnx.TensorProto.DataType.UINT8;
const INT64 = onnx.TensorProto.DataType.INT64;

let halfTable: Float32Array | undefined;
function halfLookup(): Float32Array {
  if (!halfTable) {
    halfTable = new Float32Array(65536);
    for (let bits = 0; bits < 65536; bits++) halfTable[bits] = halfToFloat(bits);
  }
  return halfTable;
}

function fp16TensorToFp32(tensor: onnx.ITensorProto): void {
  const table = halfLookup();
  let halves: Uint16Array;
  if (tensor.rawData && tensor.rawData.length > 0) {
    const raw = new Uint8Array(tensor.rawData); // aligned copy
    halves = new Uint16Array(raw.buffer, raw.byteOffset, raw.byteLength / 2);
  } else {
    halves = Uint16Array.from(tensor.int32Data ?? []); // fp16 bits stored in int32_data
  }
  const floats = new Float32Array(halves.length);
  for (let i = 0; i < halves.length; i++) floats[i] = table[halves[i]];
  tensor.dataType = FLOAT;
  tensor.int32Data = [];
  tensor.rawData = new Uint8Array(floats.buffer);
}

/** Converts fp16 weights to fp32 and removes the fp16<->fp32 Cast nodes around them. */
export function convertToFloat32(model: onnx.IModelProto): void {
  const graph = model.graph!;
  for (const tensor of graph.initializer ?? []) if (tensor.dataType === FLOAT16) fp16TensorToFp32(tensor);
  for (const node of graph.node ?? []) {
    if (node.opType !== 'Constant') continue;
    const value = attribute(node, 'value');
    if (value?.t && value.t.dataType === FLOAT16) fp16TensorToFp32(value.t);
  }
  const graphOutputs = new Set((graph.output ?? []).map((o) => o.name));
  const renamed = new Map<string, string>();
  const kept: onnx.INodeProto[] = [];
  for (const node of graph.node ?? []) {
    const to = node.opType === 'Cast' ? Number(attribute(node, 'to')?.i ?? 0) : 0;
    const isFloatCast = to === FLOAT || to === FLOAT16;
    if (isFloatCast && !graphOutputs.has(node.output![0])) {
      renamed.set(node.output![0], node.input![0]);
      continue;
    }
    if (isFloatCast) attribute(node, 'to')!.i = FLOAT;
    kept.push(node);
  }
  const resolve = (name: string): string => {
    let current = name;
    while (renamed.has(current)) current = renamed.get(current)!;
    return current;
  };
  for (const node of kept) node.input = (node.input ?? []).map(resolve);
  graph.node = kept;
  graph.valueInfo = []; // held fp16 types; onnxruntime infers shapes itself
}

/** Drops every graph output but `name`, so onnxruntime prunes the side branches. */
export function keepSingleOutput(model: onnx.IModelProto, name: string): void {
  const graph = model.graph!;
  const output = graph.output?.find((o) => o.name === name);
  if (!output) throw new Error(`graph has no output ${name}`);
  graph.output = [output];
}

/** Size of a feature map `level` stride-2 steps (ceil mode) below an input of `size`. */
export function downscaledSize(size: number, level: number): number {
  let s = size;
  for (let i = 0; i < level; i++) s = Math.ceil(s / 2);
  return s;
}

/**
 * Each Resize in the export takes its target size from Concat(Slice(Shape(x), 0, 2), Constant[h, w])
 * with [h, w] baked for a 1024x1024 input. Rewrites each constant to the size the same feature map
 * has for an input of `height` x `width`. Returns how many constants were patched.
 */
export function retargetResizeSizes(model: onnx.IModelProto, height: number, width: number): number {
  const graph = model.graph!;
  const producers = new Map<string, onnx.INodeProto>();
  for (const node of graph.node ?? []) for (const output of node.output ?? []) producers.set(output, node);
  const patched = new Set<onnx.INodeProto>();
  for (const resize of (graph.node ?? []).filter((n) => n.opType === 'Resize')) {
    const sizes = producers.get(resize.input?.[3] ?? '');
    const constant = sizes?.opType === 'Concat' ? producers.get(sizes.input?.[1] ?? '') : undefined;
    const tensor = constant?.opType === 'Constant' ? attribute(constant, 'value')?.t : undefined;
    if (!constant || !tensor?.rawData) throw new Error(`Resize ${resize.name} does not take its size from a constant`);
    if (patched.has(constant)) continue;
    const [h, w] = int64Data(tensor);
    const level = Math.log2(ISNET_EXPORT_SIZE / h);
    if (!Number.isInteger(level) || h !== w) throw new Error(`unexpected Resize size ${h}x${w}`);
    const target = BigInt64Array.of(BigInt(downscaledSize(height, level)), BigInt(downscaledSize(width, level)));
    tensor.rawData = new Uint8Array(target.buffer);
    patched.add(constant);
  }
  for (const put of [...(graph.input ?? []), ...(graph.output ?? [])]) {
    const dims = put.type?.tensorType?.shape?.dim;
    if (dims?.length === 4) {
      dims[2] = { dimValue: height };
      dims[3] = { dimValue: width };
    }
  }
  return patched.size;
}

/**
 * Replaces the float NCHW input by packed RGB24 bytes [1, h, w, 3] of any size, so a frame goes in
 * without a per-pixel JS loop: the bytes are scaled to the model's H x W (bilinear, in bytes, in
 * onnxruntime's NHWC path: a frame no longer has to be decoded at or scaled to ISNet's square in
 * JavaScript), and the normalisation (x - 128) / 256 is a dequantisation of the bytes (scale 1/256,
 * zero point 128), one node instead of a cast, a subtraction and a multiplication, the same values.
 */
export function acceptRgbBytes(model: onnx.IModelProto, height: number, width: number, inputName = 'rgb'): void {
  const graph = model.graph!;
  const original = graph.input![0].name!;
  const prefix = (name: string) => `rgb_input/${name}`;
  const strings = (value: string) => new TextEncoder().encode(value);
  graph.initializer!.push(
    { name: prefix('scale'), dataType: FLOAT, dims: [], rawData: new Uint8Array(Float32Array.of(1 / 256).buffer) },
    { name: prefix('zero'), dataType: UINT8, dims: [], rawData: Uint8Array.of(128) },
    { name: prefix('size'), dataType: INT64, dims: [4], rawData: new Uint8Array(BigInt64Array.of(1n, BigInt(height), BigInt(width), 3n).buffer) },
  );
  const nodes: onnx.INodeProto[] = [
    {
      opType: 'Resize',
      name: prefix('resize'),
      input: [inputName, '', '', prefix('size')],
      output: [prefix('scaled')],
      attribute: [
        { name: 'mode', type: onnx.AttributeProto.AttributeType.STRING, s: strings('linear') },
        { name: 'coordinate_transformation_mode', type: onnx.AttributeProto.AttributeType.STRING, s: strings('half_pixel') },
      ],
    },
    { opType: 'Transpose', name: prefix('nchw'), input: [prefix('scaled')], output: [prefix('planar')], attribute: [{ name: 'perm', type: onnx.AttributeProto.AttributeType.INTS, ints: [0, 3, 1, 2] }] },
    { opType: 'DequantizeLinear', name: prefix('normalize'), input: [prefix('planar'), prefix('scale'), prefix('zero')], output: [original] },
  ];
  graph.node = [...nodes, ...(graph.node ?? [])];
  graph.input = [
    {
      name: inputName,
      type: { tensorType: { elemType: UINT8, shape: { dim: [{ dimValue: 1 }, { dimParam: 'height' }, { dimParam: 'width' }, { dimValue: 3 }] } } },
    },
  ];
}

/** Removes the nodes (and initializers) that no graph output depends on: the side outputs' heads. */
export function removeUnusedNodes(model: onnx.IModelProto): number {
  const graph = model.graph!;
  const needed = new Set((graph.output ?? []).map((o) => o.name!));
  const kept: onnx.INodeProto[] = [];
  for (const node of [...(graph.node ?? [])].reverse()) {
    if (!(node.output ?? []).some((o) => needed.has(o))) continue;
    kept.push(node);
    for (const input of node.input ?? []) needed.add(input);
  }
  const removed = (graph.node ?? []).length - kept.length;
  graph.node = kept.reverse();
  graph.initializer = (graph.initializer ?? []).filter((t) => needed.has(t.name!));
  return removed;
}
