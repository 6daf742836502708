import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import type { FastifyInstance } from 'fastify';
import type { TestKit } from '../../src/test/app.js';

/** Debian's Chromium (or CHROMIUM_PATH): the browser tests drive it, nothing is downloaded. */
export const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p): p is string => !!p && existsSync(p)) ?? null;

export function launch(): Promise<Browser> {
  // --no-sandbox: CI runs as root in a container, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM!, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

if (!CHROMIUM) console.warn('browser tests skipped: no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)');

/**
 * What every browser test file starts from: its app served on a port of 127.0.0.1 and a Chromium to
 * drive it, both handed to `ready` before the file's tests, and the browser closed after them.
 * Without Chromium nothing starts (the files' tests skip themselves).
 */
export function useBrowser(t: TestKit, ready: (base: string, browser: Browser) => void): void {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!CHROMIUM) return;
    const base = await serve(t.app);
    browser = await launch();
    ready(base, browser);
  });
  afterAll(async () => browser?.close());
}

/** Listens on a free port of 127.0.0.1 and answers the address the browser opens. */
export async function serve(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

/** A browser context already signed in with `session` (as the sign-in page would leave it). */
export async function signedInContext(browser: Browser, session: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.addInitScript((value) => localStorage.setItem('workboard.session', value), session);
  return context;
}

/** Serious and critical accessibility violations on the page (axe-core rules, WCAG 2 A/AA). */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  let builder = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']);
  if (include) builder = builder.include(include);
  const { violations } = await builder.analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
}

// expect.poll's default second is too short on a loaded machine; a timing check passes its own bound.
export const eventually = <T,>(fn: () => Promise<T> | T, timeout = 15_000) => expect.poll(fn, { timeout, interval: 50 });

/** Opens an inline form by its "+ …" button, fills its one field and adds. */
export async function addWith(page: Page, button: string, value: string, scope = page.locator('body')) {
  await scope.getByRole('button', { name: `+ ${button}` }).click();
  await scope.getByRole('textbox', { name: button }).fill(value);
  await scope.getByRole('button', { name: 'Add', exact: true }).click();
}

/** Drags with the mouse in small steps, as a person would (dnd-kit starts a drag after 5 px). */
export async function dragTo(page: Page, from: { x: number; y: number }, to: { x: number; y: number }): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + 10, from.y + 10, { steps: 3 });
  await page.mouse.move(to.x, to.y, { steps: 12 });
  await page.waitForTimeout(100);
  await page.mouse.up();
}

export const centre = (box: { x: number; y: number; width: number; height: number } | null) => {
  if (!box) throw new Error('element not visible');
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
};

/** Retakes one of the README's screenshots (docs/screenshots/), passing messages hidden. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const docs = path.resolve(import.meta.dirname, '../../docs/screenshots');
  mkdirSync(docs, { recursive: true });
  await page.screenshot({ path: path.join(docs, name), style: '.toasts { display: none }' });
}
