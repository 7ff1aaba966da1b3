import { onnx } from 'onnx-proto';
import { addInitializer, attribute, dropUnreadInitializers, floatData, int64Data, readersByTensor } from './graph-parts';

const { DataType } = onnx.TensorProto;

/**
 * The graph without the outputs named: the graph outputs go, then every node that no longer
 * leads to an output, and a convolution whose channels a Split divides, where the pruning left one
 * part of the Split read, computes that part's channels alone (the same sums, fewer of them).
 * Returns how many nodes went.
 */
export function pruneOutputs(model: onnx.IModelProto, names: string[]): number {
  const graph = model.graph!;
  const before = graph.node!.length;
  graph.output = graph.output!.filter((output) => !names.includes(output.name!));
  dropDeadNodes(graph);
  narrowSplitConvs(graph);
  dropUnreadInitializers(graph);
  return before - graph.node!.length;
}

/**
 * The parts of a model split into a chain (state-split.ts) once a later part has lost outputs
 * (pruneOutputs): each part stops declaring the inputs its nodes no longer read, and stops computing
 * and handing on what no later part reads, but the outputs `kept` names (a part's state outputs,
 * which its own thread reads back). A part runs on the tensors handed to it and hands them on, so
 * what a later part reads is what its graph inputs name. Changes the parts in place.
 */
export function pruneHandOffs(parts: onnx.IModelProto[], kept: (output: string) => boolean): void {
  for (let index = parts.length - 1; index >= 0; index--) {
    const graph = parts[index].graph!;
    const readLater = new Set(parts.slice(index + 1).flatMap((part) => part.graph!.input!.map((input) => input.name!)));
    pruneOutputs(parts[index], graph.output!.map((output) => output.name!).filter((name) => !kept(name) && !readLater.has(name)));
    const read = new Set(graph.node!.flatMap((node) => node.input!));
    graph.input = graph.input!.filter((input) => read.has(input.name!));
  }
}

/** drops, until none is left, the nodes none of whose outputs is read by a node or the graph */
function dropDeadNodes(graph: onnx.IGraphProto): void {
  for (;;) {
    const read = new Set([...graph.node!.flatMap((node) => node.input!), ...graph.output!.map((output) => output.name!)]);
    const live = graph.node!.filter((node) => node.output!.some((output) => read.has(output)));
    if (live.length === graph.node!.length) return;
    graph.node = live;
  }
}

/**
 * A Split on the channel axis (sizes given as an initializer) of which one output alone is read,
 * fed by an ungrouped float convolution that nothing else reads: the convolution keeps only that
 * output's channels (its weights and bias sliced), and that output's readers read the convolution.
 */
function narrowSplitConvs(graph: onnx.IGraphProto): void {
  const initializers = new Map(graph.initializer!.map((t) => [t.name!, t]));
  const readers = readersByTensor(graph);
  const graphOutputs = new Set(graph.output!.map((output) => output.name!));
  const isRead = (name: string) => graphOutputs.has(name) || (readers.get(name) ?? []).length > 0;
  for (const split of [...graph.node!]) {
    if (split.opType !== 'Split' || Number(attribute(split, 'axis')?.i ?? 0) !== 1) continue;
    const sizes = initializers.get(split.input![1] ?? '');
    const conv = graph.node!.find((node) => node.output![0] === split.input![0]);
    const read = split.output!.flatMap((name, index) => (isRead(name) ? [index] : []));
    const weights = initializers.get(conv?.input![1] ?? '');
    if (!sizes || conv?.opType !== 'Conv' || weights?.dataType !== DataType.FLOAT || read.length !== 1) continue;
    if (Number(attribute(conv, 'group')?.i ?? 1) !== 1) continue;
    if ((readers.get(conv.output![0]) ?? []).length !== 1 || graphOutputs.has(conv.output![0]) || graphOutputs.has(split.output![read[0]])) continue;
    const counts = int64Data(sizes);
    const first = counts.slice(0, read[0]).reduce((a, b) => a + b, 0);
    const channels = counts[read[0]];
    const [, ...kernel] = weights.dims!.map(Number);
    const perChannel = kernel.reduce((a, b) => a * b, 1);
    conv.input![1] = addInitializer(graph, `${conv.input![1]}_channels_${first}_${channels}`, DataType.FLOAT, [channels, ...kernel], floatData(weights).slice(first * perChannel, (first + channels) * perChannel));
    if (conv.input![2]) conv.input![2] = addInitializer(graph, `${conv.input![2]}_channels_${first}_${channels}`, DataType.FLOAT, [channels], floatData(initializers.get(conv.input![2])!).slice(first, first + channels));
    const kept = split.output![read[0]];
    for (const reader of readers.get(kept) ?? []) reader.input = reader.input!.map((name) => (name === kept ? conv.output![0] : name));
    graph.node = graph.node!.filter((node) => node !== split);
  }
}
