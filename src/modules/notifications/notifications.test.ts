import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp, type TestUser } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { NOTIFICATION_KEYS, notificationKit } from './notifications.fixtures.js';

// Routes of the caller's own notifications (routes.md "Notifications"). Role `self`: no role may be
// refused (no 403 case); someone else's notification or an unseen task is 404.
const t = useTestApp();
const k = notificationKit(t);

/** A world where the owner has three notifications: assigned to two tasks, mentioned on the first. */
async function richWorld() {
  const w = await k.world();
  const other = await k.task(w.member, w.stages[0]!.id, { name: 'Paint the wall', responsibleUserId: [w.owner.id] });
  expect((await t.as(w.member).post(`/tasks/${w.task.id}/messages`, { text: `@[${w.owner.id}] see` })).statusCode).toBe(201);
  const notes = await k.notes(w.owner);
  expect(notes.map((n) => [n.type, n.taskId])).toEqual([
    ['message.mention', w.task.id],
    ['task.assigned', other.id],
    ['task.assigned', w.task.id],
  ]);
  return { ...w, other, notes };
}

const eventsOf = (user: TestUser, type: string) =>
  t.sql<{ user_id: number; payload: Record<string, unknown> }>(
    sql`select user_id, payload from events where organization_id = ${user.organizationId} and type = ${type} order by id`,
  );

describe('reading notifications', () => {
  it('lists unarchived ones newest first, filtered and paged', async () => {
    const { owner, member, task, notes } = await richWorld();
    expect(Object.keys(notes[0]!).sort()).toEqual(NOTIFICATION_KEYS);
    const page = await t.as(owner).get('/notifications?limit=2');
    expect(page.statusCode).toBe(200);
    expect(page.headers['x-total-count']).toBe('3');
    expect(page.headers.link).toContain('offset=2');
    expect(page.json().map((n: { id: number }) => n.id)).toEqual(notes.slice(0, 2).map((n) => n.id));
    expect((await k.notes(owner, `&taskId=${task.id}`)).map((n) => n.type)).toEqual(['message.mention', 'task.assigned']);
    expect((await k.notes(owner, '&type=message.mention')).map((n) => n.actorId)).toEqual([member.id]);
    expect(await k.notes(owner, '&read=true')).toEqual([]);
    expect(await k.notes(member)).toEqual([]);
  });

  it('answers the newest unread one, or null', async () => {
    const { owner, member, notes } = await richWorld();
    const first = await t.as(owner).get('/notifications/first-unread');
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual(notes[0]);
    const none = await t.as(member).get('/notifications/first-unread');
    expect(none.statusCode).toBe(200);
    expect(none.json()).toBeNull();
  });

  it('counts the unarchived ones about a task', async () => {
    const { owner, member, task } = await richWorld();
    const res = await t.as(owner).get(`/notifications/tasks/${task.id}/count`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ count: 2 });
    expect((await t.as(member).get(`/notifications/tasks/${task.id}/count`)).json()).toEqual({ count: 0 });
  });

  it('lists archived ones', async () => {
    const { owner, task, notes } = await richWorld();
    expect((await t.as(owner).patch(`/notifications/${notes[1]!.id}/archive`)).statusCode).toBe(200);
    const res = await t.as(owner).get('/notifications/archived');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('1');
    expect(res.json()).toEqual([expect.objectContaining({ id: notes[1]!.id, archived: true })]);
    expect((await t.as(owner).get(`/notifications/archived?taskId=${task.id}`)).json()).toEqual([]);
  });
});

