import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { useTestApp } from '../../src/test/app.js';
import { factories } from '../../src/test/factories.js';
import { CHROMIUM, eventually, seriousViolations, signedInContext, useBrowser } from './browser.js';

/**
 * Issue 45: Settings > API tokens creates a read-only token for an AI agent; the MCP endpoint then
 * lets it read and refuses its writes, and the API refuses them too.
 */

const t = useTestApp();
const f = factories(t);
let base = '';
let browser: Browser;
useBrowser(t, (served, chromium) => ((base = served), (browser = chromium)));

describe.runIf(CHROMIUM)('API tokens for AI agents, in Chromium', () => {
  it('creates a read-only token in Settings, which an MCP client can read with but not write', async () => {
    const { owner, project, stages } = await f.board(1);
    const page = await (await signedInContext(browser, owner.session)).newPage();
    await page.goto(`${base}/app/settings/tokens`);
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'API tokens' }).click();
    await page.getByLabel('Name').fill('Claude (read only)');
    await page.getByLabel('Access').selectOption('read');
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = page.getByTestId('new-token');
    await eventually(() => secret.inputValue()).toMatch(/^wmt_/);
    const token = await secret.inputValue();
    await eventually(() => page.getByTestId('tokens').getByRole('row', { name: /Claude \(read only\)/ }).textContent()).toContain('Read only');
    expect(await seriousViolations(page)).toEqual([]);

    const client = new Client({ name: 'Browser-made agent', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    const board = await client.callTool({ name: 'get_board', arguments: { project: project.id } });
    expect(board.isError).toBeFalsy();
    const write = await client.callTool({ name: 'create_task', arguments: { project: project.id, title: 'Not allowed' } });
    expect(write.isError).toBe(true);
    expect((write.content as Array<{ text: string }>)[0]!.text).toMatch(/^TOKEN_READ_ONLY/);
    await client.close();
    const http = await t.app.inject({ method: 'POST', url: '/tasks', headers: { authorization: `Bearer ${token}` }, payload: { name: 'x', stageId: stages[0]!.id } });
    expect(http.statusCode).toBe(403);
    expect((await t.as(owner).get(`/tasks?projectId=${project.id}`)).json()).toEqual([]);
  });

  it('lets an organization admin turn AI agents off in Settings; a plain member does not see the switch', async () => {
    const { owner } = await f.board(1);
    const page = await (await signedInContext(browser, owner.session)).newPage();
    await page.goto(`${base}/app/settings/tokens`);
    const box = page.getByLabel(/AI agents may connect to this organization/);
    await eventually(() => box.isChecked()).toBe(true);
    await box.uncheck();
    await eventually(async () => (await t.as(owner).get('/user/organization/mcp-enabled')).json()).toEqual({ mcpEnabled: false });
    expect(await seriousViolations(page)).toEqual([]);
    const member = await t.member(owner, 'member');
    const memberPage = await (await signedInContext(browser, member.session)).newPage();
    await memberPage.goto(`${base}/app/settings/tokens`);
    await eventually(() => memberPage.getByRole('button', { name: 'Create token' }).count()).toBe(1);
    expect(await memberPage.getByLabel(/AI agents may connect/).count()).toBe(0);
  });
});
