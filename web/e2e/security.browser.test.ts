import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { PASSWORD, useTestApp } from '../../src/test/app.js';
import { codeNext, codeNow } from '../../src/modules/auth/two-factor/two-factor.fixtures.js';
import { CHROMIUM, eventually, seriousViolations, signedInContext, useBrowser } from './browser.js';

/**
 * Settings > Security in Chromium: the sessions list, two-factor enrolment from the QR code's
 * secret, then a sign-in that asks for the code.
 */

const t = useTestApp({ secretsKey: randomBytes(32).toString('base64') });
let base = '';
let browser: Browser;
useBrowser(t, (served, chromium) => ((base = served), (browser = chromium)));

describe.runIf(CHROMIUM)('Settings > Security', () => {
  it('lists the sessions, turns two-factor sign-in on, and the sign-in then asks for a code', async () => {
    const owner = await t.org({ name: 'Sam Secure' });
    await t.as(null).post('/auth/login', { email: owner.email, password: PASSWORD });
    const page = await (await signedInContext(browser, owner.session)).newPage();
    await page.goto(`${base}/app/settings/security`);

    const sessions = page.getByTestId('sessions');
    await eventually(() => sessions.getByRole('row').count()).toBe(3);
    await eventually(() => sessions.getByText('(this session)').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Sign out all other sessions every other session' }).click();
    await page.getByRole('button', { name: 'Yes, sign out all other sessions' }).click();
    await eventually(() => sessions.getByRole('row').count()).toBe(2);

    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await eventually(() => page.getByTestId('two-factor-qr').isVisible()).toBe(true);
    const secret = await page.getByRole('textbox', { name: 'Two-factor secret' }).inputValue();
    expect(await seriousViolations(page, 'main')).toEqual([]);
    await page.getByRole('textbox', { name: 'First code from the app' }).fill(codeNow(secret));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const recovery = page.getByTestId('recovery-codes');
    await eventually(() => recovery.isVisible()).toBe(true);
    expect((await recovery.locator('pre').textContent())!.split('\n')).toHaveLength(10);
    await eventually(() => page.getByText(/10 recovery codes left/).isVisible()).toBe(true);

    const guest = await (await browser.newContext()).newPage();
    await guest.goto(`${base}/app/login`);
    await guest.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await guest.getByLabel('Password').fill(PASSWORD);
    await guest.getByRole('button', { name: 'Sign in', exact: true }).click();
    await guest.getByRole('textbox', { name: /Code from your authenticator app/ }).fill(codeNext(secret));
    await guest.getByRole('button', { name: 'Verify' }).click();
    await eventually(() => guest.url()).not.toContain('/login');
    await eventually(() => guest.getByRole('banner').isVisible()).toBe(true);
  }, 90_000);
});
