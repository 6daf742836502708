import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { countQueries } from '../../../test/queries.js';
import { expectProblem, useTestApp, type TestKit, type TestUser } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { boardWithRoles, expectTaskForm, tasksIn } from '../tasks.fixtures.js';

const t = useTestApp();
const ids = (res: { json(): unknown }) => (res.json() as Array<{ id: number }>).map((k) => k.id);

/**
 * `n` tasks at the end of a column as rows (a setup shortcut for volume), each with an assignee,
 * a member, a label, two subtasks, and every other one a description, a message, a time record and
 * an inspector — so every query of the read path has rows to return.
 */
async function seedTasks(kit: TestKit, owner: TestUser, board: { spaceId: number; projectId: number; stageId: number }, n: number): Promise<void> {
  const org = owner.organizationId;
  const [label] = await kit.sql<{ id: number }>(sql`insert into labels (organization_id, name, color) values (${org}, 'bulk', '#00FF00') returning id`);
  await kit.sql(sql`
    with ins as (
      insert into tasks (organization_id, space_id, project_id, name, creator_id, description, date_end)
      select ${org}, ${board.spaceId}, ${board.projectId}, 'Bulk ' || g, ${owner.id}, case when g % 2 = 0 then 'text' end, now() + g * interval '1 hour'
      from generate_series(1, ${n}) g returning id)
    insert into task_stages (organization_id, task_id, project_id, stage_id, "order", pinned)
    select ${org}, id, ${board.projectId}, ${board.stageId},
      (select count(*) from task_stages where stage_id = ${board.stageId} and "order" is not null) + row_number() over (order by id) - 1, true
    from ins`);
  const mine = sql`(select task_id from task_stages where stage_id = ${board.stageId})`;
  await kit.sql(sql`insert into task_assignees (organization_id, task_id, user_id) select ${org}, task_id, ${owner.id} from ${mine} x`);
  await kit.sql(sql`insert into task_members (organization_id, task_id, user_id) select ${org}, task_id, ${owner.id} from ${mine} x`);
  await kit.sql(sql`insert into task_labels (organization_id, task_id, label_id) select ${org}, task_id, ${label!.id} from ${mine} x`);
  await kit.sql(sql`insert into subtasks (organization_id, task_id, name, "order", is_checked) select ${org}, task_id, 's' || k, k, k = 0 from ${mine} x, generate_series(0, 1) k`);
  await kit.sql(sql`insert into task_messages (organization_id, task_id, author_id, text) select ${org}, task_id, ${owner.id}, 'hi' from ${mine} x where task_id % 2 = 0`);
  await kit.sql(sql`insert into time_records (organization_id, task_id, user_id, date, hours) select ${org}, task_id, ${owner.id}, '2026-01-01', 1.25 from ${mine} x where task_id % 2 = 0`);
  await kit.sql(sql`insert into task_inspectors (organization_id, task_id, user_id) select ${org}, task_id, ${owner.id} from ${mine} x where task_id % 2 = 1`);
}

