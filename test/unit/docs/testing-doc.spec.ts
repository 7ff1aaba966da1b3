import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');

describe('docs/testing.md', () => {
  it('shows the runnable example exactly as test/e2e/swap-adapters.e2e.spec.ts runs it', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/testing.md'), 'utf8');
    const example = readFileSync(path.join(ROOT, 'test/e2e/swap-adapters.e2e.spec.ts'), 'utf8');
    const shown = doc.slice(doc.lastIndexOf('```ts\n') + '```ts\n'.length, doc.lastIndexOf('```'));
    expect(shown).toBe(example);
  });
});
