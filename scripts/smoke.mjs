// A start-to-stop check of one way of running the service, as an operator would see it:
// it answers /health, a task is created and read back, and SIGTERM ends it with exit code 0 within
// 5 s, leaving no process of its group behind.
//
//   node scripts/smoke.mjs                      # `npm start` in this checkout
//   node scripts/smoke.mjs -- node dist/server.js
//
// Runs with a fresh DATA_DIR (unless the environment names one, or DATABASE_URL is set) and a free
// port; prints a JSON report and exits 1 if a check failed. Used by src/test/image-start.test.ts and
// to check the Node.js lines (README, "Node.js versions").
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

/** Whether any process of the group `pgid` is still running. */
function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts `command` in its own process group and runs the checks. `env` is added to this process's
 * environment; PORT and HOST are set here. Answers the report; `ok` tells whether every check passed.
 */
export async function smoke({ command = ['npm', 'start', '--silent'], cwd = root, env = {}, readyTimeoutMs = 300_000, stopWithinMs = 5_000 } = {}) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const ownDir = env.DATA_DIR || process.env.DATA_DIR ? null : mkdtempSync(path.join(tmpdir(), 'workboard-smoke-'));
  const report = { command: command.join(' '), node: null, health: null, task: null, exitCode: null, signal: null, stopMs: null, leftBehind: null, ok: false, output: '' };
  const child = spawn(command[0], command.slice(1), {
    cwd,
    env: { ...process.env, LOG_LEVEL: 'warn', PASSWORD_HASH_COST: '10', ...(ownDir ? { DATA_DIR: ownDir } : {}), ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  // The Node.js that `node` means in that environment (the one npm start runs on).
  report.node = spawnSync('node', ['-v'], { cwd, env: { ...process.env, ...env }, encoding: 'utf8' }).stdout?.trim() || null;
  child.stdout.on('data', (d) => (report.output += d));
  child.stderr.on('data', (d) => (report.output += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  try {
    const deadline = Date.now() + readyTimeoutMs;
    while (child.exitCode === null && Date.now() < deadline) {
      const res = await fetch(`${base}/health`).catch(() => null);
      if (res?.ok) {
        report.health = await res.json();
        break;
      }
      await sleep(250);
    }
    if (!report.health) throw new Error(child.exitCode === null ? 'no answer from /health in time' : `exited early (${child.exitCode})`);

    const call = async (method, url, body, session) => {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(session ? { 'service-session': session } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = await res.json();
      if (res.status !== (method === 'POST' ? 201 : 200)) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const { session } = await call('POST', '/auth/register', { email: `smoke-${Date.now()}@example.test`, password: 'a long password', name: 'Smoke' });
    const space = await call('POST', '/spaces', { name: 'Smoke' }, session);
    const project = await call('POST', '/projects', { spaceId: space.id, name: 'Smoke' }, session);
    const stage = await call('POST', `/projects/${project.id}/stages`, { name: 'To do', order: 0, tasks: [] }, session);
    const { task } = await call('POST', '/tasks', { name: 'Smoke task', stageId: stage.id, order: 0 }, session);
    const read = await call('GET', `/tasks/${task.id}`, null, session);
    report.task = { id: task.id, name: read.task?.name ?? read.name };
    if (report.task.name !== 'Smoke task') throw new Error(`the task read back is ${JSON.stringify(read)}`);
  } catch (err) {
    report.error = err.message;
  } finally {
    const signalled = Date.now();
    if (child.exitCode === null) child.kill('SIGTERM');
    const result = await Promise.race([exited, sleep(25_000).then(() => null)]);
    report.stopMs = Date.now() - signalled;
    report.exitCode = result?.code ?? null;
    report.signal = result?.signal ?? null;
    // Anything of its group still running after it exited was left behind.
    await sleep(200);
    report.leftBehind = groupAlive(child.pid);
    if (report.leftBehind || !result) process.kill(-child.pid, 'SIGKILL');
    if (ownDir) rmSync(ownDir, { recursive: true, force: true });
  }
  report.ok = !report.error && report.health?.status === 'ok' && report.exitCode === 0 && report.stopMs <= stopWithinMs && !report.leftBehind;
  if (report.ok) report.output = report.output.slice(-2000);
  return report;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dash = process.argv.indexOf('--');
  const command = dash >= 0 ? process.argv.slice(dash + 1) : undefined;
  const report = await smoke({ command });
  console.log(JSON.stringify(report, null, 2));
  process.exit(report.ok ? 0 : 1);
}
