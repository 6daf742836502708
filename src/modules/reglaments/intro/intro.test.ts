import { describe, expect, it } from 'vitest';
import { expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { reglamentFactories } from '../reglaments.fixtures.js';

const t = useTestApp();
const r = reglamentFactories(t);

describe('PATCH /spaces/{spaceId}/intro-reglament', () => {
  it('sets and resets the intro reglament, answering the Space', async () => {
    const w = await r.world();
    const url = `/spaces/${w.space.id}/intro-reglament`;
    const res = await t.as(w.owner).patch(url, { reglamentId: w.reglament.id });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: w.space.id, introReglamentId: w.reglament.id, role: 'admin' });
    expect((await t.as(w.owner).get(`/reglaments/${w.reglament.id}`)).json().intro).toBe(true);
    expect((await t.as(w.owner).patch(url, { reglamentId: null })).json().introReglamentId).toBeNull();
  });

  it('refuses a reglament not shown in the space and a draft with 400', async () => {
    const w = await r.world();
    const url = `/spaces/${w.space.id}/intro-reglament`;
    const other = await r.world();
    expectProblem(await t.as(w.owner).patch(url, { reglamentId: other.reglament.id }), 400, 'REFERENCE_NOT_FOUND');
    const draft = await r.reglament(w.owner, w.group.id, { draft: true });
    expectProblem(await t.as(w.owner).patch(url, { reglamentId: draft.id }), 400, 'BAD_REQUEST');
    expect((await t.as(w.owner).get(`/spaces/${w.space.id}`)).json().introReglamentId).toBeNull();
  });

  commonCases(t, 'PATCH /spaces/{spaceId}/intro-reglament', {
    method: 'PATCH',
    setup: async () => {
      const w = await r.world();
      return {
        url: `/spaces/${w.space.id}/intro-reglament`,
        owner: w.owner,
        body: { reglamentId: w.reglament.id },
        badBody: { reglamentId: 'first' },
        forbidden: await r.spaceMember(w.owner, w.space.id, 'editor'),
      };
    },
  });
});
