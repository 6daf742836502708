import { and, asc, count, eq, ilike, sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import { labels } from '../../db/schema/index.js';
import type { Ctx } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { emit } from '../../platform/events.js';
import { iso } from '../../platform/http.js';
import { HISTORY, recordForTasks } from '../tasks/history/history.service.js';
import { authorizeLabels } from './labels.policy.js';

type LabelRow = typeof labels.$inferSelect;

export const presentLabel = (l: LabelRow) => ({
  id: l.id,
  name: l.name,
  color: l.color,
  creatorId: l.creatorId,
  createdAt: iso(l.createdAt)!,
  updatedAt: iso(l.updatedAt)!,
});

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listLabels(ctx: Ctx, query: { q?: string; limit: number; offset: number }) {
  await authorizeLabels(ctx.db, ctx.actor, 'read');
  const where = and(eq(labels.organizationId, ctx.actor.organizationId), query.q ? ilike(labels.name, likePattern(query.q)) : undefined);
  const [total] = await ctx.db.select({ n: count() }).from(labels).where(where);
  const rows = await ctx.db.select().from(labels).where(where).orderBy(asc(labels.name), asc(labels.id)).limit(query.limit).offset(query.offset);
  return { total: Number(total?.n ?? 0), items: rows.map(presentLabel) };
}

export async function createLabel(ctx: Ctx, input: { name: string; color: string }) {
  await authorizeLabels(ctx.db, ctx.actor, 'create');
  const [row] = await ctx.db
    .insert(labels)
    .values({ organizationId: ctx.actor.organizationId, name: input.name.trim(), color: input.color.toLowerCase(), creatorId: ctx.actor.userId })
    .returning();
  const label = presentLabel(row!);
  emit(ctx, { type: 'label.created', payload: label });
  return label;
}

async function ownLabel(ctx: Ctx, labelId: number): Promise<LabelRow> {
  const [row] = await ctx.db
    .select()
    .from(labels)
    .where(and(eq(labels.id, labelId), eq(labels.organizationId, ctx.actor.organizationId)))
    .for('update');
  if (!row) throw notFound('label');
  return row;
}

export async function updateLabel(ctx: Ctx, labelId: number, input: { name?: string; color?: string }) {
  await ownLabel(ctx, labelId);
  await authorizeLabels(ctx.db, ctx.actor, 'update');
  const [row] = await ctx.db
    .update(labels)
    .set({ ...(input.name ? { name: input.name.trim() } : {}), ...(input.color ? { color: input.color.toLowerCase() } : {}), updatedAt: new Date() })
    .where(eq(labels.id, labelId))
    .returning();
  const label = presentLabel(row!);
  emit(ctx, { type: 'label.updated', payload: label });
  return label;
}

/**
 * Deletes a label everywhere: its task_labels rows go with it (on delete cascade), and each task
 * that carried it records the change (history 10), so boards and webhooks hear of every one.
 */
export async function deleteLabel(ctx: Ctx, labelId: number): Promise<void> {
  const label = await ownLabel(ctx, labelId);
  await authorizeLabels(ctx.db, ctx.actor, 'delete');
  const carriers = await queryRows<{ taskId: number }>(ctx.db, sql`select task_id as "taskId" from task_labels where label_id = ${labelId} order by task_id`);
  await ctx.db.delete(labels).where(eq(labels.id, labelId));
  await recordForTasks(ctx.db, ctx.actor, carriers.map((c) => Number(c.taskId)), HISTORY.labels, `label "${label.name}" was deleted`);
  emit(ctx, { type: 'label.deleted', payload: { id: labelId } });
}
