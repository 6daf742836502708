import { and, asc, count, eq, sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import { projectTemplates, type TemplateStage, type TemplateTab, type TemplateTask } from '../../db/schema/index.js';
import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { authorizeProject } from '../projects/projects.policy.js';
import { addTabs } from '../projects/tabs/tabs.service.js';
import { allocateIds } from '../tasks/actions/copy.js';
import { HISTORY, recordHistory } from '../tasks/history/history.service.js';
import { authorizeTemplateDelete } from './templates.policy.js';
import { presentTemplate } from './templates.presenter.js';
import type { CreateTemplateInput, TemplateDto } from './templates.schemas.js';

interface NewProject {
  id: number;
  spaceId: number;
  name: string;
}

/** A template keeps at most this many tasks: it is applied in one transaction. */
export const MAX_TEMPLATE_TASKS = 2000;

export async function listTemplates(ctx: Ctx, page: { limit: number; offset: number }): Promise<{ items: TemplateDto[]; total: number }> {
  const org = eq(projectTemplates.organizationId, ctx.actor.organizationId);
  const rows = await ctx.db.select().from(projectTemplates).where(org).orderBy(asc(projectTemplates.name), asc(projectTemplates.id)).limit(page.limit).offset(page.offset);
  const [total] = await ctx.db.select({ n: count() }).from(projectTemplates).where(org);
  return { items: rows.map(presentTemplate), total: Number(total?.n ?? 0) };
}

/** Takes a snapshot of the project: its columns, its tabs and, with withTasks, its tasks on the board. */
export async function createTemplate(ctx: Ctx, input: CreateTemplateInput): Promise<TemplateDto> {
  const { db, actor } = ctx;
  await authorizeProject(db, actor, input.projectId, 'update');
  const stages = await queryRows<TemplateStage & { id: number }>(
    db,
    sql`select id, name, color, tasks_limit as "tasksLimit" from stages where project_id = ${input.projectId} order by "order", id`,
  );
  const tabs = await queryRows<TemplateTab>(
    db,
    sql`select type, name, url, page_id as "pageId", source_project_id as "sourceProjectId" from project_tabs
        where project_id = ${input.projectId} order by "order", id`,
  );
  const tasks = input.withTasks ? await snapshotTasks(ctx, input.projectId, stages.map((s) => Number(s.id))) : [];
  const [row] = await db
    .insert(projectTemplates)
    .values({
      organizationId: actor.organizationId,
      name: input.name.trim(),
      sourceProjectId: input.projectId,
      creatorId: actor.userId,
      withTasks: input.withTasks ?? false,
      stages: stages.map((s) => ({ name: s.name, color: s.color, tasksLimit: Number(s.tasksLimit) })),
      tabs: tabs.map((t) => ({ ...t, pageId: t.pageId === null ? null : Number(t.pageId), sourceProjectId: t.sourceProjectId === null ? null : Number(t.sourceProjectId) })),
      tasks,
    })
    .returning();
  return presentTemplate(row!);
}

async function snapshotTasks(ctx: Ctx, projectId: number, stageIds: number[]): Promise<TemplateTask[]> {
  const rows = await queryRows<{ stageId: number; name: string; description: string | null; color: string | null; importance: number; planTime: number; labelIds: unknown[]; subtasks: string[] }>(
    ctx.db,
    sql`select ts.stage_id as "stageId", t.name, t.description, t.color, t.importance, t.plan_time as "planTime",
          array(select l.label_id from task_labels l where l.task_id = t.id order by l.created_at, l.label_id) as "labelIds",
          array(select s.name from subtasks s where s.task_id = t.id order by s."order", s.id) as subtasks
        from task_stages ts join tasks t on t.id = ts.task_id join stages s on s.id = ts.stage_id
        where ts.project_id = ${projectId} and ts.organization_id = ${ctx.actor.organizationId} and t.archived_at is null
        order by s."order", s.id, ts."order", t.id
        limit ${MAX_TEMPLATE_TASKS + 1}`,
  );
  if (rows.length > MAX_TEMPLATE_TASKS) {
    throw new AppError('BAD_REQUEST', `a template keeps at most ${MAX_TEMPLATE_TASKS} tasks; make it without tasks, or from a smaller project`);
  }
  const index = new Map(stageIds.map((id, i) => [id, i]));
  return rows.map((r) => ({
    stage: index.get(Number(r.stageId))!,
    name: r.name,
    description: r.description,
    color: r.color,
    importance: Number(r.importance),
    planTime: Number(r.planTime),
    labelIds: r.labelIds.map(Number),
    subtasks: r.subtasks,
  }));
}

export async function deleteTemplate(ctx: Ctx, templateId: number): Promise<void> {
  const [template] = await ctx.db
    .select({ creatorId: projectTemplates.creatorId })
    .from(projectTemplates)
    .where(and(eq(projectTemplates.id, templateId), eq(projectTemplates.organizationId, ctx.actor.organizationId)));
  if (!template) throw notFound('template');
  authorizeTemplateDelete(ctx.actor, { creatorId: template.creatorId === null ? null : Number(template.creatorId) });
  await ctx.db.delete(projectTemplates).where(eq(projectTemplates.id, templateId));
}

/**
 * Fills a new, empty project from a template: its columns, its tabs (those whose page or board the
 * caller can read) and its tasks, each created by the caller with history 0 and task.created.
 * Column limits are the template's own; its tasks were taken within them.
 */
export async function applyTemplate(ctx: Ctx, templateId: number, project: NewProject): Promise<void> {
  const { db, actor } = ctx;
  const [template] = await db
    .select()
    .from(projectTemplates)
    .where(and(eq(projectTemplates.id, templateId), eq(projectTemplates.organizationId, actor.organizationId)));
  if (!template) throw new AppError('REFERENCE_NOT_FOUND', 'template not found');
  // Ids taken first (ascending, as duplicate project does), so one statement inserts every column in order.
  const stageIds = await allocateIds(db, 'stages', template.stages.length);
  if (stageIds.length > 0) {
    const columns = template.stages.map((s, order) => ({ id: stageIds[order], name: s.name, color: s.color, tasks_limit: s.tasksLimit, order }));
    await db.execute(
      sql`insert into stages (id, organization_id, project_id, name, color, tasks_limit, "order")
          overriding system value
          select c.id, ${actor.organizationId}, ${project.id}, c.name, c.color, c.tasks_limit, c.order
          from jsonb_to_recordset(${JSON.stringify(columns)}::jsonb) as c(id bigint, name text, color text, tasks_limit int, "order" int)`,
    );
  }
  await addTabs(ctx, project.id, template.tabs);
  await createTemplateTasks(ctx, project, stageIds, template.tasks, template.name);
}

async function createTemplateTasks(ctx: Ctx, project: NewProject, stageIds: number[], tasks: TemplateTask[], templateName: string) {
  if (tasks.length === 0) return;
  const { db, actor } = ctx;
  const ids = await allocateIds(db, 'tasks', tasks.length);
  const perStage = new Map<number, number>();
  const rows = tasks.map((task, i) => {
    const position = perStage.get(task.stage) ?? 0;
    perStage.set(task.stage, position + 1);
    return { ...task, id: ids[i]!, stageId: stageIds[task.stage]!, position };
  });
  const json = JSON.stringify(rows.map((r) => ({ id: r.id, name: r.name, description: r.description, color: r.color, importance: r.importance, plan_time: r.planTime, stage_id: r.stageId, position: r.position })));
  const set = sql`jsonb_to_recordset(${json}::jsonb) as r(id bigint, name text, description text, color text, importance smallint, plan_time double precision, stage_id bigint, position int)`;
  await db.execute(
    sql`insert into tasks (id, organization_id, space_id, project_id, name, description, creator_id, color, importance, plan_time)
        overriding system value
        select r.id, ${actor.organizationId}, ${project.spaceId}, ${project.id}, r.name, r.description, ${actor.userId}, r.color, r.importance, r.plan_time
        from ${set} order by r.id`,
  );
  await db.execute(
    sql`insert into task_stages (organization_id, task_id, project_id, stage_id, "order", pinned)
        select ${actor.organizationId}, r.id, ${project.id}, r.stage_id, r.position, true from ${set}`,
  );
  const labels = rows.flatMap((r) => r.labelIds.map((labelId) => ({ task_id: r.id, label_id: labelId })));
  if (labels.length > 0) {
    // Labels deleted since the template was made are left out.
    await db.execute(
      sql`insert into task_labels (organization_id, task_id, label_id)
          select ${actor.organizationId}, x.task_id, x.label_id
          from jsonb_to_recordset(${JSON.stringify(labels)}::jsonb) as x(task_id bigint, label_id bigint)
          join labels l on l.id = x.label_id and l.organization_id = ${actor.organizationId}
          on conflict do nothing`,
    );
  }
  const subtasks = rows.flatMap((r) => r.subtasks.map((name, order) => ({ task_id: r.id, name, order })));
  if (subtasks.length > 0) {
    await db.execute(
      sql`insert into subtasks (organization_id, task_id, name, "order")
          select ${actor.organizationId}, x.task_id, x.name, x.order from jsonb_to_recordset(${JSON.stringify(subtasks)}::jsonb) as x(task_id bigint, name text, "order" int)`,
    );
  }
  await recordHistory(
    db,
    actor,
    rows.map((r) => ({ taskId: r.id, type: HISTORY.created, state: `created from template "${templateName}"`, projectName: project.name, taskName: r.name })),
  );
}
