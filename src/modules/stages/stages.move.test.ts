import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { STAGE_KEYS, boardWithRoles, columnTasks, projectColumns, seedTask } from './stages.fixtures.js';

const t = useTestApp();

/** The moved (type 3) history rows of the tasks. */
async function history(taskIds: number[]) {
  return t.sql<{ taskId: number; type: number; state: string; projectName: string; taskName: string }>(
    sql`select task_id as "taskId", type, state, project_name as "projectName", task_name as "taskName"
        from task_history where task_id = any(${`{${taskIds.join(',')}}`}::bigint[]) and type = 3 order by id`,
  );
}

describe('move a column to another project', () => {
  it('takes its tasks along: placement, home project and space, history type 3', async () => {
    const b = await boardWithRoles(t, 2);
    const otherSpace = await b.f.space(b.owner, 'Elsewhere');
    const target = await b.f.project(b.owner, otherSpace.id, 'Target');
    const tc = await b.f.stage(b.owner, target.id, 'Target column', 0);
    const [c1, c2] = [b.stages[0]!.id, b.stages[1]!.id];
    const x = await seedTask(t, b.owner, c1, { name: 'X' });
    const y = await seedTask(t, b.owner, c1, { name: 'Y' });
    const stay = await seedTask(t, b.owner, c2, { name: 'Stay' });

    const res = await t.as(b.owner).patch(`/projects/${b.project.id}/stages/${c1}/project`, { projectId: target.id, order: 0 });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual(STAGE_KEYS);
    expect(res.json()).toMatchObject({ id: c1, projectId: target.id, order: '0', name: 'Column 1' });
    expect(await projectColumns(t, target.id)).toEqual([c1, tc.id]);
    expect(await projectColumns(t, b.project.id)).toEqual([c2]);
    expect(await columnTasks(t, c1)).toEqual([x, y]);

    const rows = await t.sql<{ id: number; projectId: number; spaceId: number; placedIn: number }>(
      sql`select t.id, t.project_id as "projectId", t.space_id as "spaceId", ts.project_id as "placedIn"
          from tasks t join task_stages ts on ts.task_id = t.id where t.id in (${x}, ${y}, ${stay}) order by t.id`,
    );
    expect(rows).toEqual([
      { id: x, projectId: target.id, spaceId: otherSpace.id, placedIn: target.id },
      { id: y, projectId: target.id, spaceId: otherSpace.id, placedIn: target.id },
      { id: stay, projectId: b.project.id, spaceId: b.space.id, placedIn: b.project.id },
    ]);
    const state = 'moved with column "Column 1" to project "Target"';
    expect(await history([x, y, stay])).toEqual([
      { taskId: x, type: 3, state, projectName: 'Target', taskName: 'X' },
      { taskId: y, type: 3, state, projectName: 'Target', taskName: 'Y' },
    ]);
  });

  it('needs editor rights on the target project too (403 there, 404 if it cannot see it)', async () => {
    const b = await boardWithRoles(t, 1);
    const editor = await b.f.spaceMember(b.owner, b.space.id, 'editor');
    const otherSpace = await b.f.space(b.owner, 'Elsewhere');
    const target = await b.f.project(b.owner, otherSpace.id, 'Target');
    const url = `/projects/${b.project.id}/stages/${b.stages[0]!.id}/project`;
    expectProblem(await t.as(editor).patch(url, { projectId: target.id }), 404, 'NOT_FOUND');
    await t.sql(sql`insert into space_members (organization_id, space_id, user_id, role) values (${b.owner.organizationId}, ${otherSpace.id}, ${editor.id}, 'reader')`);
    expectProblem(await t.as(editor).patch(url, { projectId: target.id }), 403, 'FORBIDDEN');
    expect(await projectColumns(t, b.project.id)).toEqual([b.stages[0]!.id]);
  });

  it('answers 409 when a task of the column already sits on the target board', async () => {
    const b = await boardWithRoles(t, 1);
    const target = await b.f.project(b.owner, b.space.id, 'Target');
    const tc = await b.f.stage(b.owner, target.id);
    const x = await seedTask(t, b.owner, b.stages[0]!.id);
    await t.sql(sql`insert into task_stages (organization_id, task_id, project_id, stage_id, "order", pinned) values (${b.owner.organizationId}, ${x}, ${target.id}, ${tc.id}, 0, false)`);
    expectProblem(await t.as(b.owner).patch(`/projects/${b.project.id}/stages/${b.stages[0]!.id}/project`, { projectId: target.id }), 409, 'CONFLICT');
    expect(await projectColumns(t, b.project.id)).toEqual([b.stages[0]!.id]);
  });

  commonCases(t, 'PATCH /projects/{id}/stages/{id}/project', {
    method: 'PATCH',
    async setup() {
      const b = await boardWithRoles(t, 1);
      const target = await b.f.project(b.owner, b.space.id, 'Target');
      await seedTask(t, b.owner, b.stages[0]!.id);
      return { url: `/projects/${b.project.id}/stages/${b.stages[0]!.id}/project`, owner: b.owner, body: { projectId: target.id }, badBody: { projectId: 'x' }, forbidden: b.member };
    },
  });
});

