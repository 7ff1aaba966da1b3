import { OnnxGraphBuilder } from '../onnx/graph-builder';
import { TfliteGraph, TfliteOperator, TfliteTensor } from './tflite-model';
import { constantAsFloat32, transpose4d } from './tensor-data';

/*
 * The TFLite -> ONNX converter's state and the helpers every op conversion uses (split out of
 * tflite-to-onnx.ts unchanged, to keep each file under 300 lines).
 */

export const PADDING_SAME = 0; // schema.fbs Padding enum
export const ACTIVATION = { NONE: 0, RELU: 1, RELU6: 3 } as const;

// Field numbers of the builtin option tables (schema.fbs).
export const CONV_OPTIONS = { padding: 0, strideW: 1, strideH: 2, activation: 3, dilationW: 4, dilationH: 5 };
export const DEPTHWISE_OPTIONS = { padding: 0, strideW: 1, strideH: 2, multiplier: 3, activation: 4, dilationW: 5, dilationH: 6 };
export const POOL_OPTIONS = { padding: 0, strideW: 1, strideH: 2, filterW: 3, filterH: 4, activation: 5 };
export const BINARY_OPTIONS = { activation: 0 };
export const RESIZE_OPTIONS = { alignCorners: 2, halfPixelCenters: 3 };
export const REDUCER_OPTIONS = { keepDims: 0 };
export const CONCAT_OPTIONS = { axis: 0, activation: 1 };

/** NHWC axis -> NCHW axis */
export const NHWC_TO_NCHW_AXIS = [0, 2, 3, 1];

/** The graph being converted, the ONNX being built, and where each TFLite tensor went. */
export abstract class TfliteConversionState {
  protected readonly builder = new OnnxGraphBuilder();
  /** ONNX name of each converted activation tensor (NCHW) */
  protected readonly activations = new Map<number, string>();
  /** float values of constant tensors, DEQUANTIZE outputs included */
  protected readonly constants = new Map<number, Float32Array>();

  constructor(protected readonly graph: TfliteGraph) {}

  protected tensor(index: number): TfliteTensor {
    return this.graph.tensors[index];
  }

  protected outName(op: TfliteOperator): string {
    return this.tensor(op.outputs[0]).name;
  }

  protected setOutput(op: TfliteOperator, name: string): void {
    this.activations.set(op.outputs[0], name);
  }

  protected activation(index: number): string {
    const name = this.activations.get(index);
    if (name !== undefined) return name;
    throw new Error(`tensor ${this.tensor(index).name} is used before it is produced (or is a constant)`);
  }

  protected constant(index: number): Float32Array {
    const known = this.constants.get(index);
    if (known) return known;
    const values = constantAsFloat32(this.tensor(index));
    this.constants.set(index, values);
    return values;
  }

  protected isConstant(index: number): boolean {
    return this.constants.has(index) || this.tensor(index).data !== undefined;
  }

  protected foldDequantize(op: TfliteOperator): void {
    this.constants.set(op.outputs[0], this.constant(op.inputs[0]));
  }

  protected emitUnary(op: TfliteOperator, onnxOp: string): void {
    this.setOutput(op, this.builder.addNode(onnxOp, [this.activation(op.inputs[0])], this.outName(op)));
  }

  protected applyActivation(input: string, activation: number, outputBase: string): string {
    if (activation === ACTIVATION.NONE) return input;
    if (activation === ACTIVATION.RELU) return this.builder.addNode('Relu', [input], `${outputBase}_relu`);
    if (activation === ACTIVATION.RELU6) {
      const low = this.builder.addFloatInitializer('relu6_min', [], Float32Array.of(0));
      const high = this.builder.addFloatInitializer('relu6_max', [], Float32Array.of(6));
      return this.builder.addNode('Clip', [input, low, high], `${outputBase}_relu6`);
    }
    throw new Error(`fused activation ${activation} is not supported`);
  }

  /** the op's bias input, or a zero bias */
  protected biasFor(op: TfliteOperator, channels: number): string {
    const biasIndex = op.inputs[2];
    const values = biasIndex !== undefined && biasIndex >= 0 ? this.constant(biasIndex) : new Float32Array(channels);
    return this.builder.addFloatInitializer(`${this.outName(op)}_bias`, [channels], values);
  }

  /** a constant broadcast operand laid out for NCHW activations */
  protected constantOperand(index: number): string {
    const shape = this.tensor(index).shape;
    const values = this.constant(index);
    const base = `${this.tensor(index).name}_const`;
    if (shape.length === 4) return this.builder.addFloatInitializer(base, [shape[0], shape[3], shape[1], shape[2]], transpose4d(values, shape, [0, 3, 1, 2]));
    if (shape.length === 1) return this.builder.addFloatInitializer(base, [1, shape[0], 1, 1], values); // per-channel
    if (shape.length === 0) return this.builder.addFloatInitializer(base, [], values);
    throw new Error(`constant operand of rank ${shape.length} is not supported`);
  }
}
