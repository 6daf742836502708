import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { useTestApp, type TestUser } from '../../src/test/app.js';
import { factories } from '../../src/test/factories.js';
import { CHROMIUM, launch, screenshot, seriousViolations, signedInContext } from './browser.js';

/**
 * Screen 4 in Chromium: notifications, search, members and invite links, API tokens, webhooks.
 * One organization serves every test (set up through the API; the board test covers signing up),
 * and one signed-in page of its owner walks through the screens, to keep the file quick.
 */

// Webhooks may call the receiver below, on this machine.
const t = useTestApp({ outboundAllowedHosts: ['127.0.0.1'] });
const f = factories(t);
const eventually = <T,>(fn: () => Promise<T> | T, timeout = 15_000) => expect.poll(fn, { timeout, interval: 50 });

let base = '';
let browser: Browser;
let receiver: Server;
const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];

let owner: TestUser;
let colleague: TestUser;
let spaceId: number;
let projectId: number;
const tasks: Record<string, { id: number }> = {};
let page: Page;

beforeAll(async () => {
  if (!CHROMIUM) return;
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  [browser, owner] = await Promise.all([launch(), t.org({ name: 'Olivia Owner' })]);
  spaceId = (await f.space(owner, 'Product')).id;
  const project = await f.project(owner, spaceId, 'Launch');
  projectId = project.id;
  const stage = await f.stage(owner, project.id, 'To do');
  for (const name of ['Quarterly report', 'Plan the offsite']) tasks[name] = await f.task(owner, stage.id, { name });
  colleague = await f.spaceMember(owner, spaceId, 'editor');
  page = await (await signedInContext(browser, owner.session)).newPage();
});
afterAll(async () => {
  await browser?.close();
  receiver?.close();
});

const badge = () => page.getByTestId('unread-count');
// Within the app (no reload): the header's Settings link, then the tab.
async function openSettings(tab: string, on = page) {
  await on.getByRole('banner').getByRole('link', { name: 'Settings' }).click();
  await on.waitForURL('**/app/settings/members');
  await on.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: tab }).click();
}
const bell = () => page.getByRole('button', { name: /^Notifications/ });