/** Counts statements reaching the driver (PGlite or the pg pool) while `run` executes. */
describe('GET /projects/{projectId}/tasks', () => {
  it('answers the board by column and position, with filters', async () => {
    const b = await boardWithRoles(t);
    const [a, c] = await tasksIn(t, b.owner, b.stageIds[1]!, 2);
    const [d, e] = await tasksIn(t, b.owner, b.stageIds[0]!, 2);
    await t.sql(sql`update tasks set status = 3, date_end = '2026-03-10T12:00:00Z' where id = ${c}`);
    await t.sql(sql`update tasks set date_end = '2026-03-11T12:00:00Z' where id = ${d}`);
    await t.sql(sql`insert into task_assignees (organization_id, task_id, user_id) values (${b.owner.organizationId}, ${e}, ${b.member.id})`);

    const res = await t.as(b.reader).get(`/projects/${b.project.id}/tasks`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('4');
    expect(ids(res)).toEqual([d, e, a, c]);
    for (const task of res.json()) expectTaskForm(task);

    const url = `/projects/${b.project.id}/tasks`;
    expect(ids(await t.as(b.reader).get(`${url}?stageId=${b.stageIds[1]}`))).toEqual([a, c]);
    expect(ids(await t.as(b.reader).get(`${url}?statuses=3,1`))).toEqual([c]);
    expect(ids(await t.as(b.reader).get(`${url}?responsibleId=${b.member.id}`))).toEqual([e]);
    expect(ids(await t.as(b.reader).get(`${url}?dateFrom=2026-03-10&dateTo=2026-03-10`))).toEqual([c]);
    expect(ids(await t.as(b.reader).get(`${url}?dateFrom=2026-03-10T13:00:00Z`))).toEqual([d]);
    expectProblem(await t.as(b.reader).get(`${url}?statuses=7`), 400, 'VALIDATION_FAILED');
    expectProblem(await t.as(b.reader).get(`${url}?limit=10001`), 400, 'VALIDATION_FAILED');
  });

  it('pages with limit/offset, X-Total-Count and Link', async () => {
    const b = await boardWithRoles(t);
    const all = await tasksIn(t, b.owner, b.stageIds[0]!, 5);
    const first = await t.as(b.owner).get(`/projects/${b.project.id}/tasks?limit=2`);
    expect([first.headers['x-total-count'], ids(first)]).toEqual(['5', all.slice(0, 2)]);
    expect(first.headers.link).toBe(`</projects/${b.project.id}/tasks?limit=2&offset=2>; rel="next"`);
    const last = await t.as(b.owner).get(`/projects/${b.project.id}/tasks?limit=2&offset=4`);
    expect([last.headers['x-total-count'], ids(last), last.headers.link]).toEqual(['5', all.slice(4), undefined]);
    const past = await t.as(b.owner).get(`/projects/${b.project.id}/tasks?offset=9`);
    expect([past.headers['x-total-count'], past.json()]).toEqual(['5', []]);
  });

  it('loads 1,000 tasks with a fixed number of queries (one more than 10 tasks)', async () => {
    const b = await boardWithRoles(t);
    const big = await b.f.project(b.owner, b.space.id, 'Big');
    const bigStage = await b.f.stage(b.owner, big.id, 'All');
    await seedTasks(t, b.owner, { spaceId: b.space.id, projectId: b.project.id, stageId: b.stageIds[0]! }, 10);
    await seedTasks(t, b.owner, { spaceId: b.space.id, projectId: big.id, stageId: bigStage.id }, 1000);
    // Warm-up from a cold cache: the credential is looked up (and its sliding expiry written) here,
    // and stays cached for the minute the two counted reads take.
    t.app.readCache.forgetAll();
    await t.as(b.owner).get(`/projects/${b.project.id}/tasks`);

    let small!: Awaited<ReturnType<ReturnType<typeof t.as>['get']>>;
    let large!: typeof small;
    // Past the read cache: what is counted is the database's work.
    const fresh = { 'cache-control': 'no-cache' };
    const smallCount = await countQueries(t, async () => (small = await t.as(b.owner).get(`/projects/${b.project.id}/tasks`, fresh)));
    const started = performance.now();
    const largeCount = await countQueries(t, async () => (large = await t.as(b.owner).get(`/projects/${big.id}/tasks`, fresh)));
    const ms = performance.now() - started;
    expect(small.json()).toHaveLength(10);
    expect(large.json()).toHaveLength(1000);
    expect(large.headers['x-total-count']).toBe('1000');
    expectTaskForm(large.json()[999]);
    const even = (large.json() as Array<{ id: number }>).find((k) => k.id % 2 === 0);
    expect(even).toMatchObject({ hasMessages: true, factTime: 1.25, inspectors: [], checklist: { items: 2, itemsChecked: 1 }, members: [b.owner.id] });
    // A board past a few tasks reads its records in two statements run side by side (task-records.ts):
    // one more than a few tasks' one, and then no more however many tasks there are.
    expect(largeCount).toBe(smallCount + 1);
    expect(largeCount).toBeLessThanOrEqual(16);
    console.info(`project board read: ${largeCount} queries for 10 and for 1,000 tasks; 1,000 tasks in ${ms.toFixed(0)} ms on ${t.database.kind}`);
  });

  it('answers 404 for a project in the trash', async () => {
    const b = await boardWithRoles(t);
    await t.sql(sql`update projects set deleted_at = now() where id = ${b.project.id}`);
    expectProblem(await t.as(b.owner).get(`/projects/${b.project.id}/tasks`), 404, 'NOT_FOUND');
  });

  commonCases(t, 'GET /projects/{projectId}/tasks', {
    method: 'GET',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      await b.f.task(b.owner, b.stageIds[0]!);
      return { url: `/projects/${b.project.id}/tasks`, owner: b.owner };
    },
  });
});

