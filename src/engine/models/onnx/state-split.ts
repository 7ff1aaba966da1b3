import { onnx } from 'onnx-proto';
import { attribute, attributeInts } from './graph-parts';

const { DataType } = onnx.TensorProto;

export interface StageSplit {
  /** reads the graph's inputs but the state; outputs what `recurrent` reads of it */
  stateless: Uint8Array;
  /** reads the state and those tensors; outputs every output of the graph */
  recurrent: Uint8Array;
}

/** ops whose outputs are not float: the split cannot type a tensor they produce */
const NON_FLOAT_PRODUCERS = new Set(['Shape', 'Size', 'Cast', 'ArgMax', 'ArgMin', 'NonZero', 'TopK']);

/**
 * Splits a recurrent model in two at its state, so that the two parts can run a frame apart on
 * threads of their own: what does not read the state (for RVM, the encoder on the image) for frame
 * t+1 beside what does (the recurrent decoder) for frame t. Constant subgraphs (a
 * DequantizeLinear of a weight) are copied into each part that reads them. The nodes must be in
 * topological order, as ONNX requires; the recurrent part may read no graph input but the state,
 * and every graph output must depend on the state. A stateless convolution that widens a tensor the
 * recurrent part reads anyway runs in the recurrent part (takeWideningConvs).
 */
export function splitAtState(modelBytes: Uint8Array, stateInputs: string[]): StageSplit {
  const model = onnx.ModelProto.decode(modelBytes);
  const graph = model.graph!;
  const constant = new Set(graph.initializer!.map((tensor) => tensor.name!));
  /** the state inputs and every tensor computed from them */
  const stateful = new Set(stateInputs);
  const constantNodes: onnx.INodeProto[] = [];
  const statelessNodes: onnx.INodeProto[] = [];
  const recurrentNodes: onnx.INodeProto[] = [];
  for (const node of graph.node!) {
    const inputs = node.input!.filter((name) => name !== '');
    const target = inputs.every((name) => constant.has(name))
      ? { nodes: constantNodes, marks: constant }
      : inputs.some((name) => stateful.has(name))
        ? { nodes: recurrentNodes, marks: stateful }
        : { nodes: statelessNodes, marks: undefined };
    target.nodes.push(node);
    for (const output of node.output!) target.marks?.add(output);
  }
  if (!recurrentNodes.length) throw new Error('no node reads the state inputs');
  recurrentNodes.unshift(...takeWideningConvs(graph, statelessNodes, recurrentNodes));

  const reads = (nodes: onnx.INodeProto[]) => new Set(nodes.flatMap((node) => node.input!));
  const recurrentReads = reads(recurrentNodes);
  const producers = new Map(statelessNodes.flatMap((node) => node.output!.map((output) => [output, node] as const)));
  const handed = [...producers.keys()].filter((name) => recurrentReads.has(name)).map((name): onnx.IValueInfoProto => ({ name, type: { tensorType: { elemType: tensorType(producers.get(name)!, name) } } }));
  const stray = graph.input!.find((input) => recurrentReads.has(input.name!) && !stateInputs.includes(input.name!));
  if (stray) throw new Error(`the recurrent part reads the graph input ${stray.name}, which only the stateless part receives`);
  const early = graph.output!.find((output) => producers.has(output.name!));
  if (early) throw new Error(`the graph output ${early.name} does not depend on the state: the recurrent part could not give it`);

  const stateless = withProducers(handed.map((value) => value.name!), statelessNodes);
  const withConstants = (nodes: onnx.INodeProto[]) => [...withProducers([...reads(nodes)], constantNodes), ...nodes];
  const graphInputs = (nodes: onnx.INodeProto[]) => graph.input!.filter((input) => reads(nodes).has(input.name!));
  return {
    stateless: encodePart(model, withConstants(stateless), graphInputs(stateless), handed),
    recurrent: encodePart(model, withConstants(recurrentNodes), [...graphInputs(recurrentNodes), ...handed], graph.output!),
  };
}

/**
 * Stateless convolutions that the recurrent part had better run itself, taken out of `stateless`:
 * those that read a tensor already handed on, whose outputs only the recurrent part reads, and
 * that widen it (more output channels than input channels, stride 1, weights an initializer: the
 * float convolutions; int8 ones read dequantised weights and stay). Handing on their input
 * instead of their output moves fewer bytes between the threads (RVM's output block: its
 * convolution of the 3-channel image into 16 channels at full size would cross as 14.7 MB a frame
 * at 640x360), and the copy out of onnxruntime and the layout changes on both sides cost more than
 * the convolution.
 */
function takeWideningConvs(graph: onnx.IGraphProto, stateless: onnx.INodeProto[], recurrent: onnx.INodeProto[]): onnx.INodeProto[] {
  const recurrentReads = new Set(recurrent.flatMap((node) => node.input!));
  const statelessReads = new Set(stateless.flatMap((node) => node.input!));
  const graphOutputs = new Set(graph.output!.map((output) => output.name!));
  const weightDims = new Map(graph.initializer!.map((tensor) => [tensor.name!, (tensor.dims ?? []).map(Number)]));
  const taken = stateless.filter((node) => {
    if (node.opType !== 'Conv' || !recurrentReads.has(node.input![0])) return false;
    if (node.output!.some((output) => statelessReads.has(output) || graphOutputs.has(output))) return false;
    const [outChannels, inChannels] = weightDims.get(node.input![1]) ?? [];
    const strided = attributeInts(node, 'strides').some((stride) => stride !== 1);
    const group = Number(attribute(node, 'group')?.i ?? 1);
    return outChannels !== undefined && !strided && outChannels > inChannels * group;
  });
  for (const node of taken) stateless.splice(stateless.indexOf(node), 1);
  return taken;
}

/** the nodes among `candidates` that the named tensors need, in their order */
function withProducers(names: string[], candidates: onnx.INodeProto[]): onnx.INodeProto[] {
  const needed = new Set(names);
  const picked: onnx.INodeProto[] = [];
  for (let i = candidates.length - 1; i >= 0; i--) {
    const node = candidates[i];
    if (!node.output!.some((output) => needed.has(output))) continue;
    picked.push(node);
    for (const input of node.input!) needed.add(input);
  }
  return picked.reverse();
}

function tensorType(producer: onnx.INodeProto, name: string): onnx.TensorProto.DataType {
  if (producer.opType === 'QuantizeLinear') return DataType.UINT8; // this project's activations are uint8 (qdq-quantizer.ts)
  if (NON_FLOAT_PRODUCERS.has(producer.opType!)) throw new Error(`cannot hand on ${name}: ${producer.opType} does not produce floats`);
  return DataType.FLOAT;
}

function encodePart(model: onnx.ModelProto, nodes: onnx.INodeProto[], inputs: onnx.IValueInfoProto[], outputs: onnx.IValueInfoProto[]): Uint8Array {
  const read = new Set(nodes.flatMap((node) => node.input!));
  const graph = model.graph!;
  const part: onnx.IModelProto = {
    ...model,
    graph: { name: graph.name, node: nodes, initializer: graph.initializer!.filter((tensor) => read.has(tensor.name!)), input: inputs, output: outputs },
  };
  return onnx.ModelProto.encode(part).finish();
}
