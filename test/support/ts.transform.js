/** ts-jest, with `Math` bound once per module (see math-binding.transform.js for why). */
const { TsJestTransformer } = require('ts-jest');
const { bindMath, TRANSFORM_VERSION } = require('./math-binding.transform');

const bound = (output) => (typeof output === 'string' ? bindMath(output) : { ...output, code: bindMath(output.code) });

class MathBoundTransformer extends TsJestTransformer {
  process(...args) {
    return bound(super.process(...args));
  }

  async processAsync(...args) {
    return bound(await super.processAsync(...args));
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
};
