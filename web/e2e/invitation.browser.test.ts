import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { linkIn } from '../../src/test/smtp.js';
import { useEmailTestApp } from '../../src/modules/email/email.fixtures.js';
import { factories } from '../../src/test/factories.js';
import { CHROMIUM, eventually, seriousViolations, signedInContext, useBrowser } from './browser.js';

/**
 * An invitation by email in Chromium, the mail going to a real SMTP server: an admin invites an
 * address in Settings > Invites, the invited person opens the emailed link signed out, creates the
 * account with a name and a password and lands in the space; the admin's list empties, and a
 * revoked invitation's link says so in words.
 */

const { t, smtp, send } = useEmailTestApp('invitation_browser', {}, { showVerifications: true });
const f = factories(t);
// The app's publicUrl (the link's origin) is not where the test serves it: the path and token are kept.
const INVITE_LINK = 'https://board.example.test/app/invitations/';
let base = '';
let browser: Browser;
useBrowser(t, (served, chromium) => ((base = served), (browser = chromium)));

describe.runIf(CHROMIUM)('Invitations by email', () => {
  it('invites from Settings > Invites; the invited person creates the account from the emailed link and joins the space', async () => {
    const owner = await t.org({ name: 'Olga Owner' });
    const space = await f.space(owner, 'Design');
    const email = `invited-${Date.now()}@example.test`;
    const admin = await signedInContext(browser, owner.session);
    const settings = await admin.newPage();
    await settings.goto(`${base}/app/settings/invites`);
    const card = settings.getByTestId('email-invitations-Design');
    await card.getByRole('textbox', { name: 'Email address to invite to Design' }).fill(email);
    await card.getByRole('combobox', { name: 'Role of an emailed invitation to Design' }).selectOption('editor');
    await card.getByRole('button', { name: 'Send invitation' }).click();
    const pending = card.getByRole('list', { name: 'Pending invitations to Design' });
    await eventually(() => pending.textContent()).toContain(email);
    expect(await seriousViolations(settings, 'main')).toEqual([]);

    await send();
    const link = new URL(linkIn(smtp.to(email)[0]!, INVITE_LINK));
    const visitor = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await visitor.newPage();
    await page.goto(`${base}${link.pathname}`);
    await eventually(() => page.getByTestId('invitation-intro').textContent()).toContain(`invites ${email} to the space Design as editor`);
    expect(await page.getByRole('textbox', { name: 'Email' }).inputValue()).toBe(email);
    await page.getByRole('textbox', { name: 'Your name' }).fill('Nina New');
    await page.getByLabel('Password').fill('a long enough passphrase');
    expect(await seriousViolations(page, 'main')).toEqual([]);
    await page.getByRole('button', { name: 'Create the account and join' }).click();
    await eventually(() => page.getByRole('navigation').getByRole('link', { name: 'Design' }).count()).toBeGreaterThan(0);
    const me = await t.as(null).post('/auth/login', { email, password: 'a long enough passphrase' });
    expect(me.json().user).toMatchObject({ name: 'Nina New', emailVerified: true, activeOrganizationId: owner.organizationId });

    // Settings > Profile: the new member moves to another address; its confirmation link confirms it.
    const moved = `moved-${Date.now()}@example.test`;
    await page.goto(`${base}/app/settings/profile`);
    const section = page.getByRole('group', { name: 'Email address' });
    await eventually(() => section.textContent()).toContain(`${email} (confirmed)`);
    await section.getByRole('textbox', { name: 'New address' }).fill(moved);
    await section.getByLabel('Current password').fill('a long enough passphrase');
    expect(await seriousViolations(page, 'main')).toEqual([]);
    await section.getByRole('button', { name: 'Change the address' }).click();
    await eventually(() => section.getByRole('status').textContent()).toBe(`Changed: we sent a confirmation link to ${moved}`);
    await eventually(() => section.textContent()).toContain(`${moved} (not confirmed yet`);
    await send();
    expect(smtp.to(email).at(-1)!.subject).toBe('The email address of your Workboard account was changed');
    const confirm = new URL(linkIn(smtp.to(moved).at(-1)!, 'https://board.example.test/app/verify-email?token='));
    await page.goto(`${base}${confirm.pathname}${confirm.search}`);
    await eventually(() => page.getByRole('main').getByRole('status').textContent()).toBe('Your email address is confirmed.');

    // The admin's list has emptied; the link, opened again, says it was accepted.
    await settings.reload();
    await eventually(() => settings.getByTestId('email-invitations-Design').textContent()).toContain('No pending invitations.');
    const again = await browser.newContext();
    const second = await again.newPage();
    await second.goto(`${base}${link.pathname}`);
    await eventually(() => second.getByRole('main').getByRole('alert').textContent()).toContain('This invitation has been accepted already');

    // A revoked invitation's link says so in words.
    const other = `revoked-${Date.now()}@example.test`;
    const res = await t.as(owner).post(`/spaces/${space.id}/invitations`, { email: other, role: 'reader' });
    expect(res.statusCode).toBe(201);
    await settings.reload();
    await settings.getByRole('button', { name: `Revoke the invitation of ${other}` }).click();
    await settings.getByRole('button', { name: /^Yes/ }).click();
    await eventually(async () => (await t.as(owner).get(`/spaces/${space.id}/invitations`)).json()).toEqual([]);
    await send();
    const revoked = new URL(linkIn(smtp.to(other)[0]!, INVITE_LINK));
    await second.goto(`${base}${revoked.pathname}`);
    await eventually(() => second.getByRole('main').getByRole('alert').textContent()).toContain('This invitation was withdrawn');
    await Promise.all([admin.close(), visitor.close(), again.close()]);
  }, 120_000);
});
