import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../app.js';
import { PASSWORD, useTestApp, type TestUser } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { countQueries } from '../../test/queries.js';
import { ReadCache, scopesOf } from '../../platform/read-cache.js';
import { eventually } from '../events/realtime.fixtures.js';
import { expectTaskForm } from './tasks.fixtures.js';

// The read cache (src/platform/read-cache.ts) on the routes that use it: what it serves is always
// what the database would answer now, for this caller.
const t = useTestApp();
const f = factories(t);
const onPostgres = Boolean(process.env.DATABASE_URL);

async function taskOnBoard() {
  const { owner, space, project, stages } = await f.board(2);
  const task = await f.task(owner, stages[0]!.id, { name: 'Cached' });
  return { owner, space, project, stages, task };
}

const get = (user: TestUser, url: string, headers: Record<string, string> = {}) => t.as(user).get(url, headers);

/**
 * Reads until the answer comes from the cache. On PostgreSQL the NOTIFY of the setup's last write
 * can still arrive after the first read and (rightly) drop what it stored.
 */
const cached = (user: TestUser, url: string) => eventually(async () => expect((await get(user, url)).headers['x-cache']).toBe('hit'), 2000);

describe('read cache: GET /tasks/{id} and the task lists', () => {
  it('answers a repeated read from memory, with the same body and no query', async () => {
    const { owner, task } = await taskOnBoard();
    const first = await get(owner, `/tasks/${task.id}`);
    expect([first.statusCode, first.headers['x-cache']]).toEqual([200, 'miss']);
    expectTaskForm(first.json());
    await cached(owner, `/tasks/${task.id}`);
    let again!: Awaited<ReturnType<typeof get>>;
    const queries = await countQueries(t, async () => (again = await get(owner, `/tasks/${task.id}`)));
    expect([again.statusCode, again.headers['x-cache'], again.headers['content-type']]).toEqual([200, 'hit', 'application/json; charset=utf-8']);
    expect(again.json()).toEqual(first.json());
    expect(queries).toBe(0);
  });

  it('any change in the organization is seen by the next read', async () => {
    const { owner, space, task } = await taskOnBoard();
    const editor = await f.spaceMember(owner, space.id, 'editor');
    expect((await get(owner, `/tasks/${task.id}`)).json()).toMatchObject({ color: null });
    await cached(owner, `/tasks/${task.id}`);
    expect((await t.as(editor).patch(`/tasks/${task.id}/color`, { color: '#ff0000' })).statusCode).toBe(200);
    const after = await get(owner, `/tasks/${task.id}`);
    expect([after.headers['x-cache'], after.json().color]).toEqual(['miss', '#ff0000']);
  });

  it('a change of a task drops the answers showing it and leaves other projects and tasks cached; never stale for another reader', async () => {
    const { owner, space, project, stages, task } = await taskOnBoard();
    const other = await f.project(owner, space.id, 'Other');
    const otherColumn = await f.stage(owner, other.id, 'Elsewhere');
    const bystander = await f.task(owner, otherColumn.id, { name: 'Untouched' });
    const editor = await f.spaceMember(owner, space.id, 'editor');
    const reader = await f.spaceMember(owner, space.id, 'reader');
    const urls = [`/tasks/${task.id}`, `/projects/${project.id}/tasks`, `/tasks/${bystander.id}`, `/projects/${other.id}/tasks`, `/spaces/${space.id}/tasks`];
    for (const url of urls) await cached(reader, url);

    expect((await t.as(editor).patch(`/tasks/${task.id}/color`, { color: '#00ff00' })).statusCode).toBe(200);
    const one = await get(reader, `/tasks/${task.id}`);
    expect([one.headers['x-cache'], one.json().color]).toEqual(['miss', '#00ff00']);
    const board = await get(reader, `/projects/${project.id}/tasks`);
    expect([board.headers['x-cache'], board.json().find((x: { id: number }) => x.id === task.id).color]).toEqual(['miss', '#00ff00']);
    const wide = await get(reader, `/spaces/${space.id}/tasks`);
    expect([wide.headers['x-cache'], wide.json().find((x: { id: number }) => x.id === task.id).color]).toEqual(['miss', '#00ff00']);
    // Nothing the change did not reach was dropped.
    expect((await get(reader, `/tasks/${bystander.id}`)).headers['x-cache']).toBe('hit');
    expect((await get(reader, `/projects/${other.id}/tasks`)).headers['x-cache']).toBe('hit');

    // Relocated to the other project: both boards are read afresh, the task on the new one only.
    await cached(reader, `/projects/${project.id}/tasks`);
    expect((await t.as(editor).post('/tasks/move', { taskIds: [task.id], stageId: otherColumn.id })).statusCode).toBe(200);
    const left = await get(reader, `/projects/${project.id}/tasks`);
    expect([left.headers['x-cache'], left.json().map((x: { id: number }) => x.id)]).toEqual(['miss', []]);
    const arrived = await get(reader, `/projects/${other.id}/tasks`);
    expect([arrived.headers['x-cache'], arrived.json().map((x: { id: number }) => x.id).sort()]).toEqual(['miss', [task.id, bystander.id].sort()]);
    expect((await get(reader, `/tasks/${task.id}`)).json().stages).toEqual([expect.objectContaining({ projectId: other.id, stageId: otherColumn.id })]);
    void stages;
  });

  it('keeps answers per caller: a user who may not read the task gets 404, not the cached form', async () => {
    const { owner, task } = await taskOnBoard();
    const outsider = await t.member(owner, 'member');
    const stranger = await t.org();
    expect((await get(owner, `/tasks/${task.id}`)).statusCode).toBe(200);
    await cached(owner, `/tasks/${task.id}`);
    for (const user of [outsider, stranger]) {
      const res = await get(user, `/tasks/${task.id}`);
      expect([res.statusCode, res.json().code]).toEqual([404, 'NOT_FOUND']);
    }
  });

  it('a member removed from the space loses the cached task at once', async () => {
    const { owner, space, task } = await taskOnBoard();
    const reader = await f.spaceMember(owner, space.id, 'reader');
    await get(reader, `/tasks/${task.id}`);
    await cached(reader, `/tasks/${task.id}`);
    expect((await t.as(owner).delete(`/spaces/${space.id}/members/${reader.id}`)).statusCode).toBe(204);
    const res = await get(reader, `/tasks/${task.id}`);
    expect([res.statusCode, res.json().code]).toEqual([404, 'NOT_FOUND']);
  });

  it('a logged-out session, a revoked token and a deactivated member are refused at once', async () => {
    const { owner, space, task } = await taskOnBoard();
    // Logout: the cached credential goes with the session.
    const other = await t.as(owner).post('/auth/login', { email: owner.email, password: PASSWORD });
    const second = { ...owner, session: other.json().session, headers: { 'service-session': other.json().session } };
    expect((await get(second, `/tasks/${task.id}`)).statusCode).toBe(200);
    await cached(second, `/tasks/${task.id}`);
    expect((await t.as(second).post('/auth/logout')).statusCode).toBe(204);
    expect((await get(second, `/tasks/${task.id}`)).json().code).toBe('UNAUTHENTICATED');
    // An API token revoked from another credential of the same user.
    const token = (await t.as(owner).post('/user/api-tokens', { name: 'bench' })).json();
    const bearer = { ...owner, headers: { authorization: `Bearer ${token.token}` } };
    await get(bearer, `/tasks/${task.id}`);
    await cached(bearer, `/tasks/${task.id}`);
    expect((await t.as(owner).delete(`/user/api-tokens/${token.id}`)).statusCode).toBe(204);
    expect((await get(bearer, `/tasks/${task.id}`)).json().code).toBe('UNAUTHENTICATED');
    // Deactivation by an administrator, not by the user: the organization's change reaches them.
    const editor = await f.spaceMember(owner, space.id, 'editor');
    await get(editor, `/tasks/${task.id}`);
    await cached(editor, `/tasks/${task.id}`);
    expect((await t.as(owner).patch(`/user/organization/members/${editor.id}/active`, { active: false })).statusCode).toBe(200);
    const refused = await get(editor, `/tasks/${task.id}`);
    expect([refused.statusCode, refused.json().code]).toEqual([401, 'ACCOUNT_DEACTIVATED']);
  });

  it('keeps the paging headers of a list, and Cache-Control: no-cache asks for a fresh answer', async () => {
    const { owner, project, stages } = await taskOnBoard();
    for (let i = 0; i < 3; i++) await f.task(owner, stages[1]!.id, { name: `more ${i}` });
    const url = `/projects/${project.id}/tasks?limit=2`;
    const first = await get(owner, url);
    await cached(owner, url);
    const hit = await get(owner, url);
    expect([hit.headers['x-total-count'], hit.headers.link, hit.body]).toEqual([first.headers['x-total-count'], first.headers.link, first.body]);
    expect(hit.headers['x-total-count']).toBe('4');
    const fresh = await get(owner, url, { 'cache-control': 'no-cache' });
    expect([fresh.headers['x-cache'], fresh.body]).toEqual(['miss', first.body]);
  });

  it('a sign-up elsewhere keeps the cache; one that joins the organization by invite link drops it', async () => {
    const { owner, space, task } = await taskOnBoard();
    await cached(owner, `/tasks/${task.id}`);
    const signUp = (extra: Record<string, string> = {}) =>
      t.as(null).post('/auth/register', { email: `reader-${Math.random().toString(36).slice(2)}@example.test`, password: PASSWORD, name: 'New', ...extra });
    expect((await signUp()).statusCode).toBe(201);
    expect((await get(owner, `/tasks/${task.id}`)).headers['x-cache']).toBe('hit');
    const link = (await t.as(owner).post(`/spaces/${space.id}/invite-link`, { role: 'member' })).json() as { token: string };
    await cached(owner, `/tasks/${task.id}`);
    expect((await signUp({ inviteToken: link.token })).statusCode).toBe(201);
    expect((await get(owner, `/tasks/${task.id}`)).headers['x-cache']).toBe('miss');
  });

  it('never keeps an error answer', async () => {
    const { owner } = await taskOnBoard();
    for (let i = 0; i < 2; i++) {
      const res = await get(owner, '/tasks/999999999');
      expect([res.statusCode, res.json().code, res.headers['x-cache']]).toEqual([404, 'NOT_FOUND', undefined]);
    }
  });

  it('is documented on the routes that use it', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.paths['/tasks/{taskId}'].get.description).toContain('Cache-Control: no-cache');
    expect(doc.paths['/projects/{projectId}/tasks'].get.description).toContain('x-cache: hit');
    expect(doc.paths['/tasks/{taskId}'].delete.description ?? '').not.toContain('x-cache');
  });

  it('READ_CACHE=false turns it off', async () => {
    const app = await buildApp({ ...t.config, readCache: false }, { database: t.database });
    try {
      const { owner, task } = await taskOnBoard();
      for (let i = 0; i < 2; i++) {
        const res = await app.inject({ method: 'GET', url: `/tasks/${task.id}`, headers: owner.headers });
        expect([res.statusCode, res.headers['x-cache']]).toEqual([200, undefined]);
      }
    } finally {
      await app.close();
    }
  });
});

