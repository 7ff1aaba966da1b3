import { onnx } from 'onnx-proto';
import { TfliteGraph, TfliteOperator } from './tflite-model';
import { constantAsInt32, transpose4d } from './tensor-data';
import { ACTIVATION, BINARY_OPTIONS, CONCAT_OPTIONS, CONV_OPTIONS, DEPTHWISE_OPTIONS, NHWC_TO_NCHW_AXIS, PADDING_SAME, POOL_OPTIONS, REDUCER_OPTIONS, RESIZE_OPTIONS, TfliteConversionState } from './tflite-conversion-state';

/**
 * Converts a float TFLite graph (NHWC) to ONNX. Activations are NCHW inside the ONNX graph (the
 * layout onnxruntime's CPU kernels are fastest with); the graph's inputs and outputs keep the
 * TFLite NHWC layout. fp16 weights behind DEQUANTIZE ops are folded into float32 initializers.
 */
export interface ConversionOptions {
  /** spatial size to declare for the NHWC input (default: the TFLite input's); multiples of 16 */
  inputHeight?: number;
  inputWidth?: number;
  /**
   * take packed RGB24 bytes (uint8 NHWC) and scale them to [0,1] in the graph, so callers feed
   * decoded frames without a per-pixel loop
   */
  rgbBytesInput?: boolean;
}

export const ONNX_OPSET = 14;

export function convertTfliteToOnnx(graph: TfliteGraph, options: ConversionOptions = {}): Uint8Array {
  return new TfliteToOnnxConverter(graph).convert(options);
}

class TfliteToOnnxConverter extends TfliteConversionState {

  convert(options: ConversionOptions): Uint8Array {
    const { graph, builder } = this;
    if (graph.inputs.length !== 1) throw new Error('only single-input models are supported');
    const inputTensor = graph.tensors[graph.inputs[0]];
    const [n, h, w, c] = inputTensor.shape;
    const inputShape = [n, options.inputHeight ?? h, options.inputWidth ?? w, c];
    const inputName = builder.uniqueName('input');
    let input = inputName;
    if (options.rgbBytesInput) {
      const asFloat = builder.addNode('Cast', [inputName], 'input_float', { to: onnx.TensorProto.DataType.FLOAT });
      const scale = builder.addFloatInitializer('input_scale', [], Float32Array.of(1 / 255));
      input = builder.addNode('Mul', [asFloat, scale], 'input_unit');
    }
    this.activations.set(inputTensor.index, builder.addNode('Transpose', [input], 'input_nchw', { perm: [0, 3, 1, 2] }));

    for (const op of graph.operators) this.convertOperator(op);

    const outputs = graph.outputs.map((index) => {
      const tensor = graph.tensors[index];
      const name = builder.addNode('Transpose', [this.activation(index)], tensor.name, { perm: [0, 2, 3, 1] });
      const shape = tensor.shape.length === 4 ? [tensor.shape[0], inputShape[1], inputShape[2], tensor.shape[3]] : tensor.shape;
      // Spatial output dims scale with the input when the input size is overridden.
      if (tensor.shape.length === 4) {
        shape[1] = Math.round((tensor.shape[1] * inputShape[1]) / h);
        shape[2] = Math.round((tensor.shape[2] * inputShape[2]) / w);
      }
      return { name, elemType: onnx.TensorProto.DataType.FLOAT, shape };
    });
    return builder.build({
      inputs: [{ name: inputName, elemType: options.rgbBytesInput ? onnx.TensorProto.DataType.UINT8 : onnx.TensorProto.DataType.FLOAT, shape: inputShape }],
      outputs,
      opset: ONNX_OPSET,
      graphName: 'converted_tflite',
    });
  }

  private convertOperator(op: TfliteOperator): void {
    switch (op.opName) {
      case 'DEQUANTIZE':
        return this.foldDequantize(op);
      case 'CONV_2D':
        return this.convertConv(op);
      case 'DEPTHWISE_CONV_2D':
        return this.convertDepthwiseConv(op);
      case 'Convolution2DTransposeBias':
        return this.convertTransposeConvBias(op);
      case 'AVERAGE_POOL_2D':
      case 'MAX_POOL_2D':
        return this.convertPool(op);
      case 'MEAN':
        return this.convertMean(op);
      case 'ADD':
        return this.convertBinary(op, 'Add');
      case 'MUL':
        return this.convertBinary(op, 'Mul');
      case 'SUB':
        return this.convertBinary(op, 'Sub');
      case 'RELU':
        return this.emitUnary(op, 'Relu');
      case 'LOGISTIC':
        return this.emitUnary(op, 'Sigmoid');
      case 'HARD_SWISH':
        return this.emitUnary(op, 'HardSwish');
      case 'RELU6':
        return this.setOutput(op, this.applyActivation(this.activation(op.inputs[0]), ACTIVATION.RELU6, this.outName(op)));
      case 'RESIZE_BILINEAR':
        return this.convertResizeBilinear(op);
      case 'CONCATENATION':
        return this.convertConcat(op);
      default:
        throw new Error(`TFLite op ${op.opName} is not supported by the converter`);
    }
  }

