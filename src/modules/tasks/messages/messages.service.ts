import { sql } from 'drizzle-orm';
import { idArray, queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import type { FileStore } from '../../../platform/files.js';
import { emit, type EventType } from '../../../platform/events.js';
import { deleteFiles, recordFile, type ReceivedFile } from '../../files/files.service.js';
import { messageDriveAttachments } from '../../../db/schema/index.js';
import { storeMentions } from './mentions.js';
import type { TaskAccess } from '../tasks.policy.js';
import { authorizeChat, authorizeMessage } from './messages.policy.js';
import { loadMessages } from './messages.presenter.js';
import type { MessageDto, MessagesQueryInput, SendMessageInput } from './messages.schemas.js';

/** A cloud-drive file as attached: read from the sender's drive before the transaction (cloud-drive module). */
export interface DriveAttachmentInput {
  driveFileId: string;
  name: string;
  mimeType: string;
  size: number;
  webUrl: string;
}

/**
 * The task chat. A message is not a task change: no history row, and the task is not stamped. The
 * task's `hasMessages` is derived from these rows when the task is read (tasks.presenter).
 */


async function loadOne(ctx: Ctx, messageId: number): Promise<MessageDto> {
  return (await loadMessages(ctx.db, ctx.actor.organizationId, [messageId]))[0]!;
}

/** A message event goes to whoever reads its task, so it carries the task's place. */
export function emitMessage(ctx: Ctx, type: EventType, task: TaskAccess, payload: unknown): void {
  emit(ctx, { type, taskId: task.id, spaceId: task.spaceId, projectId: task.projectId, payload });
}

function requireContent(text: string, files: number): void {
  if (files === 0 && text.trim() === '') {
    throw new AppError('VALIDATION_FAILED', 'text must not be empty unless files are attached', [{ path: '/text', message: 'must not be empty' }]);
  }
}

/** Newest first; `before` (a message id) pages back. `nextBefore` is set when older messages remain. */
export async function listMessages(ctx: Ctx, taskId: number, query: MessagesQueryInput): Promise<{ items: MessageDto[]; total: number; nextBefore: number | null }> {
  const { db, actor } = ctx;
  await authorizeChat(db, actor, taskId, 'read');
  const limit = query.limit ?? 50;
  const pinned = query.pinned === undefined ? sql`` : sql`and pinned = ${query.pinned}`;
  const [ids, [count]] = await Promise.all([
    queryRows<{ id: number }>(
      db,
      sql`select id from task_messages where task_id = ${taskId} and organization_id = ${actor.organizationId} ${pinned}
            ${query.before === undefined ? sql`` : sql`and id < ${query.before}`}
          order by id desc limit ${limit + 1}`,
    ),
    queryRows<{ n: number }>(db, sql`select count(*)::int as n from task_messages where task_id = ${taskId} and organization_id = ${actor.organizationId} ${pinned}`),
  ]);
  const page = ids.slice(0, limit).map((r) => Number(r.id));
  return { items: await loadMessages(db, actor.organizationId, page), total: Number(count?.n ?? 0), nextBefore: ids.length > limit ? page.at(-1)! : null };
}

/**
 * Authorizes a send before its files are streamed, so a refused caller never stores a blob. The
 * send itself authorizes again inside its transaction.
 */
export async function authorizeSend(ctx: Ctx, taskId: number): Promise<void> {
  await authorizeChat(ctx.db, ctx.actor, taskId, 'send');
}

/**
 * Posts a message. Files come either uploaded with it (multipart, recorded here in the transaction
 * as the task space's attachments), as `fileIds` of files the caller uploaded earlier, or as
 * references to files of the sender's cloud drive (checked there by the cloud-drive module).
 */
export async function sendMessage(
  ctx: Ctx,
  store: FileStore,
  taskId: number,
  input: SendMessageInput,
  uploads: ReceivedFile[] = [],
  driveFiles: DriveAttachmentInput[] = [],
): Promise<MessageDto> {
  const { db, actor } = ctx;
  const task = await authorizeChat(db, actor, taskId, 'send');
  const fileIds = input.fileIds ?? [];
  requireContent(input.text, uploads.length + fileIds.length + driveFiles.length);
  if (input.replyToId != null) {
    const [target] = await queryRows<{ id: number }>(db, sql`select id from task_messages where id = ${input.replyToId} and task_id = ${taskId}`);
    if (!target) throw new AppError('VALIDATION_FAILED', 'replyToId must name a message of this task', [{ path: '/replyToId', message: 'is not a message of this task' }]);
  }
  if (fileIds.length > 0) {
    const own = await queryRows<{ id: number }>(
      db,
      sql`select id from files where id = any(${idArray(fileIds)}) and organization_id = ${actor.organizationId} and uploader_id = ${actor.userId}`,
    );
    const found = new Set(own.map((r) => Number(r.id)));
    const missing = fileIds.filter((id) => !found.has(id));
    if (missing.length > 0) {
      throw new AppError('VALIDATION_FAILED', `fileIds: file ${missing.join(', ')} is not one you uploaded`, [{ path: '/fileIds', message: 'must name files the caller uploaded' }]);
    }
  }

  // An automation rule's message has no author.
  const [row] = await queryRows<{ id: number }>(
    db,
    sql`insert into task_messages (organization_id, task_id, author_id, text, reply_to_id)
        values (${actor.organizationId}, ${taskId}, ${actor.automation ? null : actor.userId}, ${input.text}, ${input.replyToId ?? null})
        returning id`,
  );
  const messageId = Number(row!.id);
  const uploaded: number[] = [];
  if (uploads.length > 0) {
    // Uploads belong to the task's (home) space: its readers may download them.
    const [task] = await queryRows<{ spaceId: number }>(db, sql`select space_id as "spaceId" from tasks where id = ${taskId}`);
    for (const file of uploads) {
      uploaded.push((await recordFile(ctx, store, file, { purpose: 'attachment', organizationId: actor.organizationId, spaceId: Number(task!.spaceId) })).id);
    }
  }
  const attached = [...uploaded, ...fileIds];
  if (attached.length > 0) {
    await db.execute(
      sql`insert into message_attachments (organization_id, message_id, file_id, position)
          select ${actor.organizationId}, ${messageId}, f.id, (f.n - 1)::int from unnest(${idArray(attached)}) with ordinality as f(id, n)`,
    );
  }
  await attachDriveFiles(ctx, messageId, driveFiles);
  await storeMentions(ctx, taskId, messageId, input.text, false);
  const message = await loadOne(ctx, messageId);
  emitMessage(ctx, 'message.created', task, message);
  return message;
}

async function attachDriveFiles(ctx: Ctx, messageId: number, driveFiles: DriveAttachmentInput[]): Promise<void> {
  if (driveFiles.length === 0) return;
  await ctx.db.insert(messageDriveAttachments).values(
    driveFiles.map((f, position) => ({ organizationId: ctx.actor.organizationId, messageId, ...f, attachedById: ctx.actor.userId, position })),
  );
}

/** The author rewrites the text; mentions follow the new text. */
export function editMessageText(ctx: Ctx, taskId: number, messageId: number, text: string): Promise<MessageDto> {
  return editMessage(ctx, taskId, messageId, { text });
}

/**
 * The author's edit: a new text (mentions follow it) and/or a new set of drive attachments, which
 * replaces the old one. A message must keep a text or an attachment.
 */
export async function editMessage(ctx: Ctx, taskId: number, messageId: number, change: { text?: string; driveFiles?: DriveAttachmentInput[] }): Promise<MessageDto> {
  const { db, actor } = ctx;
  const { task } = await authorizeMessage(db, actor, taskId, messageId, 'edit');
  if (change.driveFiles) {
    await db.execute(sql`delete from message_drive_attachments where message_id = ${messageId}`);
    await attachDriveFiles(ctx, messageId, change.driveFiles);
  }
  const [current] = await queryRows<{ text: string; n: number }>(
    db,
    sql`select m.text, ((select count(*) from message_attachments a where a.message_id = m.id)
          + (select count(*) from message_drive_attachments d where d.message_id = m.id))::int as n
        from task_messages m where m.id = ${messageId}`,
  );
  const text = change.text ?? current!.text;
  requireContent(text, Number(current!.n));
  await db.execute(sql`update task_messages set text = ${text}, edited_at = now(), updated_at = now() where id = ${messageId}`);
  if (change.text !== undefined) await storeMentions(ctx, taskId, messageId, text, true);
  const message = await loadOne(ctx, messageId);
  emitMessage(ctx, 'message.updated', task, message);
  return message;
}

/**
 * Deletes a message with its reactions and mentions. Files uploaded with it go too (after commit,
 * the blobs) unless another message also carries them; files attached by id stay where they were.
 * Replies keep their text and lose the link.
 */
export async function deleteMessage(ctx: Ctx, store: FileStore, taskId: number, messageId: number): Promise<void> {
  const { db, actor } = ctx;
  const { task } = await authorizeMessage(db, actor, taskId, messageId, 'delete');
  const own = await queryRows<{ id: number }>(
    db,
    sql`select f.id from message_attachments a join files f on f.id = a.file_id
        where a.message_id = ${messageId} and f.purpose = 'attachment'
          and not exists (select 1 from message_attachments b where b.file_id = f.id and b.message_id <> ${messageId})`,
  );
  await db.execute(sql`delete from task_messages where id = ${messageId}`);
  emitMessage(ctx, 'message.deleted', task, { id: messageId });
  await deleteFiles(ctx, store, own.map((f) => Number(f.id)));
}

export async function setMessagePinned(ctx: Ctx, taskId: number, messageId: number, pinned: boolean): Promise<MessageDto> {
  const { db, actor } = ctx;
  const { task } = await authorizeMessage(db, actor, taskId, messageId, 'pin');
  const changed = await queryRows<{ id: number }>(
    db,
    sql`update task_messages set pinned = ${pinned}, updated_at = now() where id = ${messageId} and pinned <> ${pinned} returning id`,
  );
  const message = await loadOne(ctx, messageId);
  // Pinning what is already pinned changes nothing, so nothing is announced.
  if (changed.length > 0) emitMessage(ctx, 'message.pinned', task, message);
  return message;
}
