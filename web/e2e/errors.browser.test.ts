import { describe, expect, it } from 'vitest';
import type { Browser, Page, Route } from 'playwright-core';
import { useTestApp } from '../../src/test/app.js';
import { factories } from '../../src/test/factories.js';
import { CHROMIUM, eventually, signedInContext, useBrowser } from './browser.js';

/**
 * Issue 43, forms and errors: inline "required" messages, and failed requests (a 500, a 403, no
 * answer at all, through Playwright's route interception) shown in words with the typed text kept;
 * the offline banner.
 */

const t = useTestApp();
const f = factories(t);
let base = '';
let browser: Browser;
useBrowser(t, (served, chromium) => ((base = served), (browser = chromium)));

const column = (page: Page, name: string) => page.locator('section.column', { has: page.getByRole('heading', { name, exact: true }) });
const problem = (status: number, code: string, detail: string) => (route: Route) =>
  route.request().method() === 'POST' ? route.fulfill({ status, contentType: 'application/problem+json', body: JSON.stringify({ type: 'about:blank', title: code, status, code, detail }) }) : route.fallback();

describe.skipIf(!CHROMIUM)('forms and errors in Chromium', () => {
  it('an empty card name says so; a 500, a 403 and a network failure each read in words, the typed name kept; Retry adds the card; offline and back', async () => {
    const { owner, project, stages } = await f.board(1);
    const context = await signedInContext(browser, owner.session);
    const page = await context.newPage();
    await page.goto(`${base}/app/projects/${project.id}`);
    const todo = column(page, 'Column 1');
    await todo.getByRole('button', { name: '+ Add card to Column 1' }).click();
    const field = todo.getByRole('textbox', { name: 'Add card to Column 1' });
    await todo.getByRole('button', { name: 'Add', exact: true }).click();
    await eventually(() => todo.getByRole('alert').textContent()).toBe('A name is required');
    expect(await field.getAttribute('aria-invalid')).toBe('true');

    const toast = page.getByTestId('toast-error').last();
    const cases: Array<[string, (route: Route) => Promise<void>, string]> = [
      ['500', problem(500, 'INTERNAL', 'Internal Server Error'), 'Something went wrong on the server — retry'],
      ['403', problem(403, 'FORBIDDEN', 'forbidden'), 'You no longer have access to this'],
      ['network', (route) => (route.request().method() === 'POST' ? route.abort('connectionrefused') : route.fallback()), 'The server is unavailable — retry'],
    ];
    for (const [label, handler, words] of cases) {
      await page.route('**/tasks', handler);
      await field.fill(`Survives the ${label}`);
      await field.press('Enter');
      await eventually(() => toast.textContent()).toContain(words);
      expect(await toast.textContent()).not.toMatch(/Failed to fetch|Internal Server Error|HTTP_/);
      expect(await field.inputValue()).toBe(`Survives the ${label}`);
      await page.unroute('**/tasks', handler);
    }
    // A failure worth another try carries a Retry button, which sends the same card again.
    await toast.getByRole('button', { name: 'Retry' }).click();
    await eventually(async () => ((await t.as(owner).get(`/projects/${project.id}/tasks`)).json() as Array<{ name: string }>).map((x) => x.name)).toContain('Survives the network');
    expect(stages.length).toBe(1);

    // The answer lost after the server made the card: Retry, then Enter on the text still in the
    // field, send the same Idempotency-Key, so the card is made once.
    const lost = async (route: Route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      await route.fetch();
      await route.abort('connectionreset');
    };
    await page.route('**/tasks', lost);
    await field.fill('Made once');
    await field.press('Enter');
    await eventually(() => toast.textContent()).toContain('The server is unavailable — retry');
    await page.unroute('**/tasks', lost);
    await toast.getByRole('button', { name: 'Retry' }).click();
    await eventually(() => todo.getByRole('link', { name: 'Made once' }).count()).toBe(1);
    expect(await field.inputValue()).toBe('Made once');
    await field.press('Enter');
    await eventually(() => field.count()).toBe(0);
    const names = ((await t.as(owner).get(`/projects/${project.id}/tasks`)).json() as Array<{ name: string }>).map((x) => x.name);
    expect(names.filter((name) => name === 'Made once')).toHaveLength(1);
    expect(await todo.getByRole('link', { name: 'Made once' }).count()).toBe(1);

    // Offline, a banner says so; back online, the board catches up with what changed meanwhile.
    await context.setOffline(true);
    await eventually(() => page.getByTestId('network-banner').textContent()).toContain('You are offline');
    await f.task(owner, stages[0]!.id, { name: 'Made while offline' });
    await context.setOffline(false);
    await eventually(() => page.getByTestId('network-banner').textContent()).toContain('Back online');
    await eventually(() => todo.getByRole('link', { name: 'Made while offline' }).count()).toBe(1);
    await context.close();
  }, 60_000);
});