describe.skipIf(!CHROMIUM)('screen 4 in Chromium', () => {
  it('raises the bell’s count live when a colleague assigns and mentions the user, opens the task, and clears it on mark all read', async () => {
    await page.goto(`${base}/app/`);
    await eventually(() => page.getByTestId('live-status').getAttribute('data-status')).toBe('live');
    expect(await badge().count()).toBe(0);

    const as = t.as(colleague);
    expect((await as.post(`/tasks/${tasks['Plan the offsite']!.id}/assignees`, { userId: owner.id })).statusCode).toBe(201);
    expect((await as.post(`/tasks/${tasks['Quarterly report']!.id}/messages`, { text: `@[${owner.id}] numbers, please` })).statusCode).toBe(201);
    await eventually(() => badge().textContent()).toBe('2');

    await bell().click();
    const panel = page.locator('#notifications-panel');
    const assigned = panel.getByRole('button', { name: /^Unread: You were assigned to “Plan the offsite”/ });
    await eventually(() => assigned.count()).toBe(1);
    expect(await panel.locator('li.notification').count()).toBe(2);
    expect(await seriousViolations(page, '#notifications-panel')).toEqual([]);

    await assigned.click();
    await page.waitForURL(`**/app/projects/*/tasks/${tasks['Plan the offsite']!.id}`);
    await eventually(() => page.getByTestId('task-drawer').getByRole('textbox', { name: 'Task name' }).inputValue()).toBe('Plan the offsite');
    await eventually(() => badge().textContent()).toBe('1');

    await page.keyboard.press('Escape');
    await bell().click();
    await panel.getByRole('button', { name: 'Mark all read' }).click();
    await eventually(() => badge().count()).toBe(0);
    const unread = await t.as(owner).get('/notifications?read=false');
    expect(unread.headers['x-total-count']).toBe('0');
    await page.keyboard.press('Escape');
  });

  it('finds a task across spaces from the header and opens it', async () => {
    const search = page.getByRole('searchbox', { name: 'Search tasks and reglaments' });
    await search.fill('quarterly');
    await search.press('Enter');
    await page.waitForURL('**/app/search?q=quarterly');
    const results = page.getByTestId('task-results');
    await eventually(() => results.getByRole('link').allTextContents()).toEqual(['Quarterly report']);
    await eventually(() => page.getByTestId('reglament-results').locator('..').getByText('No reglament matches.').isVisible()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await results.getByRole('link', { name: 'Quarterly report' }).click();
    await page.waitForURL(`**/app/projects/*/tasks/${tasks['Quarterly report']!.id}`);
    await eventually(() => page.getByTestId('task-drawer').getByRole('textbox', { name: 'Task name' }).inputValue()).toBe('Quarterly report');
    await page.keyboard.press('Escape');
  });

  it('creates an invite link a new person joins through; members see no admin controls, the owner changes their role', async () => {
    await openSettings('Invite links');
    const invite = page.getByTestId('invite-Product');
    await invite.getByRole('combobox', { name: 'Role for a new link to Product' }).selectOption('member');
    await invite.getByRole('button', { name: 'Create link' }).click();
    const url = await (async () => {
      await eventually(() => invite.getByTestId('invite-url').inputValue()).toMatch(/\/app\/invite\/\S+$/);
      return invite.getByTestId('invite-url').inputValue();
    })();
    expect(await seriousViolations(page)).toEqual([]);

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const guest = await context.newPage();
    await guest.goto(url);
    await eventually(() => guest.getByTestId('invite-intro').textContent()).toContain('invites you to the space Product as member');
    expect(await seriousViolations(guest)).toEqual([]);
    await guest.getByLabel('Name').fill('Nora Newcomer');
    const email = `nora-${Date.now()}@example.test`;
    await guest.getByLabel('Email').fill(email);
    await guest.getByLabel('Password').fill('a long password');
    await guest.getByRole('button', { name: 'Create account' }).click();
    await eventually(() => guest.getByRole('heading', { name: 'Welcome, Nora Newcomer' }).isVisible()).toBe(true);
    await eventually(() => guest.getByRole('navigation', { name: 'Spaces and projects' }).getByRole('button', { name: 'Product', exact: true }).isVisible()).toBe(true);

    const members = (await t.as(owner).get(`/spaces/${spaceId}/members`)).json() as Array<{ userId: number; email: string; role: string }>;
    const nora = members.find((m) => m.email === email)!;
    expect(nora.role).toBe('member');

    // A plain member sees the people but no role, deactivate or remove controls, and no admin tabs.
    await openSettings('Members', guest);
    await eventually(() => guest.getByTestId('members').getByText('Olivia Owner').isVisible()).toBe(true);
    expect(await guest.getByTestId('members').getByRole('combobox').count()).toBe(0);
    expect(await guest.getByRole('button', { name: /^Remove / }).count()).toBe(0);
    expect(await guest.getByRole('navigation', { name: 'Settings' }).getByRole('link').allTextContents()).toEqual(['Members', 'API tokens', 'Security', 'Profile']);

    await openSettings('Members');
    const role = page.getByRole('combobox', { name: 'Role of Nora Newcomer' });
    await role.selectOption('admin');
    await eventually(async () => ((await t.as(owner).get('/user/organization')).json() as { members: Array<{ userId: number; role: string }> }).members.find((m) => m.userId === nora.userId)?.role).toBe('admin');
    expect(await page.getByRole('combobox', { name: 'Role of Olivia Owner' }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('creates an API token shown once, which the API refuses after it is revoked', async () => {
    await openSettings('API tokens');
    await page.getByLabel('Name').fill('CI deploys');
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = page.getByTestId('new-token');
    await eventually(() => secret.inputValue()).toMatch(/^wmt_/);
    const token = await secret.inputValue();
    const asToken = () => t.app.inject({ url: '/user', headers: { authorization: `Bearer ${token}` } });
    expect((await asToken()).statusCode).toBe(200);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Done' }).click();
    expect(await secret.count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke token CI deploys' }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await eventually(() => page.getByTestId('tokens').count()).toBe(0);
    expect((await asToken()).statusCode).toBe(401);
  });

  it('creates a webhook, pings it, lists the delivery and disables it', async () => {
    await openSettings('Webhooks');
    await page.getByRole('button', { name: 'New webhook' }).click();
    const form = page.getByRole('form', { name: 'New webhook' });
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await form.getByLabel('URL').fill(hookUrl);
    await form.getByLabel('Columns').check();
    await form.getByRole('button', { name: 'Save' }).click();
    await eventually(() => page.getByTestId('webhook-secret').inputValue()).not.toBe('');

    const hook = page.getByTestId('webhook').filter({ hasText: hookUrl });
    await eventually(() => hook.getByText('Enabled').isVisible()).toBe(true);
    expect(await hook.getByText('Events: task.*, stage.*').count()).toBe(1);
    await hook.getByRole('button', { name: 'Send test' }).click();
    await eventually(() => hook.getByTestId('deliveries').locator('tbody tr').first().textContent()).toMatch(/webhook\.ping\s*succeeded/);
    expect(received.some((r) => r.headers['webhook-signature'] && JSON.parse(r.body).type === 'webhook.ping')).toBe(true);

    await hook.getByRole('button', { name: 'Disable' }).click();
    await eventually(() => hook.getByText('Disabled', { exact: true }).isVisible()).toBe(true);
    const saved = (await t.as(owner).get('/webhooks')).json() as Array<{ url: string; enabled: boolean; events: string[] }>;
    expect(saved).toEqual([expect.objectContaining({ url: hookUrl, enabled: false, events: ['task.*', 'stage.*'] })]);

    // Narrowed to one project of a space (the API keeps it with the project's space).
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'New webhook' }).click();
    const launchUrl = hookUrl.replace(/\/hook$/, '/launch');
    await form.getByLabel('URL').fill(launchUrl);
    await form.getByLabel('Events of').selectOption({ label: 'Space Product' });
    await form.getByRole('combobox', { name: /^Project/ }).selectOption({ label: 'Launch' });
    await screenshot(page, 'settings-webhooks.png');
    await form.getByRole('button', { name: 'Save' }).click();
    const scoped = page.getByTestId('webhook').filter({ hasText: launchUrl });
    await eventually(() => scoped.getByText('Space Product · project Launch').isVisible()).toBe(true);
    const hooks = (await t.as(owner).get('/webhooks')).json() as Array<{ url: string; spaceId: number | null; projectId: number | null }>;
    expect(hooks.find((h) => h.url === launchUrl)).toMatchObject({ spaceId, projectId });
    await page.getByRole('button', { name: 'Done' }).click();

    // Everything at once for axe: the list, the deliveries and the edit form.
    await hook.getByRole('button', { name: 'Edit' }).click();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
