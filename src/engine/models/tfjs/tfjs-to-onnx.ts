import { onnx } from 'onnx-proto';
import { OnnxGraphBuilder, ValueInfo } from '../onnx/graph-builder';
import { constValues, foldConstOp, scalar } from './const-folding';
import { hardSwishInput } from './hard-swish';
import { NchwEmitter, Operand } from './nchw-emitter';
import { attrBool, attrInt, ConstTensor, TfjsGraphModel, TfNode } from './tfjs-graph-model';
import { ActivationValue, shapeOf, Value } from './values';

export interface TfjsConversionOptions {
  /** signature name of the NHWC image input, and the size it is fixed to */
  imageInput: string;
  height: number;
  width: number;
  /** scalar inputs fixed at conversion time (RVM's downsample_ratio): their branches are folded away */
  fixedInputs?: Record<string, number>;
  /** take packed RGB24 bytes (uint8 NHWC) and scale them to [0,1] in the graph */
  rgbBytesInput?: boolean;
  /** outputs given back NHWC; every other output, like every other input, is NCHW */
  nhwcOutputs?: string[];
}

export const TFJS_ONNX_OPSET = 14;

/**
 * Converts a TF.js graph model to ONNX for one fixed input size. Control flow (Switch/Merge) and
 * all shape arithmetic are evaluated at conversion time, so the ONNX graph holds only compute ops,
 * on NCHW activations (onnxruntime's fastest layout for convolutions).
 */
export function convertTfjsToOnnx(model: TfjsGraphModel, options: TfjsConversionOptions): Uint8Array {
  return new TfjsToOnnxConverter(model, options).convert();
}

class TfjsToOnnxConverter {
  private readonly builder = new OnnxGraphBuilder();
  private readonly emit = new NchwEmitter(this.builder);
  private readonly evaluated = new Map<string, Value[]>();
  /** non-image, non-fixed inputs (recurrent state), whose shapes are learned from their use */
  private readonly stateInputs = new Map<string, ActivationValue>();
  private imageTensor!: ActivationValue;

  constructor(
    private readonly model: TfjsGraphModel,
    private readonly options: TfjsConversionOptions,
  ) {}

  convert(): Uint8Array {
    const { builder, options } = this;
    const imageName = builder.uniqueName(options.imageInput);
    let image = imageName;
    if (options.rgbBytesInput) {
      const asFloat = builder.addNode('Cast', [imageName], 'image_float', { to: onnx.TensorProto.DataType.FLOAT });
      image = builder.addNode('Mul', [asFloat, builder.addFloatInitializer('image_scale', [], Float32Array.of(1 / 255))], 'image_unit');
    }
    const imageShape = [1, options.height, options.width, 3];
    this.imageTensor = { kind: 'tensor', name: builder.addNode('Transpose', [image], 'image_nchw', { perm: [0, 3, 1, 2] }), shape: imageShape };

    const outputs: ValueInfo[] = Object.entries(this.model.outputs).map(([name, ref]) => {
      const value = this.value(ref).kind === 'channelConcat' ? this.activation(this.value(ref)) : this.value(ref);
      if (value.kind !== 'tensor') throw new Error(`output ${name} did not evaluate to a tensor (${value.kind})`);
      const [n, h, w, c] = shapeOf(value);
      const nhwc = options.nhwcOutputs?.includes(name);
      const final = builder.addNode(nhwc ? 'Transpose' : 'Identity', [value.name], name, nhwc ? { perm: [0, 2, 3, 1] } : {});
      if (final !== name) throw new Error(`output name ${name} is taken inside the graph`);
      return { name, elemType: onnx.TensorProto.DataType.FLOAT, shape: nhwc ? [n, h, w, c] : [n, c, h, w] };
    });
    const inputs: ValueInfo[] = [
      { name: imageName, elemType: options.rgbBytesInput ? onnx.TensorProto.DataType.UINT8 : onnx.TensorProto.DataType.FLOAT, shape: imageShape },
      ...[...this.stateInputs.entries()].map(([name, tensor]) => {
        const [n, h, w, c] = shapeOf(tensor);
        return { name, elemType: onnx.TensorProto.DataType.FLOAT, shape: [n, c, h, w] };
      }),
    ];
    return builder.build({ inputs, outputs, opset: TFJS_ONNX_OPSET, graphName: 'converted_tfjs' });
  }