describe('changing notifications', () => {
  it('marks one read and unread, announcing it to the addressee', async () => {
    const { owner, note } = await k.world();
    const read = await t.as(owner).patch(`/notifications/${note.id}/read`, { read: true });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ id: note.id, read: true, archived: false });
    const unread = await t.as(owner).patch(`/notifications/${note.id}/read`, { read: false });
    expect(unread.json()).toMatchObject({ id: note.id, read: false });
    const events = await eventsOf(owner, 'notification.updated');
    expect(events.map((e) => [e.user_id, e.payload.id, e.payload.read])).toEqual([
      [owner.id, note.id, true],
      [owner.id, note.id, false],
    ]);
  });

  it('archives and restores one', async () => {
    const { owner, note } = await k.world();
    const archived = await t.as(owner).patch(`/notifications/${note.id}/archive`);
    expect(archived.statusCode).toBe(200);
    expect(archived.json()).toMatchObject({ id: note.id, archived: true });
    expect(await k.notes(owner)).toEqual([]);
    const restored = await t.as(owner).patch(`/notifications/${note.id}/restore`);
    expect(restored.statusCode).toBe(200);
    expect(restored.json()).toMatchObject({ id: note.id, archived: false });
  });

  it('marks the given ones read, or every one', async () => {
    const { owner, notes } = await richWorld();
    const some = await t.as(owner).patch('/notifications/read', { ids: [notes[0]!.id, 999_999_999] });
    expect(some.statusCode).toBe(200);
    expect(some.json()).toEqual({ updated: 1 });
    // No body at all means every one too.
    const rest = await t.as(owner).patch('/notifications/read');
    expect(rest.statusCode).toBe(200);
    expect(rest.json()).toEqual({ updated: 2 });
    expect((await t.as(owner).patch('/notifications/read', {})).json()).toEqual({ updated: 0 });
    expect((await k.notes(owner)).every((n) => n.read)).toBe(true);
    expect((await eventsOf(owner, 'notification.updated')).map((e) => e.user_id)).toEqual([owner.id, owner.id, owner.id]);
  });

  it('marks read, and archives, those about a task', async () => {
    const { owner, task, other } = await richWorld();
    const read = await t.as(owner).patch(`/notifications/tasks/${task.id}/read`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ updated: 2 });
    const archived = await t.as(owner).patch(`/notifications/tasks/${task.id}/archive`);
    expect(archived.statusCode).toBe(200);
    expect(archived.json()).toEqual({ updated: 2 });
    expect((await k.notes(owner)).map((n) => [n.taskId, n.read])).toEqual([[other.id, false]]);
  });

  it('archives every one and deletes the archived', async () => {
    const { owner, notes } = await richWorld();
    const archived = await t.as(owner).patch('/notifications/archive');
    expect(archived.statusCode).toBe(200);
    expect(archived.json()).toEqual({ updated: 3 });
    const deleted = await t.as(owner).delete('/notifications/archived');
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ deleted: 3 });
    expect((await t.as(owner).get('/notifications/archived')).json()).toEqual([]);
    expect((await eventsOf(owner, 'notification.deleted')).map((e) => e.payload.id).sort()).toEqual(notes.map((n) => n.id).sort());
  });

  it('deletes one', async () => {
    const { owner, note } = await k.world();
    const res = await t.as(owner).delete(`/notifications/${note.id}`);
    expect(res.statusCode).toBe(204);
    expect(await k.rows(owner.id)).toEqual([]);
    expect((await eventsOf(owner, 'notification.deleted')).map((e) => [e.user_id, e.payload])).toEqual([[owner.id, { id: note.id }]]);
  });

  it("answers 404 for another user's notification, changing nothing", async () => {
    const { owner, member, note } = await k.world();
    for (const [method, url, body] of [
      ['PATCH', `/notifications/${note.id}/read`, { read: true }],
      ['PATCH', `/notifications/${note.id}/archive`, undefined],
      ['PATCH', `/notifications/${note.id}/restore`, undefined],
      ['DELETE', `/notifications/${note.id}`, undefined],
    ] as const) {
      expectProblem(await t.as(member).request(method, url, body), 404);
    }
    expect((await t.as(member).patch('/notifications/read', { ids: [note.id] })).json()).toEqual({ updated: 0 });
    expect(await k.notes(owner)).toEqual([expect.objectContaining({ id: note.id, read: false, archived: false })]);
  });

  it('answers 404 for a task the caller cannot see and has no notifications about', async () => {
    const { owner, task } = await k.world();
    const outsider = await t.member(owner, 'member');
    expectProblem(await t.as(outsider).get(`/notifications/tasks/${task.id}/count`), 404);
    expectProblem(await t.as(outsider).patch(`/notifications/tasks/${task.id}/read`), 404);
  });
});

// Setup for the common cases: a world whose owner has a notification about a task.
const withNote = (path: (w: Awaited<ReturnType<typeof k.world>>) => string, extra: Record<string, unknown> = {}) => async () => {
  const w = await k.world();
  return { url: path(w), owner: w.owner, userIds: [w.member.id], ...extra };
};

commonCases(t, 'GET /notifications', { method: 'GET', foreignId: false, setup: withNote(() => '/notifications') });
commonCases(t, 'GET /notifications/archived', { method: 'GET', foreignId: false, setup: withNote(() => '/notifications/archived') });
commonCases(t, 'GET /notifications/first-unread', { method: 'GET', foreignId: false, setup: withNote(() => '/notifications/first-unread') });
commonCases(t, 'GET /notifications/tasks/{taskId}/count', { method: 'GET', setup: withNote((w) => `/notifications/tasks/${w.task.id}/count`) });
commonCases(t, 'PATCH /notifications/tasks/{taskId}/archive', { method: 'PATCH', setup: withNote((w) => `/notifications/tasks/${w.task.id}/archive`) });
commonCases(t, 'PATCH /notifications/tasks/{taskId}/read', { method: 'PATCH', setup: withNote((w) => `/notifications/tasks/${w.task.id}/read`) });
commonCases(t, 'PATCH /notifications/{notificationId}/read', {
  method: 'PATCH',
  setup: withNote((w) => `/notifications/${w.note.id}/read`, { body: { read: true }, badBody: { read: 'yes' } }),
});
commonCases(t, 'PATCH /notifications/{notificationId}/archive', { method: 'PATCH', setup: withNote((w) => `/notifications/${w.note.id}/archive`) });
commonCases(t, 'PATCH /notifications/{notificationId}/restore', { method: 'PATCH', setup: withNote((w) => `/notifications/${w.note.id}/restore`) });
commonCases(t, 'PATCH /notifications/read', {
  method: 'PATCH',
  foreignId: false,
  setup: withNote(() => '/notifications/read', { body: {}, badBody: { ids: ['one'] } }),
});
commonCases(t, 'PATCH /notifications/archive', { method: 'PATCH', foreignId: false, setup: withNote(() => '/notifications/archive') });
commonCases(t, 'DELETE /notifications/archived', { method: 'DELETE', foreignId: false, setup: withNote(() => '/notifications/archived') });
commonCases(t, 'DELETE /notifications/{notificationId}', { method: 'DELETE', setup: withNote((w) => `/notifications/${w.note.id}`) });
