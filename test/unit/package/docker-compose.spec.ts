import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const compose = readFileSync(path.join(__dirname, '..', '..', '..', 'docker-compose.yml'), 'utf8');

describe('docker-compose.yml', () => {
  it("hands each Backdrop service's SIGTERM to node: a shell command ends by exec'ing it (dash stays PID 1, ignores the signal, and the graceful shutdown never ran)", () => {
    const shellCommands = [...compose.matchAll(/command: \["sh", "-c", "([^"]+)"\]/g)].map((match) => match[1]);
    expect(shellCommands.length).toBeGreaterThanOrEqual(2);
    for (const command of shellCommands) expect(command.split('&&').at(-1)!.trim()).toMatch(/^exec node /);
  });
});
