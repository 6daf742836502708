import { sql, type SQL } from 'drizzle-orm';
import { idArray, queryRows } from '../../db/client.js';
import type { Ctx } from '../../platform/context.js';
import { emit } from '../../platform/events.js';
import { COLUMNS, presentNotification, type NotificationRow } from './notifications.presenter.js';
import { ownNotification, requireTaskSeen } from './notifications.policy.js';
import type { NotificationDto } from './notifications.schemas.js';

/**
 * The caller's notifications in its active organization. Every change is announced to the
 * addressee alone: notification.updated with the Notification form, notification.deleted with {id}.
 */

/**
 * A bulk change announces each notification up to this many; past it, one notification.updated
 * (or .deleted) with `{updated: n}` (`{deleted: n}`) tells the addressee's clients to reload,
 * so marking ten thousand read does not write ten thousand events.
 */
export const BULK_EVENT_CAP = 100;

const mine = (ctx: Ctx): SQL => sql`organization_id = ${ctx.actor.organizationId} and user_id = ${ctx.actor.userId}`;

function announceUpdated(ctx: Ctx, rows: NotificationRow[]): void {
  if (rows.length > BULK_EVENT_CAP) {
    emit(ctx, { type: 'notification.updated', userId: ctx.actor.userId, payload: { updated: rows.length } });
    return;
  }
  for (const row of rows) {
    emit(ctx, {
      type: 'notification.updated',
      userId: ctx.actor.userId,
      taskId: row.taskId === null ? null : Number(row.taskId),
      payload: presentNotification(row),
    });
  }
}

function announceDeleted(ctx: Ctx, ids: number[]): void {
  if (ids.length > BULK_EVENT_CAP) {
    emit(ctx, { type: 'notification.deleted', userId: ctx.actor.userId, payload: { deleted: ids.length } });
    return;
  }
  for (const id of ids) emit(ctx, { type: 'notification.deleted', userId: ctx.actor.userId, payload: { id } });
}

/** Sets flags on the caller's notifications matching `where`, skipping those already so, and announces the changed ones. */
async function updateMine(ctx: Ctx, set: { read?: boolean; archived?: boolean }, where: SQL): Promise<NotificationRow[]> {
  const assignments: SQL[] = [sql`updated_at = now()`];
  const differs: SQL[] = [];
  if (set.read !== undefined) {
    assignments.push(sql`read = ${set.read}`);
    differs.push(sql`read <> ${set.read}`);
  }
  if (set.archived !== undefined) {
    assignments.push(sql`archived = ${set.archived}`);
    differs.push(sql`archived <> ${set.archived}`);
  }
  const rows = await queryRows<NotificationRow>(
    ctx.db,
    sql`update notifications set ${sql.join(assignments, sql`, `)}
        where ${mine(ctx)} and ${where} and (${sql.join(differs, sql` or `)})
        returning ${COLUMNS}`,
  );
  announceUpdated(ctx, rows);
  return rows;
}

export async function listNotifications(ctx: Ctx, q: { archived: boolean; read?: boolean; taskId?: number; type?: string; limit: number; offset: number }) {
  const where = sql.join(
    [
      mine(ctx),
      sql`archived = ${q.archived}`,
      q.read === undefined ? sql`true` : sql`read = ${q.read}`,
      q.taskId === undefined ? sql`true` : sql`task_id = ${q.taskId}`,
      q.type === undefined ? sql`true` : sql`type = ${q.type}`,
    ],
    sql` and `,
  );
  const [total] = await queryRows<{ n: number }>(ctx.db, sql`select count(*)::int as n from notifications where ${where}`);
  const rows = await queryRows<NotificationRow>(
    ctx.db,
    sql`select ${COLUMNS} from notifications where ${where} order by id desc limit ${q.limit} offset ${q.offset}`,
  );
  return { total: Number(total?.n ?? 0), items: rows.map(presentNotification) };
}

/** The newest unread, unarchived notification: the one a client opens first. */
export async function firstUnread(ctx: Ctx): Promise<NotificationDto | null> {
  const [row] = await queryRows<NotificationRow>(
    ctx.db,
    sql`select ${COLUMNS} from notifications where ${mine(ctx)} and not archived and not read order by id desc limit 1`,
  );
  return row ? presentNotification(row) : null;
}

export async function countForTask(ctx: Ctx, taskId: number): Promise<{ count: number }> {
  await requireTaskSeen(ctx.db, ctx.actor, taskId);
  const [row] = await queryRows<{ n: number }>(
    ctx.db,
    sql`select count(*)::int as n from notifications where ${mine(ctx)} and task_id = ${taskId} and not archived`,
  );
  return { count: Number(row?.n ?? 0) };
}

export async function setRead(ctx: Ctx, id: number, read: boolean): Promise<NotificationDto> {
  const row = await ownNotification(ctx.db, ctx.actor, id, true);
  const [changed] = await updateMine(ctx, { read }, sql`id = ${id}`);
  return presentNotification(changed ?? row);
}

export async function setArchived(ctx: Ctx, id: number, archived: boolean): Promise<NotificationDto> {
  const row = await ownNotification(ctx.db, ctx.actor, id, true);
  const [changed] = await updateMine(ctx, { archived }, sql`id = ${id}`);
  return presentNotification(changed ?? row);
}

/** Marks the given notifications read (ids that are not the caller's are ignored), or every one. */
export async function markRead(ctx: Ctx, ids: number[] | undefined): Promise<{ updated: number }> {
  const where = ids === undefined ? sql`true` : sql`id = any(${idArray(ids)})`;
  return { updated: (await updateMine(ctx, { read: true }, where)).length };
}

export async function markTaskRead(ctx: Ctx, taskId: number): Promise<{ updated: number }> {
  await requireTaskSeen(ctx.db, ctx.actor, taskId);
  return { updated: (await updateMine(ctx, { read: true }, sql`task_id = ${taskId}`)).length };
}

export async function archiveTask(ctx: Ctx, taskId: number): Promise<{ updated: number }> {
  await requireTaskSeen(ctx.db, ctx.actor, taskId);
  return { updated: (await updateMine(ctx, { archived: true }, sql`task_id = ${taskId}`)).length };
}

export async function archiveAll(ctx: Ctx): Promise<{ updated: number }> {
  return { updated: (await updateMine(ctx, { archived: true }, sql`true`)).length };
}

export async function deleteArchived(ctx: Ctx): Promise<{ deleted: number }> {
  const rows = await queryRows<{ id: number }>(ctx.db, sql`delete from notifications where ${mine(ctx)} and archived returning id`);
  announceDeleted(
    ctx,
    rows.map((r) => Number(r.id)),
  );
  return { deleted: rows.length };
}

export async function deleteNotification(ctx: Ctx, id: number): Promise<void> {
  await ownNotification(ctx.db, ctx.actor, id, true);
  await ctx.db.execute(sql`delete from notifications where id = ${id}`);
  announceDeleted(ctx, [id]);
}
