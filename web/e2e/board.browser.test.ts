import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { useTestApp, type TestUser } from '../../src/test/app.js';
import { factories } from '../../src/test/factories.js';
import { addWith, centre, CHROMIUM, dragTo, eventually, screenshot, seriousViolations, signedInContext, useBrowser } from './browser.js';

/**
 * The product in a real browser: the service listens on a port of 127.0.0.1 and serves the built
 * client (vitest's global setup builds it when stale); Debian's Chromium drives it.
 */

const t = useTestApp();
const f = factories(t);
let base = '';
let browser: Browser;
useBrowser(t, (served, chromium) => ((base = served), (browser = chromium)));

const column = (page: Page, name: string) => page.locator('section.column', { has: page.getByRole('heading', { name, exact: true }) });
const card = (page: Page, name: string) => page.locator('article.card', { has: page.getByRole('link', { name, exact: true }) });
const sessionOf = (page: Page) => page.evaluate(() => localStorage.getItem('workboard.session')!);

/** Labels, people, dates, checklists and time on the cards, so the screenshots show a board in use. */
async function dressUp(owner: TestUser, projectId: number, tasks: Array<{ id: number; name: string }>) {
  const as = t.as(owner);
  const label = async (name: string, color: string) => ((await as.post('/labels', { name, color })).json() as { id: number }).id;
  const [design, backend, urgent] = [await label('Design', '#7c3aed'), await label('Backend', '#0e7490'), await label('Urgent', '#b91c1c')];
  const stages = built.stages;
  for (const [i, name] of ['Collect feedback', 'Fix the login bug', 'Release notes', 'Pricing page'].entries()) {
    const stage = [stages['To do'], stages['Done'], stages['Done'], stages['To do']][i]!;
    tasks.push({ id: ((await as.post('/tasks', { name, stageId: stage })).json() as { task: { id: number } }).task.id, name });
  }
  const id = (name: string) => tasks.find((x) => x.name === name)!.id;
  const soon = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  for (const [name, labels] of [['Write the spec', [design]], ['Design the board', [design, urgent]], ['Fix the login bug', [backend]], ['Ship it', [backend]], ['Pricing page', [design]]] as const)
    for (const labelId of labels) await as.post(`/tasks/${id(name)}/labels`, { labelId });
  for (const name of ['Write the spec', 'Design the board', 'Fix the login bug']) await as.post(`/tasks/${id(name)}/assignees`, { userId: owner.id });
  await as.patch(`/tasks/${id('Design the board')}/dates`, { dateEndWithoutTime: soon(-1) });
  await as.patch(`/tasks/${id('Ship it')}/dates`, { dateEndWithoutTime: soon(5) });
  for (const item of ['Columns', 'Cards', 'Drag and drop']) await as.post(`/tasks/${id('Design the board')}/subtasks`, { name: item });
  await as.post(`/time-records`, { taskId: id('Fix the login bug'), hours: 2.5, date: soon(0) });
  await as.post(`/tasks/${id('Fix the login bug')}/messages`, { text: 'Reproduced on Safari.' });
  await as.patch(`/tasks/${id('Fix the login bug')}/status`, { status: 1 });
  await as.patch(`/projects/${projectId}/stages/${stages['Done']}/color`, { color: '#16a34a' });
  await as.patch(`/projects/${projectId}/stages/${stages['Doing']}/color`, { color: '#2563eb' });
}

/** The signed-up owner of the board the browser tests build through the UI. */
interface Built {
  owner: TestUser;
  projectId: number;
  spaceId: number;
  stages: Record<string, number>;
}
let built: Built;