describe('read cache: the clock', () => {
  const actor = { userId: 1, organizationId: 7, orgRole: 'member' as const, sessionId: 1, tokenId: null };

  it('does not keep what a read computed while a change committed', () => {
    const cache = new ReadCache(true, 1 << 20, true);
    const begin = cache.begin()!;
    cache.changed({ organizationIds: [7], userId: 2 });
    cache.keepAnswer(actor, '/tasks/1', 't1', begin, '{"stale":true}', {});
    expect(cache.answer(actor, '/tasks/1', 't1')).toBeNull();
    // A change of another organization leaves this one's answers alone.
    cache.keepAnswer(actor, '/tasks/1', 't1', cache.begin()!, '{"fresh":true}', {});
    cache.changed({ organizationIds: [8], userId: 3 });
    expect(cache.answer(actor, '/tasks/1', 't1')?.body).toBe('{"fresh":true}');
    // A registration (organization 0, a new user) cannot have changed what was kept.
    cache.changed({ organizationIds: [0], userId: 4 });
    expect(cache.answer(actor, '/tasks/1', 't1')?.body).toBe('{"fresh":true}');
  });

  it('drops, on a change of tasks alone, the answers that show them and every wider list, and keeps the rest', () => {
    const cache = new ReadCache(true, 1 << 20, true);
    const keep = (url: string, part: string) => cache.keepAnswer(actor, url, part, cache.begin()!, `{"url":"${url}"}`, {});
    keep('/tasks/1', 't1');
    keep('/tasks/2', 't2');
    keep('/projects/5/tasks', 'p5');
    keep('/projects/6/tasks', 'p6');
    keep('/spaces/3/tasks', 'S');
    cache.keepCredential('h', cache.begin(), actor, null);
    cache.changed({ organizationIds: [7], userId: 1, scoped: new Map([[7, ['t1', 'p5']]]) });
    expect(cache.answer(actor, '/tasks/1', 't1')).toBeNull();
    expect(cache.answer(actor, '/projects/5/tasks', 'p5')).toBeNull();
    expect(cache.answer(actor, '/spaces/3/tasks', 'S')).toBeNull();
    expect(cache.answer(actor, '/tasks/2', 't2')?.body).toBe('{"url":"/tasks/2"}');
    expect(cache.answer(actor, '/projects/6/tasks', 'p6')?.body).toBe('{"url":"/projects/6/tasks"}');
    // Its author's credential holds: a change of tasks says nothing about it.
    expect(cache.credential('h')).toEqual(actor);
    // A change of the organization as a whole drops everything of it.
    cache.changed({ organizationIds: [7], userId: 2 });
    expect(cache.answer(actor, '/tasks/2', 't2')).toBeNull();
    expect(cache.answer(actor, '/projects/6/tasks', 'p6')).toBeNull();
  });

  it('scopes only changes made of task and message events, naming every project the task sits in', () => {
    const task = (type: string, extra: Record<string, unknown> = {}) => ({ organizationId: 7, type, taskId: 1, projectId: 5, payload: { task: { stages: [{ projectId: 5 }, { projectId: 9 }] }, ...extra } });
    expect(scopesOf([task('task.moved'), task('task.left', { task: undefined })])).toEqual(new Map([[7, ['t1', 'p5', 'p9']]]));
    expect(scopesOf([task('task.created'), { organizationId: 7, type: 'label.updated', taskId: null, projectId: null, payload: {} }])).toEqual(new Map());
    expect(scopesOf([task('task.updated', { changes: ['stages'] })])).toEqual(new Map());
    expect(scopesOf([task('task.deleted')])).toEqual(new Map());
  });

  it('drops a credential when its user acts, wherever, and when its expiry passes', () => {
    const cache = new ReadCache(true, 1 << 20, true);
    cache.keepCredential('h', cache.begin(), actor, null);
    expect(cache.credential('h')).toEqual(actor);
    cache.changed({ organizationIds: [9], userId: 1 });
    expect(cache.credential('h')).toBeNull();
    cache.keepCredential('h', cache.begin(), actor, Date.now() - 1);
    expect(cache.credential('h')).toBeNull();
    // A change about the user with no organization's tasks in it (an operator's password reset).
    cache.keepCredential('h', cache.begin(), actor, null);
    cache.changed({ organizationIds: [0], userId: 1, scoped: new Map() });
    expect(cache.credential('h')).toBeNull();
  });

  it('caches nothing while changes could be missed, and forgets everything when that ends', () => {
    const cache = new ReadCache(true, 1 << 20, false);
    expect(cache.begin()).toBeNull();
    cache.setAvailable(true);
    cache.keepAnswer(actor, '/tasks/1', 't1', cache.begin()!, '{}', {});
    expect(cache.answer(actor, '/tasks/1', 't1')).not.toBeNull();
    cache.setAvailable(false);
    expect(cache.answer(actor, '/tasks/1', 't1')).toBeNull();
    cache.setAvailable(true);
    expect(cache.answer(actor, '/tasks/1', 't1')).toBeNull();
  });
});

