import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { expectHistory } from '../tasks.fixtures.js';
import { parseEmoji } from './reactions.service.js';
import { chat, expectMessageForm } from './messages.fixtures.js';

const t = useTestApp();

describe('parseEmoji', () => {
  it('takes one emoji, sequences included, and nothing else', () => {
    for (const ok of ['👍', '👍🏽', '❤️', '👨‍👩‍👧', '🇺🇦', '1️⃣', '🏳️‍🌈']) expect(parseEmoji(ok, '/emoji')).toBe(ok);
    for (const bad of ['a', '1', '#', ':)', '👍👍', '👍 ', 'ok👍', '']) expect(() => parseEmoji(bad, '/emoji')).toThrow('one Unicode emoji');
  });
});

describe('POST /tasks/{id}/messages/{mid}/reactions', () => {
  it('adds one reaction per user and emoji, grouped with counts', async () => {
    const c = await chat(t);
    const m = await c.send(c.owner, 'ship it?');
    const url = `/tasks/${c.taskId}/messages/${m.id}/reactions`;
    const res = await t.as(c.reader).post(url, { emoji: '👍' });
    expect(res.statusCode).toBe(201);
    expectMessageForm(res.json());
    expect(res.json().reactions).toEqual([{ emoji: '👍', count: 1, userIds: [c.reader.id] }]);
    await t.as(c.reader).post(url, { emoji: '👍' });
    await t.as(c.member).post(url, { emoji: '👍' });
    const last = await t.as(c.member).post(url, { emoji: '🎉' });
    expect(last.json().reactions).toEqual([
      { emoji: '👍', count: 2, userIds: [c.reader.id, c.member.id] },
      { emoji: '🎉', count: 1, userIds: [c.member.id] },
    ]);
    expect(await t.sql(sql`select count(*)::int as n from message_reactions where message_id = ${m.id}`)).toEqual([{ n: 3 }]);
  });

  it('refuses what is not an emoji (400), changing nothing', async () => {
    const c = await chat(t);
    const m = await c.send(c.owner, 'x');
    expectProblem(await t.as(c.owner).post(`/tasks/${c.taskId}/messages/${m.id}/reactions`, { emoji: 'lol' }), 400, 'VALIDATION_FAILED');
    expect(await t.sql(sql`select * from message_reactions where message_id = ${m.id}`)).toEqual([]);
  });

  commonCases(t, 'POST /tasks/{id}/messages/{mid}/reactions', {
    method: 'POST',
    async setup(kit) {
      const c = await chat(kit);
      const m = await c.send(c.owner, 'react to me');
      return { url: `/tasks/${c.taskId}/messages/${m.id}/reactions`, owner: c.owner, body: { emoji: '🚀' }, badBody: { emoji: 'x' } };
    },
  });
});

describe('DELETE /tasks/{id}/messages/{mid}/reactions/{emoji}', () => {
  it('removes only the caller’s own reaction (emoji URL-encoded); retry-safe', async () => {
    const c = await chat(t);
    const m = await c.send(c.owner, 'x');
    const url = `/tasks/${c.taskId}/messages/${m.id}/reactions`;
    await t.as(c.reader).post(url, { emoji: '❤️' });
    await t.as(c.member).post(url, { emoji: '❤️' });
    const res = await t.as(c.reader).delete(`${url}/${encodeURIComponent('❤️')}`);
    expect(res.statusCode).toBe(200);
    expectMessageForm(res.json());
    expect(res.json().reactions).toEqual([{ emoji: '❤️', count: 1, userIds: [c.member.id] }]);
    expect((await t.as(c.reader).delete(`${url}/${encodeURIComponent('❤️')}`)).json().reactions).toEqual([{ emoji: '❤️', count: 1, userIds: [c.member.id] }]);
    expectProblem(await t.as(c.reader).delete(`${url}/abc`), 400, 'VALIDATION_FAILED');
  });

  commonCases(t, 'DELETE /tasks/{id}/messages/{mid}/reactions/{emoji}', {
    method: 'DELETE',
    async setup(kit) {
      const c = await chat(kit);
      const m = await c.send(c.owner, 'x');
      await kit.as(c.owner).post(`/tasks/${c.taskId}/messages/${m.id}/reactions`, { emoji: '👀' });
      return { url: `/tasks/${c.taskId}/messages/${m.id}/reactions/${encodeURIComponent('👀')}`, owner: c.owner };
    },
  });
});

describe('GET /tasks/{id}/history', () => {
  it('answers the task history newest first to a reader, filtered by type, paged', async () => {
    const c = await chat(t);
    await t.as(c.owner).post(`/tasks/${c.taskId}/subtasks`, { name: 'one' });
    await t.as(c.owner).patch(`/tasks/${c.taskId}/color`, { color: '#112233' });
    await t.as(c.owner).post(`/tasks/${c.taskId}/subtasks`, { name: 'two' });
    const all = await t.as(c.reader).get(`/tasks/${c.taskId}/history`);
    expect(all.statusCode).toBe(200);
    expect(all.json().map((h: { type: number }) => h.type)).toEqual([11, 7, 11, 0]);
    all.json().forEach((h: Record<string, unknown>) => expectHistory(h, c.taskId, h.type as number));
    expect(all.headers['x-total-count']).toBe('4');
    const some = await t.as(c.reader).get(`/tasks/${c.taskId}/history?type=11,0&limit=2`);
    expect(some.json().map((h: { state: string }) => h.state)).toEqual(['added subtask "two" at position 1', 'added subtask "one" at position 0']);
    expect(some.headers['x-total-count']).toBe('3');
    expect(some.headers.link).toBe(`</tasks/${c.taskId}/history?type=11%2C0&limit=2&offset=2>; rel="next"`);
  });

  commonCases(t, 'GET /tasks/{id}/history', {
    method: 'GET',
    async setup(kit) {
      const c = await chat(kit);
      return { url: `/tasks/${c.taskId}/history`, owner: c.owner };
    },
  });
});