  /** the value of a tensor reference `node`, `node:port` or `^node` */
  private value(ref: string): Value {
    const [name, port] = ref.replace(/^\^/, '').split(':');
    const ports = this.evaluate(name);
    return ports[Number(port ?? 0)] ?? { kind: 'dead' };
  }

  private evaluate(name: string): Value[] {
    let ports = this.evaluated.get(name);
    if (!ports) {
      const node = this.model.nodes.get(name);
      if (!node) throw new Error(`the graph has no node ${name}`);
      ports = this.evaluateNode(node);
      this.evaluated.set(name, ports);
    }
    return ports;
  }

  private evaluateNode(node: TfNode): Value[] {
    const hardSwishOf = hardSwishInput(this.model, node);
    if (hardSwishOf !== undefined) {
      const x = this.value(hardSwishOf);
      if (x.kind === 'tensor' || x.kind === 'channelConcat') return [this.emit.hardSwish(node.name, this.activation(x))];
    }
    const refs = node.input ?? [];
    const data = refs.filter((r) => !r.startsWith('^')).map((r) => this.value(r));
    if (node.op === 'Merge') {
      const live = data.findIndex((v) => v.kind !== 'dead');
      return live < 0 ? [{ kind: 'dead' }] : [data[live], { kind: 'const', value: scalar(live, 'int32') }];
    }
    const controls = refs.filter((r) => r.startsWith('^')).map((r) => this.value(r));
    if ([...data, ...controls].some((v) => v.kind === 'dead')) return [{ kind: 'dead' }, { kind: 'dead' }];
    return this.convertOp(node, data);
  }

  private convertOp(node: TfNode, inputs: Value[]): Value[] {
    switch (node.op) {
      case 'Const':
        return [{ kind: 'const', value: this.weight(node.name) }];
      case 'Placeholder':
        return [this.placeholder(node.name)];
      case 'NoOp':
        return [{ kind: 'none' }];
      case 'Switch': {
        const taken = this.constant(inputs[1]).data[0] !== 0;
        return taken ? [{ kind: 'dead' }, inputs[0]] : [inputs[0], { kind: 'dead' }];
      }
      case 'Shape': {
        const shape = inputs[0].kind === 'const' ? inputs[0].value.shape : shapeOf(this.activation(inputs[0]));
        return [{ kind: 'const', value: { dtype: 'int32', shape: [shape.length], data: Int32Array.from(shape) } }];
      }
    }
    if (inputs.every((v) => v.kind === 'const')) {
      const folded = foldConstOp(node, inputs.map((v) => this.constant(v)));
      if (folded) return [{ kind: 'const', value: folded }];
    }
    return this.emitOp(node, inputs);
  }

  private emitOp(node: TfNode, inputs: Value[]): Value[] {
    const { emit } = this;
    const x = (): ActivationValue => this.activation(inputs[0]);
    const ints = (i: number): number[] => constValues(this.constant(inputs[i]));
    switch (node.op) {
      case 'Identity':
        return [inputs[0]];
      case '_FusedConv2D':
      case 'FusedDepthwiseConv2dNative':
      case 'Conv2D':
        if (inputs[0].kind === 'channelConcat' && !node.op.includes('Depthwise')) return [emit.splitConv(node, inputs[0].parts, this.constant(inputs[1]), inputs[2] && this.constant(inputs[2]))];
        return [emit.conv(node, x(), this.constant(inputs[1]), inputs[2] && this.constant(inputs[2]))];
      case 'DepthwiseConv2dNative':
        return [this.depthwise(node, inputs)];
      case 'SpaceToBatchND': {
        const pads = ints(2);
        return [{ kind: 'spaceToBatch', source: x(), block: ints(1), paddings: [pads.slice(0, 2), pads.slice(2, 4)] }];
      }
      case 'BatchToSpaceND': {
        if (inputs[0].kind !== 'dilatedConv') throw new Error('BatchToSpaceND is supported only after a dilated convolution');
        const crops = ints(2);
        const shape = shapeOf(inputs[0].tensor);
        const size = [-1, shape[1] - crops[0] - crops[1], shape[2] - crops[2] - crops[3], -1];
        return [emit.slice(node, inputs[0].tensor, [0, crops[0], crops[2], 0], size)];
      }
      case 'Relu':
      case 'Relu6':
      case 'Sigmoid':
      case 'Tanh':
      case 'Square':
        return [emit.unary(node, x())];
      case 'Mul':
      case 'Add':
      case 'AddV2':
      case 'Sub':
      case 'RealDiv':
      case 'Minimum':
      case 'Maximum':
        return [emit.binary(node, this.operand(inputs[0]), this.operand(inputs[1]))];
      case 'Pad':
        return [emit.pad(node, x(), ints(1))];
      case 'AvgPool':
        return [emit.avgPool(node, x())];
      case 'Mean':
        return [emit.mean(node, x(), ints(1), attrBool(node, 'keep_dims'))];
      case 'ConcatV2':
        return [this.concat(node, inputs.slice(0, -1), ints(inputs.length - 1)[0])];
      case 'Split': {
        const tensor = this.activation(inputs[1]);
        const axis = ints(0)[0];
        const count = attrInt(node, 'num_split');
        const dim = shapeOf(tensor).at(axis)!;
        return emit.split(node, tensor, axis, Array<number>(count).fill(dim / count));
      }
      case 'SplitV':
        return emit.split(node, x(), ints(2)[0], ints(1));
      case 'Slice':
        return [emit.slice(node, x(), ints(1), ints(2))];
      case 'ResizeBilinear':
        return [emit.resizeBilinear(node, x(), ints(1), attrBool(node, 'align_corners'), attrBool(node, 'half_pixel_centers'))];
      case 'BroadcastTo':
        return [this.broadcastTo(node, inputs)];
      default:
        throw new Error(`TF op ${node.op} (${node.name}) is not supported by the converter`);
    }
  }

