import { seedDataDir } from '../../test/server-process.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { buildApp } from '../../app.js';
import { loadConfig } from '../../config.js';

const KEY = 'sk-datadir-plaintext-canary-4242';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

// The embedded install as shipped: a PGlite data directory on disk, no SECRETS_KEY.
describe.skipIf(Boolean(process.env.DATABASE_URL))('the API key on the embedded database', () => {
  it('is never in plain text in the data directory, whose generated key file is 0600', async () => {
    const dataDir = seedDataDir(mkdtempSync(path.join(tmpdir(), 'ai-datadir-')));
    try {
      const config = loadConfig({ NODE_ENV: 'test' }, { dataDir, filesDir: path.join(dataDir, 'files'), databaseUrl: null, jobsEnabled: false, passwordHashCost: 10, logLevel: 'silent', secretsKey: null });
      const app = await buildApp(config);
      try {
        const reg = await app.inject({ method: 'POST', url: '/auth/register', payload: { email: 'owner@example.test', password: 'a long password', name: 'Owner' } });
        const session = reg.json().session as string;
        const put = await app.inject({
          method: 'PUT',
          url: '/ai/llm-settings',
          headers: { 'service-session': session },
          payload: { provider: 'openai-compatible', baseUrl: 'https://llm.example.com/v1', apiKey: KEY, model: 'gpt' },
        });
        expect(put.statusCode).toBe(201);
        expect(put.body).not.toContain(KEY);
        await app.database.db.execute(sql`checkpoint`);
      } finally {
        await app.close();
      }
      expect(statSync(path.join(dataDir, 'secrets.key')).mode & 0o777).toBe(0o600);
      const needle = Buffer.from(KEY, 'utf8');
      for (const file of filesUnder(dataDir)) expect(readFileSync(file).includes(needle), file).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
