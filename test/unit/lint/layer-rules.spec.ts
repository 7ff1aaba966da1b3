import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation { rule: { name: string }; from: string; to: string }

/** Runs `npm run lint`'s layer rules (.dependency-cruiser.cjs) over a tree of files, returning what they flag. */
function violationsIn(files: Record<string, string>): Violation[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'layer-rules-'));
  try {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    copyFileSync(path.join(ROOT, '.dependency-cruiser.cjs'), path.join(dir, '.dependency-cruiser.cjs'));
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', moduleResolution: 'node', strict: true } }));
    let output: string;
    try {
      output = execFileSync(process.execPath, [CLI, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], { cwd: dir, encoding: 'utf8' });
    } catch (failed) {
      output = (failed as { stdout: string }).stdout; // exit code 1+ when violations are found
    }
    return (JSON.parse(output) as { summary: { violations: Violation[] } }).summary.violations;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const uses = (target: string) => `import { x } from '${target}';\nexport const y = x;\n`;
const exported = 'export const x = 1;\n';

describe('layer rules (dependency-cruiser, run by npm run lint)', () => {
  // One planted violation per rule, and imports the rules allow beside them.
  const planted: Record<string, string> = {
    'src/modules/auth/domain/api-key.ts': exported,
    'src/modules/auth/ports/api-key.repository.ts': exported,
    'src/modules/auth/adapters/http/api-key.guard.ts': exported,
    'src/modules/auth/auth.module.ts': exported,
    'src/modules/jobs/ports/job.repository.ts': exported,
    'src/infrastructure/queue/queue.ts': exported,
    'src/common/clock.ts': exported,
    'src/contract/job-status.ts': exported,
    // violations
    'src/common/logging/redact.ts': uses('../../modules/auth/domain/api-key'),
    'src/infrastructure/database/unit-of-work.ts': uses('../../modules/jobs/ports/job.repository'),
    'src/modules/jobs/domain/job.ts': uses('../../auth/domain/api-key'),
    'src/modules/jobs/application/jobs.service.ts': uses('../../../infrastructure/queue/queue'),
    'src/modules/jobs/adapters/http/jobs.controller.ts': uses('../../../auth/adapters/http/api-key.guard'),
    'src/modules/jobs/adapters/typeorm/wiring.ts': uses('../../../auth/auth.module'),
    'src/engine/engine.ts': uses('../modules/jobs/ports/job.repository'),
    'src/worker/server.ts': uses('../modules/auth/adapters/http/api-key.guard'),
    // allowed
    'src/modules/jobs/application/lifecycle.ts': uses('../../auth/ports/api-key.repository') + uses('../../../common/clock').replace(/y =/, 'z ='),
    'src/modules/jobs/jobs.module.ts': uses('../auth/auth.module'),
    'src/modules/jobs/domain/job-status.ts': uses('../../../contract/job-status'),
  };
  let found: Violation[];

  beforeAll(() => {
    found = violationsIn(planted);
  }, 60_000);

  const flagged = (from: string) => found.filter((v) => v.from === from).map((v) => `${v.rule.name}: ${v.to}`);

  it.each([
    ['src/common/logging/redact.ts', 'common-and-infrastructure-know-no-module: src/modules/auth/domain/api-key.ts'],
    ['src/infrastructure/database/unit-of-work.ts', 'common-and-infrastructure-know-no-module: src/modules/jobs/ports/job.repository.ts'],
    ['src/modules/jobs/domain/job.ts', 'domain-stays-in-its-module: src/modules/auth/domain/api-key.ts'],
    ['src/modules/jobs/application/jobs.service.ts', 'application-imports-inward: src/infrastructure/queue/queue.ts'],
    ['src/modules/jobs/adapters/http/jobs.controller.ts', 'modules-meet-at-ports: src/modules/auth/adapters/http/api-key.guard.ts'],
    ['src/modules/jobs/adapters/typeorm/wiring.ts', 'only-module-files-import-module-files: src/modules/auth/auth.module.ts'],
    ['src/engine/engine.ts', 'engine-is-a-library: src/modules/jobs/ports/job.repository.ts'],
    ['src/worker/server.ts', 'worker-server-reaches-no-module: src/modules/auth/adapters/http/api-key.guard.ts'],
  ])('flags the planted back-import in %s', (from, violation) => {
    expect(flagged(from)).toContain(violation);
  });

  it('lets use cases use other modules’ ports and common, module files import module files, domains read the contract', () => {
    expect(flagged('src/modules/jobs/application/lifecycle.ts')).toEqual([]);
    expect(flagged('src/modules/jobs/jobs.module.ts')).toEqual([]);
    expect(flagged('src/modules/jobs/domain/job-status.ts')).toEqual([]);
  });
});
