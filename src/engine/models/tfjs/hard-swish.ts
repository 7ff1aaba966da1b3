import { TfjsGraphModel, TfNode } from './tfjs-graph-model';

/**
 * MobileNetV3's hard-swish as TF.js graphs spell it, x / 6 * relu6(x + 3):
 *   Mul(Mul(1/6, x), Relu6(AddV2(x, 3)))
 * with either operand order at each Mul and AddV2. Returns the reference of x when `node` is the
 * outer Mul of that pattern.
 */
export function hardSwishInput(model: TfjsGraphModel, node: TfNode): string | undefined {
  if (node.op !== 'Mul' || node.input?.length !== 2) return undefined;
  const [a, b] = node.input.map((ref) => model.nodes.get(ref));
  if (!a || !b) return undefined;
  const [scaled, clipped] = a.op === 'Mul' ? [a, b] : [b, a];
  if (scaled.op !== 'Mul' || clipped.op !== 'Relu6') return undefined;
  const x = operandBeside(model, scaled, 1 / 6);
  const shifted = model.nodes.get(clipped.input?.[0] ?? '');
  if (x === undefined || shifted?.op !== 'AddV2') return undefined;
  return operandBeside(model, shifted, 3) === x ? x : undefined;
}

/** the other operand of a binary node whose one operand is the scalar constant `value` */
function operandBeside(model: TfjsGraphModel, node: TfNode, value: number): string | undefined {
  const refs = node.input ?? [];
  if (refs.length !== 2 || refs.some((ref) => ref.startsWith('^'))) return undefined;
  const constant = refs.findIndex((ref) => {
    const weight = model.nodes.get(ref)?.op === 'Const' ? model.weights.get(ref) : undefined;
    return weight !== undefined && weight.data.length === 1 && Math.abs(Number(weight.data[0]) - value) < 1e-6;
  });
  return constant < 0 ? undefined : refs[1 - constant];
}
