/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 */
import { readTfjsGraphModel } from '../../../src/engine/models/tfjs/tfjs-graph-model';
import { convertTfjsToOnnx } from '../../../src/engine/models/tfjs/tfjs-to-onnx';
import { rvmModelJsonPath } from '../../../src/engine/models/rvm/rvm-model-file';
import { onnx } from 'onnx-proto';
import { attr, floats, GraphSpec, ints, maxAbsDifference, NHWC, runConverted, runTfjs, toTfjsGraph } from './support/tfjs-graphs';

const H = 11;
const W = 14;
const conv = (strides: number[], padding: string, fused: string[] = []) => ({
  ...NHWC,
  strides: attr.ints(strides),
  padding: attr.s(padding),
  dilations: attr.ints([1, 1, 1, 1]),
  ...(fused.length ? { fused_ops: attr.strings(fused), num_args: attr.i(1), epsilon: { f: 0 } } : {}),
});

/** MobileNetV3's hard-swish as TF.js spells it, twice, the second with its operands swapped; `shared` also reads x + 3 */
const HARD_SWISH: Omit<GraphSpec, 'height' | 'width'> = {
  consts: { sixth: floats([], () => 1 / 6), three: floats([], () => 3) },
  nodes: [
    { name: 'scaled', op: 'Mul', input: ['sixth', 'x'] },
    { name: 'shifted', op: 'AddV2', input: ['x', 'three'] },
    { name: 'clipped', op: 'Relu6', input: ['shifted'] },
    { name: 'y', op: 'Mul', input: ['scaled', 'clipped'] },
    { name: 'scaled2', op: 'Mul', input: ['y', 'sixth'] },
    { name: 'shifted2', op: 'AddV2', input: ['three', 'y'] },
    { name: 'clipped2', op: 'Relu6', input: ['shifted2'] },
    { name: 'z', op: 'Mul', input: ['clipped2', 'scaled2'] },
    { name: 'shared', op: 'Tanh', input: ['shifted'] },
  ],
  outputs: ['z', 'shared'],
};

