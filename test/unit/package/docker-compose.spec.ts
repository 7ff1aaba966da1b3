import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const compose = readFileSync(path.join(__dirname, '..', '..', '..', 'docker-compose.yml'), 'utf8');

describe('docker-compose.yml', () => {
  const commands = [...compose.matchAll(/command: \[(.+)\]/g)].map((match) => JSON.parse(`[${match[1]}]`) as string[]).filter((command) => command[0] === 'node' || command.join(' ').includes('exec node '));

  it("hands each Backdrop service's SIGTERM to node: node is the command, or a shell command ends by exec'ing it (dash stays PID 1, ignores the signal, and the graceful shutdown never ran)", () => {
    expect(commands).toHaveLength(2);
    for (const command of commands) {
      if (command[0] === 'node') continue;
      expect(command.slice(0, 2)).toEqual(['sh', '-c']);
      expect(command[2].split('&&').at(-1)!.trim()).toMatch(/^exec node /);
    }
  });

  it('installs and builds once, in a setup service every Backdrop service waits for: they share /app, and an `npm ci` of each removed node_modules under the ones running', () => {
    expect(commands.every((command) => !command.join(' ').includes('npm'))).toBe(true);
    const setup = /\n {2}setup:\n([\s\S]*?)\n\n/.exec(compose)?.[1] ?? '';
    expect(setup).toContain('npm ci && uname -sm > node_modules/.installed-for && npm run build');
    // Compose runs it again on every `up`: with the install and the build current it does nothing
    expect(setup).toMatch(/if \[ node_modules\/\.package-lock\.json -nt package-lock\.json \] && .*uname -sm.* && \[ -f dist\/src\/main\.js \] && .*find src -newer dist\/src\/main\.js.*then echo 'installed and built'; else npm ci && uname -sm > node_modules\/\.installed-for && npm run build; fi/);
    expect(setup).not.toMatch(/[^$]\$\(/); // Compose reads a lone $ as its own variable: $$ passes one to the shell
    for (const service of ['api', 'worker']) {
      const block = new RegExp(`\\n  ${service}:\\n([\\s\\S]*?)(\\n\\n|$)`).exec(compose)?.[1] ?? '';
      expect([service, block.includes('setup: { condition: service_completed_successfully }')]).toEqual([service, true]);
    }
  });

  it("runs each Backdrop service under Docker's init, which reaps what a dead engine child orphans (its spawner, its ffmpegs: zombies under node as PID 1)", () => {
    for (const service of ['api', 'worker']) {
      const block = new RegExp(`\\n  ${service}:\\n([\\s\\S]*?)(\\n\\n|$)`).exec(compose)?.[1] ?? '';
      expect([service, /\n {4}init: true\n/.test(`\n${block}\n`)]).toEqual([service, true]);
    }
  });
});
