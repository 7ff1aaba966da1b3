import { onnx } from 'onnx-proto';

/** Reading and adding parts of an ONNX graph: node attributes, initializers, who reads a tensor. */

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

export function int64Data(tensor: onnx.ITensorProto): number[] {
  const raw = tensor.rawData;
  if (!raw?.length) return (tensor.int64Data ?? []).map(Number);
  // a copy: decoded, `raw` is a view into the model's bytes at any alignment
  return Array.from(new BigInt64Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength)), Number);
}

export function addInitializer(graph: onnx.IGraphProto, name: string, dataType: number, dims: number[], data: Float32Array | Int8Array | Uint8Array | Int32Array | BigInt64Array): string {
  const raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  graph.initializer!.push({ name, dims, dataType, rawData: new Uint8Array(raw) });
  return name;
}

/** a Pad's `pads` for an NCHW tensor: one pixel on each side of its height and width */
export function addOnePixelPads(graph: onnx.IGraphProto, name: string): string {
  return addInitializer(graph, name, onnx.TensorProto.DataType.INT64, [8], BigInt64Array.of(0n, 0n, 1n, 1n, 0n, 0n, 1n, 1n));
}

/** the nodes that read each tensor, by its name */
export function readersByTensor(graph: onnx.IGraphProto): Map<string, onnx.INodeProto[]> {
  const readers = new Map<string, onnx.INodeProto[]>();
  for (const node of graph.node!) for (const input of node.input!) readers.set(input, [...(readers.get(input) ?? []), node]);
  return readers;
}

/** drops the initializers no node reads any more */
export function dropUnreadInitializers(graph: onnx.IGraphProto): void {
  const read = new Set(graph.node!.flatMap((node) => node.input!));
  graph.initializer = graph.initializer!.filter((tensor) => read.has(tensor.name!));
}
