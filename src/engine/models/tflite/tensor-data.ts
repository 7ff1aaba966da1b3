import { TfliteTensor, TfliteTensorType } from './tflite-model';

/** IEEE 754 half precision (binary16) to a JS number. */
export function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24; // subnormal
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** The constant contents of a FLOAT32 or FLOAT16 tensor as float32 values. */
export function constantAsFloat32(tensor: TfliteTensor): Float32Array {
  const data = tensor.data;
  if (!data) throw new Error(`tensor ${tensor.name} has no constant data`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (tensor.type === TfliteTensorType.FLOAT32) {
    const out = new Float32Array(data.byteLength / 4);
    for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(4 * i, true);
    return out;
  }
  if (tensor.type === TfliteTensorType.FLOAT16) {
    const out = new Float32Array(data.byteLength / 2);
    for (let i = 0; i < out.length; i++) out[i] = halfToFloat(view.getUint16(2 * i, true));
    return out;
  }
  throw new Error(`tensor ${tensor.name}: unsupported constant type ${tensor.type}`);
}

export function constantAsInt32(tensor: TfliteTensor): number[] {
  const data = tensor.data;
  if (!data || tensor.type !== TfliteTensorType.INT32) throw new Error(`tensor ${tensor.name} is not a constant int32`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return Array.from({ length: data.byteLength / 4 }, (_, i) => view.getInt32(4 * i, true));
}

/** Reorders a 4-D row-major array: `perm[i]` is the source axis of destination axis i. */
export function transpose4d(values: Float32Array, shape: number[], perm: number[]): Float32Array {
  const outShape = perm.map((axis) => shape[axis]);
  const srcStrides = [shape[1] * shape[2] * shape[3], shape[2] * shape[3], shape[3], 1];
  const strides = perm.map((axis) => srcStrides[axis]);
  const out = new Float32Array(values.length);
  let o = 0;
  for (let a = 0; a < outShape[0]; a++)
    for (let b = 0; b < outShape[1]; b++)
      for (let c = 0; c < outShape[2]; c++)
        for (let d = 0; d < outShape[3]; d++)
          out[o++] = values[a * strides[0] + b * strides[1] + c * strides[2] + d * strides[3]];
  return out;
}
