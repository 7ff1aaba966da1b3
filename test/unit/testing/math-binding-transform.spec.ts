// eslint-disable-next-line @typescript-eslint/no-require-imports
const { bindMath } = require('../../support/math-binding.transform.js') as { bindMath: (code: string) => string };

describe("the suite's transforms bind Math once per module (TypeScript, and TensorFlow.js's bundles)", () => {
  it('binds Math in this very module: a test file reads its own binding, not the vm global', () => {
    const original = globalThis.Math;
    try {
      (globalThis as { Math: unknown }).Math = {};
      expect(Math).toBe(original);
    } finally {
      globalThis.Math = original;
    }
  });

  it('puts the binding after the "use strict" directive, on its line, so the directive holds and lines keep their numbers', () => {
    const code = '"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\nexports.f = (x) => Math.abs(x);\n';
    const bound = bindMath(code);
    expect(bound.startsWith('"use strict";const Math = globalThis.Math;\n')).toBe(true);
    expect(bound.split('\n').slice(1)).toEqual(code.split('\n').slice(1));
  });

  it("finds the directive after a bundle's licence comment", () => {
    const code = '/**\n * @license\n */\n\'use strict\';\n\nvar round = (x) => Math.round(x);\n';
    const bound = bindMath(code);
    expect(bound.split('\n')[3]).toBe("'use strict';const Math = globalThis.Math;");
    expect(bound.split('\n')).toHaveLength(code.split('\n').length);
  });

  it('leaves a module that does not use Math as it is', () => {
    const code = '"use strict";\nexports.f = (x) => x + 1;\n';
    expect(bindMath(code)).toBe(code);
  });
});