  private convertConv(op: TfliteOperator): void {
    const o = op.options!;
    const [outC, kh, kw, inC] = this.tensor(op.inputs[1]).shape;
    const weights = transpose4d(this.constant(op.inputs[1]), [outC, kh, kw, inC], [0, 3, 1, 2]); // OHWI -> OIHW
    const weightName = this.builder.addFloatInitializer(`${this.outName(op)}_weight`, [outC, inC, kh, kw], weights);
    const strides = [o.int32(CONV_OPTIONS.strideH, 1), o.int32(CONV_OPTIONS.strideW, 1)];
    const dilations = [o.int32(CONV_OPTIONS.dilationH, 1), o.int32(CONV_OPTIONS.dilationW, 1)];
    const pads = this.convPads(op, o.int8(CONV_OPTIONS.padding), [kh, kw], strides, dilations);
    const conv = this.builder.addNode('Conv', [this.activation(op.inputs[0]), weightName, this.biasFor(op, outC)], this.outName(op), {
      kernel_shape: [kh, kw],
      strides,
      dilations,
      pads,
      group: 1,
    });
    this.setOutput(op, this.applyActivation(conv, o.int8(CONV_OPTIONS.activation), this.outName(op)));
  }

  private convertDepthwiseConv(op: TfliteOperator): void {
    const o = op.options!;
    const [, kh, kw, outC] = this.tensor(op.inputs[1]).shape;
    const inC = this.tensor(op.inputs[0]).shape[3];
    const weights = transpose4d(this.constant(op.inputs[1]), [1, kh, kw, outC], [3, 0, 1, 2]); // 1HWC -> C1HW
    const weightName = this.builder.addFloatInitializer(`${this.outName(op)}_weight`, [outC, 1, kh, kw], weights);
    const strides = [o.int32(DEPTHWISE_OPTIONS.strideH, 1), o.int32(DEPTHWISE_OPTIONS.strideW, 1)];
    const dilations = [o.int32(DEPTHWISE_OPTIONS.dilationH, 1), o.int32(DEPTHWISE_OPTIONS.dilationW, 1)];
    const pads = this.convPads(op, o.int8(DEPTHWISE_OPTIONS.padding), [kh, kw], strides, dilations);
    const conv = this.builder.addNode('Conv', [this.activation(op.inputs[0]), weightName, this.biasFor(op, outC)], this.outName(op), {
      kernel_shape: [kh, kw],
      strides,
      dilations,
      pads,
      group: inC,
    });
    this.setOutput(op, this.applyActivation(conv, o.int8(DEPTHWISE_OPTIONS.activation), this.outName(op)));
  }

  /** ONNX pads [top, left, bottom, right] reproducing TFLite SAME/VALID padding */
  private convPads(op: TfliteOperator, padding: number, kernel: number[], strides: number[], dilations: number[]): number[] {
    if (padding !== PADDING_SAME) return [0, 0, 0, 0];
    const [, inH, inW] = this.tensor(op.inputs[0]).shape;
    const total = [inH, inW].map((size, axis) => {
      const out = Math.ceil(size / strides[axis]);
      return Math.max((out - 1) * strides[axis] + (kernel[axis] - 1) * dilations[axis] + 1 - size, 0);
    });
    const begin = total.map((t) => Math.floor(t / 2));
    return [begin[0], begin[1], total[0] - begin[0], total[1] - begin[1]];
  }

  /**
   * MediaPipe's custom transposed convolution with bias. Its custom options are the raw
   * TfLiteTransposeConvParams struct: int32 padding (1 SAME, 2 VALID), stride_width, stride_height.
   * Weights are OHWI.
   */
  private convertTransposeConvBias(op: TfliteOperator): void {
    const params = op.customOptions;
    if (!params || params.byteLength < 12) throw new Error('Convolution2DTransposeBias without its parameters');
    const view = new DataView(params.buffer, params.byteOffset, params.byteLength);
    const strides = [view.getInt32(8, true), view.getInt32(4, true)];
    const [outC, kh, kw, inC] = this.tensor(op.inputs[1]).shape;
    const weights = transpose4d(this.constant(op.inputs[1]), [outC, kh, kw, inC], [3, 0, 1, 2]); // OHWI -> IOHW
    const weightName = this.builder.addFloatInitializer(`${this.outName(op)}_weight`, [inC, outC, kh, kw], weights);
    const [, inH, inW] = this.tensor(op.inputs[0]).shape;
    const [, outH, outW] = this.tensor(op.outputs[0]).shape;
    const total = [
      strides[0] * (inH - 1) + kh - outH,
      strides[1] * (inW - 1) + kw - outW,
    ];
    if (total.some((t) => t < 0)) throw new Error('transposed convolution output larger than its kernel allows');
    const begin = total.map((t) => Math.floor(t / 2));
    this.setOutput(
      op,
      this.builder.addNode('ConvTranspose', [this.activation(op.inputs[0]), weightName, this.biasFor(op, outC)], this.outName(op), {
        kernel_shape: [kh, kw],
        strides,
        pads: [begin[0], begin[1], total[0] - begin[0], total[1] - begin[1]],
      }),
    );
  }

