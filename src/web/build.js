/**
 * Builds the dashboard into dist/web: the TypeScript modules under app/ (compiled by tsc as ES
 * modules, no bundler: the browser loads them natively) and the static files under public/.
 */
const { execFileSync } = require('node:child_process');
const { cpSync, rmSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const out = path.join(root, 'dist/web');

rmSync(out, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(__dirname, 'tsconfig.json')], { cwd: root, stdio: 'inherit' });
cpSync(path.join(__dirname, 'public/index.html'), path.join(out, 'index.html'));
cpSync(path.join(__dirname, 'public/assets'), path.join(out, 'assets'), { recursive: true });