/** one case per op family: TF nodes on the input `x` (1 x 11 x 14 x 3) */
const CASES: Record<string, Omit<GraphSpec, 'height' | 'width'>> = {
  '_FusedConv2D SAME stride 2 + BiasAdd + Relu': {
    consts: { w: floats([3, 3, 3, 8]), b: floats([8]) },
    nodes: [{ name: 'y', op: '_FusedConv2D', input: ['x', 'w', 'b'], attr: conv([1, 2, 2, 1], 'SAME', ['BiasAdd', 'Relu']) }],
    outputs: ['y'],
  },
  'Conv2D VALID 1x1': {
    consts: { w: floats([1, 1, 3, 4]) },
    nodes: [{ name: 'y', op: 'Conv2D', input: ['x', 'w'], attr: conv([1, 1, 1, 1], 'VALID') }],
    outputs: ['y'],
  },
  'FusedDepthwiseConv2dNative with a channel multiplier': {
    consts: { w: floats([3, 3, 3, 2]), b: floats([6]) },
    nodes: [{ name: 'y', op: 'FusedDepthwiseConv2dNative', input: ['x', 'w', 'b'], attr: conv([1, 2, 2, 1], 'VALID', ['BiasAdd', 'Relu']) }],
    outputs: ['y'],
  },
  'SpaceToBatchND + DepthwiseConv2dNative + BatchToSpaceND (a dilated convolution)': {
    consts: { w: floats([3, 3, 3, 1]), block: ints([2, 2]), pads: ints([2, 3, 2, 2], [2, 2]), crops: ints([0, 1, 0, 0], [2, 2]) },
    nodes: [
      { name: 's2b', op: 'SpaceToBatchND', input: ['x', 'block', 'pads'] },
      { name: 'dw', op: 'DepthwiseConv2dNative', input: ['s2b', 'w'], attr: conv([1, 1, 1, 1], 'VALID') },
      { name: 'y', op: 'BatchToSpaceND', input: ['dw', 'block', 'crops'] },
    ],
    outputs: ['y'],
  },
  'AvgPool SAME on an odd size, Pad': {
    consts: { paddings: ints([0, 0, 1, 2, 2, 1, 0, 0], [4, 2]) },
    nodes: [
      { name: 'pool', op: 'AvgPool', input: ['x'], attr: { ...NHWC, ksize: attr.ints([1, 2, 2, 1]), strides: attr.ints([1, 2, 2, 1]), padding: attr.s('SAME') } },
      { name: 'pad', op: 'Pad', input: ['x', 'paddings'] },
    ],
    outputs: ['pool', 'pad'],
  },
  'Mean over H,W (squeeze-excitation) and over channels': {
    consts: { hw: ints([1, 2]), c: ints([3], []) },
    nodes: [
      { name: 'se', op: 'Mean', input: ['x', 'hw'], attr: { keep_dims: attr.b(true) } },
      { name: 'y', op: 'Mul', input: ['se', 'x'] },
      { name: 'gray', op: 'Mean', input: ['x', 'c'], attr: { keep_dims: attr.b(true) } },
    ],
    outputs: ['y', 'gray'],
  },
  'ResizeBilinear half-pixel, down and up': {
    consts: { down: ints([5, 6]), up: ints([23, 29]) },
    nodes: [
      { name: 'a', op: 'ResizeBilinear', input: ['x', 'down'], attr: { half_pixel_centers: attr.b(true), align_corners: attr.b(false) } },
      { name: 'b', op: 'ResizeBilinear', input: ['x', 'up'], attr: { half_pixel_centers: attr.b(true), align_corners: attr.b(false) } },
    ],
    outputs: ['a', 'b'],
  },
  'ResizeBilinear half-pixel by whole factors (the blocked upsample), 2x and 3x by 2x': {
    consts: { double: ints([2 * H, 2 * W]), mixed: ints([3 * H, 2 * W]) },
    nodes: [
      { name: 'a', op: 'ResizeBilinear', input: ['x', 'double'], attr: { half_pixel_centers: attr.b(true), align_corners: attr.b(false) } },
      { name: 'b', op: 'ResizeBilinear', input: ['x', 'mixed'], attr: { half_pixel_centers: attr.b(true), align_corners: attr.b(false) } },
    ],
    outputs: ['a', 'b'],
  },
  'hard-swish, x / 6 * relu6(x + 3), operands either way round': HARD_SWISH,
  'ConcatV2, Split, SplitV, Slice': {
    consts: { axis: ints([-1], []), dim: ints([3], []), sizes: ints([1, 5]), begin: ints([0, 1, 2, 0]), size: ints([-1, 5, 6, -1]) },
    nodes: [
      { name: 'cat', op: 'ConcatV2', input: ['x', 'x', 'axis'], attr: { N: attr.i(2) } },
      { name: 'split', op: 'Split', input: ['dim', 'cat'], attr: { num_split: attr.i(2) } },
      { name: 'splitv', op: 'SplitV', input: ['cat', 'sizes', 'dim'], attr: { num_split: attr.i(2) } },
      { name: 'slice', op: 'Slice', input: ['split:1', 'begin', 'size'] },
    ],
    outputs: ['split', 'splitv:1', 'slice'],
  },
  'a convolution over an 11-channel ConcatV2 (split into one convolution per part), the concatenation also read as such': {
    consts: { w8: floats([1, 1, 3, 8]), axis: ints([-1], []), w: floats([3, 3, 11, 5]), b: floats([5]) },
    nodes: [
      { name: 'features', op: 'Conv2D', input: ['x', 'w8'], attr: conv([1, 1, 1, 1], 'SAME') },
      { name: 'cat', op: 'ConcatV2', input: ['features', 'x', 'axis'], attr: { N: attr.i(2) } },
      { name: 'y', op: '_FusedConv2D', input: ['cat', 'w', 'b'], attr: conv([1, 1, 1, 1], 'SAME', ['BiasAdd', 'Relu']) },
      { name: 'z', op: 'Relu', input: ['cat'] },
    ],
    outputs: ['y', 'z'],
  },
  'elementwise ops with broadcast constants': {
    consts: { two: floats([], () => 2), perChannel: floats([3]), full: floats([1, H, W, 3]) },
    nodes: [
      { name: 'm', op: 'Mul', input: ['x', 'two'] },
      { name: 'a', op: 'AddV2', input: ['m', 'perChannel'] },
      { name: 's', op: 'Sub', input: ['full', 'a'] },
      { name: 'sq', op: 'Square', input: ['s'] },
      { name: 'sig', op: 'Sigmoid', input: ['sq'] },
      { name: 'd', op: 'RealDiv', input: ['a', 'sig'] },
      { name: 'r6', op: 'Relu6', input: ['d'] },
      { name: 't', op: 'Tanh', input: ['s'] },
      { name: 'mn', op: 'Minimum', input: ['t', 'perChannel'] },
      { name: 'mx', op: 'Maximum', input: ['mn', 'r6'] },
    ],
    outputs: ['mx'],
  },
};

