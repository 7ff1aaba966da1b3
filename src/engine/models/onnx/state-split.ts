import { onnx } from 'onnx-proto';

const { DataType } = onnx.TensorProto;

export interface StateSplit {
  /** every node that does not depend on the state inputs: reads the graph's other inputs, outputs `carried` */
  stateless: Uint8Array;
  /** the rest: reads the state inputs and `carried` (plus any other graph input it uses), outputs the graph's outputs */
  recurrent: Uint8Array;
  /** the tensors the stateless part hands to the recurrent one */
  carried: string[];
}

/** ops whose outputs are not float: the split cannot type a carried tensor they produce */
const NON_FLOAT_PRODUCERS = new Set(['Shape', 'Size', 'Cast', 'ArgMax', 'ArgMin', 'NonZero', 'TopK']);

/**
 * Splits a recurrent model in two at its state: the part of frame t+1 that does not read the
 * state (for RVM, the encoder on the image) can then run beside the part of frame t that does.
 * Constant subgraphs (a DequantizeLinear of a weight) are copied into whichever part reads them.
 * The nodes must be in topological order, as ONNX requires.
 */
export function splitAtState(modelBytes: Uint8Array, stateInputs: string[]): StateSplit {
  const model = onnx.ModelProto.decode(modelBytes);
  const graph = model.graph!;
  const constant = new Set(graph.initializer!.map((tensor) => tensor.name!));
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

  const producers = new Map(statelessNodes.flatMap((node) => node.output!.map((output) => [output, node] as const)));
  const recurrentReads = new Set(recurrentNodes.flatMap((node) => node.input!));
  const graphOutputs = new Set(graph.output!.map((output) => output.name!));
  const carried = [...producers.keys()].filter((name) => recurrentReads.has(name) || graphOutputs.has(name));

  const stateless = withProducers(carried, [...constantNodes, ...statelessNodes]);
  const recurrent = [...withProducers([...recurrentReads], constantNodes), ...recurrentNodes];
  const graphInputs = (nodes: onnx.INodeProto[]) => {
    const read = new Set(nodes.flatMap((node) => node.input!));
    return graph.input!.filter((input) => read.has(input.name!));
  };
  const carriedInputs = carried.map((name): onnx.IValueInfoProto => ({ name, type: { tensorType: { elemType: carriedType(producers.get(name)!, name) } } }));
  return {
    stateless: encodePart(model, stateless, graphInputs(stateless), carriedInputs),
    recurrent: encodePart(model, recurrent, [...graphInputs(recurrent), ...carriedInputs], graph.output!),
    carried,
  };
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

function carriedType(producer: onnx.INodeProto, name: string): onnx.TensorProto.DataType {
  if (producer.opType === 'QuantizeLinear') return DataType.UINT8; // this project's activations are uint8 (qdq-quantizer.ts)
  if (NON_FLOAT_PRODUCERS.has(producer.opType!)) throw new Error(`cannot carry ${name}: ${producer.opType} does not produce floats`);
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
