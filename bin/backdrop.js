#!/usr/bin/env node
// The `backdrop` command (npx backdrop --help). Its code is compiled by `npm run build` into dist/.
const { main } = require('../dist/src/cli/backdrop.js');

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