  private convertPool(op: TfliteOperator): void {
    const o = op.options!;
    const kernel = [o.int32(POOL_OPTIONS.filterH), o.int32(POOL_OPTIONS.filterW)];
    const strides = [o.int32(POOL_OPTIONS.strideH, 1), o.int32(POOL_OPTIONS.strideW, 1)];
    const max = op.opName === 'MAX_POOL_2D';
    const pooled = this.isGlobalPool(op, kernel)
      ? this.builder.addNode(max ? 'GlobalMaxPool' : 'GlobalAveragePool', [this.activation(op.inputs[0])], this.outName(op))
      : this.builder.addNode(max ? 'MaxPool' : 'AveragePool', [this.activation(op.inputs[0])], this.outName(op), {
          kernel_shape: kernel,
          strides,
          pads: this.convPads(op, o.int8(POOL_OPTIONS.padding), kernel, strides, [1, 1]),
        });
    this.setOutput(op, this.applyActivation(pooled, o.int8(POOL_OPTIONS.activation), this.outName(op)));
  }

  /**
   * A pool whose window is its whole input at the model's own size (the squeeze of a
   * squeeze-and-excitation block) pools the whole input at any size: with the window kept, a wider
   * input would be pooled over its left part only, or into more than one value.
   */
  private isGlobalPool(op: TfliteOperator, kernel: number[]): boolean {
    const [, inH, inW] = this.tensor(op.inputs[0]).shape;
    const [, outH, outW] = this.tensor(op.outputs[0]).shape;
    return inH === kernel[0] && inW === kernel[1] && outH === 1 && outW === 1;
  }

  private convertMean(op: TfliteOperator): void {
    const axes = constantAsInt32(this.tensor(op.inputs[1])).sort();
    const keepDims = op.options?.bool(REDUCER_OPTIONS.keepDims) ?? false;
    const input = this.activation(op.inputs[0]);
    if (!keepDims || axes.join() !== '1,2') throw new Error('MEAN is only supported over H and W with keep_dims (global pooling)');
    this.setOutput(op, this.builder.addNode('GlobalAveragePool', [input], this.outName(op)));
  }

  private convertBinary(op: TfliteOperator, onnxOp: string): void {
    const operands = op.inputs.slice(0, 2).map((index) => (this.isConstant(index) ? this.constantOperand(index) : this.activation(index)));
    const result = this.builder.addNode(onnxOp, operands, this.outName(op));
    this.setOutput(op, this.applyActivation(result, op.options?.int8(BINARY_OPTIONS.activation) ?? 0, this.outName(op)));
  }

  /** Resize by the graph's scale factor, so the converted model also runs at other input sizes. */
  private convertResizeBilinear(op: TfliteOperator): void {
    const o = op.options;
    const [, inH, inW] = this.tensor(op.inputs[0]).shape;
    const [, outH, outW] = this.tensor(op.outputs[0]).shape;
    const mode = o?.bool(RESIZE_OPTIONS.alignCorners)
      ? 'align_corners'
      : o?.bool(RESIZE_OPTIONS.halfPixelCenters)
        ? 'half_pixel'
        : 'asymmetric';
    const scales = this.builder.addFloatInitializer(`${this.outName(op)}_scales`, [4], Float32Array.of(1, 1, outH / inH, outW / inW));
    this.setOutput(
      op,
      this.builder.addNode('Resize', [this.activation(op.inputs[0]), '', scales], this.outName(op), {
        mode: 'linear',
        coordinate_transformation_mode: mode,
      }),
    );
  }

  private convertConcat(op: TfliteOperator): void {
    const o = op.options!;
    const rank = this.tensor(op.outputs[0]).shape.length;
    if (rank !== 4) throw new Error('CONCATENATION is only supported on 4-D tensors');
    const rawAxis = o.int32(CONCAT_OPTIONS.axis);
    const axis = NHWC_TO_NCHW_AXIS[rawAxis < 0 ? rawAxis + rank : rawAxis];
    const joined = this.builder.addNode('Concat', op.inputs.map((i) => this.activation(i)), this.outName(op), { axis });
    this.setOutput(op, this.applyActivation(joined, o.int8(CONCAT_OPTIONS.activation), this.outName(op)));
  }
}
