import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

describe('README configuration table', () => {
  it('documents every environment variable of the configuration schema', () => {
    const schema = readFileSync(path.join(ROOT, 'src/config/app-config.ts'), 'utf8');
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const variables = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]+)[?!]?\s*[:=]/gm)].map((match) => match[1]);
    expect(variables.length).toBeGreaterThan(30);
    expect(variables.filter((name) => !readme.includes(`\`${name}\``))).toEqual([]);
  });
});
