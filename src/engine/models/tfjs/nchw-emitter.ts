import { OnnxGraphBuilder } from '../onnx/graph-builder';
import { transpose4d } from '../tflite/tensor-data';
import { attrInts, attrString, attrStrings, ConstTensor, TfNode } from './tfjs-graph-model';
import { ActivationValue, shapeOf } from './values';

/** NHWC axis -> NCHW axis */
const NCHW_AXIS = [0, 2, 3, 1];

export type Operand = ActivationValue | ConstTensor;

function isActivation(operand: Operand): operand is ActivationValue {
  return (operand as ActivationValue).kind === 'tensor';
}

/** TF ops on static-shaped activations, emitted as ONNX ops on NCHW tensors. */
export class NchwEmitter {
  constructor(private readonly builder: OnnxGraphBuilder) {}

  private tensor(name: string, shape: number[]): ActivationValue {
    return { kind: 'tensor', name, shape };
  }

  private axis(tfAxis: number, rank: number): number {
    const axis = tfAxis < 0 ? tfAxis + rank : tfAxis;
    if (rank !== 4) throw new Error(`rank-${rank} activations are not supported`);
    return NCHW_AXIS[axis];
  }

  /**
   * Conv2D, DepthwiseConv2dNative and their fused forms (BiasAdd, Relu, Relu6). `dilatedPads`
   * ([top, left, bottom, right]) and `dilation` come from a pending SpaceToBatchND.
   */
  conv(node: TfNode, x: ActivationValue, weights: ConstTensor, bias: ConstTensor | undefined, dilation?: number[], dilatedPads?: number[]): ActivationValue {
    const depthwise = node.op.includes('Depthwise');
    const [n, h, w, c] = shapeOf(x);
    const [kh, kw, inC, mult] = weights.shape;
    const outC = depthwise ? inC * mult : mult;
    const strides = attrInts(node, 'strides').slice(1, 3);
    const dilations = dilation ?? (attrInts(node, 'dilations').length ? attrInts(node, 'dilations').slice(1, 3) : [1, 1]);
    const kernel = [kh, kw];
    const pads = dilatedPads ?? samePads(attrString(node, 'padding'), [h, w], kernel, strides, dilations);
    const outSize = [h + pads[0] + pads[2], w + pads[1] + pads[3]].map((size, i) => Math.floor((size - (kernel[i] - 1) * dilations[i] - 1) / strides[i]) + 1);
    // HWIO -> OIHW; depthwise HWCM -> (C*M)1HW, output channel c*M+m as in TF
    const onnxWeights = depthwise
      ? transpose4d(new Float32Array(weights.data), [kh, kw, 1, inC * mult], [3, 2, 0, 1])
      : transpose4d(new Float32Array(weights.data), [kh, kw, inC, outC], [3, 2, 0, 1]);
    const base = node.name;
    const inputs = [x.name, this.builder.addFloatInitializer(`${base}_w`, [outC, depthwise ? 1 : inC, kh, kw], onnxWeights)];
    const fused = attrStrings(node, 'fused_ops');
    if (fused.includes('BiasAdd')) inputs.push(this.builder.addFloatInitializer(`${base}_b`, [outC], new Float32Array(bias!.data)));
    else if (fused.length) throw new Error(`${node.op} fused ops ${fused.join(',')} are not supported`);
    let out = this.builder.addNode('Conv', inputs, base, { kernel_shape: kernel, strides, dilations, pads, group: depthwise ? c : 1 });
    for (const op of fused.slice(1)) out = this.activation(op, out, base);
    return this.tensor(out, [n, outSize[0], outSize[1], outC]);
  }

