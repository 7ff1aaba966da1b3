import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');

describe('docs/testing.md', () => {
  const doc = readFileSync(path.join(ROOT, 'docs/testing.md'), 'utf8');
  const examples = [...doc.matchAll(/^```ts file=(\S+)\n([\s\S]*?)^```$/gm)].map((match) => ({ file: match[1], shown: match[2] }));

  it('has the two runnable examples: the whole API in memory (unit tier) and adapters swapped in the real app (e2e tier)', () => {
    expect(examples.map((example) => example.file)).toEqual(['test/unit/app/in-memory-app.spec.ts', 'test/e2e/swap-adapters.e2e.spec.ts']);
  });

  it.each(['test/unit/app/in-memory-app.spec.ts', 'test/e2e/swap-adapters.e2e.spec.ts'])('shows %s exactly as CI runs it', (file) => {
    expect(examples.find((example) => example.file === file)?.shown).toBe(readFileSync(path.join(ROOT, file), 'utf8'));
  });
});
