import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { ISO_MS, expectShape, reglamentFactories } from '../reglaments.fixtures.js';

const t = useTestApp();
const r = reglamentFactories(t);

type World = Awaited<ReturnType<typeof r.testWorld>>;
const rightAnswers = (w: World) => ({ answers: [{ questionId: w.q1.id, answerIds: [w.a1.id] }, { questionId: w.q2.id, answerIds: [w.b2.id, w.b1.id] }] });
/** Every [key, value] pair of a JSON value, at any depth. */
const entries = (v: unknown): Array<[string, unknown]> =>
  Array.isArray(v) ? v.flatMap(entries) : v && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => [[k, x] as [string, unknown], ...entries(x)]) : [];
const passes = (reglamentId: number) => t.sql<{ user_id: number }>(sql`select user_id from reglament_passes where reglament_id = ${reglamentId} order by user_id`);

describe('POST /reglaments/{reglamentId}/test-results', () => {
  it('passes with exactly the right answers: TestResult, usersPassed once, a passed event', async () => {
    const w = await r.testWorld();
    const reader = await r.spaceMember(w.owner, w.space.id, 'reader');
    const url = `/reglaments/${w.reglament.id}/test-results`;
    const res = await t.as(reader).post(url, rightAnswers(w));
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expectShape(body, { passed: 'boolean', correct: 'integer', total: 'integer', wrongQuestionIds: 'array', passedUser: 'object' });
    expect(body).toMatchObject({ passed: true, correct: 2, total: 2, wrongQuestionIds: [], passedUser: { reglamentId: w.reglament.id, userId: reader.id } });
    expect(body.passedUser.createdAt).toMatch(ISO_MS);

    const again = await t.as(reader).post(url, rightAnswers(w));
    expect(again.json().passedUser).toEqual(body.passedUser);
    expect(await passes(w.reglament.id)).toEqual([{ user_id: reader.id }]);
    const full = (await t.as(reader).get(`/reglaments/${w.reglament.id}`)).json();
    expect(full.usersPassed).toEqual([body.passedUser]);
    expect(full.passedByMe).toBe(true);
    const events = await t.sql(sql`select action, user_id from reglament_events where reglament_id = ${w.reglament.id} and action = 'passed'`);
    expect(events).toEqual([{ action: 'passed', user_id: reader.id }]);
  });

  it('fails on a subset, a superset or a missing question, adding nothing and naming only the wrong questions', async () => {
    const w = await r.testWorld();
    const reader = await r.spaceMember(w.owner, w.space.id, 'reader');
    const url = `/reglaments/${w.reglament.id}/test-results`;
    for (const [answers, wrong] of [
      [[{ questionId: w.q1.id, answerIds: [w.a1.id] }, { questionId: w.q2.id, answerIds: [w.b1.id] }], [w.q2.id]],
      [[{ questionId: w.q1.id, answerIds: [w.a1.id, w.a2.id] }, { questionId: w.q2.id, answerIds: [w.b1.id, w.b2.id] }], [w.q1.id]],
      [[{ questionId: w.q2.id, answerIds: [w.b1.id, w.b2.id, w.b3.id] }], [w.q1.id, w.q2.id]],
    ] as const) {
      const res = await t.as(reader).post(url, { answers });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual({ passed: false, correct: 2 - wrong.length, total: 2, wrongQuestionIds: [...wrong].sort((a, b) => a - b), passedUser: null });
    }
    expect(await passes(w.reglament.id)).toEqual([]);
    expect(await t.sql(sql`select id from reglament_events where reglament_id = ${w.reglament.id} and action = 'passed'`)).toEqual([]);
  });

  it('refuses answers of another question, unknown questions and a reglament without a test with 400', async () => {
    const w = await r.testWorld();
    const url = `/reglaments/${w.reglament.id}/test-results`;
    expectProblem(await t.as(w.owner).post(url, { answers: [{ questionId: w.q1.id, answerIds: [w.b1.id] }] }), 400, 'REFERENCE_NOT_FOUND');
    const other = await r.testWorld();
    expectProblem(await t.as(w.owner).post(url, { answers: [{ questionId: other.q1.id, answerIds: [] }] }), 400, 'REFERENCE_NOT_FOUND');
    expectProblem(await t.as(w.owner).post(url, { answers: [{ questionId: w.q1.id, answerIds: [] }, { questionId: w.q1.id, answerIds: [] }] }), 400, 'VALIDATION_FAILED');
    const plain = await r.reglament(w.owner, w.group.id);
    expectProblem(await t.as(w.owner).post(`/reglaments/${plain.id}/test-results`, { answers: [] }), 400, 'BAD_REQUEST');
    expect(await passes(w.reglament.id)).toEqual([]);
  });

  it('lets a reader learn no right answer from any response before passing', async () => {
    const w = await r.testWorld();
    const reader = await r.spaceMember(w.owner, w.space.id, 'reader');
    await t.as(w.owner).post(`/reglaments/${w.reglament.id}/versions`, { name: 'v1' });
    const rid = w.reglament.id;
    const responses: LightMyRequestResponse[] = [];
    const as = t.as(reader);
    for (const url of [
      `/spaces/${w.space.id}/reglaments`, `/reglaments/${rid}`, `/reglaments/${rid}/questions`, '/reglaments/search?q=helmet',
      '/user/reglaments/mandatory', `/reglaments/${rid}/versions`, `/reglaments/${rid}/history`, `/spaces/${w.space.id}`,
    ]) responses.push(await as.get(url));
    const versionId = responses[5]!.json()[0].id;
    responses.push(await as.get(`/reglaments/${rid}/versions/${versionId}`));
    // Attempts a reader may not make, and wrong submissions.
    responses.push(await as.post(`/reglaments/${rid}/questions/${w.q1.id}/answers`, { name: 'probe', isRight: true }));
    responses.push(await as.patch(`/reglaments/${rid}/questions/${w.q1.id}/answers/${w.a1.id}/name`, { name: 'probe' }));
    responses.push(await as.patch(`/reglaments/${rid}/questions/${w.q1.id}/answers/${w.a1.id}/is-right`, { isRight: true }));
    responses.push(await as.patch(`/reglaments/${rid}/questions/order`, { ids: [w.q1.id, w.q2.id] }));
    responses.push(await as.patch(`/reglaments/${rid}/questions/${w.q1.id}/name`, { name: 'probe' }));
    responses.push(await as.post(`/reglaments/${rid}/passed-users`));
    responses.push(await as.post(`/reglaments/${rid}/test-results`, { answers: [{ questionId: w.q1.id, answerIds: [w.a2.id] }, { questionId: w.q2.id, answerIds: [w.b1.id] }] }));
    responses.push(await as.post(`/reglaments/${rid}/test-results`, { answers: [] }));

    expect(responses.map((x) => x.statusCode)).toEqual([200, 200, 200, 200, 200, 200, 403, 200, 200, 403, 403, 403, 403, 403, 400, 201, 201]);
    const answerIds = [w.a1.id, w.a2.id, w.b1.id, w.b2.id, w.b3.id];
    for (const res of responses) {
      expect(res.body).not.toMatch(/"is_?right"\s*:\s*(true|false)/i);
      // Every field anywhere in the body whose name speaks of right answers holds null.
      const rightish = entries(res.json()).filter(([key]) => /right|correctAnswer/i.test(key));
      expect(rightish.every(([, value]) => value === null)).toBe(true);
      expect(Object.keys(res.headers).filter((h) => /right|answer/i.test(h))).toEqual([]);
    }
    // The failed results name questions only, never answers.
    for (const res of responses.slice(-2)) {
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(['correct', 'passed', 'passedUser', 'total', 'wrongQuestionIds']);
      expect(body.wrongQuestionIds.some((id: number) => answerIds.includes(id) && ![w.q1.id, w.q2.id].includes(id))).toBe(false);
      expect(body.passedUser).toBeNull();
    }
    expect(await passes(rid)).toEqual([]);
  });

  commonCases(t, 'POST /reglaments/{reglamentId}/test-results', {
    method: 'POST',
    setup: async () => {
      const w = await r.testWorld();
      return { url: `/reglaments/${w.reglament.id}/test-results`, owner: w.owner, body: rightAnswers(w), badBody: { answers: [{ questionId: 'one' }] } };
    },
  });
});