  /**
   * A convolution over channel-concatenated parts as the sum of one convolution per part. onnxruntime
   * runs a convolution in its blocked NCHWc layout (about twice as fast on AVX-512) only when the input
   * channels are a multiple of 4; RVM's decoder concatenates the 3-channel image to its features (35,
   * 59, 107, 171 channels), which fell back to the plain kernel. Split, the feature parts take the
   * fast path, the image part reads plain NCHW, each Add folds into the next convolution as its sum
   * input, the activation into the last, and no Concat is materialised.
   */
  splitConv(node: TfNode, parts: ActivationValue[], weights: ConstTensor, bias: ConstTensor | undefined): ActivationValue {
    const [kh, kw, inC, outC] = weights.shape;
    const fused = attrStrings(node, 'fused_ops');
    const order = parts.map((part, i) => ({ part, first: parts.slice(0, i).reduce((sum, p) => sum + shapeOf(p)[3], 0) })).sort((a, b) => shapeOf(a.part)[3] - shapeOf(b.part)[3]);
    let sum: ActivationValue | undefined;
    for (const [i, { part, first }] of order.entries()) {
      const channels = shapeOf(part)[3];
      const slice = new Float32Array(kh * kw * channels * outC);
      for (let k = 0; k < kh * kw; k++) slice.set(weights.data.subarray((k * inC + first) * outC, (k * inC + first + channels) * outC) as Float32Array, k * channels * outC);
      const last = i === order.length - 1;
      const partNode: TfNode = { ...node, name: `${node.name}_part${i}`, attr: { ...node.attr, fused_ops: { list: { s: last && fused.includes('BiasAdd') ? [Buffer.from('BiasAdd').toString('base64')] : [] } } } };
      const conv = this.conv(partNode, part, { dtype: 'float32', shape: [kh, kw, channels, outC], data: slice }, last ? bias : undefined);
      sum = sum ? this.tensor(this.builder.addNode('Add', [conv.name, sum.name], `${node.name}_sum${i}`), conv.shape!) : conv;
    }
    let out = sum!.name;
    for (const op of fused.slice(1)) out = this.activation(op, out, node.name);
    return this.tensor(out, sum!.shape!);
  }

  private activation(op: string, input: string, base: string): string {
    if (op === 'Relu') return this.builder.addNode('Relu', [input], `${base}_relu`);
    if (op === 'Relu6') return this.clip(input, 0, 6, base);
    throw new Error(`fused activation ${op} is not supported`);
  }

  private clip(input: string, low: number, high: number, base: string): string {
    const lo = this.builder.addFloatInitializer(`${base}_min`, [], Float32Array.of(low));
    const hi = this.builder.addFloatInitializer(`${base}_max`, [], Float32Array.of(high));
    return this.builder.addNode('Clip', [input, lo, hi], `${base}_clip`);
  }

  unary(node: TfNode, x: ActivationValue): ActivationValue {
    const op = { Relu: 'Relu', Sigmoid: 'Sigmoid', Tanh: 'Tanh' }[node.op];
    const name = node.op === 'Relu6' ? this.clip(x.name, 0, 6, node.name) : node.op === 'Square' ? this.builder.addNode('Mul', [x.name, x.name], node.name) : op ? this.builder.addNode(op, [x.name], node.name) : undefined;
    if (!name) throw new Error(`unary op ${node.op} is not supported`);
    return this.tensor(name, shapeOf(x));
  }

  /** elementwise ops with numpy broadcasting; constant operands are laid out for NCHW */
  binary(node: TfNode, a: Operand, b: Operand): ActivationValue {
    const op = { Mul: 'Mul', Add: 'Add', AddV2: 'Add', Sub: 'Sub', RealDiv: 'Div', Minimum: 'Min', Maximum: 'Max' }[node.op];
    if (!op) throw new Error(`binary op ${node.op} is not supported`);
    const shapes = [a, b].map((v) => (isActivation(v) ? shapeOf(v) : v.shape));
    const shape = [0, 1, 2, 3].map((i) => Math.max(...shapes.map((s) => [...Array<number>(4 - s.length).fill(1), ...s][i])));
    const names = [a, b].map((v, i) => (isActivation(v) ? v.name : this.constOperand(`${node.name}_c${i}`, v)));
    return this.tensor(this.builder.addNode(op, names, node.name), shape);
  }

  private constOperand(base: string, value: ConstTensor): string {
    if (value.shape.length > 4) throw new Error('constant operand of rank > 4');
    const nhwc = [...Array<number>(4 - value.shape.length).fill(1), ...value.shape];
    const data = transpose4d(new Float32Array(value.data), nhwc, [0, 3, 1, 2]);
    return this.builder.addFloatInitializer(base, value.shape.length === 0 ? [] : [nhwc[0], nhwc[3], nhwc[1], nhwc[2]], data);
  }