describe.skipIf(!CHROMIUM)('web client in Chromium', () => {
  it('signs up, builds a board, drags a card that stays after a reload and shows up live in a second browser', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base}/`);
    await page.waitForURL('**/app/login');
    await page.getByRole('tab', { name: 'Sign up' }).click();
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill(`ada-${Date.now()}@example.test`);
    await page.getByLabel('Password').fill('a long password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await eventually(() => page.getByRole('heading', { name: 'Welcome, Ada Lovelace' }).isVisible()).toBe(true);

    await addWith(page, 'New space', 'Product');
    await addWith(page, 'New project in Product', 'Launch');
    await page.waitForURL(/\/app\/projects\/\d+$/);
    for (const name of ['To do', 'Doing', 'Done']) await addWith(page, 'Add column', name);
    for (const name of ['Write the spec', 'Design the board', 'Ship it']) await addWith(page, 'Add card to To do', name, column(page, 'To do'));
    await eventually(() => column(page, 'To do').locator('article.card').count()).toBe(3);

    const projectId = Number(page.url().split('/').pop());
    const session = await sessionOf(page);
    const me = (await t.app.inject({ url: '/user', headers: { 'service-session': session } })).json() as { id: number; email: string; name: string; activeOrganizationId: number };
    const project = (await t.app.inject({ url: `/projects/${projectId}`, headers: { 'service-session': session } })).json() as { spaceId: number; stages: Array<{ id: number; name: string }> };
    built = {
      owner: { id: me.id, email: me.email, name: me.name, session, organizationId: me.activeOrganizationId, headers: { 'service-session': session } },
      projectId,
      spaceId: project.spaceId,
      stages: Object.fromEntries(project.stages.map((s) => [s.name, s.id])),
    };

    // A second browser, signed in separately, watches the same board.
    const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: me.email, password: 'a long password' } });
    const watcher = await (await signedInContext(browser, login.json().session)).newPage();
    await watcher.goto(`${base}/app/projects/${projectId}`);
    await eventually(() => watcher.getByTestId('live-status').getAttribute('data-status')).toBe('live');
    await eventually(() => card(watcher, 'Write the spec').isVisible()).toBe(true);

    await dragTo(page, centre(await card(page, 'Write the spec').boundingBox()), centre(await column(page, 'Doing').locator('.column-body').boundingBox()));
    await eventually(() => column(page, 'Doing').getByRole('link', { name: 'Write the spec' }).count()).toBe(1);
    const moved = Date.now();
    await eventually(() => column(watcher, 'Doing').getByRole('link', { name: 'Write the spec' }).count(), 2000).toBe(1);
    expect(Date.now() - moved).toBeLessThan(2000);

    await page.reload();
    await eventually(() => column(page, 'Doing').getByRole('link', { name: 'Write the spec' }).count()).toBe(1);
    expect(await column(page, 'To do').locator('article.card').count()).toBe(2);
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
    await watcher.context().close();
  });

  it('moves a card with the keyboard alone', async () => {
    const page = await (await signedInContext(browser, built.owner.session)).newPage();
    await page.goto(`${base}/app/projects/${built.projectId}`);
    const handle = page.getByRole('button', { name: 'Move Design the board' });
    await handle.focus();
    const live = page.locator('[id^=DndLiveRegion]');
    await page.keyboard.press('Space');
    await eventually(() => live.textContent()).toContain('Design the board is over Design the board');
    await page.keyboard.press('ArrowRight');
    await eventually(() => live.textContent()).toContain('is over Write the spec');
    await page.keyboard.press('Space');
    await eventually(() => column(page, 'Doing').getByRole('link', { name: 'Design the board' }).count()).toBe(1);
    // The server has it too, once the move the card showed at once (optimistically) has committed.
    const doing = async () => ((await t.as(built.owner).get(`/projects/${built.projectId}/tasks?stageId=${built.stages['Doing']}`)).json() as Array<{ name: string }>).map((x) => x.name);
    await eventually(doing).toContain('Design the board');
    await page.context().close();
  });

  it('puts a card back with the API’s message when the WIP limit refuses the move', async () => {
    const doing = built.stages['Doing']!;
    expect((await t.as(built.owner).patch(`/projects/${built.projectId}/stages/${doing}/tasks-limit`, { tasksLimit: 2 })).statusCode).toBe(200);
    const page = await (await signedInContext(browser, built.owner.session)).newPage();
    await page.goto(`${base}/app/projects/${built.projectId}`);
    await eventually(() => column(page, 'Doing').getByTestId('column-count').textContent()).toBe('2 / 2');
    await dragTo(page, centre(await card(page, 'Ship it').boundingBox()), centre(await column(page, 'Doing').locator('.column-body').boundingBox()));
    const toast = page.getByTestId('toast-error');
    await eventually(() => toast.textContent()).toContain('column "Doing" holds at most 2 tasks');
    await eventually(() => column(page, 'To do').getByRole('link', { name: 'Ship it' }).count()).toBe(1);
    expect(await column(page, 'Doing').locator('article.card').count()).toBe(2);
    await page.context().close();
  });

  it('shows a reader no edit controls, and the API refuses the reader anyway', async () => {
    const reader = await f.spaceMember(built.owner, built.spaceId, 'reader');
    const page = await (await signedInContext(browser, reader.session)).newPage();
    await page.goto(`${base}/app/projects/${built.projectId}`);
    await eventually(() => card(page, 'Write the spec').isVisible()).toBe(true);
    await eventually(() => page.getByText('· reader').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: /^Move / }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Add card|Add column/ }).count()).toBe(0);
    expect(await page.getByRole('group', { name: /settings/ }).count()).toBe(0);
    const tasks = (await t.as(reader).get(`/projects/${built.projectId}/tasks`)).json() as Array<{ id: number }>;
    const refused = await t.as(reader).post('/tasks/move', { taskIds: [tasks[0]!.id], stageId: built.stages['Done'] });
    expect(refused.statusCode).toBe(403);
    await page.context().close();
  });

  it('opens the task drawer: sanitized markdown, checklist, chat; accessible; screenshots for the docs', async () => {
    const { owner, projectId } = built;
    const tasks = (await t.as(owner).get(`/projects/${projectId}/tasks`)).json() as Array<{ id: number; name: string }>;
    const spec = tasks.find((x) => x.name === 'Write the spec')!;
    await t.as(owner).patch(`/tasks/${spec.id}/description`, { description: '## Goal\nA **board** people enjoy.\n\n<img src=x onerror="window.pwned=1"> <script>window.pwned=2</script>' });
    await dressUp(owner, projectId, tasks);
    const page = await (await signedInContext(browser, owner.session)).newPage();
    await page.goto(`${base}/app/projects/${projectId}`);
    await eventually(() => page.locator('.label').count()).toBeGreaterThan(2);
    await screenshot(page, 'board.png');
    await card(page, 'Write the spec').getByRole('link').click();
    const drawer = page.getByTestId('task-drawer');
    await eventually(() => drawer.getByTestId('description').locator('strong').textContent()).toBe('board');
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    expect(await drawer.getByTestId('description').innerHTML()).not.toContain('onerror');

    await addWith(page, 'Add item', 'Outline the screens', drawer);
    await eventually(() => drawer.getByRole('checkbox', { name: 'Outline the screens' }).count()).toBe(1);
    await drawer.getByRole('textbox', { name: 'Message' }).fill('Looks good');
    await drawer.getByRole('button', { name: 'Send' }).click();
    await eventually(() => drawer.locator('.message-text').first().textContent()).toBe('Looks good');
    // The board behind updated from the answers: the card's checklist badge counts the item.
    await eventually(() => card(page, 'Write the spec').getByTitle('Checklist').textContent()).toContain('0/1');
    expect(await seriousViolations(page, '[data-testid="task-drawer"]')).toEqual([]);
    await drawer.evaluate((node) => node.scrollTo(0, 0));
    await screenshot(page, 'task-drawer.png');
    await page.context().close();
  });

  it('in the drawer: a new label reaches the card, a mention picked from the list notifies the colleague, an edit shows in a second browser, a cover comes and goes; accessible', async () => {
    const { owner, projectId, spaceId } = built;
    const colleague = await f.spaceMember(owner, spaceId, 'editor');
    await t.as(colleague).patch('/user/name', { name: 'Grace Hopper' });
    const tasks = (await t.as(owner).get(`/projects/${projectId}/tasks`)).json() as Array<{ id: number; name: string }>;
    const ship = tasks.find((x) => x.name === 'Ship it')!;
    const page = await (await signedInContext(browser, owner.session)).newPage();
    await page.goto(`${base}/app/projects/${projectId}/tasks/${ship.id}`);
    const drawer = page.getByTestId('task-drawer');

    await drawer.getByRole('button', { name: '+ New label' }).click();
    await drawer.getByRole('textbox', { name: 'Label name' }).fill('Research');
    await drawer.getByLabel('Label colour').fill('#0f766e');
    await drawer.getByRole('button', { name: 'Create', exact: true }).click();
    await eventually(() => card(page, 'Ship it').locator('.label', { hasText: 'Research' }).count()).toBe(1);
    expect(await drawer.locator('.chip.label', { hasText: 'Research' }).count()).toBe(1);

    // The colleague has the same task open in a second browser.
    const watcher = await (await signedInContext(browser, colleague.session)).newPage();
    await watcher.goto(`${base}/app/projects/${projectId}/tasks/${ship.id}`);
    const watched = watcher.getByTestId('task-drawer').locator('.message-text');
    await eventually(() => watcher.getByTestId('live-status').getAttribute('data-status')).toBe('live');

    // Picked with the keyboard: `@` and a few letters list the people, Enter picks the first.
    const message = drawer.getByRole('textbox', { name: 'Message', exact: true });
    await message.pressSequentially('Can you check this, @gra');
    const list = drawer.getByRole('listbox', { name: 'Mention someone' });
    const options = list.getByRole('option');
    await eventually(() => options.allTextContents()).toEqual([expect.stringContaining('Grace Hopper')]);
    // axe with the new controls in view: the mention list open, the label editor unfolded.
    await drawer.locator('.manage-labels').evaluate((node: HTMLDetailsElement) => (node.open = true));
    expect(await seriousViolations(page, '[data-testid="task-drawer"]')).toEqual([]);
    await drawer.locator('.manage-labels').evaluate((node: HTMLDetailsElement) => (node.open = false));
    await message.press('Enter');
    await eventually(() => message.inputValue()).toBe('Can you check this, @Grace Hopper ');
    await message.pressSequentially('today?');
    await drawer.getByRole('button', { name: 'Send' }).click();
    await eventually(() => watched.last().textContent()).toBe('Can you check this, @Grace Hopper today?');
    const messages = async () => (await t.as(owner).get(`/tasks/${ship.id}/messages`)).json() as Array<{ id: number; text: string }>;
    expect((await messages()).map((m) => m.text)).toContain(`Can you check this, @[${colleague.id}] today?`);
    const mentions = async () => ((await t.as(colleague).get(`/notifications?type=message.mention`)).json() as Array<{ taskId: number }>).map((n) => n.taskId);
    await eventually(mentions).toEqual([ship.id]);

    // The author edits it, picking with the mouse this time; the colleague's browser shows the new text.
    await drawer.getByTestId('message').last().getByRole('button', { name: 'Edit message' }).click();
    const edit = drawer.getByRole('textbox', { name: 'Edit message' });
    expect(await edit.inputValue()).toBe('Can you check this, @Grace Hopper today?');
    await edit.fill('Checked with @Ada');
    await list.getByRole('option', { name: /Ada Lovelace/ }).click();
    await edit.pressSequentially('and @Grace Hopper: ship on Friday.');
    await drawer.getByRole('button', { name: 'Save', exact: true }).click();
    await eventually(() => watched.last().textContent()).toBe('Checked with @Ada Lovelace and @Grace Hopper: ship on Friday.');
    expect(await watcher.getByTestId('message').last().getByText('(edited)').count()).toBe(1);
    expect((await messages()).at(-1)?.text).toBe(`Checked with @[${owner.id}] and @[${colleague.id}]: ship on Friday.`);

    // A cover from an image attached in the chat, removed, then uploaded.
    const png = (background: string) => sharp({ create: { width: 160, height: 80, channels: 3, background } }).png().toBuffer();
    await drawer.getByLabel('Attach files').setInputFiles({ name: 'mockup.png', mimeType: 'image/png', buffer: await png('#2563eb') });
    await drawer.getByRole('button', { name: 'Send' }).click();
    await drawer.getByRole('button', { name: 'Use mockup.png as the cover' }).click();
    await eventually(() => card(page, 'Ship it').locator('.cover img').count()).toBe(1);
    await drawer.getByRole('button', { name: 'Remove cover' }).click();
    await eventually(() => card(page, 'Ship it').locator('.cover').count()).toBe(0);
    await drawer.getByLabel('Upload a cover image').setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: await png('#16a34a') });
    // Shown from the bytes the client fetched with the session (an <img> alone would be refused).
    await eventually(() => drawer.getByTestId('cover-image').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(160);
    await eventually(() => card(page, 'Ship it').locator('.cover img').count()).toBe(1);

    // The author deletes the image's message; the colleague's browser loses it too.
    await drawer.getByTestId('message').last().getByRole('button', { name: 'Delete message' }).click();
    await drawer.getByRole('button', { name: 'Yes, delete' }).click();
    await eventually(() => watcher.getByTestId('message').count()).toBe(1);

    // The organization's labels, renamed and deleted from the same picker (deleting is for admins).
    await drawer.getByText('Edit labels').click();
    await drawer.getByRole('textbox', { name: 'Name of label Research' }).fill('User research');
    await drawer.getByRole('textbox', { name: 'Name of label Research' }).press('Enter');
    await eventually(() => card(page, 'Ship it').locator('.label').allTextContents()).toEqual(['Backend', 'User research']);
    await drawer.getByRole('button', { name: 'Delete label Urgent' }).click();
    await drawer.getByRole('button', { name: 'Yes, delete' }).click();
    await eventually(() => card(page, 'Design the board').locator('.label').allTextContents()).toEqual(['Design']);

    // For the docs: the chat with the mention list open.
    await message.pressSequentially('Thanks @');
    await eventually(() => options.count()).toBeGreaterThan(1);
    await drawer.getByRole('heading', { name: 'Time' }).evaluate((node) => node.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'task-chat.png');
    await page.context().close();
    await watcher.context().close();
  });

  it('restores an archived task to its column; deletes a column only once its tasks have somewhere to go; a reader gets none of these controls', async () => {
    const { owner, projectId, spaceId } = built;
    const page = await (await signedInContext(browser, owner.session)).newPage();
    await page.goto(`${base}/app/projects/${projectId}`);
    await card(page, 'Pricing page').getByRole('link').click();
    await page.getByTestId('task-drawer').getByRole('button', { name: 'Archive' }).click();
    await eventually(() => card(page, 'Pricing page').count()).toBe(0);

    await page.getByRole('link', { name: 'Archived tasks' }).click();
    const archive = page.getByTestId('archive-panel');
    await eventually(() => archive.locator('.archived-name').allTextContents()).toEqual(['Pricing page']);
    expect(await seriousViolations(page, '[data-testid="archive-panel"]')).toEqual([]);
    await archive.getByRole('button', { name: 'Restore Pricing page' }).click();
    await eventually(() => archive.getByText('Nothing is archived in this project.').isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await eventually(() => column(page, 'To do').getByRole('link', { name: 'Pricing page' }).count()).toBe(1);

    // A column holding a task: refused with the reason, then deleted with its task moved along.
    const later = (await t.as(owner).post(`/projects/${projectId}/stages`, { name: 'Later', order: 3, tasks: [] })).json() as { id: number };
    await t.as(owner).post('/tasks', { name: 'Someday', stageId: later.id });
    const laterColumn = column(page, 'Later');
    await eventually(() => laterColumn.getByRole('link', { name: 'Someday' }).count()).toBe(1);
    await laterColumn.getByLabel('Column Later settings').click();
    await laterColumn.getByRole('button', { name: 'Delete column Later' }).click();
    await laterColumn.getByRole('button', { name: 'Yes, delete' }).click();
    await eventually(() => page.getByTestId('toast-error').last().textContent()).toContain('Column "Later" was not deleted: it still holds tasks');
    await laterColumn.getByLabel('Move its tasks to').selectOption({ label: 'To do' });
    await laterColumn.getByRole('button', { name: 'Delete column Later' }).click();
    await laterColumn.getByRole('button', { name: 'Yes, delete' }).click();
    await eventually(() => laterColumn.count()).toBe(0);
    await eventually(() => column(page, 'To do').getByRole('link', { name: 'Someday' }).count()).toBe(1);
    const project = (await t.as(owner).get(`/projects/${projectId}`)).json() as { stages: Array<{ name: string }> };
    expect(project.stages.map((s) => s.name)).toEqual(['To do', 'Doing', 'Done']);
    await page.context().close();

    // A reader sees the archive and the drawer, without restore, label, cover or message controls.
    const tasks = (await t.as(owner).get(`/projects/${projectId}/tasks`)).json() as Array<{ id: number; name: string }>;
    const notes = tasks.find((x) => x.name === 'Release notes')!;
    await t.as(owner).patch(`/tasks/${notes.id}/archive`, { stageId: built.stages['Done'] });
    const reader = await f.spaceMember(owner, spaceId, 'reader');
    const readerPage = await (await signedInContext(browser, reader.session)).newPage();
    await readerPage.goto(`${base}/app/projects/${projectId}/archive`);
    await eventually(() => readerPage.getByTestId('archive-panel').locator('.archived-name').allTextContents()).toEqual(['Release notes']);
    expect(await readerPage.getByRole('button', { name: /^Restore/ }).count()).toBe(0);
    await readerPage.goto(`${base}/app/projects/${projectId}/tasks/${tasks.find((x) => x.name === 'Ship it')!.id}`);
    const drawer = readerPage.getByTestId('task-drawer');
    await eventually(() => drawer.locator('.message-text').count()).toBe(1);
    await eventually(() => drawer.getByTestId('cover-image').count()).toBe(1);
    const controls = /New label|Edit labels|Remove cover|Upload a cover|^Replace|Use .* as the cover|Edit message|Delete message|Mention someone/;
    expect(await drawer.getByRole('button', { name: controls }).count()).toBe(0);
    expect(await drawer.getByText(controls).count()).toBe(0);
    expect(await readerPage.getByRole('button', { name: /^Delete column/ }).count()).toBe(0);
    await readerPage.context().close();
  });
});
