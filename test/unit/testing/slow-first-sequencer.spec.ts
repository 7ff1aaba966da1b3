import { statSync } from 'node:fs';
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const SlowFirstSequencer = require('../../support/slow-first.sequencer.js');

/** Jest's Test objects, as much of them as its sequencer reads: no timing cache (a fresh clone), the files' sizes */
function specs(...paths: string[]) {
  const context = { config: { cache: false }, hasteFS: { getSize: (path: string) => statSync(path).size } };
  return paths.map((path) => ({ path: join(process.cwd(), path), context }));
}

describe('the slow-first test sequencer', () => {
  it('puts specs marked @slow ahead of the rest, even ahead of bigger files', () => {
    const ordered = new SlowFirstSequencer({}).sort(
      specs('test/e2e/jobs-api.e2e.spec.ts', 'test/unit/http/job-status-route.spec.ts', 'test/engine/models/davis-floors.spec.ts', 'test/engine/models/composites.spec.ts'),
    );
    expect(ordered.slice(0, 2).map((test: { path: string }) => test.path.split('/').pop()).sort()).toEqual(['composites.spec.ts', 'davis-floors.spec.ts']);
  });
});
