import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { useTestApp, type TestUser } from '../../src/test/app.js';
import { factories } from '../../src/test/factories.js';
import { AI_TEST_CONFIG, fakeOpenAi, type FakeProvider } from '../../src/modules/ai/ai.fixtures.js';
import { defaultRange, rangeQuery } from '../src/analytics/range.js';
import { runJob } from '../../src/platform/jobs.js';
import { INDEXING_JOB } from '../../src/modules/ai/index/indexing.worker.js';
import { addWith, CHROMIUM, eventually, launch, screenshot, seriousViolations, serve, signedInContext } from './browser.js';

/**
 * Screens 5 and 6 in Chromium: documentation (versions, public link), a reglament's test, a
 * project report with its drill-down and CSV, and the assistant, first without a model, then
 * against a fake OpenAI-compatible server on 127.0.0.1. One organization serves every test.
 */

// Jobs off (as in every test app): the test runs the indexing job the button queued, when it wants.
const t = useTestApp(AI_TEST_CONFIG);
const f = factories(t);
let base = '';
let browser: Browser;
let model: FakeProvider;

interface World {
  owner: TestUser;
  editor: TestUser;
  member: TestUser;
  spaceId: number;
  memberName: string;
  pageId?: number;
}
let w: World;

beforeAll(async () => {
  if (!CHROMIUM) return;
  [base, browser, model] = await Promise.all([serve(t.app), launch(), fakeOpenAi()]);
  const owner = await t.org({ name: 'Grace Hopper' });
  const space = (await t.as(owner).post('/spaces', { name: 'Handbook' })).json() as { id: number };
  const [editor, member] = [await f.spaceMember(owner, space.id, 'editor'), await f.spaceMember(owner, space.id, 'member')];
  w = { owner, editor, member, spaceId: space.id, memberName: member.name };
});
afterAll(async () => {
  await browser?.close();
  await model?.close();
});

// One browser context per user for the whole file: its cache keeps the client's assets between pages.
const contexts = new Map<TestUser, Promise<BrowserContext>>();
async function open(user: TestUser, path: string): Promise<Page> {
  if (!contexts.has(user)) contexts.set(user, signedInContext(browser, user.session));
  const page = await (await contexts.get(user)!).newPage();
  await page.goto(`${base}/app${path}`);
  return page;
}

/** Serious or critical axe findings in the screen itself (the shell around it is the board test's). */
const screenViolations = (page: Page) => seriousViolations(page, '#main');

async function writeContent(page: Page, text: string) {
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await page.getByRole('textbox', { name: 'Page content (Markdown)' }).fill(text);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
}