describe('TF.js graph -> ONNX converter, op by op against TensorFlow.js (CPU backend) on random inputs', () => {
  for (const [name, spec] of Object.entries(CASES)) {
    it(name, async () => {
      const graph = { ...spec, height: H, width: W };
      const x = floats([1, H, W, 3]).data as Float32Array;
      const [expected, actual] = [await runTfjs(graph, x), await runConverted(graph, x)];
      expected.forEach((values, i) => expect(maxAbsDifference(values, actual[i])).toBeLessThan(1e-5));
    });
  }

  // RVM's pattern: resize the input by a scalar input's ratio unless it equals 1
  const conditional = (ratio: number): GraphSpec => ({
    height: H,
    width: W,
    fixed: { ratio },
    consts: { one: floats([], () => 1), begin: ints([1]), end: ints([3]), step: ints([1]) },
    nodes: [
      { name: 'eq', op: 'Equal', input: ['ratio', 'one'] },
      { name: 'sw', op: 'Switch', input: ['x', 'eq'] },
      { name: 'shape', op: 'Shape', input: ['sw'], attr: { out_type: attr.type('DT_INT32') } },
      { name: 'hw', op: 'StridedSlice', input: ['shape', 'begin', 'end', 'step'], attr: { begin_mask: attr.i(0), end_mask: attr.i(0), shrink_axis_mask: attr.i(0), ellipsis_mask: attr.i(0), new_axis_mask: attr.i(0) } },
      { name: 'hwf', op: 'Cast', input: ['hw'], attr: { SrcT: attr.type('DT_INT32'), DstT: attr.type('DT_FLOAT') } },
      { name: 'scaled', op: 'Mul', input: ['hwf', 'ratio'] },
      { name: 'size', op: 'Cast', input: ['scaled'], attr: { SrcT: attr.type('DT_FLOAT'), DstT: attr.type('DT_INT32') } },
      { name: 'resized', op: 'ResizeBilinear', input: ['sw', 'size'], attr: { half_pixel_centers: attr.b(true), align_corners: attr.b(false) } },
      { name: 'kept', op: 'Sigmoid', input: ['sw:1'] },
      { name: 'y', op: 'Merge', input: ['kept', 'resized'], attr: { N: attr.i(2) } },
    ],
    outputs: ['y'],
  });

  it.each([0.5, 1])('folds Switch/Merge and shape arithmetic for a fixed scalar input (ratio %p)', async (ratio) => {
    const x = floats([1, H, W, 3]).data as Float32Array;
    const [expected, actual] = [await runTfjs(conditional(ratio), x), await runConverted(conditional(ratio), x)];
    expect(actual[0].length).toBe(ratio === 1 ? H * W * 3 : 5 * 7 * 3);
    expect(maxAbsDifference(expected[0], actual[0])).toBeLessThan(1e-5);
  });

  it('emits hard-swish as one HardSwish, and an upscale by whole factors as a Resize with constant scales after an identity convolution', () => {
    const opsOf = (spec: Omit<GraphSpec, 'height' | 'width'>) => {
      const graph = toTfjsGraph({ ...spec, height: H, width: W });
      const bytes = convertTfjsToOnnx(graph, { imageInput: 'x', height: H, width: W, nhwcOutputs: Object.keys(graph.outputs) });
      return onnx.ModelProto.decode(bytes).graph!.node!;
    };
    const swish = opsOf(HARD_SWISH).map((n) => n.opType);
    expect(swish.filter((op) => op === 'HardSwish')).toHaveLength(2);
    expect(swish).not.toContain('Clip');
    const upscale = opsOf(CASES['ResizeBilinear half-pixel by whole factors (the blocked upsample), 2x and 3x by 2x']).filter((n) => n.opType === 'Resize' || n.opType === 'Conv');
    expect(upscale.map((n) => n.opType)).toEqual(['Conv', 'Resize', 'Conv', 'Resize']);
    for (const resize of upscale.filter((n) => n.opType === 'Resize')) expect(resize.input).toHaveLength(3); // X, roi, scales: no sizes
    const kept = opsOf(CASES['ResizeBilinear half-pixel, down and up']).filter((n) => n.opType === 'Resize');
    for (const resize of kept) expect(resize.input).toHaveLength(4);
  });

  it('converts RVM to a graph of compute ops only (no control flow, no shape arithmetic)', () => {
    const bytes = convertTfjsToOnnx(readTfjsGraphModel(rvmModelJsonPath()), {
      imageInput: 'src',
      height: 144,
      width: 256,
      fixedInputs: { downsample_ratio: 0.5 },
      nhwcOutputs: ['fgr', 'pha'],
    });
    const graph = onnx.ModelProto.decode(bytes).graph!;
    const ops = new Set(graph.node!.map((n) => n.opType));
    for (const forbidden of ['If', 'Loop', 'Shape', 'Gather', 'Cast', 'Where', 'Equal']) expect(ops.has(forbidden)).toBe(false);
    expect(graph.input!.map((i) => i.name).sort()).toEqual(['r1i', 'r2i', 'r3i', 'r4i', 'src']);
    expect(graph.output!.map((o) => o.name).sort()).toEqual(['fgr', 'pha', 'r1o', 'r2o', 'r3o', 'r4o']);
  });
});
