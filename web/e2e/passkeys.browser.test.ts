import { freePort } from '../../src/test/net.js';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { PASSWORD, useTestApp, type TestUser } from '../../src/test/app.js';
import { CHROMIUM, eventually, launch, seriousViolations, signedInContext } from './browser.js';

/**
 * Passkeys in Chromium with the DevTools protocol's virtual authenticator (a platform authenticator
 * with resident keys and user verification): added in Settings > Security, then, signed out, a
 * sign-in with the passkey alone. WebAuthn refuses IP addresses as relying-party ids, so the service
 * is PUBLIC_URL=http://localhost:<port>, on a port chosen before the app is built.
 */

let port = 0;
beforeAll(async () => {
  port = await freePort();
});
const t = useTestApp(() => ({ publicUrl: `http://localhost:${port}`, secretsKey: randomBytes(32).toString('base64') }));
let base = '';
let browser: Browser;

beforeAll(async () => {
  if (!CHROMIUM) return;
  await t.app.listen({ port, host: '127.0.0.1' });
  base = `http://localhost:${port}`;
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

/** A page signed in as `user` with a virtual platform authenticator, on which a passkey was added through Settings > Security. */
async function withPasskey(user: TestUser) {
  const context = await signedInContext(browser, user.session);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  await page.goto(`${base}/app/settings/security`);
  // The list loaded: the page is settled, and the form will not be drawn again under the typing.
  await eventually(() => page.getByText('No passkeys yet.').isVisible()).toBe(true);
  await page.getByRole('textbox', { name: 'Passkey name' }).fill('Virtual laptop');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await eventually(() => page.getByTestId('passkeys').getByRole('row', { name: /Virtual laptop/ }).count()).toBe(1);
  return { page, cdp, authenticatorId };
}

describe.runIf(CHROMIUM)('passkeys in the browser', () => {
  it('adds a passkey in Settings > Security, signs out, and signs in with the passkey alone', async () => {
    const owner = await t.org({ name: 'Kim Passkey' });
    const { page, cdp, authenticatorId } = await withPasskey(owner);
    expect(await seriousViolations(page, 'main')).toEqual([]);
    // The authenticator holds a discoverable credential for this relying party and this user.
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost', userHandle: Buffer.from(String(owner.id)).toString('base64') });
    const [stored] = (await t.as(owner).get('/user/passkeys')).json();
    expect(stored).toMatchObject({ name: 'Virtual laptop', lastUsedAt: null });

    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await eventually(() => page.url()).toContain('/login');
    expect(await page.evaluate(() => localStorage.getItem('workboard.session'))).toBeNull();

    // No email, no password: the device offers its passkey.
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await eventually(() => page.url()).not.toContain('/login');
    await eventually(() => page.getByRole('banner').isVisible()).toBe(true);
    const session = await page.evaluate(() => localStorage.getItem('workboard.session'));
    expect(session).toBeTruthy();
    const me = await t.app.inject({ method: 'GET', url: '/user', headers: { 'service-session': session! } });
    expect([me.statusCode, me.json().id]).toEqual([200, owner.id]);
    const listed = await t.app.inject({ method: 'GET', url: '/user/passkeys', headers: { 'service-session': session! } });
    expect(listed.json()[0].lastUsedAt).not.toBeNull();
    const [{ signCount }] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
    expect(signCount).toBeGreaterThan(0);

    // Removed in the settings, it signs in no more. (Reached through the app: a reload would bring back
    // the context's first session, signed out above.)
    await page.getByRole('banner').getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByRole('button', { name: 'Remove passkey Virtual laptop' }).click();
    await page.getByRole('button', { name: /^Yes/ }).click();
    await eventually(() => page.getByText('No passkeys yet.').isVisible()).toBe(true);
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await eventually(() => page.getByText('This passkey was not accepted').isVisible()).toBe(true);
    expect(page.url()).toContain('/login');
  }, 120_000);

  it('a password sign-in of an account with a passkey asks for it next, and the passkey answers', async () => {
    const owner = await t.org({ name: 'Lee Password' });
    const { page } = await withPasskey(owner);
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    // No authenticator app here: the passkey is the only second factor, so no code field.
    await page.getByRole('button', { name: 'Confirm with your passkey' }).click();
    await eventually(() => page.url()).not.toContain('/login');
    await eventually(() => page.getByRole('banner').isVisible()).toBe(true);
    expect(await page.getByRole('textbox', { name: /Code from your authenticator app/ }).count()).toBe(0);
  }, 120_000);

  it('a member held to two-factor sign-in by the organization may add a passkey instead of an app, and is let in', async () => {
    const owner = await t.org({ name: 'Ola Owner' });
    const member = await t.member(owner);
    expect((await t.as(owner).patch('/user/organization/two-factor-required', { twoFactorRequired: true })).statusCode).toBe(200);
    const context = await signedInContext(browser, member.session);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    await page.goto(`${base}/app/`);
    await eventually(() => page.getByText(/turn it on, or add a passkey, to continue/).isVisible()).toBe(true);
    await eventually(() => page.getByText('No passkeys yet.').isVisible()).toBe(true);
    await page.getByRole('textbox', { name: 'Passkey name' }).fill('Member phone');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    // The API lets the member in first; the gate opens once its status is asked again.
    await eventually(async () => (await t.as(member).get('/user')).statusCode, 30_000).toBe(200);
    await eventually(() => page.getByRole('banner').isVisible(), 30_000).toBe(true);
  }, 120_000);
});