describe.skipIf(!CHROMIUM)('documentation, reglaments, reports and the assistant in Chromium', () => {
  it('creates and edits a page, lists two versions, and publishes it to a signed-out reader', async () => {
    const page = await open(w.owner, `/spaces/${w.spaceId}/docs`);
    await addWith(page, 'New section', 'Guides');
    await addWith(page, 'New page in Guides', 'Deploys');
    await page.waitForURL(/\/docs\/\d+$/);
    w.pageId = Number(page.url().split('/').pop());
    await writeContent(page, '# Deploy window\n\nWe deploy to production on **Fridays** after the review.\n\n<img src=x onerror="window.pwned=1">');
    const content = page.getByTestId('page-content');
    await eventually(() => content.locator('strong').textContent()).toBe('Fridays');
    expect(await content.innerHTML()).not.toContain('onerror');

    // A second author: one author's writes within five minutes are one version in the API.
    const other = await open(w.editor, `/spaces/${w.spaceId}/docs/${w.pageId}`);
    await eventually(() => other.getByTestId('page-content').locator('strong').textContent()).toBe('Fridays');
    await writeContent(other, '# Deploy window\n\nWe deploy to production on **Fridays** after the review, never on holidays.');
    await eventually(() => other.getByTestId('page-versions').locator('li').count()).toBe(2);
    const versions = await other.getByTestId('page-versions').locator('li').allTextContents();
    expect(versions[0]).toMatch(new RegExp(`^Version 3current · ${w.editor.name}`));
    expect(versions[1]).toMatch(/^Version 2 · Grace Hopper/);
    await other.close();

    // The author's open page follows the other author's save live.
    await eventually(() => page.getByTestId('page-content').textContent()).toContain('never on holidays');
    await screenshot(page, 'docs-page.png');
    await page.getByRole('checkbox', { name: 'Anyone with the link can read this page' }).check();
    const link = page.getByTestId('public-link');
    await eventually(() => link.isVisible()).toBe(true);
    const address = (await link.getAttribute('href'))!;
    expect(address).toMatch(new RegExp(`^${base}/app/public/[A-Za-z0-9_-]{16,64}$`));
    expect(await screenViolations(page)).toEqual([]);

    const stranger = await (await browser.newContext()).newPage();
    await stranger.goto(address);
    await eventually(() => stranger.getByRole('heading', { name: 'Deploys' }).isVisible()).toBe(true);
    expect(await stranger.getByTestId('public-content').locator('strong').textContent()).toBe('Fridays');
    expect(await stranger.evaluate(() => [localStorage.getItem('workboard.session'), (window as { pwned?: number }).pwned])).toEqual([null, undefined]);
    expect(await screenViolations(stranger)).toEqual([]);

    await page.getByRole('checkbox', { name: 'Anyone with the link can read this page' }).uncheck();
    await eventually(() => link.count()).toBe(0);
    await stranger.reload();
    await eventually(() => stranger.getByTestId('public-missing').isVisible()).toBe(true);
    await stranger.context().close();
    await page.close();
  });

  it('a member takes a reglament’s test, and an admin sees them among those who passed', async () => {
    const as = t.as(w.owner);
    const group = (await as.post(`/spaces/${w.spaceId}/reglament-groups`, { name: 'Onboarding' })).json() as { id: number };
    const reglament = (await as.post('/reglaments', { name: 'Security basics', reglamentColumnId: group.id, content: 'Lock your screen. Badges are **worn visibly**.', order: 0, draft: false })).json() as { id: number };
    const question = async (name: string, answers: Array<[string, boolean]>) => {
      const q = (await as.post(`/reglaments/${reglament.id}/questions`, { name })).json() as { id: number };
      for (const [answer, isRight] of answers) await as.post(`/reglaments/${reglament.id}/questions/${q.id}/answers`, { name: answer, isRight });
    };
    await question('When do you lock your screen?', [['Whenever I leave it', true], ['At the end of the day', false]]);
    await question('How are badges worn?', [['Visibly', true], ['In a pocket', false]]);

    const page = await open(w.member, `/spaces/${w.spaceId}/reglaments/${reglament.id}`);
    await eventually(() => page.getByTestId('reglament-content').locator('strong').textContent()).toBe('worn visibly');
    expect(await page.getByRole('button', { name: 'Clear passes' }).count()).toBe(0);
    await page.getByRole('checkbox', { name: 'Whenever I leave it' }).check();
    await page.getByRole('checkbox', { name: 'In a pocket' }).check();
    await page.getByRole('button', { name: 'Submit answers' }).click();
    await eventually(() => page.getByTestId('quiz-result').textContent()).toMatch(/^Not passed: 1 of 2/);
    expect(await page.getByRole('group', { name: /How are badges worn\?.*answered wrong/ }).count()).toBe(1);
    await page.getByRole('checkbox', { name: 'In a pocket' }).uncheck();
    await page.getByRole('checkbox', { name: 'Visibly' }).check();
    await page.getByRole('button', { name: 'Submit answers' }).click();
    await eventually(() => page.getByTestId('quiz-result').textContent()).toBe('Passed: 2 of 2 answered right.');
    await eventually(() => page.getByTestId('passed-users').textContent()).toContain(w.memberName);
    expect(await screenViolations(page)).toEqual([]);
    await page.close();

    const admin = await open(w.owner, `/spaces/${w.spaceId}/reglaments/${reglament.id}`);
    await eventually(() => admin.getByTestId('passed-users').textContent()).toContain(w.memberName);
    expect(await admin.getByRole('button', { name: 'Clear passes' }).count()).toBe(1);
    await admin.close();
  });

  it('charts a project report with the API’s numbers, lists the tasks behind one, and downloads its CSV', async () => {
    const as = t.as(w.owner);
    const project = (await as.post('/projects', { spaceId: w.spaceId, name: 'Launch' })).json() as { id: number };
    const stages: Record<string, number> = {};
    for (const [i, name] of ['To do', 'Doing', 'Done'].entries()) stages[name] = (await f.stage(w.owner, project.id, name, i)).id;
    const placed: Array<[string, string]> = [['Write copy', 'To do'], ['Pick a date', 'To do'], ['Book a room', 'To do'], ['Design the poster', 'Doing'], ['Print flyers', 'Doing'], ['Choose a name', 'Done']];
    for (const [name, stage] of placed) await as.post('/tasks', { name, stageId: stages[stage] });

    const page = await open(w.owner, `/analytics/projects/${project.id}`);
    const bars = page.getByTestId('bar-list');
    await eventually(() => bars.locator('li').count()).toBe(3);
    const range = rangeQuery(defaultRange(new Date().toISOString().slice(0, 10)));
    const report = (await as.get(`/analytics/projects/${project.id}/report?dateFrom=${range.dateFrom}&dateTo=${range.dateTo}`)).json() as { stages: Array<{ stageId: number; count: number }> };
    const shown = await bars.locator('li').evaluateAll((rows) => rows.map((r) => [r.querySelector('.bar-label')!.textContent, Number(r.querySelector('.bar-value')!.textContent)]));
    const names = Object.fromEntries(Object.entries(stages).map(([name, id]) => [id, name]));
    expect(shown).toEqual(report.stages.map((s) => [names[s.stageId], s.count]));
    expect(shown).toEqual([['To do', 3], ['Doing', 2], ['Done', 1]]);
    await eventually(() => page.getByRole('button', { name: 'Tasks now: 6, list the tasks' }).isVisible()).toBe(true);

    await page.getByRole('button', { name: '2 tasks in Doing: list them' }).click();
    const drill = page.getByTestId('drill-down');
    await eventually(() => drill.getByRole('link').allTextContents()).toEqual(['Design the poster', 'Print flyers']);
    expect(await screenViolations(page)).toEqual([]);
    await screenshot(page, 'project-report.png');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Report as CSV' }).click()]);
    expect(download.suggestedFilename()).toBe(`project-${project.id}-report.csv`);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv).toBe((await as.get(`/analytics/projects/${project.id}/report?dateFrom=${range.dateFrom}&dateTo=${range.dateTo}&format=csv`)).body);
    expect(csv).toContain(`${stages['Doing']},2`);
    await page.close();
  });

  it('the assistant says it is off, answers from the documents without a model, then through a configured one', async () => {
    const page = await open(w.owner, `/spaces/${w.spaceId}/assistant`);
    await eventually(() => page.getByTestId('assistant-off').textContent()).toContain('switched off');
    await page.getByRole('checkbox', { name: 'The assistant is on for this organization' }).check();
    await eventually(() => page.getByTestId('assistant-no-model').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Index this space' }).click();
    await eventually(() => page.getByTestId('indexing-status').isVisible()).toBe(true);
    await runJob(t.app, INDEXING_JOB);
    await eventually(() => page.getByTestId('indexing-status').textContent()).toMatch(/^Indexed/);

    const question = page.getByRole('textbox', { name: 'Ask about the documents of this space' });
    await question.fill('When do we deploy to production?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const turn = page.getByTestId('assistant-turn').last();
    await eventually(() => turn.getByTestId('assistant-model').textContent()).toContain('No language model is configured');
    expect(await turn.getByTestId('assistant-answer').textContent()).toContain('We deploy to production on Fridays');
    expect(await turn.getByTestId('assistant-sources').getByRole('link').allTextContents()).toEqual(['Deploys']);
    expect(await screenViolations(page)).toEqual([]);

    await page.getByText('Configure a model').click();
    await page.getByRole('textbox', { name: 'Base URL' }).fill(`${model.url}/v1`);
    await page.getByLabel('API key').fill('sk-test-browser-1234');
    await page.getByRole('textbox', { name: 'Model' }).fill('gpt-test');
    await page.getByRole('button', { name: 'Save model' }).click();
    await eventually(() => page.getByTestId('assistant-model-settings').textContent()).toContain('gpt-test via openai-compatible');
    model.answer = 'We deploy on Fridays, after the review [1].';
    await question.fill('Which day is the deploy?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const second = page.getByTestId('assistant-turn').last();
    await eventually(() => second.getByTestId('assistant-model').textContent()).toBe('Answered by gpt-test');
    expect((await second.getByTestId('assistant-answer').textContent())?.trim()).toBe('We deploy on Fridays, after the review [1].');
    await second.getByTestId('assistant-sources').getByRole('link', { name: 'Deploys' }).click();
    await page.waitForURL(`**/app/spaces/${w.spaceId}/docs/${w.pageId}`);
    await page.close();
  });
});
