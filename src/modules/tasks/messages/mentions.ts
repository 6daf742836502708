import { sql } from 'drizzle-orm';
import type { Ctx } from '../../../platform/context.js';
import { idArray } from '../../../db/client.js';

/**
 * Mentions are written in the text as `@[userId]` (a client shows the name; the id survives renames).
 * They are kept in message_mentions for notifications. Only users who can read the task count: members
 * of a space holding one of its projects, and organization owners and admins; other ids stay plain text.
 */
const TOKEN = /@\[(\d{1,15})\]/g;
const MAX_MENTIONS = 50;

export function mentionedIds(text: string): number[] {
  const ids = new Set<number>();
  for (const match of text.matchAll(TOKEN)) {
    ids.add(Number(match[1]));
    if (ids.size === MAX_MENTIONS) break;
  }
  return [...ids];
}

/** Replaces the message's mentions with those of `text` (one statement each way). */
export async function storeMentions(ctx: Ctx, taskId: number, messageId: number, text: string, replace: boolean): Promise<void> {
  const { db, actor } = ctx;
  if (replace) await db.execute(sql`delete from message_mentions where message_id = ${messageId}`);
  const ids = mentionedIds(text);
  if (ids.length === 0) return;
  await db.execute(
    sql`insert into message_mentions (organization_id, message_id, user_id)
        select ${actor.organizationId}, ${messageId}, u.id from unnest(${idArray(ids)}) with ordinality as u(id, n)
        join organization_members om on om.user_id = u.id and om.organization_id = ${actor.organizationId}
          and om.active and om.deleted_at is null
        where om.role in ('owner', 'admin') or exists (
          select 1 from space_members sm
          where sm.user_id = u.id and sm.space_id in (
            select p.space_id from task_stages ts join projects p on p.id = ts.project_id where ts.task_id = ${taskId}
            union select ps.space_id from task_stages ts join project_spaces ps on ps.project_id = ts.project_id where ts.task_id = ${taskId}))
        order by u.n`,
  );
}
