import { eq, sql } from 'drizzle-orm';
import { projects } from '../../../db/schema/index.js';
import { idArray, queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { createProject } from '../../projects/projects.service.js';
import type { ProjectFullDto } from '../../projects/projects.schemas.js';
import { columnsFor, loadPlacements, placeInColumn, requireRoom } from '../board/columns.js';
import { densePosition } from '../board/ranks.js';
import { HISTORY, recordHistory } from '../history/history.service.js';
import type { HistoryDto } from '../history/history.schemas.js';
import { loadTaskRecords, presentTask } from '../tasks.presenter.js';
import type { TaskDto } from '../tasks.schemas.js';
import { authorizeProjectDuplicate, authorizeTargetColumn, authorizeTaskAction } from './actions.policy.js';
import type { DuplicateProjectInput, DuplicateTaskInput } from './actions.schemas.js';
import { allocateIds, copyTasks } from './copy.js';


/**
 * POST /tasks/{taskId}/duplicate: a copy (copy.ts says what it takes) in `stageId`, by default the
 * original's home column, right after the original when they share the column, else at its end.
 * The column's task limit applies. History 20 on the copy.
 */
export async function duplicateTask(ctx: Ctx, taskId: number, input: DuplicateTaskInput): Promise<{ task: TaskDto; history: HistoryDto }> {
  const { db, actor } = ctx;
  const source = await authorizeTaskAction(db, actor, taskId, 'duplicate');
  const placements = (await loadPlacements(db, [taskId])).get(taskId)!;
  const home = placements.find((p) => p.pinned) ?? placements[0]!;
  const column = await authorizeTargetColumn(db, actor, input.stageId ?? home.stageId);

  const locked = await columnsFor(db, actor.organizationId, [column.id]);
  await requireRoom(db, locked.get(column.id)!, 1);
  const [copyId] = await copyTasks(db, actor, [{ sourceId: taskId, projectId: column.projectId, spaceId: column.spaceId, stageId: column.id, order: null }], {
    subtasks: input.withSubtasks ?? true,
    messages: input.withMessages ?? false,
  });
  // Right after the original when it sits in that column.
  const beside = await densePosition(db, column.id, taskId);
  await placeInColumn(db, column.id, [copyId!], beside === null ? undefined : beside + 1);

  const [history] = await recordHistory(db, actor, [
    { taskId: copyId!, type: HISTORY.duplicated, state: `duplicated from task #${taskId} into "${column.name}"`, projectName: column.projectName, taskName: source.name },
  ]);
  const [record] = await loadTaskRecords(db, actor.organizationId, [copyId!]);
  return { task: presentTask(record!), history: history! };
}

/**
 * POST /projects/{projectId}/duplicate: a new project (through the projects module, placed
 * ungrouped at the end of the target space) with the original's description, tab flags and columns
 * (name, colour, task limit, order); with `withTasks` also the tasks on its board (not archived),
 * copied as duplicate task copies them, in the same column positions, each with history 20.
 * People not in a space holding the copy are left off the copied tasks. Documentation content and
 * project-level integrations are not copied.
 */
export async function duplicateProject(ctx: Ctx, projectId: number, input: DuplicateProjectInput): Promise<ProjectFullDto> {
  const { db, actor } = ctx;
  const { spaceId } = await authorizeProjectDuplicate(db, actor, projectId, input.spaceId);
  const [source] = await queryRows<{ name: string; description: string | null; doc: boolean; timeline: boolean; calendar: boolean }>(
    db,
    sql`select name, description, show_documentation_tab as doc, show_timeline_tab as timeline, show_calendar_tab as calendar
        from projects where id = ${projectId} for share`,
  );
  const name = input.name?.trim() ?? `${source!.name} (copy)`.slice(0, 500);
  return createProject(ctx, { spaceId, name, description: source!.description }, async (copy) => {
    await db
      .update(projects)
      .set({ showDocumentationTab: source!.doc, showTimelineTab: source!.timeline, showCalendarTab: source!.calendar })
      .where(eq(projects.id, copy.id));
    await copyColumnsAndTasks(ctx, projectId, copy, source!.name, input.withTasks ?? false);
  });
}

async function copyColumnsAndTasks(ctx: Ctx, projectId: number, copy: { id: number; spaceId: number; name: string }, sourceName: string, withTasks: boolean) {
  const { db, actor } = ctx;
  const { spaceId, name } = copy;

  // Columns are read under a share lock so that none is added or reordered while being copied.
  const columns = await queryRows<{ id: number }>(db, sql`select id from stages where project_id = ${projectId} order by "order", id for share`);
  const sourceIds = columns.map((c) => Number(c.id));
  const stageIds = await allocateIds(db, 'stages', sourceIds.length);
  const stageMap = sql`unnest(${idArray(stageIds)}, ${idArray(sourceIds)}) as u(new_id, source_id)`;
  if (sourceIds.length > 0) {
    await db.execute(
      sql`insert into stages (id, organization_id, project_id, name, "order", tasks_limit, color)
          overriding system value
          select u.new_id, ${actor.organizationId}, ${copy.id}, s.name, s."order", s.tasks_limit, s.color
          from ${stageMap} join stages s on s.id = u.source_id order by u.new_id`,
    );
  }

  if (withTasks && sourceIds.length > 0) {
    const tasks = await queryRows<{ taskId: number; stageId: number; order: number; name: string }>(
      db,
      sql`select ts.task_id as "taskId", u.new_id as "stageId", ts."order", t.name
          from ${stageMap} join task_stages ts on ts.stage_id = u.source_id join tasks t on t.id = ts.task_id
          where ts."order" is not null and t.archived_at is null
          order by u.new_id, ts."order"`,
    );
    const copies = await copyTasks(
      db,
      actor,
      tasks.map((t) => ({ sourceId: Number(t.taskId), projectId: copy.id, spaceId, stageId: Number(t.stageId), order: Number(t.order) })),
      { subtasks: true, messages: false },
    );
    await recordHistory(
      db,
      actor,
      tasks.map((t, i) => ({ taskId: copies[i]!, type: HISTORY.duplicated, state: `duplicated from task #${t.taskId} with project "${sourceName}"`, projectName: name, taskName: t.name })),
    );
  }
}
