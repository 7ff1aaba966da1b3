import { onnx } from 'onnx-proto';

export type AttributeValue = number | number[] | string | { float: number };

export interface ValueInfo {
  name: string;
  elemType: onnx.TensorProto.DataType;
  shape: number[];
}

/** Collects nodes and initializers, then serialises an ONNX ModelProto. */
export class OnnxGraphBuilder {
  private readonly nodes: onnx.INodeProto[] = [];
  private readonly initializers: onnx.ITensorProto[] = [];
  private readonly usedNames = new Set<string>();

  /** a fresh tensor name derived from `base` */
  uniqueName(base: string): string {
    let name = base.replace(/[^A-Za-z0-9_./:-]/g, '_');
    for (let i = 1; this.usedNames.has(name); i++) name = `${base}_${i}`;
    this.usedNames.add(name);
    return name;
  }

  addFloatInitializer(base: string, dims: number[], values: Float32Array): string {
    const name = this.uniqueName(base);
    const raw = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    this.initializers.push({ name, dims, dataType: onnx.TensorProto.DataType.FLOAT, rawData: new Uint8Array(raw) });
    return name;
  }

  addInt64Initializer(base: string, values: number[]): string {
    const name = this.uniqueName(base);
    const data = BigInt64Array.from(values.map((v) => BigInt(v)));
    this.initializers.push({
      name,
      dims: [values.length],
      dataType: onnx.TensorProto.DataType.INT64,
      rawData: new Uint8Array(data.buffer),
    });
    return name;
  }

  /** Adds a node and returns the name of its (single) output. */
  addNode(opType: string, inputs: string[], outputBase: string, attributes: Record<string, AttributeValue> = {}): string {
    return this.addMultiOutputNode(opType, inputs, [outputBase], attributes)[0];
  }

  /** Adds a node with several outputs (Split) and returns their names. */
  addMultiOutputNode(opType: string, inputs: string[], outputBases: string[], attributes: Record<string, AttributeValue> = {}): string[] {
    const outputs = outputBases.map((base) => this.uniqueName(base));
    this.nodes.push({
      opType,
      name: this.uniqueName(`${opType}_${outputs[0]}`),
      input: inputs,
      output: outputs,
      attribute: Object.entries(attributes).map(([name, value]) => toAttribute(name, value)),
    });
    return outputs;
  }

  build(options: { inputs: ValueInfo[]; outputs: ValueInfo[]; opset: number; graphName: string }): Uint8Array {
    const valueInfo = (v: ValueInfo): onnx.IValueInfoProto => ({
      name: v.name,
      type: { tensorType: { elemType: v.elemType, shape: { dim: v.shape.map((dimValue) => ({ dimValue })) } } },
    });
    const model: onnx.IModelProto = {
      irVersion: 8,
      producerName: 'backdrop',
      opsetImport: [{ domain: '', version: options.opset }],
      graph: {
        name: options.graphName,
        node: this.nodes,
        initializer: this.initializers,
        input: options.inputs.map(valueInfo),
        output: options.outputs.map(valueInfo),
      },
    };
    return onnx.ModelProto.encode(onnx.ModelProto.create(model)).finish();
  }
}

function toAttribute(name: string, value: AttributeValue): onnx.IAttributeProto {
  const type = onnx.AttributeProto.AttributeType;
  if (typeof value === 'number') return { name, type: type.INT, i: value };
  if (typeof value === 'string') return { name, type: type.STRING, s: Buffer.from(value, 'utf8') };
  if (Array.isArray(value)) return { name, type: type.INTS, ints: value };
  return { name, type: type.FLOAT, f: value.float };
}
