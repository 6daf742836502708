import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { PNG, blobCount, multipart } from '../../files/files.fixtures.js';
import { expectShape, reglamentFactories, uploadRefusals } from '../reglaments.fixtures.js';
import { STORAGE_BACKENDS, useStorageTestApp } from '../../../test/storage.js';

// Every case runs on both file storage backends (the S3 one against a local S3-compatible server).
describe.each(STORAGE_BACKENDS)('%s file storage', (storage) => {
  const t = useStorageTestApp(storage);
  const r = reglamentFactories(t);

  const QUESTION = { id: 'integer', order: 'integer', name: 'string', reglamentId: 'integer', createdAt: 'string', updatedAt: 'string', answers: 'array', files: 'array' };
  const ANSWER = { id: 'integer', name: 'string', questionId: 'integer', isRight: 'boolean|null' };

  const upload = (user: Parameters<typeof t.as>[0], url: string) => {
    const body = multipart([{ name: 'files[]', data: PNG, filename: 'pic.png', contentType: 'image/png' }]);
    return t.as(user).request('POST', url, body.payload, body.headers);
  };

  describe('GET /reglaments/{reglamentId}/questions (spec 12)', () => {
    it('lists questions in order with answers and files in the spec form; isRight only for editors', async () => {
      const w = await r.testWorld();
      await upload(w.owner, `/reglaments/${w.reglament.id}/questions/${w.q1.id}/files`);
      const res = await t.as(w.owner).get(`/reglaments/${w.reglament.id}/questions`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-total-count']).toBe('2');
      const [q1, q2] = res.json();
      expectShape(q1, QUESTION);
      expectShape(q1.answers[0], ANSWER);
      expectShape(q1.files[0], { id: 'integer', link: 'string', name: 'string', size: 'integer', mimeType: 'string' });
      expect(q1).toMatchObject({ id: w.q1.id, order: 0, reglamentId: w.reglament.id, answers: [{ id: w.a1.id, isRight: true }, { id: w.a2.id, isRight: false }] });
      expect(q2.order).toBe(1);
      expect(q2.files).toEqual([]);

      const member = await r.spaceMember(w.owner, w.space.id, 'member');
      const hidden = (await t.as(member).get(`/reglaments/${w.reglament.id}/questions`)).json();
      expect(hidden.flatMap((q: { answers: Array<{ isRight: unknown }> }) => q.answers.map((a) => a.isRight))).toEqual([null, null, null, null, null]);
    });

    commonCases(t, 'GET /reglaments/{reglamentId}/questions', {
      method: 'GET',
      setup: async () => {
        const w = await r.testWorld();
        return { url: `/reglaments/${w.reglament.id}/questions`, owner: w.owner };
      },
    });
  });

  describe('question changes', () => {
    it('creates at a position, reorders, moves, renames (spec 13 form) and deletes', async () => {
      const w = await r.testWorld();
      const base = `/reglaments/${w.reglament.id}/questions`;
      const created = await t.as(w.owner).post(base, { name: 'First?', order: 0 });
      expect(created.statusCode).toBe(201);
      expectShape(created.json(), QUESTION);
      expect(created.json()).toMatchObject({ name: 'First?', order: 0, answers: [], files: [] });
      const q0 = created.json().id as number;

      const reordered = await t.as(w.owner).patch(`${base}/order`, { ids: [w.q2.id, w.q1.id, q0] });
      expect(reordered.statusCode).toBe(200);
      expect(reordered.json().map((q: { id: number; order: number }) => [q.id, q.order])).toEqual([[w.q2.id, 0], [w.q1.id, 1], [q0, 2]]);
      expectProblem(await t.as(w.owner).patch(`${base}/order`, { ids: [w.q2.id, w.q1.id] }), 400, 'VALIDATION_FAILED');

      const moved = await t.as(w.owner).patch(`${base}/${q0}/order`, { order: 0 });
      expect(moved.json()).toMatchObject({ id: q0, order: '0' });

      const renamed = await t.as(w.owner).patch(`${base}/${w.q1.id}/name`, { name: 'Helmet colour?' });
      expect(renamed.statusCode).toBe(200);
      expectShape(renamed.json(), { id: 'integer', order: 'string', name: 'string', reglamentId: 'integer', createdAt: 'string', updatedAt: 'string', files: 'array' });
      expect(renamed.json()).toMatchObject({ id: w.q1.id, name: 'Helmet colour?', order: '2' });

      expect((await t.as(w.owner).delete(`${base}/${w.q2.id}`)).statusCode).toBe(204);
      const left = (await t.as(w.owner).get(base)).json();
      expect(left.map((q: { id: number; order: number }) => [q.id, q.order])).toEqual([[q0, 0], [w.q1.id, 1]]);
      expect(await t.sql(sql`select id from reglament_answers where question_id = ${w.q2.id}`)).toEqual([]);
      const changes = await t.sql<{ change: string }>(sql`select details->>'change' as change from reglament_events where reglament_id = ${w.reglament.id} and action = 'question' order by id`);
      expect(changes.map((c) => c.change).slice(-5)).toEqual(['created', 'reordered', 'moved', 'renamed', 'deleted']);
    });

    const q = async (role: 'member' | 'reader' = 'member') => {
      const w = await r.testWorld();
      return { w, base: `/reglaments/${w.reglament.id}/questions`, forbidden: await r.spaceMember(w.owner, w.space.id, role) };
    };

    commonCases(t, 'POST /reglaments/{reglamentId}/questions', {
      method: 'POST',
      setup: async () => {
        const { w, base, forbidden } = await q();
        return { url: base, owner: w.owner, body: { name: 'Q?' }, badBody: { name: '' }, forbidden };
      },
    });
    commonCases(t, 'PATCH /reglaments/{reglamentId}/questions/order', {
      method: 'PATCH',
      setup: async () => {
        const { w, base, forbidden } = await q('reader');
        return { url: `${base}/order`, owner: w.owner, body: { ids: [w.q2.id, w.q1.id] }, badBody: { ids: [] }, forbidden };
      },
    });
    commonCases(t, 'PATCH /reglaments/{reglamentId}/questions/{questionId}/name', {
      method: 'PATCH',
      setup: async () => {
        const { w, base, forbidden } = await q();
        return { url: `${base}/${w.q1.id}/name`, owner: w.owner, body: { name: 'New?' }, badBody: { name: 7 }, forbidden };
      },
    });
    commonCases(t, 'PATCH /reglaments/{reglamentId}/questions/{questionId}/order', {
      method: 'PATCH',
      setup: async () => {
        const { w, base, forbidden } = await q();
        return { url: `${base}/${w.q1.id}/order`, owner: w.owner, body: { order: 1 }, badBody: { order: 'first' }, forbidden };
      },
    });
    commonCases(t, 'DELETE /reglaments/{reglamentId}/questions/{questionId}', {
      method: 'DELETE',
      setup: async () => {
        const { w, base, forbidden } = await q();
        return { url: `${base}/${w.q1.id}`, owner: w.owner, forbidden };
      },
    });

    it('answers 404 for a question of another reglament', async () => {
      const w = await r.testWorld();
      const other = await r.reglament(w.owner, w.group.id);
      expectProblem(await t.as(w.owner).patch(`/reglaments/${other.id}/questions/${w.q1.id}/name`, { name: 'x' }), 404);
    });
  });

  describe('question files', () => {
    it('uploads files to a question and deletes one (row and blob)', async () => {
      const w = await r.testWorld();
      const url = `/reglaments/${w.reglament.id}/questions/${w.q1.id}/files`;
      const res = await upload(w.owner, url);
      expect(res.statusCode).toBe(201);
      const [file] = res.json();
      expect(file).toMatchObject({ name: 'pic.png', size: PNG.length, mimeType: 'image/png' });
      const [row] = await t.sql(sql`select purpose, space_id from files where id = ${file.id}`);
      expect(row).toEqual({ purpose: 'reglament-question', space_id: w.space.id });
      const reader = await r.spaceMember(w.owner, w.space.id, 'reader');
      expect((await t.as(reader).get(file.link)).statusCode).toBe(200);

      const blobs = await blobCount(t);
      expect((await t.as(w.owner).delete(`${url}/${file.id}`)).statusCode).toBe(204);
      expect(await t.sql(sql`select id from files where id = ${file.id}`)).toEqual([]);
      expect(await blobCount(t)).toBe(blobs - 1);
      expectProblem(await t.as(w.owner).delete(`${url}/${file.id}`), 404);
    });

    it('leaves no blob behind when the role is refused', async () => {
      const w = await r.testWorld();
      const reader = await r.spaceMember(w.owner, w.space.id, 'reader');
      const blobs = await blobCount(t);
      expectProblem(await upload(reader, `/reglaments/${w.reglament.id}/questions/${w.q1.id}/files`), 403);
      expect(await blobCount(t)).toBe(blobs);
    });

    uploadRefusals(t, 'POST /reglaments/{reglamentId}/questions/{questionId}/files', async () => {
      const w = await r.testWorld();
      return { url: `/reglaments/${w.reglament.id}/questions/${w.q1.id}/files`, owner: w.owner, forbidden: await r.spaceMember(w.owner, w.space.id, 'member'), field: 'files[]' };
    });

    commonCases(t, 'DELETE /reglaments/{reglamentId}/questions/{questionId}/files/{fileId}', {
      method: 'DELETE',
      setup: async () => {
        const w = await r.testWorld();
        const url = `/reglaments/${w.reglament.id}/questions/${w.q1.id}/files`;
        const [file] = (await upload(w.owner, url)).json();
        return { url: `${url}/${file.id}`, owner: w.owner, forbidden: await r.spaceMember(w.owner, w.space.id, 'member') };
      },
    });
  });

  describe('answers', () => {
    it('creates, renames, marks right and deletes an answer', async () => {
      const w = await r.testWorld();
      const base = `/reglaments/${w.reglament.id}/questions/${w.q1.id}/answers`;
      const created = await t.as(w.owner).post(base, { name: 'Blue' });
      expect(created.statusCode).toBe(201);
      expectShape(created.json(), ANSWER);
      expect(created.json()).toMatchObject({ name: 'Blue', questionId: w.q1.id, isRight: false });
      const id = created.json().id;
      expect((await t.as(w.owner).patch(`${base}/${id}/name`, { name: 'Navy' })).json()).toEqual({ id, name: 'Navy', questionId: w.q1.id, isRight: false });
      expect((await t.as(w.owner).patch(`${base}/${id}/is-right`, { isRight: true })).json()).toEqual({ id, name: 'Navy', questionId: w.q1.id, isRight: true });
      expect((await t.as(w.owner).delete(`${base}/${id}`)).statusCode).toBe(204);
      expect(await t.sql(sql`select id from reglament_answers where id = ${id}`)).toEqual([]);
      expectProblem(await t.as(w.owner).patch(`/reglaments/${w.reglament.id}/questions/${w.q2.id}/answers/${w.a1.id}/name`, { name: 'x' }), 404);
    });

    const a = async () => {
      const w = await r.testWorld();
      return { w, base: `/reglaments/${w.reglament.id}/questions/${w.q1.id}/answers`, forbidden: await r.spaceMember(w.owner, w.space.id, 'member') };
    };
    commonCases(t, 'POST …/answers', {
      method: 'POST',
      setup: async () => {
        const { w, base, forbidden } = await a();
        return { url: base, owner: w.owner, body: { name: 'A' }, badBody: { name: 'A', isRight: 'yes' }, forbidden };
      },
    });
    commonCases(t, 'PATCH …/answers/{answerId}/is-right', {
      method: 'PATCH',
      setup: async () => {
        const { w, base, forbidden } = await a();
        return { url: `${base}/${w.a2.id}/is-right`, owner: w.owner, body: { isRight: true }, badBody: {}, forbidden };
      },
    });
    commonCases(t, 'PATCH …/answers/{answerId}/name', {
      method: 'PATCH',
      setup: async () => {
        const { w, base, forbidden } = await a();
        return { url: `${base}/${w.a2.id}/name`, owner: w.owner, body: { name: 'B' }, badBody: { name: '   ' }, forbidden };
      },
    });
    commonCases(t, 'DELETE …/answers/{answerId}', {
      method: 'DELETE',
      setup: async () => {
        const { w, base, forbidden } = await a();
        return { url: `${base}/${w.a2.id}`, owner: w.owner, forbidden };
      },
    });
  });
});
