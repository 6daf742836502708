/**
 * `npm run bench:web [-- --tasks 1000] [--runs 5]`: how long a 1,000-card board takes to become
 * interactive in headless Chromium (Debian's, through playwright-core). The service runs as its own
 * process on an in-memory database, seeded through the API as bench/seed.ts does (4 columns, each
 * task with an assignee, a label, a subtask and a message); the client is built when stale.
 *
 * Per run, from a fresh page load: "first cards" is when the first card is painted, "interactive"
 * when every column is rendered and a card's drag handle answers a keyboard lift (the main thread
 * is free). Also the cards in the DOM (virtualized columns render those in view) and how long a
 * keyboard move of a card takes until it shows in its new column.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureWebBuild } from '../scripts/build-web.mjs';
import { CHROMIUM, launch, signedInContext } from '../web/e2e/browser.js';
import { startServer } from './server.js';
import { seedBoard } from './seed.js';

const { values } = parseArgs({ options: { tasks: { type: 'string', default: '1000' }, runs: { type: 'string', default: '5' } } });
const taskCount = Number(values.tasks);
const runs = Number(values.runs);
if (!CHROMIUM) {
  console.error('bench:web needs Chromium: apt-get install -y chromium (or set CHROMIUM_PATH)');
  process.exit(1);
}

await ensureWebBuild();
const dataDir = mkdtempSync(path.join(tmpdir(), 'workboard-bench-web-'));
const server = await startServer({ DATA_DIR: dataDir, DATABASE_URL: '', JOBS_ENABLED: 'false' }, { cpuProf: null });
const browser = await launch();
try {
  const started = Date.now();
  const board = await seedBoard(server.url, taskCount);
  console.error(`seeded ${board.taskIds.length} tasks in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const page = await (await signedInContext(browser, board.session)).newPage();
  const rows: Array<{ firstCards: number; interactive: number; cardsInDom: number; move: number }> = [];
  for (let run = 0; run < runs + 1; run++) {
    const t0 = Date.now();
    await page.goto(`${server.url}/app/projects/${board.projectId}`, { waitUntil: 'commit' });
    await page.locator('article.card').first().waitFor();
    const firstCards = Date.now() - t0;
    await page.waitForFunction((n) => document.querySelectorAll('section.column').length === n, board.stageIds.length);
    const handle = page.locator('.handle').first();
    await handle.focus();
    await page.keyboard.press('Space');
    await page.locator('.card.dragging').waitFor();
    const interactive = Date.now() - t0;
    const cardsInDom = await page.locator('article.card').count();
    const name = await page.locator('section.column').first().locator('.card-link').first().textContent();
    const t1 = Date.now();
    await page.keyboard.press('ArrowRight');
    // dnd-kit announces the new drop target once it has taken the step.
    await page.waitForFunction((n) => !(document.querySelector('[id^=DndLiveRegion]')?.textContent ?? '').endsWith(`is over ${n}.`), name);
    await page.keyboard.press('Space');
    await page.locator('section.column').nth(1).getByRole('link', { name: name!, exact: true }).first().waitFor();
    const move = Date.now() - t1;
    // The first load warms the server's caches and Chromium's; it is not counted.
    if (run > 0) rows.push({ firstCards, interactive, cardsInDom, move });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`| ${taskCount}-card board, ${runs} loads | median | min | max |`);
  console.log('|---|---|---|---|');
  for (const key of ['firstCards', 'interactive', 'move'] as const) {
    const xs = rows.map((r) => r[key]);
    console.log(`| ${key === 'firstCards' ? 'first cards painted' : key === 'interactive' ? 'interactive (keyboard lift answered)' : 'keyboard move shown'} | ${median(xs)} ms | ${Math.min(...xs)} ms | ${Math.max(...xs)} ms |`);
  }
  console.log(`| cards in the DOM (of ${taskCount}) | ${median(rows.map((r) => r.cardsInDom))} | | |`);
} finally {
  await browser.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