describe('delete a column', () => {
  it('deletes an empty column and renumbers the others', async () => {
    const b = await boardWithRoles(t, 3);
    const [a, c2, c] = b.stages.map((s) => s.id as number);
    const res = await t.as(b.owner).delete(`/projects/${b.project.id}/stages/${c2}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await projectColumns(t, b.project.id)).toEqual([a, c]);
  });

  it('refuses a column holding tasks, archived ones included (400 STAGE_NOT_EMPTY)', async () => {
    const b = await boardWithRoles(t, 2);
    await seedTask(t, b.owner, b.stages[0]!.id, { archived: true });
    expectProblem(await t.as(b.owner).delete(`/projects/${b.project.id}/stages/${b.stages[0]!.id}`), 400, 'STAGE_NOT_EMPTY');
    expect(await projectColumns(t, b.project.id)).toHaveLength(2);
  });

  it('moves its tasks to moveTasksTo (appended, archived ones kept off the board) with history', async () => {
    const b = await boardWithRoles(t, 2);
    const [c1, c2] = [b.stages[0]!.id, b.stages[1]!.id];
    const there = await seedTask(t, b.owner, c2, { name: 'There' });
    const x = await seedTask(t, b.owner, c1, { name: 'X' });
    const y = await seedTask(t, b.owner, c1, { name: 'Y' });
    const archived = await seedTask(t, b.owner, c1, { name: 'Old', archived: true });
    const res = await t.as(b.owner).delete(`/projects/${b.project.id}/stages/${c1}?moveTasksTo=${c2}`);
    expect(res.statusCode).toBe(204);
    expect(await projectColumns(t, b.project.id)).toEqual([c2]);
    expect(await columnTasks(t, c2)).toEqual([there, x, y]);
    const [arch] = await t.sql<{ stageId: number; order: number | null }>(sql`select stage_id as "stageId", "order" from task_stages where task_id = ${archived}`);
    expect(arch).toEqual({ stageId: c2, order: null });
    expect((await history([x, y, archived])).map((h) => [h.taskId, h.type, h.state])).toEqual([
      [x, 3, 'moved to column "Column 2"'],
      [y, 3, 'moved to column "Column 2"'],
      [archived, 3, 'moved to column "Column 2"'],
    ]);
  });

  it('respects the target’s task limit (400 STAGE_TASKS_LIMIT, nothing changed)', async () => {
    const b = await boardWithRoles(t, 2);
    const [c1, c2] = [b.stages[0]!.id, b.stages[1]!.id];
    await t.as(b.owner).patch(`/projects/${b.project.id}/stages/${c2}/tasks-limit`, { tasksLimit: 2 });
    const there = await seedTask(t, b.owner, c2);
    const x = await seedTask(t, b.owner, c1);
    const y = await seedTask(t, b.owner, c1);
    expectProblem(await t.as(b.owner).delete(`/projects/${b.project.id}/stages/${c1}?moveTasksTo=${c2}`), 400, 'STAGE_TASKS_LIMIT');
    expect(await columnTasks(t, c1)).toEqual([x, y]);
    expect(await columnTasks(t, c2)).toEqual([there]);
    expect(await history([x, y])).toEqual([]);
  });

  it('refuses a moveTasksTo outside the project or equal to the column', async () => {
    const b = await boardWithRoles(t, 1);
    const other = await b.f.project(b.owner, b.space.id, 'Other');
    const oc = await b.f.stage(b.owner, other.id);
    const c1 = b.stages[0]!.id;
    expectProblem(await t.as(b.owner).delete(`/projects/${b.project.id}/stages/${c1}?moveTasksTo=${oc.id}`), 400, 'REFERENCE_NOT_FOUND');
    expectProblem(await t.as(b.owner).delete(`/projects/${b.project.id}/stages/${c1}?moveTasksTo=${c1}`), 400, 'BAD_REQUEST');
    expect(await projectColumns(t, b.project.id)).toEqual([c1]);
  });

  commonCases(t, 'DELETE /projects/{id}/stages/{id}', {
    method: 'DELETE',
    async setup() {
      const b = await boardWithRoles(t, 2);
      await seedTask(t, b.owner, b.stages[0]!.id);
      return { url: `/projects/${b.project.id}/stages/${b.stages[0]!.id}?moveTasksTo=${b.stages[1]!.id}`, owner: b.owner, forbidden: b.member };
    },
  });

  it('answers 400 to a malformed moveTasksTo, changing nothing', async () => {
    const b = await boardWithRoles(t, 1);
    expectProblem(await t.as(b.owner).delete(`/projects/${b.project.id}/stages/${b.stages[0]!.id}?moveTasksTo=abc`), 400, 'VALIDATION_FAILED');
    expect(await projectColumns(t, b.project.id)).toEqual([b.stages[0]!.id]);
  });
});

describe('column limits on create with tasks', () => {
  it('a new column has no limit, so every named task moves in', async () => {
    const b = await boardWithRoles(t, 1);
    const ids = [await seedTask(t, b.owner, b.stages[0]!.id), await seedTask(t, b.owner, b.stages[0]!.id)];
    const res = await t.as(b.owner).post(`/projects/${b.project.id}/stages`, { name: 'All', order: 0, tasks: ids });
    expect(res.statusCode).toBe(201);
    expect(await columnTasks(t, res.json().id)).toEqual(ids);
  });
});