  pad(node: TfNode, x: ActivationValue, paddings: number[]): ActivationValue {
    const shape = shapeOf(x).map((d, i) => d + paddings[2 * i] + paddings[2 * i + 1]);
    const begin = [0, 3, 1, 2].map((i) => paddings[2 * i]);
    const end = [0, 3, 1, 2].map((i) => paddings[2 * i + 1]);
    const pads = this.builder.addInt64Initializer(`${node.name}_pads`, [...begin, ...end]);
    return this.tensor(this.builder.addNode('Pad', [x.name, pads], node.name, { mode: 'constant' }), shape);
  }

  /** TF AvgPool: SAME padding does not count the padded cells */
  avgPool(node: TfNode, x: ActivationValue): ActivationValue {
    const [n, h, w, c] = shapeOf(x);
    const kernel = attrInts(node, 'ksize').slice(1, 3);
    const strides = attrInts(node, 'strides').slice(1, 3);
    const pads = samePads(attrString(node, 'padding'), [h, w], kernel, strides, [1, 1]);
    const out = [h + pads[0] + pads[2], w + pads[1] + pads[3]].map((size, i) => Math.floor((size - kernel[i]) / strides[i]) + 1);
    const name = this.builder.addNode('AveragePool', [x.name], node.name, { kernel_shape: kernel, strides, pads, count_include_pad: 0 });
    return this.tensor(name, [n, out[0], out[1], c]);
  }

  mean(node: TfNode, x: ActivationValue, axes: number[], keepDims: boolean): ActivationValue {
    const shape = shapeOf(x);
    if (!keepDims) throw new Error('Mean without keep_dims is not supported');
    const normalized = axes.map((a) => (a < 0 ? a + shape.length : a)).sort();
    const outShape = shape.map((d, i) => (normalized.includes(i) ? 1 : d));
    if (normalized.join() === '1,2') return this.tensor(this.builder.addNode('GlobalAveragePool', [x.name], node.name), outShape);
    const onnxAxes = normalized.map((a) => this.axis(a, shape.length));
    return this.tensor(this.builder.addNode('ReduceMean', [x.name], node.name, { axes: onnxAxes, keepdims: 1 }), outShape);
  }

  concat(node: TfNode, parts: Operand[], tfAxis: number): ActivationValue {
    const shapes = parts.map((p) => (isActivation(p) ? shapeOf(p) : p.shape));
    const rank = shapes[0].length;
    const axis = tfAxis < 0 ? tfAxis + rank : tfAxis;
    const shape = shapes[0].map((d, i) => (i === axis ? shapes.reduce((sum, s) => sum + s[i], 0) : d));
    const names = parts.map((p, i) => (isActivation(p) ? p.name : this.constOperand(`${node.name}_c${i}`, p)));
    return this.tensor(this.builder.addNode('Concat', names, node.name, { axis: this.axis(axis, rank) }), shape);
  }

  split(node: TfNode, x: ActivationValue, tfAxis: number, sizes: number[]): ActivationValue[] {
    const shape = shapeOf(x);
    const axis = tfAxis < 0 ? tfAxis + shape.length : tfAxis;
    const split = this.builder.addInt64Initializer(`${node.name}_sizes`, sizes);
    const outputs = this.builder.addMultiOutputNode('Split', [x.name, split], sizes.map((_, i) => `${node.name}_${i}`), { axis: this.axis(axis, shape.length) });
    return outputs.map((name, i) => this.tensor(name, shape.map((d, j) => (j === axis ? sizes[i] : d))));
  }

