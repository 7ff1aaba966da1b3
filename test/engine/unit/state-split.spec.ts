/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 */
import * as ort from 'onnxruntime-node';
import { onnx } from 'onnx-proto';
import { OnnxGraphBuilder } from '../../../src/engine/models/onnx/graph-builder';
import { splitAtStates } from '../../../src/engine/models/onnx/state-split';

const { FLOAT } = onnx.TensorProto.DataType;
const SIZE = 6;

/**
 * A small recurrent model: state' = relu(x * w) + state * 0.5 and y = sigmoid(state' * k), where
 * the constants w and k come from constant subgraphs (Neg of an initializer).
 */
function recurrentModel(): Uint8Array {
  const graph = new OnnxGraphBuilder();
  const weights = graph.addNode('Neg', [graph.addFloatInitializer('w', [1, SIZE], Float32Array.from({ length: SIZE }, (_, i) => -0.5 - i / 10))], 'w_neg');
  const gain = graph.addNode('Neg', [graph.addFloatInitializer('k', [1, SIZE], Float32Array.from({ length: SIZE }, (_, i) => -1 - i / 5))], 'k_neg');
  const half = graph.addFloatInitializer('half', [1], Float32Array.of(0.5));
  const encoded = graph.addNode('Relu', [graph.addNode('Mul', ['x', weights], 'xw')], 'encoded');
  const next = graph.addNode('Add', [encoded, graph.addNode('Mul', ['state_in', half], 'kept')], 'state_out');
  graph.addNode('Sigmoid', [graph.addNode('Mul', [next, gain], 'scaled')], 'y');
  const tensor = (name: string) => ({ name, elemType: FLOAT, shape: [1, SIZE] });
  return graph.build({ inputs: [tensor('x'), tensor('state_in')], outputs: [tensor('y'), tensor('state_out')], opset: 17, graphName: 'recurrent' });
}

/** the two-part split: what does not read the state, and what does */
function splitAtState(modelBytes: Uint8Array, stateInputs: string[]): { stateless: Uint8Array; recurrent: Uint8Array } {
  const [stateless, recurrent] = splitAtStates(modelBytes, [stateInputs]);
  return { stateless, recurrent };
}

