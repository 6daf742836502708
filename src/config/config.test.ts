import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { withTable } from './report.js';

const root = path.resolve(import.meta.dirname, '../..');
const KEY = 'q83vEjmxSIDGXXLqE6ikTQ8gGgBrHVQHc36hc4kiz2M=';

/** Runs a TypeScript entry point as an operator would, with only the environment given (and PATH). */
function run(entry: string, args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: root, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderrLines: r.stderr.split('\n').filter(Boolean) };
}

describe('configuration', () => {
  it('docs/operations.md holds the settings table the settings give now (`npm run docs:config` rewrites it)', () => {
    const page = readFileSync(path.join(root, 'docs/operations.md'), 'utf8');
    expect(withTable(page)).toBe(page);
  });

  it('names each invalid variable with what it expected and what it got, never echoing a secret', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: '80a', JOBS_ENABLED: 'maybe', SECRETS_KEY: 'hunter2', TRUST_PROXY: '10.0.0.0/99', WEBHOOK_RETRY_SCHEDULE: '1m,soon' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).lines).toEqual([
      'PORT must be an integer from 0 to 65535, got "80a"',
      'TRUST_PROXY must be true, false, a number of hops, or IP addresses/CIDRs (or loopback, linklocal, uniquelocal), comma-separated, got "10.0.0.0/99"',
      'SECRETS_KEY must be base64 of 32 random bytes (`openssl rand -base64 32`), got a 7-character value (not shown)',
      'JOBS_ENABLED must be true or false, got "maybe"',
      'WEBHOOK_RETRY_SCHEDULE must be durations like 1m,5m,1h, got "1m,soon"',
    ]);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8, loopback', JOBS_ENABLED: 'no' })).toMatchObject({ trustProxy: ['127.0.0.1', '10.0.0.0/8', 'loopback'], jobsEnabled: false });
  });

  it('sizes the heap for a small server on the embedded database and for throughput on PostgreSQL, an operator\'s value winning', () => {
    expect(loadConfig({}).heapGrowthPercent).toBe(25);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/workboard' }).heapGrowthPercent).toBe(100);
    expect(loadConfig({ HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/workboard', HEAP_GROWTH_PERCENT: '50' }).heapGrowthPercent).toBe(50);
    let error: unknown;
    try {
      loadConfig({ HEAP_GROWTH_PERCENT: '500', YOUNG_GENERATION_MB: '-8' });
    } catch (err) {
      error = err;
    }
    expect((error as ConfigError).lines).toEqual(['YOUNG_GENERATION_MB must be an integer from 0 to 4096, got "-8"', 'HEAP_GROWTH_PERCENT must be an integer from 0 to 400, got "500"']);
  });

  it('npm start gives V8 a 16 MB young generation on the embedded database, its own on PostgreSQL, and the operator\'s when set', () => {
    const script = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    // The start script with `node` replaced by an echo of its arguments.
    const flags = (env: Record<string, string>) =>
      spawnSync('sh', ['-c', script.replace('exec node', 'echo')], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' }).stdout.trim();
    expect(flags({})).toBe('--max-semi-space-size=8 scripts/start.mjs');
    expect(flags({ DATABASE_URL: 'postgres://db/workboard' })).toBe('scripts/start.mjs');
    expect(flags({ YOUNG_GENERATION_MB: '128' })).toBe('--max-semi-space-size=64 scripts/start.mjs');
    expect(flags({ YOUNG_GENERATION_MB: '0' })).toBe('scripts/start.mjs');
  });

  it('the service exits 78 on a bad value with one line on stderr and no stack trace', () => {
    const r = run('src/server.ts', [], { NODE_ENV: 'production', DATA_DIR: 'memory://', PORT: 'eighty' });
    expect(r.status).toBe(78);
    expect(r.stderrLines).toEqual(['configuration: PORT must be an integer from 0 to 65535, got "eighty"']);
  });

  it('config:check warns of a misspelt variable with the nearest known name, and prints the settings with secrets masked', () => {
    const r = run('src/config-cli.ts', ['check'], {
      DATABSE_URL: 'postgres://app:typo@db/workboard',
      S3_BUKET: 'files',
      DATABASE_URL: 'postgres://app:s3cret-pw@db.internal:5432/workboard',
      SECRETS_KEY: KEY,
      METRICS_TOKEN: 'scrape-me',
      PORT: '8080',
      HOME: '/root',
    });
    expect(r.status).toBe(0);
    expect(r.stderrLines.sort()).toEqual([
      'warning: unknown variable DATABSE_URL is ignored; did you mean DATABASE_URL?',
      'warning: unknown variable S3_BUKET is ignored; did you mean S3_BUCKET?',
    ]);
    const line = (name: string) => r.stdout.split('\n').find((l) => l.startsWith(`${name} `))?.replace(/\s+/g, ' ');
    expect(line('DATABASE_URL')).toBe('DATABASE_URL postgres://app:****@db.internal:5432/workboard');
    expect(line('SECRETS_KEY')).toBe('SECRETS_KEY ****');
    expect(line('METRICS_TOKEN')).toBe('METRICS_TOKEN ****');
    expect(line('PORT')).toBe('PORT 8080');
    expect(line('PUBLIC_URL')).toBe('PUBLIC_URL http://localhost:8080 (default)');
    expect(r.stdout).not.toContain('s3cret-pw');
    expect(r.stdout).not.toContain(KEY);
    expect(r.stdout).not.toContain('scrape-me');
  });
});
