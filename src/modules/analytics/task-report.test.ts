import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { parse } from 'csv-parse/sync';
import { expectProblem, fingerprint, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { factories } from '../../test/factories.js';

const t = useTestApp();
const f = factories(t);
const DAY = 86_400_000;
/** Asserts a setup call's status, showing the answer when it differs. */
const ok = (res: { statusCode: number; body: string }, status: number) => expect(res.statusCode, res.body).toBe(status);
const day = (offset: number) => new Date(Date.now() + offset * DAY).toISOString();

/**
 * A board whose tasks exercise every number: created long ago and recently, done, rejected, overdue
 * by a date-time and by a date, done after the range (overdue at its end), archived, assigned.
 */
async function world() {
  const b = await f.board(2);
  const { owner } = b;
  const worker = await f.spaceMember(owner, b.space.id, 'editor');
  const stage = b.stages[0]!.id;
  const mk = async (name: string, extra: Record<string, unknown> = {}) => (await f.task(owner, stage, { name, ...extra })).id as number;
  const ids = {
    done: await mk('done', { responsibleUserId: [worker.id] }),
    rejected: await mk('rejected'),
    overdue: await mk('overdue', { responsibleUserId: [worker.id] }),
    overdueByDate: await mk('overdue by date'),
    doneLate: await mk('done after the range'),
    fresh: await mk('fresh'),
    archived: await mk('archived'),
  };
  for (const [id, status] of [[ids.done, 1], [ids.rejected, 2], [ids.doneLate, 1]] as const) {
    ok(await t.as(owner).patch(`/tasks/${id}/status`, { status }), 200);
  }
  ok(await t.as(owner).patch(`/tasks/${ids.overdue}/dates`, { dateEnd: day(-3) }), 200);
  ok(await t.as(owner).patch(`/tasks/${ids.overdueByDate}/dates`, { dateEndWithoutTime: day(-3).slice(0, 10) }), 200);
  ok(await t.as(owner).patch(`/tasks/${ids.doneLate}/dates`, { dateEnd: day(-20) }), 200);
  ok(await t.as(owner).patch(`/tasks/${ids.overdue}/set-plan-time`, { planTime: 5 }), 201);
  ok(await t.as(owner).patch(`/tasks/${ids.archived}/archive`, { stageId: stage }), 200);
  ok(await t.as(worker).post('/time-records', { taskId: ids.overdue, hours: 2, date: day(-1).slice(0, 10) }), 201);
  ok(await t.as(worker).post('/time-records', { taskId: ids.overdue, hours: 3, date: day(-40).slice(0, 10) }), 201);
  // History as the report reads it: most tasks are 60 days old; doneLate was finished 5 days ago.
  await t.sql(sql`update tasks set created_at = now() - interval '60 days' where id = any(${`{${Object.values(ids).filter((id) => id !== ids.fresh).join(',')}}`}::bigint[])`);
  await t.sql(sql`update task_status_changes set at = now() - interval '60 days' where status = 0 and task_id <> ${ids.fresh} and task_id = any(${`{${Object.values(ids).join(',')}}`}::bigint[])`);
  await t.sql(sql`update task_status_changes set at = now() - interval '5 days' where task_id = ${ids.doneLate} and status = 1`);
  return { ...b, worker, ids };
}

describe('task reports', () => {
  it('counts a project: snapshot, created, finished, overdue (by date-time and by date), plan and fact time, per assignee', async () => {
    const { owner, worker, project, ids } = await world();
    const res = await t.as(owner).get(`/analytics/projects/${project.id}/task-report`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      total: 6,
      byStatus: [
        { status: 0, count: 3 },
        { status: 1, count: 2 },
        { status: 2, count: 1 },
        { status: 3, count: 0 },
      ],
      overdue: 2,
      created: 1,
      finished: 2,
      planTime: 5,
      factTime: 2,
      byAssignee: [{ userId: worker.id, total: 2, done: 1, overdue: 1, planTime: 5, factTime: 2 }],
    });

    // A range that ended 10 days ago: doneLate was still open then, past its deadline; nothing finished.
    const past = (await t.as(owner).get(`/analytics/projects/${project.id}/task-report?dateFrom=${day(-50).slice(0, 10)}&dateTo=${encodeURIComponent(day(-10))}`)).json();
    expect(past).toMatchObject({ total: 6, created: 0, finished: 0, overdue: 1, factTime: 3 });

    // archived=true counts the archived task in the snapshot.
    expect((await t.as(owner).get(`/analytics/projects/${project.id}/task-report?archived=true`)).json().total).toBe(7);
    expect(ids.archived).toBeGreaterThan(0);
  });

  it('answers CSV on ?format=csv and on Accept: text/csv, formula cells neutralized', async () => {
    const { owner, worker, project } = await world();
    for (const res of [
      await t.as(owner).get(`/analytics/projects/${project.id}/task-report?format=csv`),
      await t.as(owner).request('GET', `/analytics/projects/${project.id}/task-report`, undefined, { accept: 'text/csv' }),
    ]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('text/csv');
      const rows = parse(res.body.replace(/^\uFEFF/, '')) as string[][];
      expect(rows[0]).toEqual(['Row', 'User', 'Total', 'In work', 'Done', 'Rejected', 'Needs attention', 'Overdue', 'Created', 'Finished', 'Plan hours', 'Fact hours']);
      expect(rows[1]).toEqual(['all', '', '6', '3', '2', '1', '0', '2', '1', '2', '5', '2']);
      expect(rows[2]).toEqual(['assignee', String(worker.id), '2', '', '1', '', '', '1', '', '', '5', '2']);
    }
  });

  it('counts a space once per task, linked projects included, other spaces never', async () => {
    const { owner, space, project } = await world();
    const linked = await f.project(owner, (await f.space(owner, 'Elsewhere')).id, 'Linked');
    const linkedStage = await f.stage(owner, linked.id);
    await f.task(owner, linkedStage.id, { name: 'linked task' });
    const other = await f.project(owner, (await f.space(owner, 'Other')).id, 'Other');
    await f.task(owner, (await f.stage(owner, other.id)).id, { name: 'not counted' });
    await t.sql(sql`insert into project_spaces (organization_id, project_id, space_id) values (${owner.organizationId}, ${linked.id}, ${space.id})`);
    // The same task shown in the linked project too: still one task.
    const res = await t.as(owner).get(`/analytics/spaces/${space.id}/task-report`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ total: 7, created: 2 });
    expect(project.id).toBeGreaterThan(0);
  });

  it("counts a user's assigned tasks, only among those the caller can read", async () => {
    const { owner, worker, ids } = await world();
    const hidden = await f.project(owner, (await f.space(owner, 'Private')).id, 'Private');
    const secret = await f.task(owner, (await f.stage(owner, hidden.id)).id, { name: 'hidden' });
    // Assigned while the worker was in that space, which it has left since: its own report leaves
    // that task out; an admin's does not.
    await t.sql(sql`insert into task_assignees (organization_id, task_id, user_id) values (${owner.organizationId}, ${secret.id}, ${worker.id})`);
    // The worker is not in the private space: its own report leaves that task out; an admin's does not.
    const self = await t.as(worker).get(`/analytics/users/${worker.id}/task-report`);
    expect(self.statusCode).toBe(200);
    expect(self.json()).toMatchObject({ total: 2, overdue: 1, finished: 1, byAssignee: [{ userId: worker.id, total: 2 }] });
    expect((await t.as(owner).get(`/analytics/users/${worker.id}/task-report`)).json()).toMatchObject({ total: 3 });
    expect(ids.done).toBeGreaterThan(0);
  });

  it('refuses a bad range with 400 naming the field', async () => {
    const { owner, project } = await world();
    for (const query of ['dateFrom=yesterday', 'dateFrom=2026-02-30', 'dateFrom=2026-05-02&dateTo=2026-05-01', 'dateTo=2026-13-01', 'format=xml', 'archived=maybe']) {
      const res = await t.as(owner).get(`/analytics/projects/${project.id}/task-report?${query}`);
      expect(expectProblem(res, 400).detail, query).toEqual(expect.any(String));
    }
    const before = await fingerprint(t, [owner.organizationId]);
    expectProblem(await t.as(owner).get(`/analytics/spaces/1/task-report?dateFrom=x`), 400);
    expect(await fingerprint(t, [owner.organizationId])).toBe(before);
  });
});

for (const [name, url, role] of [
  ['project', (w: Awaited<ReturnType<typeof world>>) => `/analytics/projects/${w.project.id}/task-report`, 'reader'],
  ['space', (w: Awaited<ReturnType<typeof world>>) => `/analytics/spaces/${w.space.id}/task-report`, 'editor'],
] as const) {
  commonCases(t, `GET /analytics/${name}s/{id}/task-report`, {
    method: 'GET',
    async setup() {
      const w = await world();
      return { url: url(w), owner: w.owner, forbidden: await f.spaceMember(w.owner, w.space.id, role) };
    },
  });
}

commonCases(t, 'GET /analytics/users/{userId}/task-report', {
  method: 'GET',
  async setup() {
    const w = await world();
    // Another member may not read the worker's report; only the worker itself or an admin.
    return { url: `/analytics/users/${w.worker.id}/task-report`, owner: w.owner, forbidden: await f.spaceMember(w.owner, w.space.id, 'admin') };
  },
});
