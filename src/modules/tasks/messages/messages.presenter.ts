import { sql } from 'drizzle-orm';
import { allOf, idArray, queryRows, type Queryable } from '../../../db/client.js';
import { iso } from '../../../platform/http.js';
import { fileLink } from '../../files/files.presenter.js';
import type { MessageDto } from './messages.schemas.js';

type Stamp = Date | string;

interface MessageRow {
  id: number;
  taskId: number;
  authorId: number | null;
  text: string;
  replyToId: number | null;
  pinned: boolean;
  editedAt: Stamp | null;
  createdAt: Stamp;
  updatedAt: Stamp;
}

const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/**
 * Messages in the Message form, in the order of the ids given. Attachments, reactions and mentions
 * come from one set-based query each, so a page of 500 messages costs five queries, like a page of one.
 */
export async function loadMessages(db: Queryable, organizationId: number, messageIds: number[]): Promise<MessageDto[]> {
  if (messageIds.length === 0) return [];
  const ids = idArray(messageIds);
  const [messages, attachments, driveAttachments, reactions, mentions] = await allOf(db, [
    () =>
      queryRows<MessageRow>(
        db,
        sql`select id, task_id as "taskId", author_id as "authorId", text, reply_to_id as "replyToId", pinned,
              edited_at as "editedAt", created_at as "createdAt", updated_at as "updatedAt"
            from task_messages where id = any(${ids}) and organization_id = ${organizationId}`,
      ),
    () =>
      queryRows<{ messageId: number; id: number; name: string; size: number; mimeType: string; key: string }>(
        db,
        sql`select a.message_id as "messageId", f.id, f.name, f.size, f.mime_type as "mimeType", f.key
            from message_attachments a join files f on f.id = a.file_id
            where a.message_id = any(${ids}) order by a.message_id, a.position`,
      ),
    () =>
      // References to files in someone's cloud drive: what was read from the drive when attached.
      queryRows<{ messageId: number; id: number; name: string; size: number; mimeType: string; webUrl: string; driveFileId: string }>(
        db,
        sql`select message_id as "messageId", id, name, size, mime_type as "mimeType", web_url as "webUrl", drive_file_id as "driveFileId"
            from message_drive_attachments where message_id = any(${ids}) order by message_id, position`,
      ),
    () =>
      queryRows<{ messageId: number; emoji: string; userIds: Array<number | string> }>(
        db,
        sql`select message_id as "messageId", emoji, array_agg(user_id order by created_at, user_id) as "userIds"
            from message_reactions where message_id = any(${ids})
            group by message_id, emoji order by message_id, min(created_at), emoji`,
      ),
    () =>
      queryRows<{ messageId: number; userId: number }>(
        db,
        sql`select message_id as "messageId", user_id as "userId" from message_mentions
            where message_id = any(${ids}) order by message_id, created_at, user_id`,
      ),
  ] as const);

  const group = <R extends { messageId: number }>(rows: R[]) => {
    const map = new Map<number, R[]>();
    for (const r of rows) {
      const key = Number(r.messageId);
      map.set(key, [...(map.get(key) ?? []), r]);
    }
    return map;
  };
  const attachmentsOf = group(attachments);
  const driveAttachmentsOf = group(driveAttachments);
  const reactionsOf = group(reactions);
  const mentionsOf = group(mentions);
  const byId = new Map(messages.map((m) => [Number(m.id), m]));

  return messageIds.flatMap((id) => {
    const m = byId.get(id);
    if (!m) return [];
    return [
      {
        id,
        taskId: Number(m.taskId),
        authorId: numOrNull(m.authorId),
        text: m.text,
        replyToId: numOrNull(m.replyToId),
        attachments: (attachmentsOf.get(id) ?? []).map((a): MessageDto['attachments'][number] => ({
          id: Number(a.id),
          name: a.name,
          size: Number(a.size),
          mimeType: a.mimeType,
          link: fileLink(a.key),
          source: 'upload' as const,
          driveFileId: null,
        })).concat(
          (driveAttachmentsOf.get(id) ?? []).map((a) => ({
            id: Number(a.id),
            name: a.name,
            size: Number(a.size),
            mimeType: a.mimeType,
            link: a.webUrl,
            source: 'cloud-drive' as const,
            driveFileId: a.driveFileId,
          })),
        ),
        reactions: (reactionsOf.get(id) ?? []).map((r) => {
          // bigint[] arrives as strings from node-postgres, as numbers from PGlite.
          const userIds = r.userIds.map(Number);
          return { emoji: r.emoji, count: userIds.length, userIds };
        }),
        mentions: (mentionsOf.get(id) ?? []).map((x) => Number(x.userId)),
        pinned: m.pinned,
        editedAt: iso(m.editedAt),
        createdAt: iso(m.createdAt)!,
        updatedAt: iso(m.updatedAt)!,
      },
    ];
  });
}
