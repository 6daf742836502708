import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../test/app.js';
import { WEB_API_TYPES, webApiTypes } from './openapi-types.js';
import { WEB_DIST } from './web-client.js';

// The client is built by the web global setup (web/e2e/global-setup.ts) before any file runs.
const t = useTestApp();
const root = path.resolve(import.meta.dirname, '../..');

describe('the web client under /app/', () => {
  it('redirects / to /app/ and serves index.html for client routes, never cached, with a CSP', async () => {
    const home = await t.app.inject({ url: '/' });
    expect(home.statusCode).toBe(302);
    expect(home.headers.location).toBe('/app/');
    for (const url of ['/app/', '/app/projects/12/tasks/3', '/app/login']) {
      const res = await t.app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.body).toContain('<div id="root">');
    }
  });

  it('serves hashed assets as immutable for a year, and a missing asset as 404 (not the page)', async () => {
    const asset = readdirSync(path.join(WEB_DIST, 'assets')).find((f) => f.endsWith('.js'))!;
    const res = await t.app.inject({ url: `/app/assets/${asset}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-type']).toContain('javascript');
    expect((await t.app.inject({ url: '/app/assets/index-gone.js' })).statusCode).toBe(404);
  });

  it('keeps the client out of the API document', async () => {
    const document = (await t.app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((p) => p === '/' || p.startsWith('/app'))).toEqual([]);
  });

  it('has API types generated from the current document (else `npm run web:api`, then fix what the typecheck shows)', async () => {
    const document = (await t.app.inject({ url: '/openapi.json' })).json() as object;
    const committed = readFileSync(path.join(root, WEB_API_TYPES), 'utf8');
    expect(committed === (await webApiTypes(document)), `${WEB_API_TYPES} is stale: run npm run web:api`).toBe(true);
  });
});
