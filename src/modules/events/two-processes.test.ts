import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { eventually, WsClient } from './realtime.fixtures.js';
import { freePort } from '../../test/net.js';

// A second service process (`npm start`'s entry) on the same PostgreSQL as this file's app.
const databaseUrl = process.env.DATABASE_URL;
const root = path.resolve(import.meta.dirname, '../../..');

const t = useTestApp();
const f = factories(t);


describe.runIf(Boolean(databaseUrl))('two service processes on one PostgreSQL', () => {
  let child: ChildProcess;
  let host: string;

  beforeAll(async () => {
    const port = await freePort();
    host = `127.0.0.1:${port}`;
    child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', NODE_ENV: 'production', JOBS_ENABLED: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`second process exited: ${output}`);
      expect((await fetch(`http://${host}/ready`)).status).toBe(200);
    }, 60_000);
  }, 70_000);

  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('an event written through this process reaches a WebSocket client of the other, and back', async () => {
    const { owner, stages } = await f.board(1);
    const there = await WsClient.open(host, owner.headers);
    await there.ready();
    await there.request({ type: 'subscribe', types: ['task.created', 'task.updated'] }, 'subscribed');
    const task = await f.task(owner, stages[0]!.id, { name: 'from here' });
    await eventually(() => expect(there.events.map((e) => [e.type, e.taskId])).toEqual([['task.created', task.id]]));

    // A write through the other process is in the same ordered log, right after.
    const res = await fetch(`http://${host}/tasks/${task.id}/name`, {
      method: 'PATCH',
      headers: { ...owner.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'from there' }),
    });
    expect(res.status).toBe(200);
    await eventually(() => expect(there.events.map((e) => e.type)).toEqual(['task.created', 'task.updated']));
    expect(there.events[1]!.id).toBe(there.events[0]!.id + 1);
    there.close();
  });
});
