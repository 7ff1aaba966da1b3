import { ConstTensor, TfNode } from './tfjs-graph-model';

/**
 * What evaluating one output of a TF node gives while converting. Activations live in the ONNX
 * graph; everything computable at conversion time (weights, shapes, conditions) is folded.
 */
export type Value = ActivationValue | FoldedValue | DeadValue | NoValue | SpaceToBatchValue | DilatedConvValue | ChannelConcatValue;

/**
 * An ONNX tensor. `shape` is the TF (NHWC) shape; rank-4 tensors are stored NCHW in the ONNX
 * graph. `shape` is undefined for a state input until a BroadcastTo gives it one.
 */
export interface ActivationValue {
  kind: 'tensor';
  name: string;
  shape: number[] | undefined;
}

export interface FoldedValue {
  kind: 'const';
  value: ConstTensor;
}

/** the untaken side of a Switch, and everything computed from it */
export interface DeadValue {
  kind: 'dead';
}

/** NoOp and other nodes that only order execution */
export interface NoValue {
  kind: 'none';
}

/**
 * SpaceToBatchND, kept pending: TF expresses a dilated convolution as SpaceToBatchND, a plain
 * convolution and BatchToSpaceND, which together are one ONNX Conv with dilations.
 */
export interface SpaceToBatchValue {
  kind: 'spaceToBatch';
  source: ActivationValue;
  block: number[];
  /** [[top, bottom], [left, right]] */
  paddings: number[][];
}

/** the dilated convolution's output, waiting for BatchToSpaceND's crops */
export interface DilatedConvValue {
  kind: 'dilatedConv';
  tensor: ActivationValue;
  block: number[];
}

/**
 * A concatenation along channels, kept pending: a convolution that reads it alone is emitted as one
 * convolution per part, summed (see NchwEmitter.splitConv). `joined` is the Concat once emitted.
 */
export interface ChannelConcatValue {
  kind: 'channelConcat';
  node: TfNode;
  parts: ActivationValue[];
  joined?: ActivationValue;
}

export function shapeOf(value: ActivationValue): number[] {
  if (!value.shape) throw new Error(`tensor ${value.name} has no known shape`);
  return value.shape;
}
