import type { ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../app.js';
import { useTestApp, type TestUser } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { freePort } from '../../test/net.js';
import { exited, startServerProcess } from '../../test/server-process.js';
import { eventually } from '../events/realtime.fixtures.js';
import { FakeTelegram } from '../../test/fakes/telegram.js';

// The bot against a fake Bot API on 127.0.0.1. The test app (jobs off) serves the routes and
// queues messages in its writes; `service()` is another app on the same database with its jobs on
// (the poller and the sender), which a test closes and builds again as a restart.
const fake = new FakeTelegram();
beforeAll(() => fake.start());
afterAll(() => fake.stop());
const settings = {
  telegramBotToken: fake.token,
  get telegramApiUrl() {
    return fake.url;
  },
  outboundAllowedHosts: ['127.0.0.1'],
  telegramPollTimeoutSec: 1,
  messengerPollMs: 50,
  messengerBotSecret: 'bot-secret',
};
const t = useTestApp(settings);
const f = factories(t);
const serviceLogs: string[] = [];
let running: FastifyInstance | null = null;

async function service(): Promise<FastifyInstance> {
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => serviceLogs.push(chunk.toString('utf8')));
  running = await buildApp({ ...t.config, ...settings, jobsEnabled: true }, { database: t.database, logStream });
  return running;
}
async function stopService(): Promise<void> {
  await running?.close();
  running = null;
}
beforeAll(service);
afterAll(stopService);

let nextChat = 5000;
/** A user connected to a fresh private chat, through /start <code>. */
async function connect(user: TestUser, username = 'alice'): Promise<number> {
  const chat = nextChat++;
  const created = await t.as(user).post('/integrations/messenger', {});
  expect(created.statusCode).toBe(201);
  const { code, deepLink, status } = created.json();
  expect(status).toBe('pending');
  expect(deepLink).toBe(`https://t.me/${fake.username}?start=${code}`);
  fake.say({ id: chat }, { id: chat, username }, `/start ${code}`);
  await eventually(async () => expect((await t.as(user).get('/integrations/messenger')).json()).toMatchObject({ status: 'active', chatId: chat, username }));
  await eventually(() => expect(fake.messagesTo(chat).map((m) => m.text)).toEqual([expect.stringContaining('Connected')]));
  return chat;
}

async function assignedBoard() {
  const { owner, space, project, stages } = await f.board(2);
  const editor = await f.spaceMember(owner, space.id, 'editor');
  return { owner, space, project, stages, editor };
}

