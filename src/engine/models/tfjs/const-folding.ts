import { attrInt, attrInts, ConstTensor, DType, TfNode } from './tfjs-graph-model';

/**
 * Evaluates the small shape and condition arithmetic of a TF graph whose operands are all known
 * (shapes are static once the input size is fixed). Float results are rounded to float32 as TF
 * computes them. Returns undefined for ops it does not fold.
 */
export function foldConstOp(node: TfNode, inputs: ConstTensor[]): ConstTensor | undefined {
  switch (node.op) {
    case 'Identity':
      return inputs[0];
    case 'Mul':
      return binary(inputs, (a, b) => a * b);
    case 'Add':
    case 'AddV2':
      return binary(inputs, (a, b) => a + b);
    case 'Sub':
      return binary(inputs, (a, b) => a - b);
    case 'RealDiv':
      return binary(inputs, (a, b) => a / b);
    case 'Minimum':
      return binary(inputs, Math.min);
    case 'Maximum':
      return binary(inputs, Math.max);
    case 'FloorMod':
      return binary(inputs, (a, b) => a - Math.floor(a / b) * b);
    case 'Equal':
      return binary(inputs, (a, b) => Number(a === b), 'bool');
    case 'Cast':
      return cast(inputs[0], node);
    case 'Squeeze':
      return squeeze(inputs[0], attrInts(node, 'squeeze_dims'));
    case 'Pack':
      return pack(inputs, attrInt(node, 'axis'));
    case 'StridedSlice':
      return stridedSlice(node, inputs);
    default:
      return undefined;
  }
}

export function scalar(value: number, dtype: DType = 'float32'): ConstTensor {
  return { dtype, shape: [], data: dtype === 'float32' ? Float32Array.of(value) : Int32Array.of(value) };
}

export function constValues(tensor: ConstTensor): number[] {
  return Array.from(tensor.data);
}

function size(shape: number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

function make(dtype: DType, shape: number[], values: number[]): ConstTensor {
  return { dtype, shape, data: dtype === 'float32' ? Float32Array.from(values) : Int32Array.from(values) };
}

/** numpy broadcasting of two small tensors */
function binary(inputs: ConstTensor[], f: (a: number, b: number) => number, resultType?: DType): ConstTensor {
  const [a, b] = inputs;
  const rank = Math.max(a.shape.length, b.shape.length);
  const pad = (shape: number[]) => [...Array<number>(rank - shape.length).fill(1), ...shape];
  const sa = pad(a.shape);
  const sb = pad(b.shape);
  const shape = sa.map((d, i) => {
    if (d !== sb[i] && d !== 1 && sb[i] !== 1) throw new Error(`cannot broadcast ${a.shape} with ${b.shape}`);
    return Math.max(d, sb[i]);
  });
  const dtype = resultType ?? a.dtype;
  const values: number[] = [];
  const index = (s: number[], coords: number[]) => coords.reduce((acc, c, i) => acc * s[i] + (s[i] === 1 ? 0 : c), 0);
  for (let flat = 0; flat < size(shape); flat++) {
    const coords: number[] = [];
    for (let i = rank - 1, rest = flat; i >= 0; i--) {
      coords.unshift(rest % shape[i]);
      rest = Math.floor(rest / shape[i]);
    }
    const value = f(a.data[index(sa, coords)], b.data[index(sb, coords)]);
    values.push(dtype === 'float32' ? Math.fround(value) : Math.trunc(value));
  }
  return make(dtype, shape, values);
}

function cast(input: ConstTensor, node: TfNode): ConstTensor {
  const target = node.attr?.DstT?.type;
  if (target === 'DT_FLOAT') return make('float32', input.shape, constValues(input));
  if (target === 'DT_INT32') return make('int32', input.shape, constValues(input).map(Math.trunc));
  if (target === 'DT_BOOL') return make('bool', input.shape, constValues(input).map((v) => Number(v !== 0)));
  throw new Error(`Cast to ${target} is not supported`);
}

function squeeze(input: ConstTensor, dims: number[]): ConstTensor {
  const rank = input.shape.length;
  const drop = new Set(dims.map((d) => (d < 0 ? d + rank : d)));
  const shape = input.shape.filter((d, i) => (drop.size ? !drop.has(i) : d !== 1));
  return { ...input, shape };
}

function pack(inputs: ConstTensor[], axis: number): ConstTensor {
  const inner = inputs[0].shape;
  if (axis !== 0) throw new Error('Pack is folded on axis 0 only');
  return make(inputs[0].dtype, [inputs.length, ...inner], inputs.flatMap(constValues));
}

/** StridedSlice of a 1-D tensor (shape vectors), with begin/end/shrink masks */
function stridedSlice(node: TfNode, inputs: ConstTensor[]): ConstTensor {
  const [input, beginT, endT, stridesT] = inputs;
  if (input.shape.length !== 1) throw new Error('StridedSlice is folded on 1-D tensors only');
  if (attrInt(node, 'ellipsis_mask') || attrInt(node, 'new_axis_mask')) throw new Error('StridedSlice ellipsis/new_axis masks are not supported');
  const length = input.shape[0];
  const stride = stridesT.data[0];
  const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + length : v, 0), length);
  let begin = attrInt(node, 'begin_mask') & 1 ? (stride > 0 ? 0 : length - 1) : clamp(beginT.data[0]);
  let end = attrInt(node, 'end_mask') & 1 ? (stride > 0 ? length : -1) : clamp(endT.data[0]);
  if (attrInt(node, 'shrink_axis_mask') & 1) {
    begin = beginT.data[0] < 0 ? beginT.data[0] + length : beginT.data[0];
    return make(input.dtype, [], [input.data[begin]]);
  }
  if (stride < 0 && !(attrInt(node, 'end_mask') & 1)) end = Math.min(end, length - 1);
  const values: number[] = [];
  for (let i = begin; stride > 0 ? i < end : i > end; i += stride) values.push(input.data[i]);
  return make(input.dtype, [values.length], values);
}