describe.runIf(onPostgres)('read cache: two instances on one PostgreSQL', () => {
  let other: FastifyInstance;
  beforeAll(async () => {
    other = await buildApp({ ...t.config });
  });
  afterAll(async () => {
    await other?.close();
  });

  const viaOther = (user: TestUser, url: string) => other.inject({ method: 'GET', url, headers: user.headers });

  it('a change made through one instance reaches the other instance’s cache', async () => {
    const { owner, task } = await taskOnBoard();
    await viaOther(owner, `/tasks/${task.id}`);
    await eventually(async () => expect((await viaOther(owner, `/tasks/${task.id}`)).headers['x-cache']).toBe('hit'), 2000);
    expect((await t.as(owner).patch(`/tasks/${task.id}/color`, { color: '#00ff00' })).statusCode).toBe(200);
    await eventually(async () => expect((await viaOther(owner, `/tasks/${task.id}`)).json().color).toBe('#00ff00'), 2000);
    // A logout through one instance ends the session on the other.
    expect((await t.as(owner).post('/auth/logout')).statusCode).toBe(204);
    await eventually(async () => expect((await viaOther(owner, `/tasks/${task.id}`)).statusCode).toBe(401), 2000);
  });

  it('caches nothing while its LISTEN connection is down, and again once it is back', async () => {
    const { owner, task } = await taskOnBoard();
    await viaOther(owner, `/tasks/${task.id}`);
    await eventually(async () => expect((await viaOther(owner, `/tasks/${task.id}`)).headers['x-cache']).toBe('hit'), 2000);
    await t.sql(sql`select pg_terminate_backend(pid) from pg_stat_activity where query like 'listen %' and pid <> pg_backend_pid()`);
    await eventually(async () => expect((await viaOther(owner, `/tasks/${task.id}`)).headers['x-cache']).toBe('miss'), 2000);
    await eventually(async () => expect((await viaOther(owner, `/tasks/${task.id}`)).headers['x-cache']).toBe('hit'), 5000);
  });
});