describe('the messenger bot', () => {
  it('connects a private chat by /start <code>, once; a wrong or used code binds nothing', async () => {
    const { owner } = await assignedBoard();
    const chat = nextChat++;
    fake.say({ id: chat }, { id: chat }, '/start not-a-code');
    await eventually(() => expect(fake.messagesTo(chat).map((m) => m.text)).toEqual([expect.stringContaining('unknown, used or expired')]));
    // Text PostgreSQL cannot store (NUL) is answered like any wrong code.
    fake.say({ id: chat }, { id: chat }, '/start a\u0000b');
    await eventually(() => expect(fake.messagesTo(chat)).toHaveLength(2));
    expect(fake.messagesTo(chat)[1]!.text).toContain('unknown, used or expired');
    fake.sent.splice(0, fake.sent.length, ...fake.sent.filter((m) => m.chatId !== chat));
    const created = (await t.as(owner).post('/integrations/messenger', { notify: true })).json();
    fake.say({ id: chat }, { id: chat, username: 'bob' }, `/start ${created.code}`);
    await eventually(async () => expect((await t.as(owner).get('/integrations/messenger')).json()).toEqual({
      status: 'active', messengerUserId: chat, username: 'bob', chatId: chat, notify: true, code: null, deepLink: null, codeExpiresAt: null,
    }));
    // The same code again, from another chat: refused, the first binding stays.
    const other = nextChat++;
    fake.say({ id: other }, { id: other }, `/start ${created.code}`);
    await eventually(() => expect(fake.messagesTo(other).map((m) => m.text)).toEqual([expect.stringContaining('unknown, used or expired')]));
    expect((await t.as(owner).get('/integrations/messenger')).json()).toMatchObject({ chatId: chat });
    expect(fake.commands).toEqual(expect.arrayContaining([expect.objectContaining({ command: 'start' })]));
    // The token is in every URL the client calls, and in no log line.
    expect(serviceLogs.join('\n')).not.toContain(fake.token);
  });

  it('sends a notification (an assignment by another user) to the chat, and a reply comes back as a task chat message', async () => {
    const { owner, project, stages, editor } = await assignedBoard();
    const chat = await connect(owner);
    const task = await f.task(editor, stages[0]!.id, { name: 'Ship the release' });
    expect((await t.as(editor).post(`/tasks/${task.id}/assignees`, { userId: owner.id })).statusCode).toBe(201);
    const note = await eventually(() => {
      const found = fake.messagesTo(chat).find((m) => m.text.includes('Ship the release'));
      expect(found).toBeDefined();
      return found!;
    });
    expect(note.text).toContain(`<b>${String(project.name)}</b>`);
    expect(note.text).toContain(`${t.config.publicUrl}/tasks/${task.id}`);
    expect(note.text).toContain(`— ${editor.name}`);

    // The sender stores Telegram's message id just after the fake has the message; a reply handled
    // before that would not find its task (a person cannot reply that fast, a test can).
    await eventually(async () => {
      const [row] = await t.sql<{ n: number }>(sql`select count(*)::int as n from messenger_outbox where chat_id = ${chat} and sent_message_id = ${note.messageId}`);
      expect(row!.n).toBe(1);
    });
    fake.say({ id: chat }, { id: chat, username: 'alice' }, 'On it <today>', note.messageId);
    await eventually(async () => {
      const messages = (await t.as(owner).get(`/tasks/${task.id}/messages`)).json() as Array<{ text: string; authorId: number }>;
      expect(messages).toEqual([expect.objectContaining({ text: 'On it <today>', authorId: owner.id })]);
    });
    await eventually(() => expect(fake.messagesTo(chat).at(-1)!.text).toContain('Added to the task'));

    // A reply to something that is not a task notification: a hint, nothing posted.
    fake.say({ id: chat }, { id: chat }, 'hello?', fake.messagesTo(chat)[0]!.messageId);
    await eventually(() => expect(fake.messagesTo(chat).at(-1)!.text).toContain('Reply to a task notification'));
  });

  it('waits out a 429 retry_after without losing or repeating the message; a blocked bot makes the integration inactive', async () => {
    const { owner, stages, editor } = await assignedBoard();
    const chat = await connect(owner);
    fake.fail(chat, { status: 429, description: 'Too Many Requests: retry after 1', retryAfter: 1 });
    const before = fake.attempts;
    const task = await f.task(editor, stages[0]!.id, { name: 'Rate limited' });
    await t.as(editor).post(`/tasks/${task.id}/assignees`, { userId: owner.id });
    await eventually(() => expect(fake.messagesTo(chat).filter((m) => m.text.includes('Rate limited'))).toHaveLength(1));
    expect(fake.attempts - before).toBeGreaterThanOrEqual(2);
    // The sender marks the row once Telegram's answer is back, just after the fake has the message.
    await eventually(async () => {
      const [row] = await t.sql<{ status: string; attempts: number }>(sql`select status, attempts from messenger_outbox where chat_id = ${chat} and text like '%Rate limited%'`);
      expect(row).toEqual({ status: 'sent', attempts: 1 });
    });

    fake.fail(chat, { status: 403, description: 'Forbidden: bot was blocked by the user' });
    const blocked = await f.task(editor, stages[0]!.id, { name: 'Blocked' });
    await t.as(editor).post(`/tasks/${blocked.id}/assignees`, { userId: owner.id });
    await eventually(async () => expect((await t.as(owner).get('/integrations/messenger')).json()).toMatchObject({ status: 'inactive' }));
    expect(serviceLogs.join('\n')).toContain('may no longer write to this chat');
    // Inactive: later notifications are not queued for that chat.
    const later = await f.task(editor, stages[0]!.id, { name: 'Later' });
    await t.as(editor).post(`/tasks/${later.id}/assignees`, { userId: owner.id });
    const queued = await t.sql<{ n: number }>(sql`select count(*)::int as n from messenger_outbox where chat_id = ${chat} and text like '%Later%'`);
    expect(queued[0]!.n).toBe(0);
  });

  it('neither loses nor repeats a notification across a restart of the service', async () => {
    const { owner, stages, editor } = await assignedBoard();
    const chat = await connect(owner);
    fake.setDown(true);
    const task = await f.task(editor, stages[0]!.id, { name: 'Across a restart' });
    await t.as(editor).post(`/tasks/${task.id}/assignees`, { userId: owner.id });
    await eventually(async () => {
      const [row] = await t.sql<{ attempts: number }>(sql`select attempts from messenger_outbox where chat_id = ${chat} and text like '%Across a restart%'`);
      expect(row!.attempts).toBeGreaterThanOrEqual(1);
    });
    await stopService();
    fake.setDown(false);
    // Let the failed attempt's backoff pass, then restart.
    await t.sql(sql`update messenger_outbox set next_attempt_at = now() where chat_id = ${chat} and status = 'pending'`);
    await service();
    await eventually(() => expect(fake.messagesTo(chat).filter((m) => m.text.includes('Across a restart'))).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 500));
    expect(fake.messagesTo(chat).filter((m) => m.text.includes('Across a restart'))).toHaveLength(1);
    // Updates sent while the service was down are handled once it is back.
    await stopService();
    fake.say({ id: chat }, { id: chat }, '/help');
    await service();
    await eventually(() => expect(fake.messagesTo(chat).at(-1)!.text).toContain('I send you your notifications'));
  });

  it('binds a project group with /start@bot <code> and posts the chosen events there, in order; PATCH and DELETE change that', async () => {
    const { owner, project, stages, editor } = await assignedBoard();
    const created = await t.as(editor).post(`/projects/${project.id}/messenger-integration`, { events: ['task.created', 'task.moved'] });
    expect(created.statusCode).toBe(201);
    const { code, deepLink } = created.json();
    expect(deepLink).toBe(`https://t.me/${fake.username}?startgroup=${code}`);
    const group = -(nextChat++);
    // A personal-only place: a private chat cannot take a project's code.
    const lone = nextChat++;
    fake.say({ id: lone }, { id: lone }, `/start ${code}`);
    await eventually(() => expect(fake.messagesTo(lone)).toHaveLength(1));
    fake.say({ id: group, type: 'supergroup', title: 'Release crew' }, { id: 77 }, `/start@${fake.username} ${code}`);
    await eventually(async () =>
      expect((await t.as(owner).get(`/projects/${project.id}/messenger-integration`)).json()).toMatchObject({
        projectId: project.id, status: 'active', chatId: group, chatTitle: 'Release crew', events: ['task.created', 'task.moved'], enabled: true, code: null, creatorId: editor.id,
      }),
    );
    const one = await f.task(editor, stages[0]!.id, { name: 'First' });
    await f.task(editor, stages[0]!.id, { name: 'Second' });
    await t.as(editor).post('/tasks/move', { taskIds: [one.id], stageId: stages[1]!.id, order: 0 });
    await t.as(editor).post(`/tasks/${one.id}/messages`, { text: 'not chosen' });
    await eventually(() => expect(fake.messagesTo(group)).toHaveLength(4));
    const texts = fake.messagesTo(group).map((m) => m.text);
    expect(texts[0]).toContain('Connected');
    expect(texts[1]).toContain('First');
    expect(texts[2]).toContain('Second');
    expect(texts[3]).toContain('First');
    expect(texts.join()).not.toContain('not chosen');

    expect((await t.as(editor).patch(`/projects/${project.id}/messenger-integration`, { enabled: false })).json()).toMatchObject({ enabled: false });
    await f.task(editor, stages[0]!.id, { name: 'Quiet' });
    expect((await t.as(editor).patch(`/projects/${project.id}/messenger-integration`, { enabled: true, events: ['message.created'] })).json()).toMatchObject({ enabled: true, events: ['message.created'] });
    await t.as(editor).post(`/tasks/${one.id}/messages`, { text: 'now chosen' });
    await eventually(() => expect(fake.messagesTo(group).at(-1)!.text).toContain('now chosen'));
    expect(fake.messagesTo(group).map((m) => m.text).join()).not.toContain('Quiet');
    expect((await t.as(editor).delete(`/projects/${project.id}/messenger-integration`)).statusCode).toBe(204);
    expect((await t.as(owner).get(`/projects/${project.id}/messenger-integration`)).statusCode).toBe(404);
  });

  it('disconnects by /stop in the chat', async () => {
    const { owner } = await assignedBoard();
    const chat = await connect(owner);
    fake.say({ id: chat }, { id: chat }, '/stop');
    await eventually(async () => expect((await t.as(owner).get('/integrations/messenger')).statusCode).toBe(404));
    await eventually(() => expect(fake.messagesTo(chat).at(-1)!.text).toContain('Disconnected'));
  });
});

