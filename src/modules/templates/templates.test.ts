import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, fingerprint, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { docsFactories } from '../docs/docs.fixtures.js';
import { changeLog } from '../events/emitted.fixtures.js';
import { boardWithRoles } from '../tasks/tasks.fixtures.js';

const t = useTestApp();
const d = docsFactories(t);
const newEvents = changeLog(t);

/** A project worth copying: two columns (a colour, a limit), two tabs, three tasks with people, dates, a label and subtasks. */
async function source() {
  const b = await boardWithRoles(t, 2);
  const as = t.as(b.owner);
  const editor = await b.f.spaceMember(b.owner, b.space.id, 'editor');
  await as.patch(`/projects/${b.project.id}/stages/${b.stageIds[0]}/color`, { color: '#FF0000' });
  await as.patch(`/projects/${b.project.id}/stages/${b.stageIds[1]}/tasks-limit`, { tasksLimit: 5 });
  const group = await d.group(b.owner, b.space.id);
  const page = await d.page(b.owner, b.space.id, group.id, { name: 'Guide' });
  await as.post(`/projects/${b.project.id}/tabs`, { type: 'link', name: 'Site', url: 'https://example.com' });
  await as.post(`/projects/${b.project.id}/tabs`, { type: 'doc', name: 'Guide', pageId: page.id });
  const label = (await as.post('/labels', { name: 'bug', color: '#00FF00' })).json().id as number;
  const first = await b.f.task(b.owner, b.stageIds[0]!, { name: 'First', order: 0, responsibleUserId: [b.member.id], dateEnd: '2026-01-01T00:00:00.000Z', importance: 3 });
  await as.post(`/tasks/${first.id}/labels`, { labelId: label });
  await as.post(`/tasks/${first.id}/members`, { userId: b.member.id });
  await as.post(`/tasks/${first.id}/subtasks`, { name: 'Step one' });
  const second = await b.f.task(b.owner, b.stageIds[0]!, { name: 'Second', order: 1, description: 'Why and how' });
  await as.patch(`/tasks/${second.id}/status`, { status: 1 });
  await b.f.task(b.owner, b.stageIds[1]!, { name: 'Third', order: 0 });
  const archived = await b.f.task(b.owner, b.stageIds[1]!, { name: 'Archived', order: 1 });
  await as.patch(`/tasks/${archived.id}/archive`, { stageId: b.stageIds[1]! });
  return { ...b, editor, page, label };
}

