/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 */
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { onnx } from 'onnx-proto';
import { OnnxGraphBuilder } from '../../../src/engine/models/onnx/graph-builder';
import { Worker } from 'worker_threads';
import { OnnxThread } from '../../../src/engine/models/runtime/onnx-thread';
import { RunsInFlight } from '../../../src/engine/models/runtime/runs-in-flight';

const { FLOAT, UINT8 } = onnx.TensorProto.DataType;

/** y = x / 255 * 2 - 1, bytes in, floats out */
function scaledBytesModel(): Uint8Array {
  const graph = new OnnxGraphBuilder();
  const asFloat = graph.addNode('Cast', ['x'], 'as_float', { to: FLOAT });
  const scaled = graph.addNode('Mul', [asFloat, graph.addFloatInitializer('scale', [], Float32Array.of(2 / 255))], 'scaled');
  graph.addNode('Sub', [scaled, graph.addFloatInitializer('one', [], Float32Array.of(1))], 'y');
  return graph.build({ inputs: [{ name: 'x', elemType: UINT8, shape: [1, 4] }], outputs: [{ name: 'y', elemType: FLOAT, shape: [1, 4] }], opset: 14, graphName: 'scaled_bytes' });
}

describe('OnnxThread (a model on an inference thread of its own)', () => {
  let dir: string;
  let modelPath: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'onnx-thread-'));
    modelPath = join(dir, 'scaled.onnx');
    writeFileSync(modelPath, scaledBytesModel());
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the model on the thread, several runs in the order given, the input moved there', async () => {
    const thread = await OnnxThread.open('scaled', { modelPath, threads: 1 });
    try {
      const inputs = [Uint8Array.of(0, 255, 51, 204), Uint8Array.of(102, 153, 0, 0)];
      const outputs = await Promise.all(inputs.map((data) => thread.run({ type: 'uint8', data, dims: [1, 4] })));
      expect(outputs.map((output) => Array.from(output, (v) => Math.round(v * 100) / 100))).toEqual([
        [-1, 1, -0.6, 0.6],
        [-0.2, 0.2, -1, -1],
      ]);
      expect(inputs.every((data) => data.byteLength === 0)).toBe(true); // moved, not copied
    } finally {
      await thread.close();
    }
  });

  it('keeps the process alive only while a run is in flight, from the moment it is open', async () => {
    const ports = () => process.getActiveResourcesInfo().filter((resource) => resource === 'MessagePort').length;
    const before = ports();
    const thread = await OnnxThread.open('scaled', { modelPath, threads: 1 });
    try {
      expect(ports()).toBe(before); // opened and never run: a process that is done may exit
      const run = thread.run({ type: 'uint8', data: new Uint8Array(4), dims: [1, 4] });
      expect(ports()).toBe(before + 1);
      await run;
      expect(ports()).toBe(before);
    } finally {
      await thread.close();
    }
  });

  it('fails in the engine’s words: a model it cannot load, a run it cannot make, a run after close', async () => {
    await expect(OnnxThread.open('missing', { modelPath: join(dir, 'missing.onnx'), threads: 1 })).rejects.toMatchObject({ code: 'model_unavailable', message: expect.stringMatching(/could not load missing/) });
    const thread = await OnnxThread.open('scaled', { modelPath, threads: 1 });
    await expect(thread.run({ type: 'uint8', data: new Uint8Array(3), dims: [1, 3] })).rejects.toMatchObject({ code: 'model_unavailable', message: expect.stringMatching(/scaled inference failed/) });
    await thread.close();
    await expect(thread.run({ type: 'uint8', data: new Uint8Array(4), dims: [1, 4] })).rejects.toMatchObject({ code: 'model_unavailable', message: 'scaled was closed' });
  });
});

describe('RunsInFlight (the runs an inference thread has not answered yet)', () => {
  it('answers each run by its id, and fails the waiting and later runs once the thread stops', async () => {
    // a thread that echoes each run's id (the answer is the id doubled), and never answers run 3
    const worker = new Worker("require('worker_threads').parentPort.on('message', (id) => { if (id !== 3) require('worker_threads').parentPort.postMessage(id); })", { eval: true });
    const runs = new RunsInFlight<number, number>([worker], 'echo', (id) => ({ id, value: id * 2 }));
    expect(await Promise.all([runs.start((id) => worker.postMessage(id)), runs.start((id) => worker.postMessage(id))])).toEqual([2, 4]);
    const unanswered = runs.start((id) => worker.postMessage(id));
    await worker.terminate();
    await expect(unanswered).rejects.toMatchObject({ code: 'model_unavailable', message: "echo's inference thread has stopped" });
    expect(runs.failed).toBe(true);
    await expect(runs.start(() => undefined)).rejects.toMatchObject({ message: "echo's inference thread has stopped" });
  });
});
