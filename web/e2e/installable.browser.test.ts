import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { useTestApp } from '../../src/test/app.js';
import { factories } from '../../src/test/factories.js';
import { registerWebClient, WEB_DIST } from '../../src/platform/web-client.js';
import { CHROMIUM, eventually, serve, signedInContext, useBrowser } from './browser.js';

/**
 * Issue 43, installable: the web app manifest and its icons, and the service worker that keeps the
 * app shell (never API data): with the server stopped, the shell still opens and says "offline".
 */

const t = useTestApp();
const f = factories(t);
let base = '';
let browser: Browser;
useBrowser(t, (served, chromium) => ((base = served), (browser = chromium)));

describe.skipIf(!CHROMIUM)('installable web app in Chromium', () => {
  it('serves a valid manifest with icons and the service worker with headers that let it update', async () => {
    const manifest = await fetch(`${base}/app/manifest.webmanifest`);
    expect(manifest.status).toBe(200);
    expect(manifest.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
    const body = (await manifest.json()) as { name: string; short_name: string; start_url: string; scope: string; display: string; icons: Array<{ src: string; sizes: string; type: string; purpose: string }> };
    expect(body).toMatchObject({ name: 'Workboard', short_name: 'Workboard', start_url: '/app/', scope: '/app/', display: 'standalone' });
    // Installable in Chromium: a 192 px and a 512 px PNG icon, and a maskable one; each is served as what it says.
    expect(body.icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    expect(body.icons.some((i) => i.purpose === 'maskable')).toBe(true);
    for (const icon of body.icons) {
      const res = await fetch(`${base}${icon.src}`);
      expect(res.status, icon.src).toBe(200);
      expect(res.headers.get('content-type'), icon.src).toContain(icon.type);
    }
    const sw = await fetch(`${base}/app/sw.js`);
    expect(sw.status).toBe(200);
    expect(sw.headers.get('content-type')).toMatch(/javascript/);
    // Never cached by HTTP: a new build's worker is found on the next visit.
    expect(sw.headers.get('cache-control')).toBe('no-cache');
    const source = await sw.text();
    expect(source).not.toContain('__SHELL__');
    expect(source).toMatch(/"\/app\/index\.html"/);
    expect(source).not.toMatch(/"\/(projects|tasks|files|user)/);
  });

  it('offers "Reload to update" when a new version of the service worker is waiting, and reloads into it', async () => {
    // A copy of the build served alone (the client's shell needs no API to register its worker), so
    // that a "deploy" can change its sw.js without touching web/dist.
    const dir = mkdtempSync(path.join(tmpdir(), 'workboard-sw-'));
    cpSync(WEB_DIST, dir, { recursive: true });
    const shell = Fastify();
    await registerWebClient(shell, `${dir}/`);
    const origin = await serve(shell);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/app/login`);
      await eventually(() => page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
      const sw = path.join(dir, 'sw.js');
      writeFileSync(sw, readFileSync(sw, 'utf8').replace(/const VERSION = '[^']*'/, "const VERSION = 'next'"));
      await page.evaluate(async () => (await navigator.serviceWorker.getRegistration('/app/'))!.update());
      const prompt = page.getByTestId('update-prompt');
      await eventually(() => prompt.isVisible()).toBe(true);
      expect(await prompt.textContent()).toContain('A new version of Workboard is ready.');
      await prompt.getByRole('button', { name: 'Reload to update' }).click();
      await eventually(() => page.evaluate(async () => (await caches.keys()).join())).toBe('workboard-shell-next');
      await eventually(() => page.getByTestId('update-prompt').count()).toBe(0);
    } finally {
      await context.close();
      await shell.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with the server stopped, the service worker serves the shell, which says it is offline', async () => {
    const { owner, project } = await f.board(1);
    const context = await signedInContext(browser, owner.session);
    const page = await context.newPage();
    await page.goto(`${base}/app/projects/${project.id}`);
    await eventually(() => page.getByTestId('live-status').getAttribute('data-status')).toBe('live');
    await eventually(() => page.evaluate(async () => (await navigator.serviceWorker.getRegistration('/app/'))?.active?.state ?? null)).toBe('activated');
    await eventually(() => page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
    expect(await page.evaluate(async () => (await caches.keys()).some((k) => k.startsWith('workboard-shell-')))).toBe(true);
    // The cache holds the shell, no API answer.
    const cached = await page.evaluate(async () => (await Promise.all((await caches.keys()).map(async (k) => (await (await caches.open(k)).keys()).map((r) => new URL(r.url).pathname)))).flat());
    expect(cached.every((p) => p.startsWith('/app/'))).toBe(true);

    // Stop answering: no new connections, and the open ones dropped.
    const port = new URL(base).port;
    t.app.server.close();
    t.app.server.closeAllConnections();
    try {
      await page.reload();
      expect(await page.title()).toBe('Workboard');
      await eventually(() => page.getByTestId('live-status').getAttribute('data-status')).toBe('offline');
      expect(await page.getByTestId('live-status').textContent()).toBe('Offline');
      await eventually(() => page.getByText('The server is unavailable — retry').first().isVisible()).toBe(true);
    } finally {
      // Listening again on the same port, so the test app closes as usual.
      await new Promise<void>((resolve) => t.app.server.listen(Number(port), '127.0.0.1', resolve));
      await context.close();
    }
  });
});
