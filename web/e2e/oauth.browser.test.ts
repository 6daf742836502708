import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { discoverAuthorizationServerMetadata, refreshAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import { PASSWORD } from '../../src/test/app.js';
import { MemoryOAuthClient, REDIRECT_URL, connectWithOAuth, useOAuthApp } from '../../src/modules/oauth/oauth.fixtures.js';
import { CHROMIUM, eventually, launch, seriousViolations } from './browser.js';

/**
 * Issue 45: an MCP client connects with OAuth. The SDK's OAuth client provider discovers the
 * authorization server, registers, and sends the person to the authorization URL with PKCE; here
 * Chromium opens it, signed out: the normal sign-in first, then the consent screen, Allow, and the
 * redirect back to the client with a code, which the SDK exchanges. Then the token works on /mcp,
 * another resource is refused, a refresh token works once, and revoking the app in Settings ends it.
 * The service is PUBLIC_URL=http://127.0.0.1:<port> (the SDK checks the metadata names the URL it connects to).
 */

const { kit, base } = useOAuthApp();
let browser: Browser;
beforeAll(async () => {
  if (CHROMIUM) browser = await launch();
});
afterAll(async () => browser?.close());

const initialize = (token: string) =>
  fetch(`${base()}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });

/** Drives the consent in Chromium and answers the query the browser was sent back to the client with. */
async function consentInChromium(url: URL, email: string, allow = true): Promise<URLSearchParams> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // The client's redirect URI is a local port of the client: answered here, its query is what the client would read.
  await context.route(`${REDIRECT_URL}**`, (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the client' }));
  const page = await context.newPage();
  await page.goto(url.href);
  await eventually(() => page.getByText('Sign in to connect an app to your Workboard account.').isVisible()).toBe(true);
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  const consent = page.getByTestId('oauth-consent');
  await eventually(() => consent.isVisible()).toBe(true);
  expect(await consent.getByRole('heading').textContent()).toBe('Browser Agent wants to act for you in Workboard');
  expect(await consent.getByRole('list', { name: 'What the app asks for' }).getByRole('listitem').allTextContents()).toEqual([
    'Read tasks, boards and notifications',
    'Create, change, move and comment on tasks',
    'Read documentation and reglaments, and ask the assistant',
  ]);
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole('button', { name: allow ? 'Allow' : 'Deny' }).click();
  await eventually(() => page.url()).toContain(REDIRECT_URL);
  const back = new URL(page.url()).searchParams;
  await context.close();
  return back;
}

describe.runIf(CHROMIUM)('OAuth for AI agents, in Chromium', () => {
  it('connects an SDK client through sign-in and consent; the token works, refreshes once, and revoking the app ends it', async () => {
    const user = await kit.org({ name: 'Ada OAuth' });
    const oauth = new MemoryOAuthClient('Browser Agent');
    const { client } = await connectWithOAuth(base(), oauth, (url) => consentInChromium(url, user.email), 'Browser Agent');
    const projects = await client.callTool({ name: 'list_projects', arguments: {} });
    expect(projects.isError).toBeFalsy();

    // A token for another resource is not issued; a refresh token works once.
    const metadata = (await discoverAuthorizationServerMetadata(base()))!;
    const clientInformation = oauth.client!;
    const first = oauth.saved!.refresh_token!;
    await expect(refreshAuthorization(base(), { metadata, clientInformation, refreshToken: first, resource: new URL('https://other.example/mcp') })).rejects.toThrow(/invalid_target|resource/i);
    const resource = new URL(`${base()}/mcp`);
    const refreshed = await refreshAuthorization(base(), { metadata, clientInformation, refreshToken: first, resource });
    oauth.saveTokens(refreshed);
    expect((await initialize(refreshed.access_token)).status).toBe(200);

    // Settings > Profile > Connected apps lists it, and revokes it.
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.addInitScript((value) => localStorage.setItem('workboard.session', value), user.session);
    const page = await context.newPage();
    await page.goto(`${base()}/app/settings/profile`);
    const row = page.getByTestId('connected-apps').getByRole('row', { name: /Browser Agent/ });
    await eventually(() => row.textContent()).toContain('Create, change, move and comment on tasks');
    expect(await seriousViolations(page)).toEqual([]);
    await row.getByRole('button', { name: 'Revoke Browser Agent' }).click();
    await page.getByRole('group', { name: /Revoke this app's access/ }).getByRole('button', { name: /Revoke|Yes|Confirm/ }).first().click();
    await eventually(() => page.getByText('No connected apps.').isVisible()).toBe(true);
    expect((await initialize(refreshed.access_token)).status).toBe(401);
    await expect(refreshAuthorization(base(), { metadata, clientInformation, refreshToken: refreshed.refresh_token!, resource })).rejects.toThrow(/grant/);
    await expect(refreshAuthorization(base(), { metadata, clientInformation, refreshToken: first, resource })).rejects.toThrow(/grant/);
    await context.close();
  });

  it('Deny sends the app back with access_denied and connects nothing', async () => {
    const user = await kit.org({ name: 'Bo OAuth' });
    const oauth = new MemoryOAuthClient('Browser Agent');
    let answer: URLSearchParams | null = null;
    await expect(
      connectWithOAuth(base(), oauth, async (url) => (answer = await consentInChromium(url, user.email, false))),
    ).rejects.toThrow();
    expect(answer!.get('error')).toBe('access_denied');
    expect((await kit.as(user).get('/user/connected-apps')).json()).toEqual([]);
  });
});
