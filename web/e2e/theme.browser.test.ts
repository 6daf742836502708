import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { useTestApp } from '../../src/test/app.js';
import { factories } from '../../src/test/factories.js';
import { CHROMIUM, eventually, screenshot, seriousViolations, signedInContext, useBrowser } from './browser.js';

/** Issue 43, the dark theme: it follows prefers-color-scheme, can be switched, and passes axe's contrast rules. */

const t = useTestApp();
const f = factories(t);
let base = '';
let browser: Browser;
useBrowser(t, (served, chromium) => ((base = served), (browser = chromium)));

describe.skipIf(!CHROMIUM)('dark theme in Chromium', () => {
  it('follows the dark scheme with 0 contrast violations on the board and the drawer; Settings > Profile switches to light', async () => {
    const { owner, project, stages } = await f.board(2);
    const labelId = ((await t.as(owner).post('/labels', { name: 'Urgent', color: '#b91c1c' })).json() as { id: number }).id;
    const task = await f.task(owner, stages[0]!.id, { name: 'Dark card' });
    await t.as(owner).post(`/tasks/${task.id}/labels`, { labelId });
    await t.as(owner).post(`/tasks/${task.id}/messages`, { text: 'Looks good at night.' });
    await f.task(owner, stages[1]!.id, { name: 'Another card' });
    const context = await signedInContext(browser, owner.session);
    const page = await context.newPage();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${base}/app/projects/${project.id}`);
    await eventually(() => page.getByRole('link', { name: 'Dark card' }).isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe('rgb(244, 245, 247)');
    const contrast = async () => (await new AxeBuilder({ page }).withRules(['color-contrast']).analyze()).violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary}`));
    expect(await contrast()).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('link', { name: 'Dark card' }).click();
    await eventually(() => page.getByTestId('task-drawer').getByText('Looks good at night.').isVisible()).toBe(true);
    expect(await contrast()).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'task-drawer-dark.png');
    await page.keyboard.press('Escape');

    await page.goto(`${base}/app/settings/profile`);
    await page.getByLabel('Theme').selectOption('light');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    await page.reload();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    await context.close();
  });
});