// Two service processes on one PostgreSQL: one polls, the other waits; every update is handled once.
const databaseUrl = process.env.DATABASE_URL;
const children: ChildProcess[] = [];
afterAll(async () => {
  await Promise.all(children.splice(0).map((c) => (c.kill('SIGTERM'), exited(c))));
}, 30_000);

describe.runIf(Boolean(databaseUrl))('the bot across two service processes', () => {
  it('polls with one process only and handles each update once', async () => {
    await stopService();
    const env = {
      DATABASE_URL: databaseUrl,
      JOBS_ENABLED: 'true',
      TELEGRAM_BOT_TOKEN: fake.token,
      TELEGRAM_API_URL: fake.url,
      TELEGRAM_POLL_TIMEOUT_S: '1',
      OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
      MESSENGER_POLL_MS: '50',
    };
    await Promise.all([startServerProcess(await freePort(), env, children), startServerProcess(await freePort(), env, children)]);
    const conflicts = fake.conflicts;
    const chats = Array.from({ length: 10 }, () => nextChat++);
    for (const chat of chats) fake.say({ id: chat }, { id: chat }, '/help');
    await eventually(() => {
      for (const chat of chats) expect(fake.messagesTo(chat)).toHaveLength(1);
    }, 30_000);
    await new Promise((r) => setTimeout(r, 3000));
    for (const chat of chats) expect(fake.messagesTo(chat)).toHaveLength(1);
    expect(fake.conflicts).toBe(conflicts);
  }, 90_000);
});
