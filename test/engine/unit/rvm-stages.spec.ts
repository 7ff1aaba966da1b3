import { statelessStageYields } from '../../../src/engine/models/rvm/rvm-matter';

describe("which of RVM's pipelined stages yields its core", () => {
  it.each([
    ['the decoder at full size in int8 (human at 640x360, Zen 5)', 29, 48, true],
    ['light in fp32 on an AVX2-only EPYC', 22.3, 36.4, true],
    ['even stages (light in int8, Zen 5)', 8.1, 9.0, false],
    ['just under 0.8 of the recurrent stage', 7.99, 10, true],
    ['at 0.8', 8, 10, false],
    ['the stateless stage the longer', 12, 10, false],
  ])('%s: %d against %d ms', (_, stateless, recurrent, yields) => {
    expect(statelessStageYields(stateless, recurrent)).toBe(yields);
  });

  it.each([
    ["the decoder in two stages, the longer counting (light in fp32 on an AVX2-only EPYC)", 24, [21.5, 26.6], false],
    ['both decoder stages longer than it by more than a quarter', 15, [21.5, 26.6], true],
    ['one of them long enough', 15, [12, 19], true],
  ])('%s: %d against %j ms', (_, stateless, recurrent, yields) => {
    expect(statelessStageYields(stateless, ...recurrent)).toBe(yields);
  });
});