describe('splitAtStates in two parts', () => {
  const split = splitAtState(recurrentModel(), ['state_in']);
  const names = (values: onnx.IValueInfoProto[] | null | undefined) => values!.map((value) => value.name);

  it('cuts what does not read the state from what does, and hands on only what the second reads', () => {
    const stateless = onnx.ModelProto.decode(split.stateless).graph!;
    const recurrent = onnx.ModelProto.decode(split.recurrent).graph!;
    expect([names(stateless.input), stateless.node!.map((node) => node.opType), names(stateless.output)]).toEqual([['x'], ['Neg', 'Mul', 'Relu'], ['encoded']]);
    // the constant subgraph the recurrent part reads is copied into it, not handed on
    expect([names(recurrent.input), recurrent.node!.map((node) => node.opType), names(recurrent.output)]).toEqual([
      ['state_in', 'encoded'],
      ['Neg', 'Mul', 'Add', 'Mul', 'Sigmoid'],
      ['y', 'state_out'],
    ]);
  });

  it('runs frame after frame, the state carried, to the outputs of the whole model', async () => {
    const options = { graphOptimizationLevel: 'all' } as const;
    const [whole, first, second] = await Promise.all([recurrentModel(), split.stateless, split.recurrent].map((bytes) => ort.InferenceSession.create(bytes, options)));
    let wholeState: ort.Tensor = new ort.Tensor('float32', new Float32Array(SIZE), [1, SIZE]);
    let splitState = wholeState;
    for (let frame = 0; frame < 4; frame++) {
      const x = new ort.Tensor('float32', Float32Array.from({ length: SIZE }, (_, i) => Math.sin(frame * 3 + i)), [1, SIZE]);
      const expected = await whole.run({ x, state_in: wholeState });
      const { encoded } = await first.run({ x });
      const actual = await second.run({ state_in: splitState, encoded });
      expect([...(actual.y.data as Float32Array)]).toEqual([...(expected.y.data as Float32Array)]);
      expect([...(actual.state_out.data as Float32Array)]).toEqual([...(expected.state_out.data as Float32Array)]);
      wholeState = expected.state_out;
      splitState = actual.state_out;
    }
  });

  it('refuses a model where nothing reads the state, whose recurrent part reads another input, or with an output the state does not make', () => {
    expect(() => splitAtState(recurrentModel(), ['not_an_input'])).toThrow('no node reads the state inputs');
    const tensor = (name: string) => ({ name, elemType: FLOAT, shape: [1, SIZE] });
    const readsInput = new OnnxGraphBuilder();
    readsInput.addNode('Add', ['state_in', 'x'], 'state_out');
    const inputs = [tensor('x'), tensor('state_in')];
    expect(() => splitAtState(readsInput.build({ inputs, outputs: [tensor('state_out')], opset: 17, graphName: 'g' }), ['state_in'])).toThrow('the recurrent part reads the graph input x');
    const stateFree = new OnnxGraphBuilder();
    stateFree.addNode('Relu', ['x'], 'early');
    stateFree.addNode('Neg', ['state_in'], 'state_out');
    const outputs = [tensor('early'), tensor('state_out')];
    expect(() => splitAtState(stateFree.build({ inputs, outputs, opset: 17, graphName: 'g' }), ['state_in'])).toThrow('the graph output early does not depend on the state');
  });

  /**
   * x (2 channels) -> relu -> `image`, which the recurrent part reads itself; from it a 3x3
   * convolution to 4 channels (widening), the same at stride 2 and a 1x1 convolution to 1 channel
   * (narrowing), each read only by the recurrent part.
   */
  function imageConvModel(): Uint8Array {
    const graph = new OnnxGraphBuilder();
    const weights = (name: string, dims: number[]) => graph.addFloatInitializer(name, dims, Float32Array.from({ length: dims.reduce((a, b) => a * b, 1) }, (_, i) => Math.cos(i) / 4));
    const image = graph.addNode('Relu', ['x'], 'image');
    const wide = graph.addNode('Conv', [image, weights('w_wide', [4, 2, 3, 3])], 'wide', { pads: [1, 1, 1, 1] });
    const strided = graph.addNode('Conv', [image, weights('w_strided', [4, 2, 3, 3])], 'strided', { pads: [1, 1, 1, 1], strides: [2, 2] });
    const narrow = graph.addNode('Conv', [image, weights('w_narrow', [1, 2, 1, 1])], 'narrow');
    const next = graph.addNode('Add', [graph.addNode('Concat', [graph.addNode('Mul', [graph.addNode('ReduceMean', ['state_in'], 'state_mean', { axes: [1], keepdims: 1 }), image], 'gated'), image], 'both', { axis: 1 }), wide], 'state_out');
    graph.addNode('Add', [graph.addNode('Mul', [next, narrow], 'weighted'), graph.addNode('ReduceMean', [graph.addNode('Mul', [graph.addNode('Resize', ['state_in', '', graph.addFloatInitializer('scales', [4], Float32Array.of(1, 1, 0.5, 0.5))], 'small', { mode: 'nearest' }), strided], 'pooled')], 'pooled_mean', { axes: [2, 3], keepdims: 1 })], 'y');
    const inputs = [{ name: 'x', elemType: FLOAT, shape: [1, 2, 4, 4] }, { name: 'state_in', elemType: FLOAT, shape: [1, 4, 4, 4] }];
    return graph.build({ inputs, outputs: [{ name: 'y', elemType: FLOAT, shape: [1, 4, 4, 4] }, { name: 'state_out', elemType: FLOAT, shape: [1, 4, 4, 4] }], opset: 17, graphName: 'image_convs' });
  }

  it('leaves a convolution that widens a tensor it already hands on to the recurrent part, which gives the same outputs', async () => {
    const model = imageConvModel();
    const parts = splitAtState(model, ['state_in']);
    const stateless = onnx.ModelProto.decode(parts.stateless).graph!;
    const recurrent = onnx.ModelProto.decode(parts.recurrent).graph!;
    // the strided and the narrowing convolutions shrink what crosses; the widening one would grow it
    expect(names(stateless.output).sort()).toEqual(['image', 'narrow', 'strided']);
    expect(recurrent.node!.filter((node) => node.opType === 'Conv').map((node) => node.output![0])).toEqual(['wide']);

    const [whole, first, second] = await Promise.all([model, parts.stateless, parts.recurrent].map((bytes) => ort.InferenceSession.create(bytes)));
    let state: ort.Tensor = new ort.Tensor('float32', new Float32Array(64), [1, 4, 4, 4]);
    let splitState = state;
    for (let frame = 0; frame < 3; frame++) {
      const x = new ort.Tensor('float32', Float32Array.from({ length: 32 }, (_, i) => Math.sin(frame * 5 + i)), [1, 2, 4, 4]);
      const expected = await whole.run({ x, state_in: state });
      const actual = await second.run({ ...(await first.run({ x })), state_in: splitState });
      expect([...(actual.y.data as Float32Array)]).toEqual([...(expected.y.data as Float32Array)]);
      state = expected.state_out;
      splitState = actual.state_out;
    }
  });
});

