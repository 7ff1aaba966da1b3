/**
 * ts-jest, with `Math` bound once per module. Jest runs each test file in a vm context, where every
 * read of a global (`Math` in `Math.abs(x)`) goes through the context's interceptors and cannot be
 * cached: a loop over a frame's pixels that calls `Math` ran 25-60x slower under Jest than under
 * Node (4 million `Math.abs` calls: 650 ms against 11 ms), and the engine's per-pixel code and the
 * model converters spend much of the suite's time there. A module-level `const Math` (the same
 * object) is read from the module's own scope instead. Production code runs in Node's main context
 * and is unchanged.
 */
const { TsJestTransformer } = require('ts-jest');

const TRANSFORM_VERSION = 'math-bound-1';
const BINDING = 'const Math = globalThis.Math;';
const STRICT = /^(["'])use strict\1;/;

/** the binding after the "use strict" directive (it must stay the first statement), on the same line so that source maps hold */
function bindMath(code) {
  if (!/\bMath\./.test(code)) return code;
  const strict = code.match(STRICT);
  return strict ? `${strict[0]}${BINDING}${code.slice(strict[0].length)}` : `${BINDING}${code}`;
}

class MathBoundTransformer extends TsJestTransformer {
  process(...args) {
    const output = super.process(...args);
    return typeof output === 'string' ? bindMath(output) : { ...output, code: bindMath(output.code) };
  }

  async processAsync(...args) {
    const output = await super.processAsync(...args);
    return typeof output === 'string' ? bindMath(output) : { ...output, code: bindMath(output.code) };
  }

  getCacheKey(...args) {
    return `${super.getCacheKey(...args)}:${TRANSFORM_VERSION}`;
  }

  async getCacheKeyAsync(...args) {
    return `${await super.getCacheKeyAsync(...args)}:${TRANSFORM_VERSION}`;
  }
}

module.exports = {
  createTransformer: (options) => new MathBoundTransformer(options),
  bindMath,
};
