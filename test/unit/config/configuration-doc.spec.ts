import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { EnvironmentVariables, schemaVariables } from '../../../src/config/environment-variables';

const ROOT = path.resolve(__dirname, '../../..');

/** docs/configuration.md's table: variable -> the default column. */
function documented(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8').split('\n')) {
    const match = /^\| `([A-Z][A-Z0-9_]+)` \| (.*?) \| .* \|$/.exec(line);
    if (match) rows.set(match[1], match[2]);
  }
  return rows;
}

/** How the page writes a schema default: `3000`, `5,30,120`; undefined for unset. */
function written(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return `\`${Array.isArray(value) ? value.join(',') : String(value)}\``;
}

describe('docs/configuration.md, checked against the configuration schema', () => {
  const schema = schemaVariables();
  const page = documented();

  it('the schema has the variables of the API and of the worker server', () => {
    expect(schema).toEqual(expect.arrayContaining(['PORT', 'DATABASE_URL', 'MAX_UPLOAD_BYTES', 'WORKER_GATEWAY', 'WORKER_PORT', 'WORKER_QUEUE_SIZE', 'FFMPEG_PATH']));
  });

  it('documents every variable of the schema, and no other', () => {
    expect([...page.keys()].sort()).toEqual([...schema].sort());
  });

  it('each literal default on the page is the schema default', () => {
    const defaults = new EnvironmentVariables() as unknown as Record<string, unknown>;
    const wrong = [...page]
      .filter(([, column]) => /^`[^`]*`$/.test(column) && !column.includes('$'))
      .filter(([name, column]) => written(defaults[name]) !== column)
      .map(([name, column]) => `${name}: page ${column}, schema ${written(defaults[name]) ?? 'unset'}`);
    expect(wrong).toEqual([]);
  });

  it('a variable the schema leaves unset is not given a literal default on the page', () => {
    const defaults = new EnvironmentVariables() as unknown as Record<string, unknown>;
    const invented = [...page].filter(([name, column]) => defaults[name] === undefined && /^`[^`$]*`$/.test(column)).map(([name]) => name);
    expect(invented).toEqual([]);
  });
});
