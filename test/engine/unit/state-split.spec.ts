/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 */
import * as ort from 'onnxruntime-node';
import { onnx } from 'onnx-proto';
import { OnnxGraphBuilder } from '../../../src/engine/models/onnx/graph-builder';
import { splitAtState } from '../../../src/engine/models/onnx/state-split';

const { FLOAT } = onnx.TensorProto.DataType;
const SIZE = 6;

/**
 * A small recurrent model: y = sigmoid(state' * k), state' = relu(x * w) + state * 0.5, where the
 * constants w and k come from constant subgraphs (Neg of an initializer), one read by each side.
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

async function session(bytes: Uint8Array): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(bytes, { graphOptimizationLevel: 'all' });
}

describe('splitAtState', () => {
  const split = splitAtState(recurrentModel(), ['state_in']);

  it('puts what does not read the state in the stateless part, and hands on only what the rest reads', () => {
    const stateless = onnx.ModelProto.decode(split.stateless).graph!;
    const recurrent = onnx.ModelProto.decode(split.recurrent).graph!;
    expect(split.carried).toEqual(['encoded']);
    expect(stateless.input!.map((input) => input.name)).toEqual(['x']);
    expect(stateless.node!.map((node) => node.opType)).toEqual(['Neg', 'Mul', 'Relu']);
    expect(recurrent.input!.map((input) => input.name).sort()).toEqual(['encoded', 'state_in']);
    // the constant subgraph read by the recurrent side is copied there, not carried
    expect(recurrent.node!.map((node) => node.opType)).toEqual(['Neg', 'Mul', 'Add', 'Mul', 'Sigmoid']);
    expect(recurrent.output!.map((output) => output.name)).toEqual(['y', 'state_out']);
  });

  it('runs frame after frame, state carried, to the same outputs as the whole model', async () => {
    const [whole, first, second] = await Promise.all([session(recurrentModel()), session(split.stateless), session(split.recurrent)]);
    let wholeState: ort.Tensor = new ort.Tensor('float32', new Float32Array(SIZE), [1, SIZE]);
    let splitState = wholeState;
    for (let frame = 0; frame < 4; frame++) {
      const x = new ort.Tensor('float32', Float32Array.from({ length: SIZE }, (_, i) => Math.sin(frame * 3 + i)), [1, SIZE]);
      const expected = await whole.run({ x, state_in: wholeState });
      const carried = await first.run({ x });
      const actual = await second.run({ state_in: splitState, encoded: carried.encoded });
      expect([...(actual.y.data as Float32Array)]).toEqual([...(expected.y.data as Float32Array)]);
      expect([...(actual.state_out.data as Float32Array)]).toEqual([...(expected.state_out.data as Float32Array)]);
      wholeState = expected.state_out;
      splitState = actual.state_out;
    }
  });

  it('refuses a model where nothing reads the state', () => {
    expect(() => splitAtState(recurrentModel(), ['not_an_input'])).toThrow('no node reads the state inputs');
  });
});
