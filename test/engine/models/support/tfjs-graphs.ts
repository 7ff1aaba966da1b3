import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import * as tfc from '@tensorflow/tfjs-converter';
import * as ort from 'onnxruntime-node';
import { ConstTensor, TfAttribute, TfjsGraphModel, TfNode } from '../../../../src/engine/models/tfjs/tfjs-graph-model';
import { convertTfjsToOnnx, TfjsConversionOptions } from '../../../../src/engine/models/tfjs/tfjs-to-onnx';

/**
 * Small TF graphs written node by node, run twice: by TensorFlow.js (CPU backend) from in-memory
 * artifacts, and by onnxruntime after conversion.
 */
export const attr = {
  s: (value: string): TfAttribute => ({ s: Buffer.from(value).toString('base64') }),
  i: (value: number): TfAttribute => ({ i: String(value) }),
  ints: (values: number[]): TfAttribute => ({ list: { i: values.map(String) } }),
  strings: (values: string[]): TfAttribute => ({ list: { s: values.map((v) => Buffer.from(v).toString('base64')) } }),
  b: (value: boolean): TfAttribute => ({ b: value }),
  type: (value: string): TfAttribute => ({ type: value }),
};

export const NHWC = { data_format: attr.s('NHWC'), T: attr.type('DT_FLOAT') };

export interface GraphSpec {
  nodes: TfNode[];
  consts: Record<string, ConstTensor>;
  /** scalar float placeholders, fixed at conversion and fed to tfjs */
  fixed?: Record<string, number>;
  outputs: string[];
  height: number;
  width: number;
}

export function placeholder(name: string): TfNode {
  return { name, op: 'Placeholder', attr: { dtype: attr.type('DT_FLOAT') } };
}

export function floats(shape: number[], f: (i: number) => number = () => Math.random() * 2 - 1): ConstTensor {
  const size = shape.reduce((a, b) => a * b, 1);
  return { dtype: 'float32', shape, data: Float32Array.from({ length: size }, (_, i) => f(i)) };
}

export function ints(values: number[], shape = [values.length]): ConstTensor {
  return { dtype: 'int32', shape, data: Int32Array.from(values) };
}

function constNode(name: string, tensor: ConstTensor): TfNode {
  return { name, op: 'Const', attr: { dtype: attr.type(tensor.dtype === 'int32' ? 'DT_INT32' : 'DT_FLOAT') } };
}

export function toTfjsGraph(spec: GraphSpec): TfjsGraphModel {
  const nodes = [placeholder('x'), ...Object.keys(spec.fixed ?? {}).map(placeholder), ...Object.entries(spec.consts).map(([n, t]) => constNode(n, t)), ...spec.nodes];
  return {
    nodes: new Map(nodes.map((n) => [n.name, n])),
    weights: new Map(Object.entries(spec.consts)),
    inputs: {},
    outputs: Object.fromEntries(spec.outputs.map((ref, i) => [`out${i}`, ref])),
  };
}

/** runs the graph in TensorFlow.js; outputs NHWC */
export async function runTfjs(spec: GraphSpec, x: Float32Array): Promise<Float32Array[]> {
  await tf.setBackend('cpu');
  const graph = toTfjsGraph(spec);
  const entries = [...graph.weights.entries()];
  const buffers = entries.map(([, t]) => new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  const weightData = new Uint8Array(buffers.reduce((sum, b) => sum + b.length, 0));
  buffers.reduce((offset, b) => (weightData.set(b, offset), offset + b.length), 0);
  const model = tfc.loadGraphModelSync({
    format: 'graph-model',
    modelTopology: { node: [...graph.nodes.values()], versions: { producer: 716 } },
    weightSpecs: entries.map(([name, t]) => ({ name, shape: t.shape, dtype: t.dtype === 'int32' ? 'int32' : 'float32' })),
    weightData: weightData.buffer,
  });
  const feeds: Record<string, tf.Tensor> = { x: tf.tensor(x, [1, spec.height, spec.width, 3]) };
  for (const [name, value] of Object.entries(spec.fixed ?? {})) feeds[name] = tf.scalar(value);
  const controlFlow = spec.nodes.some((n) => n.op === 'Switch');
  const result = controlFlow ? await model.executeAsync(feeds, spec.outputs) : model.execute(feeds, spec.outputs);
  const tensors = Array.isArray(result) ? result : [result];
  return tensors.map((t) => t.dataSync() as Float32Array);
}

/** converts the graph and runs it in onnxruntime; outputs NHWC */
export async function runConverted(spec: GraphSpec, x: Float32Array, options: Partial<TfjsConversionOptions> = {}): Promise<Float32Array[]> {
  const graph = toTfjsGraph(spec);
  const outputs = Object.keys(graph.outputs);
  const bytes = convertTfjsToOnnx(graph, { imageInput: 'x', height: spec.height, width: spec.width, fixedInputs: spec.fixed, nhwcOutputs: outputs, ...options });
  const session = await ort.InferenceSession.create(bytes);
  const result = await session.run({ x: new ort.Tensor('float32', x, [1, spec.height, spec.width, 3]) });
  await session.release();
  return outputs.map((name) => result[name].data as Float32Array);
}

export function maxAbsDifference(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new Error(`sizes differ: ${a.length} vs ${b.length}`);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}
