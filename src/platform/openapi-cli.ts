/**
 * The OpenAPI document without a running service: `dump [file]` writes it (stdout without a file),
 * `lint` checks it with Redocly (redocly.yaml) and exits with its status, `web-types` regenerates
 * the web client's API types from it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import { WEB_API_TYPES, webApiTypes } from './openapi-types.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Fixed, because .redocly.lint-ignore.yaml names its exceptions by the linted file's path.
const LINTED = path.join(root, 'node_modules', '.cache', 'openapi', 'openapi.json');

async function document(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  // The document comes from the route schemas alone: an empty in-memory database is enough.
  const config = loadConfig({ ...env, DATABASE_URL: '', DATA_DIR: 'memory://', JOBS_ENABLED: 'false', LOG_LEVEL: 'silent' });
  const app = await buildApp(config);
  try {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}: ${res.body}`);
    return `${JSON.stringify(res.json(), null, 2)}\n`;
  } finally {
    await app.close();
  }
}

async function main(command: string | undefined, file: string | undefined): Promise<number> {
  if (command === 'dump') {
    const text = await document();
    if (file) writeFileSync(file, text);
    else process.stdout.write(text);
    return 0;
  }
  if (command === 'web-types') {
    writeFileSync(path.join(root, WEB_API_TYPES), await webApiTypes(JSON.parse(await document())));
    return 0;
  }
  if (command === 'lint') {
    // Without PUBLIC_URL the server would be the development default, http://localhost:3000, which
    // the lint rightly refuses in a published document; a deployment always sets its own.
    const env = { ...process.env, PUBLIC_URL: process.env.PUBLIC_URL || 'https://workboard.invalid' };
    mkdirSync(path.dirname(LINTED), { recursive: true });
    writeFileSync(LINTED, await document(env));
    const redocly = path.join(root, 'node_modules', '.bin', 'redocly');
    const result = spawnSync(redocly, ['lint', LINTED, '--config', path.join(root, 'redocly.yaml'), '--max-problems', '1000'], {
      stdio: 'inherit',
      // No telemetry or update check: CI runs offline and the lint must not depend on the network.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    if (result.error) throw result.error;
    return result.status ?? 1;
  }
  process.stderr.write('usage: openapi-cli.ts dump [file] | lint | web-types\n');
  return 2;
}

process.exitCode = await main(process.argv[2], process.argv[3]);