describe('GET /projects/{projectId}/tasks/archived and /closed', () => {
  it('lists archived tasks (newest first, date filter on archiving) and closed ones (statuses 1, 2)', async () => {
    const b = await boardWithRoles(t);
    const [a, c, d, e] = await tasksIn(t, b.owner, b.stageIds[0]!, 4);
    for (const id of [a, c]) expect((await t.as(b.owner).patch(`/tasks/${id}/archive`, { stageId: b.stageIds[0] })).statusCode).toBe(200);
    await t.sql(sql`update tasks set archived_at = '2026-01-01T10:00:00Z' where id = ${a}`);
    await t.sql(sql`update tasks set status = 1, date_status_changed = '2026-02-01T00:00:00Z' where id = ${d}`);
    await t.sql(sql`update tasks set status = 2, date_status_changed = '2026-02-02T00:00:00Z' where id = ${e}`);
    const base = `/projects/${b.project.id}/tasks`;

    const archived = await t.as(b.reader).get(`${base}/archived`);
    expect([archived.statusCode, archived.headers['x-total-count'], ids(archived)]).toEqual([200, '2', [c, a]]);
    expect(ids(await t.as(b.reader).get(`${base}/archived?dateTo=2026-01-01`))).toEqual([a]);

    const closed = await t.as(b.reader).get(`${base}/closed`);
    expect([closed.statusCode, ids(closed)]).toEqual([200, [e, d]]);
    for (const task of closed.json()) expectTaskForm(task);
    expect(ids(await t.as(b.reader).get(`${base}/closed?statuses=1`))).toEqual([d]);
    expect(ids(await t.as(b.reader).get(`${base}/closed?dateFrom=2026-02-02`))).toEqual([e]);
    expectProblem(await t.as(b.reader).get(`${base}/closed?statuses=0`), 400, 'VALIDATION_FAILED');
  });

  for (const tail of ['archived', 'closed']) {
    commonCases(t, `GET /projects/{projectId}/tasks/${tail}`, {
      method: 'GET',
      async setup(kit) {
        const b = await boardWithRoles(kit);
        return { url: `/projects/${b.project.id}/tasks/${tail}`, owner: b.owner };
      },
    });
  }
});

describe('GET /spaces/{spaceId}/tasks', () => {
  it("lists the tasks of the space's projects and of projects linked into it, each once", async () => {
    const b = await boardWithRoles(t);
    const second = await b.f.project(b.owner, b.space.id, 'Second');
    const secondStage = await b.f.stage(b.owner, second.id, 'S');
    const elsewhere = await b.f.space(b.owner, 'Elsewhere');
    const linked = await b.f.project(b.owner, elsewhere.id, 'Linked');
    const linkedStage = await b.f.stage(b.owner, linked.id, 'L');
    const foreign = await b.f.project(b.owner, elsewhere.id, 'Foreign');
    const foreignStage = await b.f.stage(b.owner, foreign.id, 'F');
    await t.sql(sql`insert into project_spaces (organization_id, project_id, space_id) values (${b.owner.organizationId}, ${linked.id}, ${b.space.id})`);

    const [a] = await tasksIn(t, b.owner, b.stageIds[0]!, 1);
    const [c] = await tasksIn(t, b.owner, secondStage.id, 1);
    const [d] = await tasksIn(t, b.owner, linkedStage.id, 1);
    await tasksIn(t, b.owner, foreignStage.id, 1);
    await t.sql(sql`update tasks set status = 1 where id = ${c}`);

    const res = await t.as(b.reader).get(`/spaces/${b.space.id}/tasks`);
    expect(res.statusCode).toBe(200);
    expect([res.headers['x-total-count'], ids(res)]).toEqual(['3', [a, c, d]]);
    for (const task of res.json()) expectTaskForm(task);
    expect(ids(await t.as(b.reader).get(`/spaces/${b.space.id}/tasks?statuses=0`))).toEqual([a, d]);
    await t.sql(sql`update projects set deleted_at = now() where id = ${second.id}`);
    expect(ids(await t.as(b.reader).get(`/spaces/${b.space.id}/tasks`))).toEqual([a, d]);
  });

  commonCases(t, 'GET /spaces/{spaceId}/tasks', {
    method: 'GET',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      await b.f.task(b.owner, b.stageIds[0]!);
      return { url: `/spaces/${b.space.id}/tasks`, owner: b.owner };
    },
  });
});
