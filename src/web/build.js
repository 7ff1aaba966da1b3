/**
 * Builds the dashboard into dist/web: the TypeScript modules under app/ and the shared src/contract
 * (compiled by tsc as ES modules, no bundler: the browser loads them natively), flattened into
 * dist/web/assets, and the static files under public/.
 */
const { execFileSync } = require('node:child_process');
const { cpSync, mkdirSync, readdirSync, rmSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const out = path.join(root, 'dist/web');

rmSync(out, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(__dirname, 'tsconfig.json')], { cwd: root, stdio: 'inherit' });
const build = path.join(out, 'build');
mkdirSync(path.join(out, 'assets'), { recursive: true });
for (const dir of [path.join(build, 'web/app'), path.join(build, 'contract')]) {
  for (const file of readdirSync(dir)) cpSync(path.join(dir, file), path.join(out, 'assets', file));
}
rmSync(build, { recursive: true, force: true });
cpSync(path.join(__dirname, 'public/index.html'), path.join(out, 'index.html'));
cpSync(path.join(__dirname, 'public/assets'), path.join(out, 'assets'), { recursive: true });