  /** a channel concatenation that onnxruntime's fast convolutions cannot read (see NchwEmitter.splitConv) stays pending */
  private concat(node: TfNode, inputs: Value[], axis: number): Value {
    const parts = inputs.map((v) => this.operand(v));
    const activations = parts.filter((p): p is ActivationValue => 'kind' in p && p.kind === 'tensor');
    const channels = activations.reduce((sum, p) => sum + (p.shape?.[3] ?? 0), 0);
    if ((axis === 3 || axis === -1) && activations.length === parts.length && activations.every((p) => p.shape?.length === 4) && channels % 4 !== 0) {
      return { kind: 'channelConcat', node, parts: activations };
    }
    return this.emit.concat(node, parts, axis);
  }

  /** a plain depthwise convolution, or the middle of a SpaceToBatchND-conv-BatchToSpaceND dilated one */
  private depthwise(node: TfNode, inputs: Value[]): Value {
    const weights = this.constant(inputs[1]);
    const input = inputs[0];
    if (input.kind !== 'spaceToBatch') return this.emit.conv(node, this.activation(input), weights, undefined);
    const [[top, bottom], [left, right]] = input.paddings;
    const tensor = this.emit.conv(node, input.source, weights, undefined, input.block, [top, left, bottom, right]);
    return { kind: 'dilatedConv', tensor, block: input.block };
  }

  private broadcastTo(node: TfNode, inputs: Value[]): Value {
    const tensor = this.activation(inputs[0]);
    const result = this.emit.broadcastTo(node, tensor, constValues(this.constant(inputs[1])));
    const state = this.stateInputs.get(tensor.name);
    if (state && !state.shape) state.shape = result.shape;
    return result;
  }

  private placeholder(name: string): Value {
    const signatureName = Object.keys(this.model.inputs).find((key) => this.model.inputs[key].replace(/:0$/, '') === name) ?? name;
    if (signatureName === this.options.imageInput) return this.imageTensor;
    const fixed = this.options.fixedInputs?.[signatureName];
    if (fixed !== undefined) return { kind: 'const', value: scalar(fixed) };
    const state: ActivationValue = { kind: 'tensor', name: this.builder.uniqueName(signatureName), shape: undefined };
    this.stateInputs.set(state.name, state);
    return state;
  }

  private weight(name: string): ConstTensor {
    const weight = this.model.weights.get(name);
    if (!weight) throw new Error(`constant ${name} has no weights`);
    return weight;
  }

  private constant(value: Value): ConstTensor {
    if (value.kind !== 'const') throw new Error(`expected a constant, got ${value.kind}`);
    return value.value;
  }

  private activation(value: Value): ActivationValue {
    if (value.kind === 'channelConcat') return (value.joined ??= this.emit.concat(value.node, value.parts, 3));
    if (value.kind !== 'tensor') throw new Error(`expected an activation, got ${value.kind}`);
    return value;
  }

  private operand(value: Value): Operand {
    return value.kind === 'const' ? value.value : this.activation(value);
  }
}