describe('acknowledge and clear', () => {
  it('acknowledges a reglament without a test once; one with a test answers 400 TEST_REQUIRED', async () => {
    const w = await r.world();
    const reader = await r.spaceMember(w.owner, w.space.id, 'reader');
    const url = `/reglaments/${w.reglament.id}/passed-users`;
    const res = await t.as(reader).post(url);
    expect(res.statusCode).toBe(201);
    expectShape(res.json(), { createdAt: 'string', reglamentId: 'integer', userId: 'integer' });
    expect(res.json()).toMatchObject({ reglamentId: w.reglament.id, userId: reader.id });
    expect((await t.as(reader).post(url)).json()).toEqual(res.json());
    expect(await passes(w.reglament.id)).toEqual([{ user_id: reader.id }]);

    const tw = await r.testWorld();
    expectProblem(await t.as(tw.owner).post(`/reglaments/${tw.reglament.id}/passed-users`), 400, 'TEST_REQUIRED');
    expect(await passes(tw.reglament.id)).toEqual([]);
  });

  it('clears the users who passed, recording how many', async () => {
    const w = await r.world();
    const reader = await r.spaceMember(w.owner, w.space.id, 'reader');
    await t.as(reader).post(`/reglaments/${w.reglament.id}/passed-users`);
    await t.as(w.owner).post(`/reglaments/${w.reglament.id}/passed-users`);
    expect((await t.as(w.owner).delete(`/reglaments/${w.reglament.id}/passed-users`)).statusCode).toBe(204);
    expect(await passes(w.reglament.id)).toEqual([]);
    expect((await t.as(w.owner).get(`/reglaments/${w.reglament.id}`)).json().usersPassed).toEqual([]);
    const [event] = await t.sql(sql`select details from reglament_events where reglament_id = ${w.reglament.id} and action = 'cleared'`);
    expect(event).toEqual({ details: { count: 2 } });
  });

  commonCases(t, 'POST /reglaments/{reglamentId}/passed-users', {
    method: 'POST',
    setup: async () => {
      const w = await r.world();
      return { url: `/reglaments/${w.reglament.id}/passed-users`, owner: w.owner };
    },
  });

  commonCases(t, 'DELETE /reglaments/{reglamentId}/passed-users', {
    method: 'DELETE',
    setup: async () => {
      const w = await r.world();
      await t.as(w.owner).post(`/reglaments/${w.reglament.id}/passed-users`);
      return { url: `/reglaments/${w.reglament.id}/passed-users`, owner: w.owner, forbidden: await r.spaceMember(w.owner, w.space.id, 'member') };
    },
  });
});

