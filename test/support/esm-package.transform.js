/**
 * Jest on Node 20 cannot require ES modules, while Node itself can (the production build runs as
 * CommonJS and requires NestJS 12, TypeORM 1 and BullMQ 6, which ship ESM only). For tests only,
 * this transformer compiles those packages to CommonJS, mapping the few `import.meta` uses.
 */
const crypto = require('node:crypto');
const ts = require('typescript');

const TRANSFORM_VERSION = '1';

function toCommonJsSource(source) {
  return source
    .replace(/const require\s*=\s*createRequire\(import\.meta\.url\);?/g, '')
    .replace(/createRequire\(import\.meta\.url\)/g, 'require')
    .replace(/import\.meta\.url/g, 'require("node:url").pathToFileURL(__filename).href')
    .replace(/import\.meta\.dirname/g, '__dirname')
    .replace(/import\.meta\.filename/g, '__filename')
    .replace(/import\.meta\.resolve\(/g, 'require.resolve(');
}

module.exports = {
  process(source, filename) {
    const output = ts.transpileModule(toCommonJsSource(source), {
      fileName: filename,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, allowJs: true, esModuleInterop: true, sourceMap: false, inlineSourceMap: false },
    });
    return { code: output.outputText };
  },
  getCacheKey(source, filename) {
    return crypto.createHash('sha256').update(TRANSFORM_VERSION).update(filename).update(source).digest('hex');
  },
};
