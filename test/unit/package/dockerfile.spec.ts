import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.join(__dirname, '..', '..', '..');
const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
const instructions = dockerfile
  .replace(/\s*\\\n\s*/g, ' ')
  .split('\n')
  .filter((line) => line.trim() && !line.trim().startsWith('#'));
const ignored = readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n').map((line) => line.trim());

describe('Dockerfile', () => {
  it('builds on a glibc Node 20 (onnxruntime-node has no musl binaries), as docker-compose.yml runs', () => {
    const [from] = instructions.filter((line) => line.startsWith('FROM '));
    expect(from).toMatch(/^FROM node:20-bookworm/);
    expect(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')).toContain(`image: ${from.slice(5)}`);
  });

  it('installs exactly the lock file, with the project .npmrc (onnxruntime-node-install=skip), before copying the tree, then builds', () => {
    const order = ['COPY package.json package-lock.json .npmrc ./', 'RUN npm ci', 'COPY . .', 'RUN npm run build'].map((start) => instructions.findIndex((line) => line.startsWith(start)));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it("runs node under tini (exec form: SIGTERM reaches the graceful shutdown, and the processes a dead engine child orphans are reaped, where node as PID 1 left them zombies), as a user that is not root (the embedded Postgres refuses root), with DATA_DIR writable by it", () => {
    expect(instructions.slice(-2)).toEqual(['ENTRYPOINT ["/usr/bin/tini", "--"]', 'CMD ["node", "dist/src/main.js"]']);
    expect(instructions.join('\n')).toMatch(/apt-get install -y --no-install-recommends tini/);
    expect(instructions).toContain('USER node');
    expect(instructions).toContain('ENV DATA_DIR=/data');
    expect(instructions.join('\n')).toMatch(/mkdir -p \/data && chown node:node \/data/);
  });

  it("copies no host's install, build or data into the image (another platform's native packages would not run)", () => {
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', 'data', '.git']));
  });
});
