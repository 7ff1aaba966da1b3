/**
 * Jest's node environment runs tests in a separate realm whose typed-array constructors differ
 * from the ones onnxruntime-node's native binding creates, which breaks onnxruntime-common's
 * `instanceof Float32Array` checks. This environment hands the tests the outer realm's ones.
 */
const { TestEnvironment } = require('jest-environment-node');

const SHARED = ['ArrayBuffer', 'Float32Array', 'Float64Array', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array'];

class OnnxEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of SHARED) this.global[name] = globalThis[name];
  }
}

module.exports = OnnxEnvironment;