describe('POST /templates and POST /projects {templateId}', () => {
  it('makes a template of columns, tabs and tasks, and a new project from it: no dates, people or status, the caller creator', async () => {
    const w = await source();
    const made = await t.as(w.editor).post('/templates', { projectId: w.project.id, name: ' Sprint ', withTasks: true });
    expect(made.statusCode).toBe(201);
    const template = made.json();
    expect(Object.keys(template).sort()).toEqual(['createdAt', 'creatorId', 'id', 'name', 'sourceProjectId', 'stages', 'updatedAt', 'withTasks']);
    expect(template).toMatchObject({
      name: 'Sprint',
      sourceProjectId: w.project.id,
      withTasks: true,
      creatorId: w.editor.id,
      stages: [{ name: 'Column 1', color: '#FF0000', tasksLimit: 0 }, { name: 'Column 2', color: expect.any(String), tasksLimit: 5 }],
    });
    // A snapshot: later changes to the source are not in it.
    await t.as(w.owner).patch(`/projects/${w.project.id}/stages/${w.stageIds[0]}/name`, { name: 'Renamed' });

    await newEvents(w.owner.organizationId);
    const res = await t.as(w.editor).post('/projects', { spaceId: w.space.id, name: 'Next sprint', templateId: template.id });
    expect(res.statusCode).toBe(201);
    const project = res.json();
    expect(project.stages.map((s: { name: string; order: string; tasksLimit: number }) => [s.name, s.order, s.tasksLimit])).toEqual([['Column 1', '0', 0], ['Column 2', '1', 5]]);
    expect(project.tabs.map((x: { type: string; name: string; pageId: number | null }) => [x.type, x.name, x.pageId])).toEqual([['link', 'Site', null], ['doc', 'Guide', w.page.id]]);

    const board = (await t.as(w.reader).get(`/projects/${project.id}/tasks`)).json() as Array<Record<string, any>>;
    expect(board.map((k) => [k.name, k.stages[0].stageId, k.stages[0].order])).toEqual([
      ['First', project.stages[0].id, '0'],
      ['Second', project.stages[0].id, '1'],
      ['Third', project.stages[1].id, '0'],
    ]);
    expect(board[0]).toMatchObject({ status: 0, creatorId: w.editor.id, dateEnd: null, importance: 3, responsibleUserId: [], members: [], tags: [w.label], list: [{ name: 'Step one', isChecked: false }] });
    expect(board[1]).toMatchObject({ status: 0, hasDescription: true });
    const [history] = await t.sql<{ type: number; state: string }>(sql`select type, state from task_history where task_id = ${board[0]!.id}`);
    expect(history).toEqual({ type: 0, state: 'created from template "Sprint"' });
    const types = (await newEvents(w.owner.organizationId)).map((e) => e.type);
    expect(types.filter((x) => x === 'task.created')).toHaveLength(3);
    expect(types.at(-1)).toBe('project.created');
  });

  it('without withTasks keeps columns and tabs only; a tab whose page the caller cannot read is left out', async () => {
    const w = await source();
    const template = (await t.as(w.owner).post('/templates', { projectId: w.project.id, name: 'Empty board' })).json();
    expect(template.withTasks).toBe(false);
    const other = await w.f.space(w.owner, 'Elsewhere');
    const outsider = await w.f.spaceMember(w.owner, other.id, 'editor'); // not in the page's space
    const res = await t.as(outsider).post('/projects', { spaceId: other.id, name: 'Copy', templateId: template.id });
    expect(res.statusCode).toBe(201);
    expect(res.json().tabs.map((x: { type: string }) => x.type)).toEqual(['link']);
    expect((await t.as(outsider).get(`/projects/${res.json().id}/tasks`)).json()).toEqual([]);
  });

  it('refuses an unknown template or one of another organization, creating no project', async () => {
    const w = await source();
    const stranger = await t.org();
    const strangerSpace = await w.f.space(stranger, 'S');
    const theirs = (await t.as(w.owner).post('/templates', { projectId: w.project.id, name: 'Ours' })).json();
    const before = await fingerprint(t, [stranger.organizationId, w.owner.organizationId], []);
    expectProblem(await t.as(stranger).post('/projects', { spaceId: strangerSpace.id, name: 'X', templateId: theirs.id }), 400, 'REFERENCE_NOT_FOUND');
    expectProblem(await t.as(w.owner).post('/projects', { spaceId: w.space.id, name: 'X', templateId: 999_999_999 }), 400, 'REFERENCE_NOT_FOUND');
    expect(await fingerprint(t, [stranger.organizationId, w.owner.organizationId], [])).toBe(before);
    // Nor can one be made from another organization's project.
    expectProblem(await t.as(stranger).post('/templates', { projectId: w.project.id, name: 'Theirs' }), 404, 'NOT_FOUND');
  });

  it('refuses a template of more than 2,000 tasks with a clear 400', async () => {
    const w = await source();
    await t.sql(sql`
      with made as (
        insert into tasks (organization_id, space_id, project_id, name, creator_id)
        select ${w.owner.organizationId}, ${w.space.id}, ${w.project.id}, 'bulk ' || g, ${w.owner.id} from generate_series(1, 2000) g
        returning id)
      insert into task_stages (organization_id, task_id, project_id, stage_id, "order", pinned)
      select ${w.owner.organizationId}, id, ${w.project.id}, ${w.stageIds[1]}, 100 + row_number() over (order by id), true from made`);
    const res = await t.as(w.owner).post('/templates', { projectId: w.project.id, name: 'Huge', withTasks: true });
    expect(expectProblem(res, 400, 'BAD_REQUEST').detail).toContain('at most 2000 tasks');
    expect((await t.as(w.owner).get('/templates')).json()).toEqual([]);
  });
});

describe('GET /templates and DELETE /templates/{id}', () => {
  it("lists the organization's templates by name with paging headers, to every member", async () => {
    const w = await source();
    for (const name of ['Beta', 'Alpha', 'Gamma']) await t.as(w.owner).post('/templates', { projectId: w.project.id, name });
    const res = await t.as(w.reader).get('/templates?limit=2');
    expect([res.statusCode, res.headers['x-total-count'], res.json().map((x: { name: string }) => x.name)]).toEqual([200, '3', ['Alpha', 'Beta']]);
    expect(res.headers.link).toBe('</templates?limit=2&offset=2>; rel="next"');
    expect((await t.as(await t.org()).get('/templates')).json()).toEqual([]);
  });

  it('lets its creator or an organization admin delete a template, nobody else', async () => {
    const w = await source();
    const mine = (await t.as(w.editor).post('/templates', { projectId: w.project.id, name: 'Mine' })).json();
    expectProblem(await t.as(w.member).delete(`/templates/${mine.id}`), 403, 'FORBIDDEN');
    expect((await t.as(w.editor).delete(`/templates/${mine.id}`)).statusCode).toBe(204);
    expectProblem(await t.as(w.editor).delete(`/templates/${mine.id}`), 404, 'NOT_FOUND');
    const theirs = (await t.as(w.editor).post('/templates', { projectId: w.project.id, name: 'Theirs' })).json();
    expect((await t.as(w.owner).delete(`/templates/${theirs.id}`)).statusCode).toBe(204);
  });
});

commonCases(t, 'GET /templates', {
  method: 'GET',
  foreignId: false,
  async setup() {
    const w = await source();
    return { url: '/templates', owner: w.owner };
  },
});
commonCases(t, 'POST /templates', {
  method: 'POST',
  foreignId: false,
  async setup() {
    const w = await source();
    return { url: '/templates', owner: w.owner, body: { projectId: w.project.id, name: 'T' }, badBody: { projectId: w.project.id }, forbidden: w.member };
  },
});
commonCases(t, 'DELETE /templates/{id}', {
  method: 'DELETE',
  async setup() {
    const w = await source();
    const template = (await t.as(w.editor).post('/templates', { projectId: w.project.id, name: 'T' })).json();
    return { url: `/templates/${template.id}`, owner: w.owner, forbidden: w.member };
  },
});
