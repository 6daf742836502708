import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { boardWithRoles, expectTaskForm, tasksIn } from '../tasks.fixtures.js';
import { RANKED_WINDOW } from './search.service.js';
import { messageVector, taskVector } from './search.vectors.js';

const t = useTestApp();
const ids = (res: { json(): unknown }) => (res.json() as Array<{ id: number }>).map((k) => k.id);
const search = (q: string) => `/tasks/search?q=${encodeURIComponent(q)}`;

describe('GET /tasks/search', () => {
  it('finds tasks by a word of the name, of the description and of a chat message, best match first', async () => {
    const b = await boardWithRoles(t);
    const org = b.owner.organizationId;
    const byName = await b.f.task(b.owner, b.stageIds[0]!, { name: 'Quarterly invoice run' });
    const byDescription = await b.f.task(b.owner, b.stageIds[0]!, { name: 'Billing', description: 'Send the INVOICE to the customer' });
    const byMessage = await b.f.task(b.owner, b.stageIds[1]!, { name: 'Call the bank' });
    const [unrelated] = await tasksIn(t, b.owner, b.stageIds[0]!, 1);
    await t.sql(sql`insert into task_messages (organization_id, task_id, author_id, text) values (${org}, ${byMessage.id}, ${b.owner.id}, 'they lost the invoice again')`);
    await t.sql(sql`insert into task_messages (organization_id, task_id, author_id, text) values (${org}, ${unrelated}, ${b.owner.id}, 'nothing to see')`);

    const res = await t.as(b.reader).get(search('invoice'));
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('3');
    const found = ids(res);
    expect(new Set(found)).toEqual(new Set([byName.id, byDescription.id, byMessage.id]));
    // Said only in chat, the task ranks below tasks that carry the word themselves.
    expect(found[2]).toBe(byMessage.id);
    for (const task of res.json()) expectTaskForm(task);

    expect(ids(await t.as(b.reader).get(search('customer')))).toEqual([byDescription.id]);
    expect(ids(await t.as(b.reader).get(search('lost again')))).toEqual([byMessage.id]);
    expect(ids(await t.as(b.reader).get(search('"invoice run"')))).toEqual([byName.id]);
    // The task's own text and each message are matched apart: an excluded word excludes the text it is in.
    expect(ids(await t.as(b.reader).get(search('invoice -customer -lost')))).toEqual([byName.id]);
    expect(ids(await t.as(b.reader).get(`${search('invoice')}&projectId=${b.project.id}&statuses=0`))).toHaveLength(3);
    expect(ids(await t.as(b.reader).get(search('!!!')))).toEqual([]);
  });

  it('never returns a task of another organization or of a space the caller is not in; archived only on request', async () => {
    const b = await boardWithRoles(t);
    const mine = await b.f.task(b.owner, b.stageIds[0]!, { name: 'zebra crossing' });
    const closed = await b.f.space(b.owner, 'Closed');
    const closedProject = await b.f.project(b.owner, closed.id);
    const closedStage = await b.f.stage(b.owner, closedProject.id);
    const hidden = await b.f.task(b.owner, closedStage.id, { name: 'zebra in the closed space' });
    const foreign = await boardWithRoles(t);
    const theirs = await foreign.f.task(foreign.owner, foreign.stageIds[0]!, { name: 'zebra abroad', description: 'zebra' });
    await t.sql(sql`insert into task_messages (organization_id, task_id, author_id, text) values (${foreign.owner.organizationId}, ${theirs.id}, ${foreign.owner.id}, 'zebra zebra')`);
    const gone = await b.f.task(b.owner, b.stageIds[0]!, { name: 'zebra archived' });
    await t.as(b.owner).patch(`/tasks/${gone.id}/archive`, { stageId: b.stageIds[0] });

    expect(ids(await t.as(b.reader).get(search('zebra')))).toEqual([mine.id]);
    expect(ids(await t.as(b.reader).get(`${search('zebra')}&archived=true`))).toEqual([gone.id]);
    expect(new Set(ids(await t.as(b.owner).get(search('zebra'))))).toEqual(new Set([mine.id, hidden.id]));
    expect(ids(await t.as(b.owner).get(`${search('zebra')}&spaceId=${closed.id}`))).toEqual([hidden.id]);
    expect(ids(await t.as(foreign.owner).get(search('zebra')))).toEqual([theirs.id]);
    expect(ids(await t.as(b.reader).get(`${search('zebra')}&spaceId=${foreign.space.id}`))).toEqual([]);
    expectProblem(await t.as(b.reader).get('/tasks/search?q=%20'), 400, 'VALIDATION_FAILED');
    expectProblem(await t.as(b.reader).get('/tasks/search'), 400, 'VALIDATION_FAILED');
  });

  it('finds a task by its new words once renamed or described again, and no longer by the old ones', async () => {
    const b = await boardWithRoles(t);
    const task = await b.f.task(b.owner, b.stageIds[0]!, { name: 'walrus inventory' });
    const [other] = await tasksIn(t, b.owner, b.stageIds[0]!, 1);
    expect(ids(await t.as(b.reader).get(search('walrus')))).toEqual([task.id]);

    expect((await t.as(b.owner).patch(`/tasks/${task.id}/name`, { name: 'narwhal inventory' })).statusCode).toBe(200);
    expect(ids(await t.as(b.reader).get(search('walrus')))).toEqual([]);
    expect(ids(await t.as(b.reader).get(search('narwhal')))).toEqual([task.id]);

    expect((await t.as(b.owner).patch(`/tasks/${other}/description`, { description: 'count the narwhal tusks' })).statusCode).toBe(200);
    const res = await t.as(b.reader).get(search('narwhal'));
    expect(res.headers['x-total-count']).toBe('2');
    expect(new Set(ids(res))).toEqual(new Set([task.id, other]));
  });

  it('counts every match past the page it answers, best match first across pages', async () => {
    const b = await boardWithRoles(t);
    const org = b.owner.organizationId;
    const strong = await b.f.task(b.owner, b.stageIds[0]!, { name: 'otter otter otter' });
    const plain = await tasksIn(t, b.owner, b.stageIds[1]!, 4);
    for (const id of plain) await t.as(b.owner).patch(`/tasks/${id}/name`, { name: `otter ${id}` });
    const chatOnly = await b.f.task(b.owner, b.stageIds[0]!, { name: 'unrelated' });
    await t.sql(sql`insert into task_messages (organization_id, task_id, author_id, text) values (${org}, ${chatOnly.id}, ${b.owner.id}, 'otter')`);

    const first = await t.as(b.reader).get(`${search('otter')}&limit=2`);
    expect(first.headers['x-total-count']).toBe('6');
    expect(ids(first)[0]).toBe(strong.id);
    const all = ids(await t.as(b.reader).get(search('otter')));
    expect(all).toHaveLength(6);
    expect(all.at(-1)).toBe(chatOnly.id);
    // Equal ranks: the later task first.
    expect(all.slice(1, 5)).toEqual([...plain].sort((x, y) => y - x));
    expect(ids(await t.as(b.reader).get(`${search('otter')}&limit=2&offset=2`))).toEqual(all.slice(2, 4));
    const past = await t.as(b.reader).get(`${search('otter')}&limit=2&offset=10`);
    expect(past.json()).toEqual([]);
    expect(past.headers['x-total-count']).toBe('6');
  });

  it('ranks the newest RANKED_WINDOW matches best first, then answers the older ones newest first, counting all', async () => {
    const b = await boardWithRoles(t);
    const org = b.owner.organizationId;
    const stage = b.stageIds[0]!;
    // Inserted first, so the oldest: the strongest match of all, but outside the ranked window.
    const old = await b.f.task(b.owner, stage, { name: 'otter otter otter otter' });
    await t.sql(sql`
      with ins as (
        insert into tasks (organization_id, space_id, project_id, name, creator_id)
        select ${org}, ${Number(b.space.id)}, ${Number(b.project.id)}, 'otter ' || g, ${b.owner.id} from generate_series(1, ${RANKED_WINDOW + 2}) g returning id)
      insert into task_stages (organization_id, task_id, project_id, stage_id, "order", pinned)
      select ${org}, id, ${Number(b.project.id)}, ${stage}, 1000 + row_number() over (order by id), true from ins`);
    const [newer] = await t.sql<{ id: number }>(sql`select id from tasks where organization_id = ${org} order by id desc offset 10 limit 1`);
    await t.sql(sql`update tasks set name = 'otter otter' where id = ${newer!.id}`);
    const chatOnly = await b.f.task(b.owner, stage, { name: 'unrelated' });
    await t.sql(sql`insert into task_messages (organization_id, task_id, author_id, text) values (${org}, ${chatOnly.id}, ${b.owner.id}, 'otter')`);
    // Every task whose own text matches, newest first (the oldest one included).
    const newest = (await t.sql<{ id: number }>(sql`select id from tasks where organization_id = ${org} and name like 'otter%' order by id desc`)).map((r) => Number(r.id));

    const first = await t.as(b.reader).get(`${search('otter')}&limit=3`);
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-total-count']).toBe(String(RANKED_WINDOW + 4));
    // Within the window: the stronger match first, then equal ranks newest first; chat alone ranks last.
    expect(ids(first)).toEqual([Number(newer!.id), ...newest.filter((id) => id !== Number(newer!.id)).slice(0, 2)]);
    const window = ids(await t.as(b.reader).get(search('otter')));
    expect(window).toHaveLength(RANKED_WINDOW);
    expect(window).not.toContain(old.id);
    expect(window.at(-1)).toBe(chatOnly.id);
    // Past the window, what is left newest first: the oldest task (the strongest match) comes last.
    const past = await t.as(b.reader).get(`${search('otter')}&limit=10&offset=${RANKED_WINDOW - 1}`);
    expect(past.headers['x-total-count']).toBe(String(RANKED_WINDOW + 4));
    const rest = ids(past);
    expect(rest[0]).toBe(chatOnly.id);
    expect(rest.slice(1)).toEqual(newest.filter((id) => !window.includes(id)));
    expect(rest).toHaveLength(5);
    expect(rest.at(-1)).toBe(old.id);
    expect(new Set([...window, ...rest.slice(1)]).size).toBe(RANKED_WINDOW + 4);
  });

  it('searches through the GIN indexes', async () => {
    const plan = async (query: ReturnType<typeof sql>) => {
      const rows = await t.database.db.transaction(async (tx) => {
        await tx.execute(sql`set local enable_seqscan = off`);
        return (await tx.execute(sql`explain ${query}`)) as unknown as { rows: Array<Record<string, string>> };
      });
      return rows.rows.map((r) => Object.values(r)[0]).join('\n');
    };
    expect(await plan(sql`select t.id from tasks t where ${taskVector} @@ websearch_to_tsquery('simple', 'x')`)).toContain('tasks_search_idx');
    expect(await plan(sql`select m.task_id from task_messages m where ${messageVector} @@ websearch_to_tsquery('simple', 'x')`)).toContain('task_messages_search_idx');
  });

  commonCases(t, 'GET /tasks/search', {
    method: 'GET',
    async setup(kit) {
      const b = await boardWithRoles(kit);
      return { url: search('anything'), owner: b.owner };
    },
  });
});