describe('splitAtStates: the recurrent work in parts, one per group of state inputs', () => {
  const tensor = (name: string) => ({ name, elemType: FLOAT, shape: [1, SIZE] });
  const names = (values: onnx.IValueInfoProto[] | null | undefined) => values!.map((value) => value.name);

  /**
   * encoded = relu(x); first_out = encoded + first_in / 2 and carried = first_out * 3;
   * second_out = carried + second_in / 4 + encoded; y = sigmoid(second_out). The second group's part
   * reads what the first computed (carried) and what the stateless part did (encoded).
   */
  function twoStateModel(carriedName = 'carried'): Uint8Array {
    const graph = new OnnxGraphBuilder();
    const scalar = (name: string, value: number) => graph.addFloatInitializer(name, [1], Float32Array.of(value));
    const encoded = graph.addNode('Relu', ['x'], 'encoded');
    const first = graph.addNode('Add', [encoded, graph.addNode('Mul', ['first_in', scalar('half', 0.5)], 'first_kept')], 'first_out');
    const carried = carriedName === 'first_out' ? first : graph.addNode('Mul', [first, scalar('three', 3)], carriedName);
    const second = graph.addNode('Add', [graph.addNode('Add', [carried, graph.addNode('Mul', ['second_in', scalar('quarter', 0.25)], 'second_kept')], 'second_sum'), encoded], 'second_out');
    graph.addNode('Sigmoid', [second], 'y');
    const inputs = [tensor('x'), tensor('first_in'), tensor('second_in')];
    return graph.build({ inputs, outputs: [tensor('y'), tensor('first_out'), tensor('second_out')], opset: 17, graphName: 'two_states' });
  }

  it('gives each group its part, each reading what the parts before computed, and runs frame after frame as the whole', async () => {
    const parts = splitAtStates(twoStateModel(), [['first_in'], ['second_in']]);
    const graphs = parts.map((part) => onnx.ModelProto.decode(part).graph!);
    expect(graphs.map((graph) => [names(graph.input), names(graph.output)])).toEqual([
      [['x'], ['encoded']],
      [['first_in', 'encoded'], ['first_out', 'carried']],
      [['second_in', 'encoded', 'carried'], ['y', 'second_out']],
    ]);
    const [whole, ...sessions] = await Promise.all([twoStateModel(), ...parts].map((bytes) => ort.InferenceSession.create(bytes)));
    const zeros = (): ort.Tensor => new ort.Tensor('float32', new Float32Array(SIZE), [1, SIZE]);
    let wholeState = { first_in: zeros(), second_in: zeros() };
    let splitState = wholeState;
    for (let frame = 0; frame < 4; frame++) {
      const x = new ort.Tensor('float32', Float32Array.from({ length: SIZE }, (_, i) => Math.cos(frame * 2 + i)), [1, SIZE]);
      const expected = await whole.run({ x, ...wholeState });
      const stateless = await sessions[0].run({ x });
      const first = await sessions[1].run({ first_in: splitState.first_in, encoded: stateless.encoded });
      const second = await sessions[2].run({ second_in: splitState.second_in, encoded: stateless.encoded, carried: first.carried });
      expect([...(second.y.data as Float32Array)]).toEqual([...(expected.y.data as Float32Array)]);
      wholeState = { first_in: expected.first_out, second_in: expected.second_out };
      splitState = { first_in: first.first_out, second_in: second.second_out };
    }
  });

  it('refuses a group that no node reads, and a later part that reads a part\'s state output', () => {
    expect(() => splitAtStates(twoStateModel(), [['first_in'], ['third_in']])).toThrow('no node reads the state inputs third_in');
    expect(() => splitAtStates(twoStateModel('first_out'), [['first_in'], ['second_in']])).toThrow('the graph output first_out is read by a later part');
  });
});
