import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { PASSWORD } from '../../src/test/app.js';
import { linkIn } from '../../src/test/smtp.js';
import { useEmailTestApp } from '../../src/modules/email/email.fixtures.js';
import { CHROMIUM, eventually, seriousViolations, useBrowser } from './browser.js';

/**
 * The password reset in Chromium, with email going to a real SMTP server: "Forgot your password?"
 * on the sign-in page, the link read from the received mail, the new password set on its page and
 * signed in with; then the email-notification setting saved in Settings > Profile.
 */

const { t, smtp, send } = useEmailTestApp('reset_browser');
// The app's publicUrl (the link's origin) is not where the test serves it: the path and token are kept.
const RESET_LINK = 'https://board.example.test/app/reset-password?token=';
const NEW_PASSWORD = 'a brand new passphrase';
let base = '';
let browser: Browser;
useBrowser(t, (served, chromium) => ((base = served), (browser = chromium)));

describe.runIf(CHROMIUM)('Password reset and email notifications', () => {
  it('emails a link from "Forgot your password?", sets the new password on its page, signs in with it, and saves the notification email setting', async () => {
    const user = await t.org({ name: 'Rita Reset' });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, timezoneId: 'Europe/Berlin' });
    const page = await context.newPage();
    await page.goto(`${base}/app/login`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await eventually(() => page.url()).toContain('/app/forgot-password');
    await page.getByRole('textbox', { name: 'Email' }).fill(user.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await eventually(() => page.getByRole('main').getByRole('status').textContent()).toContain('If an account exists for that address, we have sent a link');
    expect(await seriousViolations(page, 'main')).toEqual([]);

    // An unknown address is answered the same.
    await page.goto(`${base}/app/forgot-password`);
    await page.getByRole('textbox', { name: 'Email' }).fill('nobody@example.test');
    await page.getByRole('button', { name: 'Send the link' }).click();
    await eventually(() => page.getByRole('main').getByRole('status').textContent()).toContain('If an account exists for that address, we have sent a link');

    await send();
    const [mail] = smtp.to(user.email);
    expect(smtp.to('nobody@example.test')).toEqual([]);
    const link = new URL(linkIn(mail!, RESET_LINK));
    const path = `${link.pathname}${link.search}`;

    await page.goto(`${base}${path}`);
    const password = page.getByLabel('New password', { exact: true });
    await password.fill(NEW_PASSWORD);
    await page.getByLabel('Show the password').check();
    expect(await password.getAttribute('type')).toBe('text');
    expect(await seriousViolations(page, 'main')).toEqual([]);
    await page.getByRole('button', { name: 'Set the password' }).click();
    await eventually(() => page.getByRole('main').getByRole('status').textContent()).toContain('Your password is set');

    // The link works once: opened again, it says so in words.
    await page.goto(`${base}${path}`);
    await page.getByLabel('New password', { exact: true }).fill('yet another passphrase');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await eventually(() => page.getByRole('main').getByRole('alert').textContent()).toContain('This link no longer works');
    await eventually(() => page.getByRole('link', { name: 'Ask for a new link' }).isVisible()).toBe(true);

    // The old password no longer signs in; the new one does.
    expect((await t.as(null).post('/auth/login', { email: user.email, password: PASSWORD })).statusCode).toBe(401);
    await page.goto(`${base}/app/login`);
    await page.getByRole('textbox', { name: 'Email' }).fill(user.email);
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await eventually(() => page.url()).not.toContain('/login');
    await eventually(() => page.getByRole('banner').isVisible()).toBe(true);

    // Settings > Profile > Email notifications: a daily digest at 18:00 in the browser's time zone.
    await page.goto(`${base}/app/settings/profile`);
    const section = page.getByRole('group', { name: 'Email notifications' });
    await eventually(() => section.isVisible()).toBe(true);
    await section.getByRole('combobox', { name: /^Send/ }).selectOption('daily');
    await eventually(() => section.getByRole('combobox', { name: /^Time zone/ }).inputValue()).toBe('Europe/Berlin');
    await section.getByRole('combobox', { name: /^At/ }).selectOption('18');
    expect(await seriousViolations(page, 'main')).toEqual([]);
    await section.getByRole('button', { name: 'Save' }).click();
    await eventually(() => section.getByRole('status').textContent()).toBe('Saved');
    const signedIn = await t.as(null).post('/auth/login', { email: user.email, password: NEW_PASSWORD });
    const session = (signedIn.json() as { session: string }).session;
    const setting = () => t.as(null).get('/user/notification-email', { 'service-session': session });
    expect((await setting()).json()).toEqual({ mode: 'daily', hour: 18, timeZone: 'Europe/Berlin', mentionsImmediately: false });

    // Changed to immediately: hour and zone leave the form, the mode is saved.
    await section.getByRole('combobox', { name: /^Send/ }).selectOption('immediate');
    await eventually(() => section.getByRole('combobox', { name: /^Time zone/ }).count()).toBe(0);
    await section.getByRole('button', { name: 'Save' }).click();
    await eventually(async () => (await setting()).json()).toEqual({
      mode: 'immediate',
      hour: 18,
      timeZone: 'Europe/Berlin',
      mentionsImmediately: false,
    });
    await context.close();
  }, 120_000);
});
