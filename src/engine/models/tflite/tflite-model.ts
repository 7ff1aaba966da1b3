import { FlatTable } from './flatbuffer-table';

/** TFLite TensorType values used by the models we convert. */
export enum TfliteTensorType {
  FLOAT32 = 0,
  FLOAT16 = 1,
  INT32 = 2,
  UINT8 = 3,
  INT64 = 4,
  INT8 = 9,
}

/** BuiltinOperator codes (schema.fbs) for the ops the converter knows. */
export const BUILTIN_OPERATORS: Readonly<Record<number, string>> = {
  0: 'ADD',
  1: 'AVERAGE_POOL_2D',
  2: 'CONCATENATION',
  3: 'CONV_2D',
  4: 'DEPTHWISE_CONV_2D',
  6: 'DEQUANTIZE',
  9: 'FULLY_CONNECTED',
  14: 'LOGISTIC',
  17: 'MAX_POOL_2D',
  18: 'MUL',
  19: 'RELU',
  21: 'RELU6',
  22: 'RESHAPE',
  23: 'RESIZE_BILINEAR',
  32: 'CUSTOM',
  34: 'PAD',
  40: 'MEAN',
  41: 'SUB',
  42: 'DIV',
  117: 'HARD_SWISH',
};

export interface TfliteTensor {
  index: number;
  name: string;
  shape: number[];
  type: TfliteTensorType;
  /** constant contents, when the tensor is a weight */
  data?: Uint8Array;
}

export interface TfliteOperator {
  /** builtin name (e.g. CONV_2D), the custom code for CUSTOM ops, or BUILTIN_<n> when unknown */
  opName: string;
  inputs: number[];
  outputs: number[];
  /** the builtin options table; field numbers follow the op's *Options table in schema.fbs */
  options?: FlatTable;
  customOptions?: Uint8Array;
}

export interface TfliteGraph {
  tensors: TfliteTensor[];
  operators: TfliteOperator[];
  inputs: number[];
  outputs: number[];
}

// Field numbers of the schema's tables (schema.fbs field order).
const MODEL = { operatorCodes: 1, subgraphs: 2, buffers: 4 };
const OPERATOR_CODE = { deprecatedBuiltinCode: 0, customCode: 1, builtinCode: 3 };
const SUBGRAPH = { tensors: 0, inputs: 1, outputs: 2, operators: 3 };
const TENSOR = { shape: 0, type: 1, buffer: 2, name: 3 };
const OPERATOR = { opcodeIndex: 0, inputs: 1, outputs: 2, builtinOptions: 4, customOptions: 5 };
const BUFFER = { data: 0 };

/** Parses the first subgraph of a .tflite file. Constant data stays a view into `bytes`. */
export function readTfliteModel(bytes: Uint8Array): TfliteGraph {
  const identifier = Buffer.from(bytes.subarray(4, 8)).toString('latin1');
  if (identifier !== 'TFL3') throw new Error(`not a TFLite model (identifier "${identifier}")`);
  const model = FlatTable.root(bytes);

  const opNames = model.tables(MODEL.operatorCodes).map((code) => {
    // Newer files store codes > 127 in builtin_code; the deprecated int8 field holds the rest.
    const builtin = Math.max(code.int8(OPERATOR_CODE.deprecatedBuiltinCode), code.int32(OPERATOR_CODE.builtinCode));
    if (builtin === 32) return code.string(OPERATOR_CODE.customCode) ?? 'CUSTOM';
    return BUILTIN_OPERATORS[builtin] ?? `BUILTIN_${builtin}`;
  });
  const buffers = model.tables(MODEL.buffers).map((buffer) => buffer.bytes(BUFFER.data));
  const subgraphs = model.tables(MODEL.subgraphs);
  if (subgraphs.length === 0) throw new Error('TFLite model has no subgraph');
  const graph = subgraphs[0];

  const tensors = graph.tables(SUBGRAPH.tensors).map((tensor, index): TfliteTensor => {
    const data = buffers[tensor.uint32(TENSOR.buffer)];
    return {
      index,
      name: tensor.string(TENSOR.name) ?? `tensor_${index}`,
      shape: tensor.int32s(TENSOR.shape),
      type: tensor.int8(TENSOR.type) as TfliteTensorType,
      data: data && data.length > 0 ? data : undefined,
    };
  });
  const operators = graph.tables(SUBGRAPH.operators).map(
    (op): TfliteOperator => ({
      opName: opNames[op.uint32(OPERATOR.opcodeIndex)],
      inputs: op.int32s(OPERATOR.inputs),
      outputs: op.int32s(OPERATOR.outputs),
      options: op.table(OPERATOR.builtinOptions),
      customOptions: op.bytes(OPERATOR.customOptions),
    }),
  );
  return { tensors, operators, inputs: graph.int32s(SUBGRAPH.inputs), outputs: graph.int32s(SUBGRAPH.outputs) };
}
