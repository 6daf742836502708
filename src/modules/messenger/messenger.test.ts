import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { buildApp } from '../../app.js';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { factories } from '../../test/factories.js';
import { FakeTelegram } from '../../test/fakes/telegram.js';

// The routes, with the bot configured (a fake Bot API answers getMe) but no poller running.
const fake = new FakeTelegram();
beforeAll(() => fake.start());
afterAll(() => fake.stop());
const t = useTestApp({
  telegramBotToken: fake.token,
  get telegramApiUrl() {
    return fake.url;
  },
  outboundAllowedHosts: ['127.0.0.1'],
  messengerBotSecret: 'bot-secret',
});
const f = factories(t);
const SECRET = { 'x-bot-secret': 'bot-secret' };

async function world() {
  const { owner, space, project } = await f.board(1);
  const editor = await f.spaceMember(owner, space.id, 'editor');
  const reader = await f.spaceMember(owner, space.id, 'reader');
  return { owner, space, project, editor, reader };
}

describe('personal messenger integration', () => {
  it('creates a pending code, answers it, redeems it by bot-login once, and deletes it', async () => {
    const { owner } = await world();
    const me = t.as(owner);
    expectProblem(await me.get('/integrations/messenger'), 404, 'NOT_FOUND');
    const created = await me.post('/integrations/messenger', { notify: false });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toEqual({
      status: 'pending', messengerUserId: null, username: null, chatId: null, notify: false,
      code: expect.stringMatching(/^[\w-]{16}$/), deepLink: `https://t.me/${fake.username}?start=${body.code}`, codeExpiresAt: expect.any(String),
    });
    const minutes = (new Date(body.codeExpiresAt).getTime() - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(9);
    expect(minutes).toBeLessThanOrEqual(10);
    expect((await me.get('/integrations/messenger')).json()).toEqual(body);
    // A second create replaces a pending code.
    const again = (await me.post('/integrations/messenger', {})).json();
    expect(again.code).not.toBe(body.code);
    expect(again.notify).toBe(true);

    const login = { code: again.code, chatId: 9_007_199_254, messengerUserId: 9_007_199_254, username: 'carol' };
    const bound = await t.as(null).request('POST', '/integrations/messenger/bot-login', login, SECRET);
    expect(bound.statusCode).toBe(200);
    expect(bound.json()).toEqual({ status: 'active', messengerUserId: 9_007_199_254, username: 'carol', chatId: 9_007_199_254, notify: true, code: null, deepLink: null, codeExpiresAt: null });
    expectProblem(await t.as(null).request('POST', '/integrations/messenger/bot-login', login, SECRET), 404, 'NOT_FOUND');
    expectProblem(await t.as(null).request('POST', '/integrations/messenger/bot-login', { ...login, code: body.code }, SECRET), 404, 'NOT_FOUND');
    // The User and Member forms say so, without the chat.
    expect((await me.get('/user')).json()).toMatchObject({ messengerConnected: true });
    const members = (await me.get('/user/organization')).json().members as Array<Record<string, unknown>>;
    expect(members.find((m) => m.userId === owner.id)).toMatchObject({ messengerConnected: true });
    expect(JSON.stringify(members)).not.toContain('9007199254');
    // Connected: a new code only after deleting.
    expectProblem(await me.post('/integrations/messenger', {}), 409, 'CONFLICT');
    const [event] = await t.sql<{ type: string; userId: number }>(
      sql`select type, user_id::int as "userId" from events where organization_id = ${owner.organizationId} and type like 'integration.%' order by id`,
    );
    expect(event).toEqual({ type: 'integration.connected', userId: owner.id });

    expect((await me.delete('/integrations/messenger')).statusCode).toBe(204);
    expectProblem(await me.get('/integrations/messenger'), 404, 'NOT_FOUND');
    expectProblem(await me.delete('/integrations/messenger'), 404, 'NOT_FOUND');
    expect((await me.get('/user')).json()).toMatchObject({ messengerConnected: false });
    const types = await t.sql<{ type: string }>(sql`select type from events where organization_id = ${owner.organizationId} and type like 'integration.%' order by id`);
    expect(types.map((e) => e.type)).toEqual(['integration.connected', 'integration.disconnected']);
  });

  it('refuses an expired code', async () => {
    const { owner } = await world();
    const { code } = (await t.as(owner).post('/integrations/messenger', {})).json();
    await t.sql(sql`update messenger_integrations set code_expires_at = now() - interval '1 second' where user_id = ${owner.id}`);
    expectProblem(await t.as(null).request('POST', '/integrations/messenger/bot-login', { code, chatId: 1, messengerUserId: 1, username: null }, SECRET), 404, 'NOT_FOUND');
    expect((await t.as(owner).get('/integrations/messenger')).json()).toMatchObject({ status: 'pending', code: null, deepLink: null });
  });

  it('bot-login answers 401 to a missing or wrong secret, changing nothing', async () => {
    const { owner } = await world();
    const { code } = (await t.as(owner).post('/integrations/messenger', {})).json();
    const login = { code, chatId: 5, messengerUserId: 5, username: 'x' };
    expectProblem(await t.as(null).post('/integrations/messenger/bot-login', login), 401, 'UNAUTHENTICATED');
    expectProblem(await t.as(null).request('POST', '/integrations/messenger/bot-login', login, { 'x-bot-secret': 'bot-secreT' }), 401, 'UNAUTHENTICATED');
    expectProblem(await t.as(null).request('POST', '/integrations/messenger/bot-login', { ...login, chatId: 'five' }, SECRET), 400, 'VALIDATION_FAILED');
    expect((await t.as(owner).get('/integrations/messenger')).json()).toMatchObject({ status: 'pending', code });
  });

  it('answers 409 MESSENGER_NOT_CONFIGURED on every route without a bot token', async () => {
    const off = await buildApp({ ...t.config, telegramBotToken: null, messengerBotSecret: null, logLevel: 'silent' }, { database: t.database });
    try {
      const { owner, project } = await world();
      const headers = owner.headers;
      for (const [method, url, body] of [
        ['GET', '/integrations/messenger'],
        ['POST', '/integrations/messenger', {}],
        ['DELETE', '/integrations/messenger'],
        ['GET', `/projects/${project.id}/messenger-integration`],
        ['POST', `/projects/${project.id}/messenger-integration`, { events: ['task.created'] }],
        ['PATCH', `/projects/${project.id}/messenger-integration`, { enabled: false }],
        ['DELETE', `/projects/${project.id}/messenger-integration`],
        ['POST', '/integrations/messenger/bot-login', { code: 'x', chatId: 1, messengerUserId: 1, username: null }],
      ] as const) {
        const res = await off.inject({ method, url, headers, ...(body ? { payload: body } : {}) });
        expectProblem(res, 409, 'MESSENGER_NOT_CONFIGURED');
      }
    } finally {
      await off.close();
    }
  });
});

describe('project messenger integration', () => {
  it('creates, reads, binds by bot-login, changes and deletes a project chat', async () => {
    const { owner, project, editor, reader } = await world();
    const path = `/projects/${project.id}/messenger-integration`;
    expectProblem(await t.as(reader).get(path), 404, 'NOT_FOUND');
    const created = await t.as(editor).post(path, { events: ['task.created', 'message.created'] });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toEqual({
      projectId: project.id, status: 'pending', chatId: null, chatTitle: null, events: ['task.created', 'message.created'], enabled: true,
      code: expect.any(String), deepLink: `https://t.me/${fake.username}?startgroup=${body.code}`, codeExpiresAt: expect.any(String), creatorId: editor.id,
    });
    expect((await t.as(reader).get(path)).json()).toEqual(body);
    const bound = await t.as(null).request('POST', '/integrations/messenger/bot-login', { code: body.code, chatId: -100123, messengerUserId: 7, username: null, chatTitle: 'Crew' }, SECRET);
    expect(bound.json()).toMatchObject({ projectId: project.id, status: 'active', chatId: -100123, chatTitle: 'Crew', code: null, deepLink: null });
    expectProblem(await t.as(editor).post(path, { events: ['task.created'] }), 409, 'CONFLICT');
    const changed = await t.as(editor).patch(path, { events: ['task.moved'], enabled: false });
    expect(changed.json()).toMatchObject({ events: ['task.moved'], enabled: false, status: 'active' });
    expect((await t.as(editor).delete(path)).statusCode).toBe(204);
    expectProblem(await t.as(editor).patch(path, { enabled: true }), 404, 'NOT_FOUND');
    const types = await t.sql<{ type: string; projectId: number }>(
      sql`select type, project_id::int as "projectId" from events where organization_id = ${owner.organizationId} and type like 'integration.%' order by id`,
    );
    expect(types).toEqual([{ type: 'integration.connected', projectId: project.id }, { type: 'integration.disconnected', projectId: project.id }]);
  });

  it('refuses events the bot cannot describe and an empty change with 400', async () => {
    const { project, editor } = await world();
    const path = `/projects/${project.id}/messenger-integration`;
    expectProblem(await t.as(editor).post(path, { events: ['label.created'] }), 400, 'VALIDATION_FAILED');
    expectProblem(await t.as(editor).post(path, { events: [] }), 400, 'VALIDATION_FAILED');
    await t.as(editor).post(path, { events: ['task.created'] });
    expectProblem(await t.as(editor).patch(path, {}), 400, 'VALIDATION_FAILED');
  });
});

const projectWorld = async (withChat: boolean) => {
  const w = await world();
  if (withChat) await t.as(w.owner).post(`/projects/${w.project.id}/messenger-integration`, { events: ['task.created'] });
  return w;
};

commonCases(t, 'GET /integrations/messenger', {
  method: 'GET',
  setup: async () => {
    const { owner } = await world();
    await t.as(owner).post('/integrations/messenger', {});
    return { url: '/integrations/messenger', owner };
  },
});
commonCases(t, 'POST /integrations/messenger', {
  method: 'POST',
  setup: async () => ({ url: '/integrations/messenger', owner: (await world()).owner, body: { notify: true }, badBody: { notify: 'yes' } }),
});
commonCases(t, 'DELETE /integrations/messenger', {
  method: 'DELETE',
  setup: async () => {
    const { owner } = await world();
    await t.as(owner).post('/integrations/messenger', {});
    return { url: '/integrations/messenger', owner };
  },
});
commonCases(t, 'POST /integrations/messenger/bot-login', {
  method: 'POST',
  setup: async () => {
    const { owner } = await world();
    const { code } = (await t.as(owner).post('/integrations/messenger', {})).json();
    return { url: '/integrations/messenger/bot-login', owner, body: { code, chatId: 3, messengerUserId: 3, username: null }, badBody: { code, chatId: 'x' } };
  },
});
commonCases(t, 'GET /projects/{projectId}/messenger-integration', {
  method: 'GET',
  setup: async () => {
    const w = await projectWorld(true);
    return { url: `/projects/${w.project.id}/messenger-integration`, owner: w.reader };
  },
});
commonCases(t, 'POST /projects/{projectId}/messenger-integration', {
  method: 'POST',
  setup: async () => {
    const w = await projectWorld(false);
    return { url: `/projects/${w.project.id}/messenger-integration`, owner: w.editor, body: { events: ['task.created'] }, badBody: { events: ['nope'] }, forbidden: w.reader };
  },
});
commonCases(t, 'PATCH /projects/{projectId}/messenger-integration', {
  method: 'PATCH',
  setup: async () => {
    const w = await projectWorld(true);
    return { url: `/projects/${w.project.id}/messenger-integration`, owner: w.editor, body: { enabled: false }, badBody: { enabled: 'no' }, forbidden: w.reader };
  },
});
commonCases(t, 'DELETE /projects/{projectId}/messenger-integration', {
  method: 'DELETE',
  setup: async () => {
    const w = await projectWorld(true);
    return { url: `/projects/${w.project.id}/messenger-integration`, owner: w.editor, forbidden: w.reader };
  },
});
