import { onnx } from 'onnx-proto';
import { attribute, attributeInts } from './graph-parts';

const { DataType } = onnx.TensorProto;

/** ops whose outputs are not float: the split cannot type a tensor they produce */
const NON_FLOAT_PRODUCERS = new Set(['Shape', 'Size', 'Cast', 'ArgMax', 'ArgMin', 'NonZero', 'TopK']);

/**
 * Splits a recurrent model at its state into a stateless part and one recurrent part per group of
 * state inputs, in the order given: part 0 is what reads no state, part k what reads group k's
 * state or what part k computes, and nothing that a later part computes. Each part reads the tensors it
 * needs from the parts before it, so the parts can run a frame apart each on a thread of its own,
 * in a chain: for RVM, the encoder on the image for frame t+1 beside the recurrent decoder for frame
 * t, the decoder itself in one part or several, each thread with its own state.
 * A group's state outputs must come out of its own part, since that part's thread keeps the state,
 * and no later part may read a part's graph outputs: that thread keeps them, it does not hand them on.
 * Constant subgraphs (a DequantizeLinear of a weight) are copied into each part that reads them.
 * The nodes must be in topological order, as ONNX requires; a recurrent part may read no graph
 * input but its own group's state, and every graph output must depend on the state. A stateless
 * convolution that widens a tensor a recurrent part reads anyway runs in that part
 * (takeWideningConvs). Returns the parts in order, the stateless one first.
 */
export function splitAtStates(modelBytes: Uint8Array, stateGroups: string[][]): Uint8Array[] {
  const model = onnx.ModelProto.decode(modelBytes);
  const graph = model.graph!;
  const constant = new Set(graph.initializer!.map((tensor) => tensor.name!));
  /** the part that computes each tensor, the state inputs in their group's part (graph inputs: 0) */
  const partOf = new Map(stateGroups.flatMap((group, index) => group.map((name) => [name, index + 1] as const)));
  const constantNodes: onnx.INodeProto[] = [];
  const parts: onnx.INodeProto[][] = [[], ...stateGroups.map(() => [])];
  for (const node of graph.node!) {
    const inputs = node.input!.filter((name) => name !== '');
    if (inputs.every((name) => constant.has(name))) {
      constantNodes.push(node);
      for (const output of node.output!) constant.add(output);
      continue;
    }
    const part = Math.max(0, ...inputs.map((name) => partOf.get(name) ?? 0));
    parts[part].push(node);
    for (const output of node.output!) partOf.set(output, part);
  }
  stateGroups.forEach((group, index) => {
    if (!parts[index + 1].length) throw new Error(`no node reads the state inputs ${group.join(', ')} without reading a later group's`);
  });
  takeWideningConvs(graph, parts);

  const reads = (nodes: onnx.INodeProto[]) => new Set(nodes.flatMap((node) => node.input!));
  const producers = new Map(parts.flatMap((nodes, part) => nodes.flatMap((node) => node.output!.map((output) => [output, { node, part }] as const))));
  const partReads = parts.map(reads);
  const readLater = (name: string, part: number) => partReads.slice(part + 1).some((names) => names.has(name));
  const valueInfo = (name: string): onnx.IValueInfoProto => ({ name, type: { tensorType: { elemType: tensorType(producers.get(name)!.node, name) } } });
  const graphOutputs = new Map(graph.output!.map((output) => [output.name!, output]));
  for (const [name] of graphOutputs) {
    if (producers.get(name)?.part === 0) throw new Error(`the graph output ${name} does not depend on the state: the recurrent part could not give it`);
  }
  const groupInputs = [new Set<string>(), ...stateGroups.map((group) => new Set(group))];
  const handedState = [...graphOutputs.keys()].find((name) => readLater(name, producers.get(name)?.part ?? parts.length));
  if (handedState) throw new Error(`the graph output ${handedState} is read by a later part: a part keeps its state outputs, it does not hand them on`);

  return parts.map((nodes, part) => {
    const stray = graph.input!.find((input) => part > 0 && partReads[part].has(input.name!) && !groupInputs[part].has(input.name!));
    if (stray) throw new Error(`the recurrent part reads the graph input ${stray.name}, which only ${partOf.get(stray.name!) ? 'another recurrent part' : 'the stateless part'} receives`);
    const computed = (name: string) => producers.get(name)?.part === part;
    const handedOn = [...producers.keys()].filter((name) => computed(name) && !graphOutputs.has(name) && readLater(name, part));
    const outputs = [...graph.output!.filter((output) => computed(output.name!)), ...handedOn.map(valueInfo)];
    const kept = part === 0 ? withProducers(outputs.map((output) => output.name!), nodes) : nodes;
    const keptReads = part === 0 ? reads(kept) : partReads[part];
    const handed = [...producers].filter(([name, producer]) => producer.part < part && keptReads.has(name)).map(([name]) => valueInfo(name));
    const inputs = graph.input!.filter((input) => keptReads.has(input.name!));
    return encodePart(model, [...withProducers([...keptReads], constantNodes), ...kept], [...inputs, ...handed], outputs);
  });
}

/**
 * Stateless convolutions that a recurrent part had better run itself, moved into it: those whose
 * input that part (or a later one) reads anyway, whose outputs only recurrent parts read, and that
 * widen it (more output channels than input channels, stride 1, weights an initializer: the float
 * convolutions; int8 ones read dequantised weights and stay). Handing on their input instead of
 * their output moves fewer bytes between the threads (RVM's output block: its convolution of the
 * 3-channel image into 16 channels at full size would cross as 14.7 MB a frame at 640x360), and the
 * copy out of onnxruntime and the layout changes on both sides cost more than the convolution.
 * Each goes to the first part that reads its outputs.
 */
function takeWideningConvs(graph: onnx.IGraphProto, parts: onnx.INodeProto[][]): void {
  const readers = new Map<string, number[]>();
  parts.forEach((nodes, part) => nodes.forEach((node) => node.input!.forEach((name) => readers.set(name, [...(readers.get(name) ?? []), part]))));
  const graphOutputs = new Set(graph.output!.map((output) => output.name!));
  const weightDims = new Map(graph.initializer!.map((tensor) => [tensor.name!, (tensor.dims ?? []).map(Number)]));
  const stateless = parts[0];
  const taken = stateless.flatMap((node) => {
    if (node.opType !== 'Conv' || node.output!.some((output) => graphOutputs.has(output))) return [];
    const outputReaders = node.output!.flatMap((output) => readers.get(output) ?? []);
    if (!outputReaders.length || outputReaders.includes(0)) return [];
    const target = Math.min(...outputReaders);
    if (!(readers.get(node.input![0]) ?? []).some((part) => part >= target)) return [];
    const [outChannels, inChannels] = weightDims.get(node.input![1]) ?? [];
    const strided = attributeInts(node, 'strides').some((stride) => stride !== 1);
    const group = Number(attribute(node, 'group')?.i ?? 1);
    return outChannels !== undefined && !strided && outChannels > inChannels * group ? [{ node, target }] : [];
  });
  for (const { node } of taken) stateless.splice(stateless.indexOf(node), 1);
  for (const { node, target } of taken.reverse()) parts[target].unshift(node);
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
