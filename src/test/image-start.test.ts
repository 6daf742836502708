import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript without declarations
import { ensureBuild } from '../../scripts/build.mjs';
// @ts-expect-error plain JavaScript without declarations; its report's shape is checked below
import { smoke } from '../../scripts/smoke.mjs';

// The container image's start, outside a container (no engine runs here): the Dockerfile's own CMD
// and ENV, with a /data-like directory, on the compiled build the image holds.

const root = path.resolve(import.meta.dirname, '../..');
const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
const instructions = (name: string) => [...finalStage.matchAll(new RegExp(`^${name} (.+)$`, 'gm'))].map((m) => m[1]!.trim());

/** The final stage's ENV, as `KEY=value` pairs (quoted values unquoted). */
function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of instructions('ENV')) {
    for (const m of line.matchAll(/(\w+)=("([^"]*)"|\S+)/g)) env[m[1]!] = m[3] ?? m[2]!;
  }
  return env;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'workboard-image-data-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the image (Dockerfile)', () => {
  it('runs node itself, as a non-root user, with a /data volume, a health check and OCI labels', () => {
    const [cmd] = instructions('CMD');
    expect(JSON.parse(cmd!)).toEqual(['node', 'dist/server.js']);
    expect(instructions('USER')).toEqual(['node']);
    expect(instructions('VOLUME')).toEqual(['["/data"]']);
    expect(instructions('HEALTHCHECK')[0]).toContain('/health');
    expect(imageEnv()).toMatchObject({ NODE_ENV: 'production', DATA_DIR: '/data', PORT: '3000' });
    const labels = instructions('LABEL').join(' ');
    for (const key of ['title', 'description', 'licenses', 'version', 'revision', 'created']) expect(labels).toContain(`org.opencontainers.image.${key}=`);
    expect(labels).toContain('org.opencontainers.image.licenses="Apache-2.0"');
    // Every stage on the official Node.js image of the recommended line.
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-[\w-]+$/m);
    expect(dockerfile).toContain('npm ci --omit=dev');
  });

  describe('its exact start command, outside a container', () => {
    // The build the image holds, made as `npm start` makes it (the test setup may not have).
    beforeAll(() => ensureBuild(), 300_000);

    it('answers /health, creates and reads a task, and exits 0 within 5 s of SIGTERM leaving nothing running', async () => {
      const command = JSON.parse(instructions('CMD')[0]!) as string[];
      const report = (await smoke({ command, env: { ...imageEnv(), DATA_DIR: dataDir, JOBS_ENABLED: 'true' }, readyTimeoutMs: 120_000 })) as {
        ok: boolean;
        health: { status: string; version: string } | null;
        task: { name: string } | null;
        exitCode: number | null;
        stopMs: number;
        leftBehind: boolean;
        output: string;
      };
      const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
      expect(report.health, report.output).toMatchObject({ status: 'ok', version });
      expect(report.task?.name, report.output).toBe('Smoke task');
      expect(report.exitCode, report.output).toBe(0);
      expect(report.stopMs).toBeLessThanOrEqual(5_000);
      expect(report.leftBehind).toBe(false);
      expect(report.ok).toBe(true);
    }, 180_000);
  });
});
