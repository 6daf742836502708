import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { useTestApp } from '../../src/test/app.js';
import { factories } from '../../src/test/factories.js';
import { CHROMIUM, eventually, seriousViolations, signedInContext, useBrowser } from './browser.js';

/** Issue 43, keyboard and focus: the skip link, arrows between cards, Enter and Escape, shortcuts. */

const t = useTestApp();
const f = factories(t);
let base = '';
let browser: Browser;
useBrowser(t, (served, chromium) => ((base = served), (browser = chromium)));

const focused = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');

describe.skipIf(!CHROMIUM)('keyboard and focus in Chromium', () => {
  it('skips to the board, walks the cards with arrows, renames with Enter, Escape returns focus to the card; n, / and ?', async () => {
    const { owner, project, stages } = await f.board(2);
    for (const [i, name] of ['First', 'Second'].entries()) await f.task(owner, stages[0]!.id, { name, order: i });
    const other = await f.task(owner, stages[1]!.id, { name: 'Over there' });
    const page = await (await signedInContext(browser, owner.session)).newPage();
    await page.goto(`${base}/app/projects/${project.id}`);
    await eventually(() => page.getByRole('link', { name: 'Over there' }).isVisible()).toBe(true);

    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('Skip to the board');
    await page.keyboard.press('Enter');
    await eventually(() => page.evaluate(() => document.activeElement?.id)).toBe('board');
    // The column's menu comes first, then its cards.
    for (let i = 0; i < 4 && (await focused(page)) !== 'First'; i++) await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('First');
    await page.keyboard.press('ArrowDown');
    expect(await focused(page)).toBe('Second');
    await page.keyboard.press('ArrowRight');
    expect(await focused(page)).toBe('Over there');
    // The focused card shows a ring.
    expect(await page.locator('article.card', { hasText: 'Over there' }).evaluate((el) => getComputedStyle(el).boxShadow)).toContain('0px 0px 0px 2px');

    await page.keyboard.press('Enter');
    const title = page.getByTestId('task-drawer').getByRole('textbox', { name: 'Task name' });
    await title.waitFor();
    await title.fill('');
    await title.press('Enter');
    await eventually(() => page.getByTestId('task-drawer').getByRole('alert').textContent()).toBe('A name is required');
    await title.fill('Over there, renamed');
    await title.press('Enter');
    await eventually(async () => ((await t.as(owner).get(`/tasks/${other.id}`)).json() as { name: string }).name).toBe('Over there, renamed');
    await page.keyboard.press('Escape');
    await eventually(() => page.getByTestId('task-drawer').count()).toBe(0);
    await eventually(() => focused(page)).toBe('Over there, renamed');

    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await eventually(() => help.isVisible()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await eventually(() => help.count()).toBe(0);
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('search');
    await page.locator('.card-link', { hasText: 'First' }).focus();
    await page.keyboard.press('n');
    await eventually(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Add card to Column 1');
    await page.keyboard.type('From the keyboard');
    await page.keyboard.press('Enter');
    await eventually(async () => ((await t.as(owner).get(`/projects/${project.id}/tasks`)).json() as Array<{ name: string }>).map((x) => x.name)).toContain('From the keyboard');
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });
});
