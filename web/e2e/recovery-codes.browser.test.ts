import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { PASSWORD, useTestApp } from '../../src/test/app.js';
import { answer, challenge, codeNext, enrol } from '../../src/modules/auth/two-factor/two-factor.fixtures.js';
import { CHROMIUM, eventually, signedInContext, useBrowser } from './browser.js';

/** Settings > Security: new recovery codes, with the password and a code; the old ones stop working. */

const t = useTestApp({ secretsKey: randomBytes(32).toString('base64') });
let base = '';
let browser: Browser;
useBrowser(t, (served, chromium) => ((base = served), (browser = chromium)));

describe.runIf(CHROMIUM)('new recovery codes', () => {
  it('are issued with the password and a code and shown once; the old ones stop working', async () => {
    const owner = await t.org({ name: 'Rae Recovery' });
    const { secret, recoveryCodes: old } = await enrol(t, owner);
    const page = await (await signedInContext(browser, owner.session)).newPage();
    await page.goto(`${base}/app/settings/security`);
    await page.getByRole('button', { name: 'New recovery codes' }).click();
    const form = page.getByRole('form', { name: 'New recovery codes' });
    await form.getByLabel('Password').fill(PASSWORD);
    await form.getByRole('textbox', { name: 'Code or recovery code' }).fill(codeNext(secret));
    await form.getByRole('button', { name: 'Issue new codes' }).click();
    const shown = page.getByTestId('recovery-codes');
    await eventually(() => shown.isVisible()).toBe(true);
    const codes = (await shown.locator('pre').textContent())!.split('\n');
    expect(codes).toHaveLength(10);
    for (const c of codes) expect(old).not.toContain(c);
    expect((await answer(t, await challenge(t, owner), old[0]!)).statusCode).toBe(401);
    expect((await answer(t, await challenge(t, owner), codes[0]!)).statusCode).toBe(201);
  }, 90_000);
});
