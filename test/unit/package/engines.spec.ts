import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as semver from 'semver';

const ROOT = path.join(__dirname, '..', '..', '..');
const readJson = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));

interface LockedPackage { engines?: { node?: string } | string[]; os?: string[]; cpu?: string[] }

/** Platform binaries (sharp's per-OS builds, …) install only where their os/cpu match: judge those for this machine only. */
const installsHere = (entry: LockedPackage) =>
  (!entry.os || entry.os.includes(process.platform)) && (!entry.cpu || entry.cpu.includes(process.arch));

/** The Node range in package.json's engines is one that every locked dependency declares it supports. */
describe('package.json engines.node', () => {
  const declared: string = readJson('package.json').engines.node;
  const locked: Record<string, LockedPackage> = readJson('package-lock.json').packages;

  it('is a range inside every locked package’s own engines.node', () => {
    const narrower = Object.entries(locked)
      .filter(([name, entry]) => name !== '' && installsHere(entry) && !Array.isArray(entry.engines) && entry.engines?.node)
      .filter(([, entry]) => !semver.subset(declared, (entry.engines as { node: string }).node))
      .map(([name, entry]) => `${name} wants ${(entry.engines as { node: string }).node}`);
    expect(narrower).toEqual([]);
  });

  it('includes the Node that runs the tests', () => {
    expect(semver.satisfies(process.versions.node, declared)).toBe(true);
  });

  it('is what the README names', () => {
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain(`Node ${declared}`);
  });
});