describe('GET /user/reglaments/mandatory', () => {
  it('lists unpassed mandatory reglaments of the caller’s spaces and the intro reglament, until passed', async () => {
    const w = await r.world();
    const mandatory = await r.reglament(w.owner, w.group.id, { name: 'Mandatory', order: 1 });
    await t.as(w.owner).patch(`/reglaments/${mandatory.id}/mandatory`, { mandatory: true });
    const draft = await r.reglament(w.owner, w.group.id, { name: 'Draft', draft: true });
    await t.as(w.owner).patch(`/reglaments/${draft.id}/mandatory`, { mandatory: true });
    await t.as(w.owner).patch(`/spaces/${w.space.id}/intro-reglament`, { reglamentId: w.reglament.id });
    const elsewhere = await r.world();
    await t.as(elsewhere.owner).patch(`/reglaments/${elsewhere.reglament.id}/mandatory`, { mandatory: true });

    const reader = await r.spaceMember(w.owner, w.space.id, 'reader');
    const res = await t.as(reader).get('/user/reglaments/mandatory');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('2');
    expect(res.json().map((x: { id: number; intro: boolean; mandatory: boolean }) => [x.id, x.intro, x.mandatory])).toEqual([
      [w.reglament.id, true, false],
      [mandatory.id, false, true],
    ]);
    await t.as(reader).post(`/reglaments/${w.reglament.id}/passed-users`);
    expect((await t.as(reader).get('/user/reglaments/mandatory')).json().map((x: { id: number }) => x.id)).toEqual([mandatory.id]);
  });

  commonCases(t, 'GET /user/reglaments/mandatory', {
    method: 'GET',
    setup: async () => ({ url: '/user/reglaments/mandatory', owner: await t.org() }),
  });
});
