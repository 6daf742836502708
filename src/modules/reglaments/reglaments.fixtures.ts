import { describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { expectProblem, fingerprint, type TestKit, type TestUser } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { PNG, blobCount, multipart, type Part } from '../files/files.fixtures.js';

// Test builders for the reglaments module (imported by its tests only), all through the HTTP API.

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function created(res: LightMyRequestResponse, what: string) {
  if (res.statusCode !== 201) throw new Error(`creating ${what} failed: ${res.statusCode} ${res.body}`);
  return res.json() as { id: number } & Record<string, any>;
}

/** Asserts an object's exact key set and the type of each value ('integer', 'string', 'boolean', 'array', 'object', 'null', or 'a|b'). */
export function expectShape(value: Record<string, unknown>, shape: Record<string, string>): void {
  expect(Object.keys(value).sort()).toEqual(Object.keys(shape).sort());
  for (const [key, types] of Object.entries(shape)) {
    const v = value[key];
    const actual = v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;
    expect(types.split('|'), `${key} is ${actual}`).toContain(actual);
  }
}

export function reglamentFactories(t: TestKit) {
  const f = factories(t);
  const kit = {
    ...f,
    async group(owner: TestUser, spaceId: number, name = 'Group', order?: number) {
      return created(await t.as(owner).post(`/spaces/${spaceId}/reglament-groups`, { name, ...(order === undefined ? {} : { order }) }), 'reglament group');
    },
    async reglament(owner: TestUser, groupId: number, extra: Record<string, unknown> = {}) {
      const body = { name: 'Safety rules', reglamentColumnId: groupId, content: '<p>Wear a helmet</p>', order: 0, draft: false, ...extra };
      return created(await t.as(owner).post('/reglaments', body), 'reglament');
    },
    async question(owner: TestUser, reglamentId: number, name = 'Question?') {
      return created(await t.as(owner).post(`/reglaments/${reglamentId}/questions`, { name }), 'question');
    },
    async answer(owner: TestUser, reglamentId: number, questionId: number, name: string, isRight = false) {
      return created(await t.as(owner).post(`/reglaments/${reglamentId}/questions/${questionId}/answers`, { name, isRight }), 'answer');
    },
    /** An owner with a space, a group and one published reglament. */
    async world(extra: Record<string, unknown> = {}) {
      const owner = await t.org();
      const space = await f.space(owner);
      const group = await kit.group(owner, space.id);
      const reglament = await kit.reglament(owner, group.id, extra);
      return { owner, space, group, reglament };
    },
    /** A world whose reglament has a two-question test: q1 right = {a1}, q2 right = {b1, b2}. */
    async testWorld() {
      const w = await kit.world();
      const rid = w.reglament.id;
      const q1 = await kit.question(w.owner, rid, 'Which colour is the helmet?');
      const a1 = await kit.answer(w.owner, rid, q1.id, 'Yellow', true);
      const a2 = await kit.answer(w.owner, rid, q1.id, 'Red', false);
      const q2 = await kit.question(w.owner, rid, 'What do you wear?');
      const b1 = await kit.answer(w.owner, rid, q2.id, 'Helmet', true);
      const b2 = await kit.answer(w.owner, rid, q2.id, 'Gloves', true);
      const b3 = await kit.answer(w.owner, rid, q2.id, 'Sandals', false);
      return { ...w, q1, q2, a1, a2, b1, b2, b3 };
    },
  };
  return kit;
}

/**
 * The common refusals for a multipart upload route, which commonCases cannot send: no credential
 * 401, another organization 404, a role that may not 403, a form without a file 400; each leaves
 * the rows and the stored blobs unchanged.
 */
export function uploadRefusals(t: TestKit, name: string, setup: () => Promise<{ url: string; owner: TestUser; forbidden: TestUser; field: string }>) {
  describe(`${name}: common cases`, () => {
    const send = (user: TestUser | null, url: string, parts: Part[]) => {
      const body = multipart(parts);
      return t.as(user).request('POST', url, body.payload, body.headers);
    };
    const file = (field: string): Part[] => [{ name: field, data: PNG, filename: 'pic.png', contentType: 'image/png' }];
    const cases: Array<[string, number, (w: Awaited<ReturnType<typeof setup>>, stranger: TestUser) => Promise<LightMyRequestResponse>]> = [
      ['401 without a credential', 401, (w) => send(null, w.url, file(w.field))],
      ['404 to another organization', 404, (w, stranger) => send(stranger, w.url, file(w.field))],
      ['403 to a role that may not', 403, (w) => send(w.forbidden, w.url, file(w.field))],
      ['400 to a form without a file', 400, (w) => send(w.owner, w.url, [{ name: 'note', data: 'no file' }])],
    ];
    for (const [title, status, run] of cases) {
      it(`answers ${title}, changing nothing`, async () => {
        const w = await setup();
        const stranger = await t.org();
        const orgs = [w.owner.organizationId, stranger.organizationId];
        const before = [await fingerprint(t, orgs, [w.owner.id, w.forbidden.id]), await blobCount(t)];
        expectProblem(await run(w, stranger), status);
        expect([await fingerprint(t, orgs, [w.owner.id, w.forbidden.id]), await blobCount(t)]).toEqual(before);
      });
    }
  });
}
