import { readFileSync } from 'fs';
import { dirname, join } from 'path';
import { halfToFloat } from '../tflite/tensor-data';

export type DType = 'float32' | 'int32' | 'bool';

/** A constant tensor: weights, folded shape arithmetic, folded conditions. */
export interface ConstTensor {
  dtype: DType;
  shape: number[];
  /** bool as 0/1 in an Int32Array */
  data: Float32Array | Int32Array;
}

export interface TfAttribute {
  s?: string;
  i?: string;
  f?: number;
  b?: boolean;
  type?: string;
  list?: { i?: string[]; s?: string[]; f?: number[] };
  shape?: unknown;
}

export interface TfNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, TfAttribute>;
}

export interface TfjsGraphModel {
  nodes: Map<string, TfNode>;
  weights: Map<string, ConstTensor>;
  /** signature name -> graph tensor ("Identity_1:0") */
  inputs: Record<string, string>;
  outputs: Record<string, string>;
}

interface WeightEntry {
  name: string;
  shape: number[];
  dtype: DType;
  quantization?: { dtype: 'uint8' | 'uint16' | 'float16'; min?: number; scale?: number };
}

interface ModelJson {
  modelTopology: { node: TfNode[] };
  weightsManifest: { paths: string[]; weights: WeightEntry[] }[];
  signature?: { inputs: Record<string, { name: string }>; outputs: Record<string, { name: string }> };
}

/** Reads a TF.js graph model (model.json and its weight shards), dequantizing uint8/uint16 weights. */
export function readTfjsGraphModel(modelJsonPath: string): TfjsGraphModel {
  const json = JSON.parse(readFileSync(modelJsonPath, 'utf8')) as ModelJson;
  const nodes = new Map(json.modelTopology.node.map((node) => [node.name, node]));
  const weights = new Map<string, ConstTensor>();
  for (const group of json.weightsManifest) {
    const shards = group.paths.map((path) => readFileSync(join(dirname(modelJsonPath), path)));
    const bytes = Buffer.concat(shards);
    let offset = 0;
    for (const entry of group.weights) {
      const [tensor, size] = decodeWeight(entry, bytes, offset);
      weights.set(entry.name, tensor);
      offset += size;
    }
    if (offset !== bytes.length) throw new Error(`weights manifest covers ${offset} of ${bytes.length} bytes`);
  }
  const names = (record: Record<string, { name: string }> = {}): Record<string, string> =>
    Object.fromEntries(Object.entries(record).map(([key, value]) => [key.replace(/:0$/, ''), value.name]));
  return { nodes, weights, inputs: names(json.signature?.inputs), outputs: names(json.signature?.outputs) };
}

function decodeWeight(entry: WeightEntry, bytes: Buffer, offset: number): [ConstTensor, number] {
  const count = entry.shape.reduce((a, b) => a * b, 1);
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset);
  const q = entry.quantization;
  if (q && (q.dtype === 'uint8' || q.dtype === 'uint16')) {
    const width = q.dtype === 'uint8' ? 1 : 2;
    const data = entry.dtype === 'int32' ? new Int32Array(count) : new Float32Array(count);
    for (let i = 0; i < count; i++) {
      const level = width === 1 ? view.getUint8(i) : view.getUint16(2 * i, true);
      // as tfjs-converter does: one float rounding of level * scale + min
      data[i] = level * q.scale! + q.min!;
    }
    return [{ dtype: entry.dtype, shape: entry.shape, data }, count * width];
  }
  if (q && q.dtype === 'float16') {
    const data = new Float32Array(count);
    for (let i = 0; i < count; i++) data[i] = halfToFloat(view.getUint16(2 * i, true));
    return [{ dtype: 'float32', shape: entry.shape, data }, count * 2];
  }
  if (q) throw new Error(`weight ${entry.name}: ${q.dtype} quantization is not supported`);
  if (entry.dtype === 'bool') {
    return [{ dtype: 'bool', shape: entry.shape, data: Int32Array.from(bytes.subarray(offset, offset + count)) }, count];
  }
  const data = entry.dtype === 'int32' ? new Int32Array(count) : new Float32Array(count);
  for (let i = 0; i < count; i++) data[i] = entry.dtype === 'int32' ? view.getInt32(4 * i, true) : view.getFloat32(4 * i, true);
  return [{ dtype: entry.dtype, shape: entry.shape, data }, count * 4];
}

/** node attribute helpers (strings arrive base64-encoded in model.json) */
export function attrString(node: TfNode, name: string): string | undefined {
  const s = node.attr?.[name]?.s;
  return s === undefined ? undefined : Buffer.from(s, 'base64').toString('utf8');
}

export function attrInts(node: TfNode, name: string): number[] {
  return (node.attr?.[name]?.list?.i ?? []).map(Number);
}

export function attrInt(node: TfNode, name: string, fallback = 0): number {
  const i = node.attr?.[name]?.i;
  return i === undefined ? fallback : Number(i);
}

export function attrBool(node: TfNode, name: string): boolean {
  return node.attr?.[name]?.b === true;
}

export function attrStrings(node: TfNode, name: string): string[] {
  return (node.attr?.[name]?.list?.s ?? []).map((s) => Buffer.from(s, 'base64').toString('utf8'));
}
