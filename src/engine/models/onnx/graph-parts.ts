import { onnx } from 'onnx-proto';

/** Reading and adding parts of an ONNX graph: node attributes and initializers. */

export function attribute(node: onnx.INodeProto, name: string): onnx.IAttributeProto | undefined {
  return node.attribute?.find((a) => a.name === name);
}

export function attributeInts(node: onnx.INodeProto, name: string): number[] {
  return (attribute(node, name)?.ints ?? []).map(Number);
}

export function attributeText(node: onnx.INodeProto, name: string): string | undefined {
  const value = attribute(node, name)?.s;
  return value ? new TextDecoder().decode(value) : undefined;
}

export function floatData(tensor: onnx.ITensorProto): Float32Array {
  if (tensor.rawData?.length) {
    const raw = tensor.rawData;
    return new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  }
  return Float32Array.from(tensor.floatData ?? []);
}

export function addInitializer(graph: onnx.IGraphProto, name: string, dataType: number, dims: number[], data: Float32Array | Int8Array | Uint8Array | Int32Array | BigInt64Array): string {
  const raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  graph.initializer!.push({ name, dims, dataType, rawData: new Uint8Array(raw) });
  return name;
}