  /** TF Slice / crop: `begin` and `size` in NHWC, size -1 meaning to the end */
  slice(node: TfNode, x: ActivationValue, begin: number[], size: number[]): ActivationValue {
    const shape = shapeOf(x);
    const ends = size.map((s, i) => (s < 0 ? shape[i] : begin[i] + s));
    const axes = shape.map((_, i) => i).filter((i) => begin[i] !== 0 || ends[i] !== shape[i]);
    const outShape = shape.map((_, i) => ends[i] - begin[i]);
    if (!axes.length) return x;
    const inputs = [
      x.name,
      this.builder.addInt64Initializer(`${node.name}_starts`, axes.map((i) => begin[i])),
      this.builder.addInt64Initializer(`${node.name}_ends`, axes.map((i) => ends[i])),
      this.builder.addInt64Initializer(`${node.name}_axes`, axes.map((i) => this.axis(i, shape.length))),
    ];
    return this.tensor(this.builder.addNode('Slice', inputs, node.name), outShape);
  }

  /**
   * An upscale by whole factors runs as onnxruntime's blocked NCHWc Upsample, which takes only
   * constant `scales` and an input already in the blocked layout. RVM's decoder upsamples concatenated
   * features (not blocked), so ahead of the resize goes an identity depthwise 1x1 convolution: the
   * layout changes at the small size instead of the large one (at 640x360, 11 ms of reordering 32
   * channels after the output block's upsample became about 1 ms before it, and the NCHW Resize
   * became the blocked one). Any other size keeps `sizes`.
   */
  resizeBilinear(node: TfNode, x: ActivationValue, size: number[], alignCorners: boolean, halfPixel: boolean): ActivationValue {
    const [n, h, w, c] = shapeOf(x);
    const mode = alignCorners ? 'align_corners' : halfPixel ? 'half_pixel' : 'asymmetric';
    const factors = [size[0] / h, size[1] / w];
    const attributes = { mode: 'linear', coordinate_transformation_mode: mode };
    let name: string;
    if (factors.every((f) => Number.isInteger(f) && f >= 2)) {
      const identity = this.builder.addFloatInitializer(`${node.name}_identity_w`, [c, 1, 1, 1], new Float32Array(c).fill(1));
      const blocked = this.builder.addNode('Conv', [x.name, identity], `${node.name}_blocked`, { kernel_shape: [1, 1], group: c });
      const scales = this.builder.addFloatInitializer(`${node.name}_scales`, [4], Float32Array.of(1, 1, factors[0], factors[1]));
      name = this.builder.addNode('Resize', [blocked, '', scales], node.name, attributes);
    } else {
      const sizes = this.builder.addInt64Initializer(`${node.name}_sizes`, [n, c, size[0], size[1]]);
      name = this.builder.addNode('Resize', [x.name, '', '', sizes], node.name, attributes);
    }
    return this.tensor(name, [n, size[0], size[1], c]);
  }

  /** x * relu6(x + 3) / 6 as one ONNX HardSwish (one pass over x instead of four) */
  hardSwish(name: string, x: ActivationValue): ActivationValue {
    return this.tensor(this.builder.addNode('HardSwish', [x.name], name), shapeOf(x));
  }

  /** BroadcastTo on a full-shaped activation is the identity; otherwise Expand */
  broadcastTo(node: TfNode, x: ActivationValue, shape: number[]): ActivationValue {
    if (!x.shape) return { ...x, shape }; // a state input takes the shape its use needs
    if (x.shape.join() === shape.join()) return x;
    const nchw = this.builder.addInt64Initializer(`${node.name}_shape`, [0, 3, 1, 2].map((i) => shape[i]));
    return this.tensor(this.builder.addNode('Expand', [x.name, nchw], node.name), shape);
  }

  transpose(x: ActivationValue, perm: number[], outputName: string): string {
    return this.builder.addNode('Transpose', [x.name], outputName, { perm });
  }
}

/** ONNX pads [top, left, bottom, right] for TF SAME (or VALID) padding */
export function samePads(padding: string | undefined, size: number[], kernel: number[], strides: number[], dilations: number[]): number[] {
  if (padding === 'VALID') return [0, 0, 0, 0];
  if (padding !== 'SAME') throw new Error(`padding ${padding} is not supported`);
  const total = size.map((s, i) => {
    const out = Math.ceil(s / strides[i]);
    return Math.max((out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - s, 0);
  });
  const begin = total.map((t) => Math.floor(t / 2));
  return [begin[0], begin[1], total[0] - begin[0], total[1] - begin[1]];
}
