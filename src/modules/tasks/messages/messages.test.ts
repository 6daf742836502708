import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { blobCount, keyOf, multipart, PNG } from '../../files/files.fixtures.js';
import { ISO_MS } from '../tasks.fixtures.js';
import { chat, expectMessageForm } from './messages.fixtures.js';

const t = useTestApp();

const hasMessages = async (taskId: number, user: Parameters<typeof t.as>[0]) => (await t.as(user).get(`/tasks/${taskId}`)).json().hasMessages;
const historyCount = async (taskId: number) => Number((await t.sql<{ n: number }>(sql`select count(*)::int as n from task_history where task_id = ${taskId}`))[0]!.n);

describe('POST /tasks/{id}/messages', () => {
  it('lets a reader comment; mentions of space members are kept, others ignored; no history row', async () => {
    const c = await chat(t);
    const outsider = await t.member(c.owner, 'member');
    const before = await historyCount(c.taskId);
    const res = await t.as(c.reader).post(`/tasks/${c.taskId}/messages`, { text: `hi @[${c.member.id}] and @[${outsider.id}] and @[${c.member.id}]` });
    expect(res.statusCode).toBe(201);
    const message = res.json();
    expectMessageForm(message);
    expect(message).toMatchObject({ taskId: c.taskId, authorId: c.reader.id, replyToId: null, attachments: [], reactions: [], mentions: [c.member.id], pinned: false, editedAt: null });
    expect(message.createdAt).toMatch(ISO_MS);
    expect(await t.sql(sql`select user_id as "userId" from message_mentions where message_id = ${message.id}`)).toEqual([{ userId: c.member.id }]);
    expect(await historyCount(c.taskId)).toBe(before);
    expect(await hasMessages(c.taskId, c.owner)).toBe(true);
  });

  it('replies to a message of the same task only (400 otherwise)', async () => {
    const c = await chat(t);
    const first = await c.send(c.owner, 'question');
    const reply = await c.send(c.member, 'answer', { replyToId: first.id });
    expect(reply.replyToId).toBe(first.id);
    const other = await c.f.task(c.owner, c.stageIds[0]!);
    const foreign = (await t.as(c.owner).post(`/tasks/${other.id}/messages`, { text: 'elsewhere' })).json();
    expectProblem(await t.as(c.owner).post(`/tasks/${c.taskId}/messages`, { text: 'x', replyToId: foreign.id }), 400, 'VALIDATION_FAILED');
  });

  it('takes files in multipart (text and files[]) and as fileIds of files the caller uploaded', async () => {
    const c = await chat(t);
    const form = multipart([
      { name: 'files[]', data: PNG, filename: 'shot.png', contentType: 'image/png' },
      { name: 'text', data: 'see the screenshot' },
      { name: 'files[]', data: 'plain notes', filename: 'notes.txt', contentType: 'text/plain' },
    ]);
    const res = await t.as(c.member).request('POST', `/tasks/${c.taskId}/messages`, form.payload, form.headers);
    expect(res.statusCode).toBe(201);
    const message = res.json();
    expectMessageForm(message);
    expect(message.text).toBe('see the screenshot');
    expect(message.attachments).toEqual([
      { id: expect.any(Number), name: 'shot.png', size: PNG.length, mimeType: 'image/png', link: expect.stringMatching(/^\/files\//), source: 'upload', driveFileId: null },
      { id: expect.any(Number), name: 'notes.txt', size: 11, mimeType: 'application/octet-stream', link: expect.stringMatching(/^\/files\//), source: 'upload', driveFileId: null },
    ]);
    // A reader of the space can download the attachment.
    expect((await t.as(c.reader).get(message.attachments[0].link)).statusCode).toBe(200);
    // The same file again, by id, from its uploader; someone else's file is refused.
    const byId = await t.as(c.member).post(`/tasks/${c.taskId}/messages`, { text: '', fileIds: [message.attachments[0].id] });
    expect(byId.statusCode).toBe(201);
    expect(byId.json().attachments.map((a: { id: number }) => a.id)).toEqual([message.attachments[0].id]);
    expectProblem(await t.as(c.owner).post(`/tasks/${c.taskId}/messages`, { text: 'x', fileIds: [message.attachments[0].id] }), 400, 'VALIDATION_FAILED');
  });

  it('refuses empty text without files, and stores no blob for a refused multipart send', async () => {
    const c = await chat(t);
    expectProblem(await t.as(c.owner).post(`/tasks/${c.taskId}/messages`, { text: '  ' }), 400, 'VALIDATION_FAILED');
    const blobs = await blobCount(t);
    const stranger = await t.org();
    const form = multipart([{ name: 'files[]', data: PNG, filename: 'a.png', contentType: 'image/png' }, { name: 'text', data: 'x' }]);
    expectProblem(await t.as(stranger).request('POST', `/tasks/${c.taskId}/messages`, form.payload, form.headers), 404);
    const bad = multipart([{ name: 'files[]', data: PNG, filename: 'a.png', contentType: 'image/png' }, { name: 'replyToId', data: '999999999' }]);
    expectProblem(await t.as(c.owner).request('POST', `/tasks/${c.taskId}/messages`, bad.payload, bad.headers), 400, 'VALIDATION_FAILED');
    expect(await blobCount(t)).toBe(blobs);
  });

  commonCases(t, 'POST /tasks/{id}/messages', {
    method: 'POST',
    async setup(kit) {
      const c = await chat(kit);
      const outsider = await kit.member(c.owner, 'member');
      return { url: `/tasks/${c.taskId}/messages`, owner: c.owner, body: { text: 'hello' }, badBody: { text: 7 }, userIds: [outsider.id] };
    },
  });
});

describe('GET /tasks/{id}/messages', () => {
  it('pages newest first with before, filters pinned, and tells the total', async () => {
    const c = await chat(t);
    const ids: number[] = [];
    for (const text of ['m1', 'm2', 'm3', 'm4', 'm5']) ids.push((await c.send(c.owner, text)).id);
    await t.as(c.member).patch(`/tasks/${c.taskId}/messages/${ids[1]}/pinned`, { pinned: true });
    const first = await t.as(c.reader).get(`/tasks/${c.taskId}/messages?limit=2`);
    expect(first.statusCode).toBe(200);
    expect(first.json().map((m: { text: string }) => m.text)).toEqual(['m5', 'm4']);
    first.json().forEach(expectMessageForm);
    expect(first.headers['x-total-count']).toBe('5');
    expect(first.headers.link).toBe(`</tasks/${c.taskId}/messages?limit=2&before=${ids[3]}>; rel="next"`);
    const next = await t.as(c.reader).get(`/tasks/${c.taskId}/messages?limit=2&before=${ids[3]}`);
    expect(next.json().map((m: { text: string }) => m.text)).toEqual(['m3', 'm2']);
    const last = await t.as(c.reader).get(`/tasks/${c.taskId}/messages?limit=2&before=${ids[1]}`);
    expect(last.json().map((m: { text: string }) => m.text)).toEqual(['m1']);
    expect(last.headers.link).toBeUndefined();
    const pinned = await t.as(c.reader).get(`/tasks/${c.taskId}/messages?pinned=true`);
    expect(pinned.json().map((m: { id: number; pinned: boolean }) => [m.id, m.pinned])).toEqual([[ids[1], true]]);
    expect(pinned.headers['x-total-count']).toBe('1');
  });

  commonCases(t, 'GET /tasks/{id}/messages', {
    method: 'GET',
    async setup(kit) {
      const c = await chat(kit);
      await c.send(c.owner, 'hello');
      return { url: `/tasks/${c.taskId}/messages`, owner: c.owner };
    },
  });
});

describe('PATCH /tasks/{id}/messages/{mid}/text', () => {
  it('lets the author edit: editedAt set, mentions follow the text', async () => {
    const c = await chat(t);
    const m = await c.send(c.member, `ping @[${c.reader.id}]`);
    const res = await t.as(c.member).patch(`/tasks/${c.taskId}/messages/${m.id}/text`, { text: `ping @[${c.editor.id}] instead` });
    expect(res.statusCode).toBe(200);
    expectMessageForm(res.json());
    expect(res.json()).toMatchObject({ id: m.id, text: `ping @[${c.editor.id}] instead`, mentions: [c.editor.id] });
    expect(res.json().editedAt).toMatch(ISO_MS);
    expect(await t.sql(sql`select text, edited_at is not null as edited from task_messages where id = ${m.id}`)).toEqual([{ text: `ping @[${c.editor.id}] instead`, edited: true }]);
  });

  commonCases(t, 'PATCH /tasks/{id}/messages/{mid}/text', {
    method: 'PATCH',
    async setup(kit) {
      const c = await chat(kit);
      const m = await c.send(c.member, 'mine');
      // Not even an organization owner may rewrite someone else's words.
      return { url: `/tasks/${c.taskId}/messages/${m.id}/text`, owner: c.member, body: { text: 'changed' }, badBody: { text: null }, forbidden: c.editor };
    },
  });
});

describe('DELETE /tasks/{id}/messages/{mid}', () => {
  it('lets the author delete, and an editor delete any; hasMessages turns false after the last; uploads go too', async () => {
    const c = await chat(t);
    const form = multipart([{ name: 'text', data: 'with a file' }, { name: 'files[]', data: PNG, filename: 'a.png', contentType: 'image/png' }]);
    const withFile = (await t.as(c.member).request('POST', `/tasks/${c.taskId}/messages`, form.payload, form.headers)).json();
    const other = await c.send(c.reader, 'by the reader');
    const reply = await c.send(c.owner, 'reply', { replyToId: withFile.id });
    expect((await t.as(c.member).delete(`/tasks/${c.taskId}/messages/${withFile.id}`)).statusCode).toBe(204);
    expect(await t.sql(sql`select id from files where key = ${keyOf(withFile.attachments[0].link)}`)).toEqual([]);
    expect(await t.sql(sql`select reply_to_id as "replyToId" from task_messages where id = ${reply.id}`)).toEqual([{ replyToId: null }]);
    expect((await t.as(c.editor).delete(`/tasks/${c.taskId}/messages/${other.id}`)).statusCode).toBe(204);
    expect(await hasMessages(c.taskId, c.owner)).toBe(true);
    expect((await t.as(c.owner).delete(`/tasks/${c.taskId}/messages/${reply.id}`)).statusCode).toBe(204);
    expect(await t.sql(sql`select id from task_messages where task_id = ${c.taskId}`)).toEqual([]);
    expect(await hasMessages(c.taskId, c.owner)).toBe(false);
  });

  commonCases(t, 'DELETE /tasks/{id}/messages/{mid}', {
    method: 'DELETE',
    async setup(kit) {
      const c = await chat(kit);
      const m = await c.send(c.owner, 'the owner’s');
      // A member may delete only its own messages.
      return { url: `/tasks/${c.taskId}/messages/${m.id}`, owner: c.owner, forbidden: c.member };
    },
  });
});

describe('PATCH /tasks/{id}/messages/{mid}/pinned', () => {
  it('pins and unpins as a space member', async () => {
    const c = await chat(t);
    const m = await c.send(c.reader, 'important');
    const res = await t.as(c.member).patch(`/tasks/${c.taskId}/messages/${m.id}/pinned`, { pinned: true });
    expect(res.statusCode).toBe(200);
    expectMessageForm(res.json());
    expect(res.json().pinned).toBe(true);
    expect((await t.as(c.member).patch(`/tasks/${c.taskId}/messages/${m.id}/pinned`, { pinned: false })).json().pinned).toBe(false);
    expect(await t.sql(sql`select pinned from task_messages where id = ${m.id}`)).toEqual([{ pinned: false }]);
  });

  commonCases(t, 'PATCH /tasks/{id}/messages/{mid}/pinned', {
    method: 'PATCH',
    async setup(kit) {
      const c = await chat(kit);
      const m = await c.send(c.reader, 'pin me');
      return { url: `/tasks/${c.taskId}/messages/${m.id}/pinned`, owner: c.owner, body: { pinned: true }, badBody: { pinned: 1 }, forbidden: c.reader };
    },
  });
});
