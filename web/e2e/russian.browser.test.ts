import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { useTestApp } from '../../src/test/app.js';
import { factories } from '../../src/test/factories.js';
import { CHROMIUM, eventually, seriousViolations, useBrowser } from './browser.js';

/** Issue 43, two languages: with the browser's language Russian, the board, drawer, settings and errors are in Russian. */

const t = useTestApp();
const f = factories(t);
let base = '';
let browser: Browser;
useBrowser(t, (served, chromium) => ((base = served), (browser = chromium)));

describe.skipIf(!CHROMIUM)('the web client in Russian', () => {
  it('follows the browser (ru-RU): board, drawer, settings and error messages in Russian; the profile language switches back to English', async () => {
    const { owner, project, stages } = await f.board(1);
    const task = await f.task(owner, stages[0]!.id, { name: 'Проверить регламент' });
    const signedOut = await browser.newContext({ locale: 'ru-RU' });
    const login = await signedOut.newPage();
    await login.goto(`${base}/app/login`);
    await eventually(() => login.getByRole('tab', { name: 'Зарегистрироваться' }).isVisible()).toBe(true);
    expect(await login.getByLabel('Пароль').count()).toBe(1);
    await signedOut.close();

    const context = await browser.newContext({ locale: 'ru-RU', viewport: { width: 1280, height: 900 } });
    await context.addInitScript((value) => localStorage.setItem('workboard.session', value), owner.session);
    const page = await context.newPage();
    await page.goto(`${base}/app/projects/${project.id}`);
    await eventually(() => page.getByRole('link', { name: 'Проверить регламент' }).isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('ru');
    for (const text of ['+ Добавить колонку', '+ Добавить карточку в Column 1', 'Архив задач']) expect(await page.getByText(text, { exact: true }).count(), text).toBe(1);
    expect(await page.getByRole('group', { name: 'Фильтр карточек' }).isVisible()).toBe(true);
    expect(await page.getByRole('searchbox', { name: 'Поиск задач и регламентов' }).isVisible()).toBe(true);

    await page.getByRole('link', { name: 'Проверить регламент' }).click();
    const drawer = page.getByTestId('task-drawer');
    for (const heading of ['Описание', 'Чек-лист', 'Время', 'Чат', 'История']) await eventually(() => drawer.getByRole('heading', { name: heading, exact: true }).count(), 5000).toBe(1);
    expect(await drawer.getByRole('button', { name: 'Закрыть задачу' }).isVisible()).toBe(true);
    expect(await drawer.getByRole('textbox', { name: 'Название задачи' }).inputValue()).toBe('Проверить регламент');
    expect(await seriousViolations(page)).toEqual([]);

    // An error in words, in Russian: the server does not answer.
    await page.route('**/tasks/*/messages', (route) => (route.request().method() === 'POST' ? route.abort('connectionrefused') : route.fallback()));
    await drawer.getByRole('textbox', { name: 'Сообщение' }).fill('Готово');
    await drawer.getByRole('button', { name: 'Отправить' }).click();
    await eventually(() => page.getByTestId('toast-error').last().textContent()).toContain('Сервер недоступен — повторите попытку');
    expect(await page.getByTestId('toast-error').last().getByRole('button', { name: 'Повторить' }).isVisible()).toBe(true);
    await page.keyboard.press('Escape');

    await page.goto(`${base}/app/settings/members`);
    await eventually(() => page.getByRole('heading', { name: 'Участники', level: 2 }).isVisible()).toBe(true);
    expect(await page.getByText('Занято мест:').count()).toBe(1);
    await page.goto(`${base}/app/settings/security`);
    await eventually(() => page.getByRole('heading', { name: 'Сеансы' }).isVisible()).toBe(true);

    await page.goto(`${base}/app/settings/profile`);
    await eventually(() => page.getByRole('heading', { name: 'Настройки' }).isVisible()).toBe(true);
    expect(await page.getByRole('navigation', { name: 'Настройки' }).getByRole('link').allTextContents()).toEqual(expect.arrayContaining(['Участники', 'Безопасность', 'Профиль']));
    // Switching in the profile saves it with the user (emails use it) and renders the page in English.
    await page.getByLabel('Язык').selectOption('en');
    await eventually(() => page.getByRole('heading', { name: 'Settings' }).isVisible()).toBe(true);
    expect(((await t.as(owner).get('/user')).json() as { language: string | null }).language).toBe('en');
    expect(task.id).toBeGreaterThan(0);
    await context.close();
  });
});
