/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 */
import * as ort from 'onnxruntime-node';
import { onnx } from 'onnx-proto';
import { OnnxGraphBuilder } from '../../../src/engine/models/onnx/graph-builder';
import { pruneHandOffs, pruneOutputs } from '../../../src/engine/models/onnx/output-pruning';

const { FLOAT } = onnx.TensorProto.DataType;
const [IN, HEIGHT, WIDTH] = [5, 4, 6];

/**
 * x -> 1x1 convolution to 4 channels -> Split [3, 1] -> `colour` (Relu of the first 3) and `alpha`
 * (Sigmoid of the last): RVM's last steps. `alsoRead`: a second node reads the convolution.
 */
function colourAndAlpha(options: { alsoRead?: boolean } = {}): Uint8Array {
  const graph = new OnnxGraphBuilder();
  const weights = graph.addFloatInitializer('w', [4, IN, 1, 1], Float32Array.from({ length: 4 * IN }, (_, i) => Math.sin(i * 0.9)));
  const bias = graph.addFloatInitializer('b', [4], Float32Array.of(0.1, -0.2, 0.3, -0.4));
  const conv = graph.addNode('Conv', ['x', weights, bias], 'conv', { kernel_shape: [1, 1] });
  const [colour, alpha] = graph.addMultiOutputNode('Split', [conv, graph.addInt64Initializer('sizes', [3, 1])], ['colour_raw', 'alpha_raw'], { axis: 1 });
  graph.addNode('Relu', [colour], 'colour');
  graph.addNode('Sigmoid', [alpha], 'alpha');
  const outputs = [
    { name: 'colour', elemType: FLOAT, shape: [1, 3, HEIGHT, WIDTH] },
    { name: 'alpha', elemType: FLOAT, shape: [1, 1, HEIGHT, WIDTH] },
  ];
  if (options.alsoRead) {
    graph.addNode('Neg', [conv], 'negated');
    outputs.push({ name: 'negated', elemType: FLOAT, shape: [1, 4, HEIGHT, WIDTH] });
  }
  return graph.build({ inputs: [{ name: 'x', elemType: FLOAT, shape: [1, IN, HEIGHT, WIDTH] }], outputs, opset: 14, graphName: 'colour_and_alpha' });
}

function pruned(bytes: Uint8Array, names: string[]): { model: onnx.ModelProto; bytes: Uint8Array; removed: number } {
  const model = onnx.ModelProto.decode(bytes);
  const removed = pruneOutputs(model, names);
  return { model, bytes: onnx.ModelProto.encode(model).finish(), removed };
}

async function run(bytes: Uint8Array): Promise<Record<string, Float32Array>> {
  const session = await ort.InferenceSession.create(bytes);
  const x = new ort.Tensor('float32', Float32Array.from({ length: IN * HEIGHT * WIDTH }, (_, i) => Math.cos(i * 0.37) * 2), [1, IN, HEIGHT, WIDTH]);
  const result = await session.run({ x });
  return Object.fromEntries(Object.entries(result).map(([name, tensor]) => [name, tensor.data as Float32Array]));
}

describe('pruneOutputs', () => {
  it('drops an output and the nodes only it needed; the convolution computes the channels still read; the rest is unchanged', async () => {
    const whole = colourAndAlpha();
    const { model, bytes, removed } = pruned(whole, ['colour']);
    expect(removed).toBe(2); // the Relu and the Split
    expect(model.graph!.output!.map((output) => output.name)).toEqual(['alpha']);
    expect(model.graph!.node!.map((node) => node.opType)).toEqual(['Conv', 'Sigmoid']);
    const conv = model.graph!.node![0];
    const weights = model.graph!.initializer!.find((tensor) => tensor.name === conv.input![1])!;
    expect(weights.dims!.map(Number)).toEqual([1, IN, 1, 1]);
    expect(model.graph!.initializer!.map((tensor) => tensor.name).sort()).toEqual([conv.input![1], conv.input![2]].sort()); // the unread ones went
    const [before, after] = [await run(whole), await run(bytes)];
    expect(Object.keys(after)).toEqual(['alpha']);
    expect(Buffer.from(after.alpha.buffer).equals(Buffer.from(before.alpha.buffer))).toBe(true);
  });

  it('leaves a convolution that something else reads whole, and a Split whose parts are all read', async () => {
    const shared = pruned(colourAndAlpha({ alsoRead: true }), ['colour']);
    expect(shared.model.graph!.node!.map((node) => node.opType)).toEqual(['Conv', 'Split', 'Sigmoid', 'Neg']);
    const [before, after] = [await run(colourAndAlpha({ alsoRead: true })), await run(shared.bytes)];
    expect(after.alpha).toEqual(before.alpha);
    expect(after.negated).toEqual(before.negated);

    const untouched = pruned(colourAndAlpha(), ['nothing by that name']);
    expect(untouched.removed).toBe(0);
    expect(untouched.model.graph!.node!.map((node) => node.opType)).toEqual(['Conv', 'Split', 'Relu', 'Sigmoid']);
  });
});

describe('pruneHandOffs', () => {
  const tensor = (name: string) => ({ name, elemType: FLOAT, shape: [1, IN] });
  /** a chain of two parts: the first hands on `kept` and `image`; the second reads both, and `state` */
  function chain(): onnx.ModelProto[] {
    const first = new OnnxGraphBuilder();
    first.addNode('Relu', ['x'], 'kept');
    first.addNode('Neg', ['x'], 'image');
    const second = new OnnxGraphBuilder();
    second.addNode('Add', ['kept', 'state'], 'state_out');
    second.addNode('Mul', ['image', 'state'], 'colour');
    return [
      first.build({ inputs: [tensor('x')], outputs: [tensor('kept'), tensor('image')], opset: 17, graphName: 'first' }),
      second.build({ inputs: [tensor('kept'), tensor('image'), tensor('state')], outputs: [tensor('state_out'), tensor('colour')], opset: 17, graphName: 'second' }),
    ].map((bytes) => onnx.ModelProto.decode(bytes));
  }
  const names = (values: onnx.IValueInfoProto[] | null | undefined) => (values ?? []).map((value) => value.name);

  it('once the last part no longer reads a tensor, the part before stops computing and handing it on; the outputs it is told to keep stay', () => {
    const parts = chain();
    pruneOutputs(parts[1], ['colour']);
    pruneHandOffs(parts, (name) => name === 'state_out');
    expect([names(parts[1].graph!.input), names(parts[1].graph!.output)]).toEqual([['kept', 'state'], ['state_out']]);
    expect([names(parts[0].graph!.output), parts[0].graph!.node!.map((node) => node.opType)]).toEqual([['kept'], ['Relu']]);
  });

  it('changes nothing where every tensor handed on is read', () => {
    const parts = chain();
    pruneHandOffs(parts, (name) => ['state_out', 'colour'].includes(name));
    expect(names(parts[0].graph!.output)).toEqual(['kept', 'image']);
    expect(names(parts[1].graph!.input)).toEqual(['kept', 'image', 'state']);
  });
});
