import { and, asc, eq, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { projects, stages } from '../../db/schema/index.js';
import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { compact, lockOrder, placeAt, writeOrder, type OrderedScope } from '../../platform/ordering.js';
import { orderToInt } from '../../platform/schemas.js';
import { emitInProject } from '../projects/projects.events.js';
import { authorizeProject } from '../projects/projects.policy.js';
import { authorizeStage, authorizeStages } from './stages.policy.js';
import { presentStage, presentStageWithAutomation } from './stages.presenter.js';
import { stageHasAutomation } from '../automation/automation.service.js';
import type { StageColorDto, StageDto } from './stages.schemas.js';
import { carryStageTasks, moveTasksToStage, tasksInStage } from './stages.tasks.js';

const columnsOf = (projectId: number): OrderedScope => ({ table: 'stages', key: 'id', where: sql`project_id = ${projectId}` });

/**
 * Serializes column-order changes of a project. Locking the column rows (ordering.ts) is not enough
 * when a concurrent transaction inserts a column: it is not in this snapshot and would get the same
 * position. NO KEY UPDATE on the project row leaves inserts referencing it free.
 */
const lockColumns = (db: Queryable, projectId: number) => db.execute(sql`select id from projects where id = ${projectId} for no key update`);

/** Blocks tasks from arriving in a column that is about to leave (its placements are read next). */
const lockStage = (db: Queryable, stageId: number) => db.execute(sql`select id from stages where id = ${stageId} for update`);

async function loadStageRow(db: Queryable, stageId: number) {
  const [row] = await db.select().from(stages).where(eq(stages.id, stageId));
  if (!row) throw notFound('stage');
  return row;
}

const loadStage = async (db: Queryable, stageId: number): Promise<StageDto> => presentStage(await loadStageRow(db, stageId));

/** A new column at `order`; `tasks` (of this project) move into it, within its task limit. */
export async function createStage(ctx: Ctx, projectId: number, input: { name: string; order: number | string; tasks?: number[] }): Promise<StageDto> {
  await authorizeStages(ctx.db, ctx.actor, projectId, 'create');
  await lockColumns(ctx.db, projectId);
  const [row] = await ctx.db
    .insert(stages)
    .values({ organizationId: ctx.actor.organizationId, projectId, name: input.name.trim(), order: 0 })
    .returning({ id: stages.id });
  const stageId = row!.id;
  await placeAt(ctx.db, columnsOf(projectId), stageId, orderToInt(input.order));
  await moveTasksToStage(ctx, { projectId, stageId, taskIds: input.tasks ?? [] });
  const stage = await loadStage(ctx.db, stageId);
  emitInProject(ctx, 'stage.created', projectId, stage);
  return stage;
}

type StagePatch = Partial<Pick<typeof stages.$inferInsert, 'name' | 'tasksLimit' | 'color'>>;

async function patchStage(ctx: Ctx, projectId: number, stageId: number, patch: StagePatch) {
  await authorizeStage(ctx.db, ctx.actor, projectId, stageId, 'update');
  await ctx.db.update(stages).set({ ...patch, updatedAt: sql`now()` }).where(eq(stages.id, stageId));
  return loadStageRow(ctx.db, stageId);
}

/** A column's own properties changed: everyone gets the Stage form, whichever form the route answers. */
function stageUpdated<T extends StageDto | StageColorDto>(ctx: Ctx, projectId: number, row: Awaited<ReturnType<typeof patchStage>>, answer: T): T {
  emitInProject(ctx, 'stage.updated', projectId, presentStage(row));
  return answer;
}

export async function renameStage(ctx: Ctx, projectId: number, stageId: number, name: string): Promise<StageDto> {
  const row = await patchStage(ctx, projectId, stageId, { name: name.trim() });
  return stageUpdated(ctx, projectId, row, presentStage(row));
}

/**
 * Sets the limit; 0 lifts it. A column already fuller than the new limit keeps its tasks: the limit
 * stops further arrivals (creates and moves answer STAGE_TASKS_LIMIT), it never evicts.
 */
export async function setStageTasksLimit(ctx: Ctx, projectId: number, stageId: number, tasksLimit: number): Promise<StageDto> {
  const row = await patchStage(ctx, projectId, stageId, { tasksLimit });
  return stageUpdated(ctx, projectId, row, presentStage(row));
}

/** The spec's colour form, with whether an enabled automation rule uses the column. */
export async function setStageColor(ctx: Ctx, projectId: number, stageId: number, color: string): Promise<StageColorDto> {
  const row = await patchStage(ctx, projectId, stageId, { color });
  return stageUpdated(ctx, projectId, row, presentStageWithAutomation(row, await stageHasAutomation(ctx.db, stageId)));
}

export async function moveStage(ctx: Ctx, projectId: number, stageId: number, order: number | string): Promise<StageDto> {
  await authorizeStage(ctx.db, ctx.actor, projectId, stageId, 'update');
  await lockColumns(ctx.db, projectId);
  await placeAt(ctx.db, columnsOf(projectId), stageId, orderToInt(order));
  // Its neighbours were renumbered too: the project's whole column list is the change.
  const columns = await listStageRows(ctx.db, projectId);
  emitInProject(ctx, 'stage.moved', projectId, { projectId, stages: columns });
  return columns.find((s) => s.id === stageId)!;
}

export async function listStageRows(db: Queryable, projectId: number): Promise<StageDto[]> {
  const rows = await db.select().from(stages).where(eq(stages.projectId, projectId)).orderBy(asc(stages.order), asc(stages.id));
  return rows.map(presentStage);
}

/** Sets the order of every column at once; `ids` must name exactly the project's columns. */
export async function reorderStages(ctx: Ctx, projectId: number, ids: number[]): Promise<StageDto[]> {
  await authorizeStages(ctx.db, ctx.actor, projectId, 'update');
  await lockColumns(ctx.db, projectId);
  const current = await lockOrder(ctx.db, columnsOf(projectId));
  const known = new Set(current);
  if (ids.length !== current.length || ids.some((id) => !known.has(id))) {
    throw new AppError('BAD_REQUEST', `ids must list each of the project's ${current.length} columns exactly once`);
  }
  await writeOrder(ctx.db, columnsOf(projectId), ids);
  const columns = await listStageRows(ctx.db, projectId);
  emitInProject(ctx, 'stage.moved', projectId, { projectId, stages: columns });
  return columns;
}

/** Moves a column, with its tasks, to another project (editor of both); the column's automation goes nowhere: it has none yet. */
export async function moveStageToProject(
  ctx: Ctx,
  projectId: number,
  stageId: number,
  input: { projectId: number; order?: number | string },
): Promise<StageDto> {
  const { db, actor } = ctx;
  const stage = await authorizeStage(db, actor, projectId, stageId, 'move');
  await authorizeProject(db, actor, input.projectId, 'update');
  if (input.projectId === projectId) throw new AppError('BAD_REQUEST', 'the column is already in this project; use PATCH …/order to move it within');
  const [target] = await db
    .select({ id: projects.id, spaceId: projects.spaceId, name: projects.name })
    .from(projects)
    .where(and(eq(projects.id, input.projectId), eq(projects.organizationId, actor.organizationId)));
  if (!target) throw notFound('project');
  // Both boards' columns are renumbered: lock them in id order so two opposite moves cannot deadlock.
  for (const id of [projectId, input.projectId].sort((a, b) => a - b)) await lockColumns(db, id);
  await lockStage(db, stageId);
  await carryStageTasks(ctx, { stageId, stageName: stage.name, target });
  await db.update(stages).set({ projectId: input.projectId, updatedAt: sql`now()` }).where(eq(stages.id, stageId));
  await placeAt(db, columnsOf(input.projectId), stageId, orderToInt(input.order));
  await compact(db, columnsOf(projectId));
  const moved = await loadStage(db, stageId);
  // Gone from one board, arrived on the other: each board's readers learn of their side.
  emitInProject(ctx, 'stage.deleted', projectId, { id: stageId });
  emitInProject(ctx, 'stage.created', input.projectId, moved);
  return moved;
}

/**
 * Deletes a column. Its tasks go to `moveTasksTo` (a column of the same project, appended within its
 * limit); without it a column holding tasks (archived ones too) is refused with STAGE_NOT_EMPTY.
 */
export async function deleteStage(ctx: Ctx, projectId: number, stageId: number, moveTasksTo?: number): Promise<void> {
  await authorizeStage(ctx.db, ctx.actor, projectId, stageId, 'delete');
  await lockColumns(ctx.db, projectId);
  await lockStage(ctx.db, stageId);
  const taskIds = await tasksInStage(ctx, stageId);
  if (moveTasksTo !== undefined) {
    if (moveTasksTo === stageId) throw new AppError('BAD_REQUEST', 'moveTasksTo must be another column');
    // Also validates that the target is a column of this project, even when there is nothing to move.
    const [target] = await ctx.db
      .select({ id: stages.id })
      .from(stages)
      .where(and(eq(stages.id, moveTasksTo), eq(stages.projectId, projectId)));
    if (!target) throw new AppError('REFERENCE_NOT_FOUND', 'moveTasksTo is not a column of this project');
    await moveTasksToStage(ctx, { projectId, stageId: moveTasksTo, taskIds });
  } else if (taskIds.length > 0) {
    throw new AppError('STAGE_NOT_EMPTY', `the column holds ${taskIds.length} tasks; pass moveTasksTo to move them first`);
  }
  await ctx.db.delete(stages).where(eq(stages.id, stageId));
  await compact(ctx.db, columnsOf(projectId));
  emitInProject(ctx, 'stage.deleted', projectId, { id: stageId });
}
