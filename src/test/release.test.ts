import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestApp } from './app.js';

// What an operator adopting the service relies on: its licence, the version it reports, the notices
// of what it ships, a production install without build tools, and the deployment files' settings.

const t = useTestApp();
const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { version: string; license: string; scripts: Record<string, string>; dependencies: Record<string, string> };
type LockEntry = { version: string; license?: string; dev?: boolean; optional?: boolean; devOptional?: boolean; hasInstallScript?: boolean };
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockEntry> };
const production = Object.entries(lock.packages).filter(([key, entry]) => key !== '' && !entry.dev);

describe('licence and version', () => {
  it('GET /health and GET /openapi.json report the version in package.json; the document names Apache-2.0', async () => {
    const health = await t.as(null).get('/health');
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'ok', version: pkg.version });

    const doc = await t.as(null).get('/openapi.json');
    expect(doc.statusCode).toBe(200);
    expect(doc.json().info).toMatchObject({ version: pkg.version, license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } });
  });

  it('LICENSE holds the Apache-2.0 text and package.json names it', () => {
    expect(pkg.license).toBe('Apache-2.0');
    const licence = read('LICENSE');
    expect(licence).toMatch(/^\s+Apache License\n\s+Version 2\.0, January 2004\n/);
    expect(licence).toContain('END OF TERMS AND CONDITIONS');
    expect(licence).toContain('Copyright 2026 The Workboard contributors');
  });

  it('CHANGELOG.md has an Unreleased section and one for the current version', () => {
    const changelog = read('CHANGELOG.md');
    expect(changelog).toContain('## [Unreleased]');
    expect(changelog).toMatch(new RegExp(`^## \\[${pkg.version.replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
  });
});

describe('what a production install ships', () => {
  it('THIRD_PARTY_NOTICES lists every production dependency with its licence', () => {
    const listed = new Map(
      read('THIRD_PARTY_NOTICES')
        .split('\n')
        .map((line) => /^(\S+)@(\d\S*) {2}(\S+)/.exec(line))
        .filter((m) => m !== null)
        .map((m) => [`${m[1]}@${m[2]}`, m[3]]),
    );
    // Platform binaries of other machines are not installed here, so not listed.
    const installed = production.filter(([key, entry]) => !entry.optional || listed.has(`${key.split('node_modules/').pop()}@${entry.version}`));
    expect(installed.length).toBeGreaterThan(100);
    for (const [key, entry] of installed) {
      const id = `${key.split('node_modules/').pop()}@${entry.version}`;
      expect(listed.get(id), `${id} is missing from THIRD_PARTY_NOTICES: run npm run licenses`).toBe(entry.license);
    }
  });

  it('holds no compiler and no install script; tsx and @types are development dependencies', () => {
    for (const [key, entry] of production) {
      const name = key.split('node_modules/').pop()!;
      expect(entry.hasInstallScript, `${name} runs an install script`).not.toBe(true);
      expect(['typescript', 'tsx', 'esbuild', 'vite']).not.toContain(name);
      // @types/pg (and its @types/node) come in only as drizzle-orm's optional peer: declarations, no code.
      if (!entry.devOptional) expect(name.startsWith('@types/'), `${name} in production`).toBe(false);
    }
    expect(Object.keys(pkg.dependencies).filter((name) => name.startsWith('@types/') || name === 'tsx')).toEqual([]);
    expect(Object.keys(pkg.dependencies)).toContain('@fastify/static');
  });

  it('runs the operator commands through scripts/run.mjs (the compiled build), not tsx', () => {
    for (const name of ['migrate', 'create-admin', 'backup', 'restore', 'files:migrate', 'files:sweep']) {
      expect(pkg.scripts[name], name).toMatch(/^node scripts\/run\.mjs /);
    }
  });
});

describe('deployment files', () => {
  it('.env.example lists every variable compose.yaml reads', () => {
    const example = new Set([...read('.env.example').matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]));
    const used = new Set([...read('compose.yaml').matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]));
    expect(used.size).toBeGreaterThan(5);
    for (const name of used) expect(example.has(name), `${name} is not in .env.example`).toBe(true);
  });

  it('the systemd unit runs the compiled server as its own user with an environment file and a state directory', () => {
    const unit = read('deploy/workboard.service');
    for (const line of ['User=workboard', 'Restart=on-failure', 'EnvironmentFile=', 'StateDirectory=workboard', 'NoNewPrivileges=yes', 'ProtectSystem=strict']) {
      expect(unit).toContain(line);
    }
    expect(unit).toMatch(/^ExecStart=\S*node .*dist\/server\.js$/m);
  });
});
