import { eq, sql } from 'drizzle-orm';
import type { MultipartFile } from '@fastify/multipart';
import { idArray, queryRows, type Queryable } from '../../db/client.js';
import { files } from '../../db/schema/index.js';
import { AppError, notFound } from '../../platform/errors.js';
import { asClientError, type BlobLimits, type FileStore, type StoredBlob } from '../../platform/files.js';
import type { Ctx } from '../../platform/context.js';
import type { Actor } from '../../platform/auth.js';
import { canReadFile } from './files.policy.js';

export type FileRow = typeof files.$inferSelect;

export interface ReceivedFile extends StoredBlob {
  name: string;
}

/**
 * Streams one multipart file to storage before any transaction opens (an upload must never hold a
 * database connection), checking size while reading and type by content.
 */
export async function receiveFile(
  request: { isMultipart(): boolean; file(): Promise<MultipartFile | undefined> },
  store: FileStore,
  limits: BlobLimits,
): Promise<ReceivedFile> {
  if (!request.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the file as multipart/form-data');
  const part = await request.file().catch(asClientError);
  if (!part) throw new AppError('VALIDATION_FAILED', 'a file part is required', [{ path: '/file', message: 'is required' }]);
  return { ...(await store.put(part.file, limits).catch(asClientError)), name: safeName(part.filename) };
}

/** Streams every file part of a multipart request (field `files[]` or `files`). */
export async function receiveFiles(
  request: { isMultipart(): boolean; files(): AsyncIterableIterator<MultipartFile> },
  store: FileStore,
  limits: BlobLimits,
): Promise<ReceivedFile[]> {
  if (!request.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the files as multipart/form-data');
  const received: ReceivedFile[] = [];
  try {
    for await (const part of request.files()) {
      received.push({ ...(await store.put(part.file, limits)), name: safeName(part.filename) });
    }
  } catch (error) {
    // Storage that fails here too must not hide why the upload failed; the sweeper takes what stays.
    await Promise.all(received.map((r) => store.remove(r.key).catch(() => {})));
    asClientError(error);
  }
  if (received.length === 0) throw new AppError('VALIDATION_FAILED', 'at least one file is required', [{ path: '/files', message: 'is required' }]);
  return received;
}

/**
 * Runs the use case that records a received upload. If it fails, even before recordFile (a refused
 * role, a missing row), the blob is deleted: nothing refers to it.
 */
export async function withUpload<T>(store: FileStore, received: ReceivedFile, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    await store.remove(received.key).catch(() => {});
    throw error;
  }
}

function safeName(filename: string | undefined): string {
  return (filename || 'file').replace(/[\u0000-\u001f/\\]/g, '_').slice(0, 255);
}

export interface FileOwner {
  purpose: string;
  /** null only for a user's own avatar. */
  organizationId: number | null;
  spaceId?: number | null;
}

/** Records a received blob in the use case's transaction; the blob is deleted if it rolls back. */
export async function recordFile(ctx: Ctx, store: FileStore, received: ReceivedFile, owner: FileOwner): Promise<FileRow> {
  ctx.onRollback(() => store.remove(received.key));
  const [row] = await ctx.db
    .insert(files)
    .values({
      organizationId: owner.organizationId,
      uploaderId: ctx.actor.userId,
      key: received.key,
      purpose: owner.purpose,
      spaceId: owner.spaceId ?? null,
      name: received.name,
      size: received.size,
      mimeType: received.mimeType,
      width: received.width,
      height: received.height,
    })
    .returning();
  return row!;
}

export async function findFileByKey(db: Queryable, key: string): Promise<FileRow | undefined> {
  const [row] = await db.select().from(files).where(eq(files.key, key)).limit(1);
  return row;
}

export async function fileForDownload(db: Queryable, actor: Actor, key: string): Promise<FileRow> {
  if (!/^[0-9a-f-]{36}$/.test(key)) throw notFound('file');
  const row = await findFileByKey(db, key);
  if (!row || !(await canReadFile(db, actor, row))) throw notFound('file');
  return row;
}

/**
 * Deletes files a change no longer needs: the rows now, the blobs once it commits; only the caller's
 * organization's (whatever ids a client sent), and only those of `purpose` when given. A file a task
 * cover or a message attachment still shows stays: any readable image can become a cover and one's
 * own upload an attachment, and deleting the file would take those along without a word.
 */
export async function deleteFiles(ctx: Ctx, store: FileStore, fileIds: number[], purpose?: string): Promise<void> {
  if (fileIds.length === 0) return;
  const gone = await queryRows<{ key: string }>(
    ctx.db,
    sql`delete from files f
        where f.id = any(${idArray(fileIds)}) and f.organization_id = ${ctx.actor.organizationId}
          ${purpose === undefined ? sql`` : sql`and f.purpose = ${purpose}`}
          and not exists (select 1 from task_covers c where c.file_id = f.id)
          and not exists (select 1 from message_attachments a where a.file_id = f.id)
        returning f.key`,
  );
  await store.removeAfterCommit(ctx, gone.map((f) => f.key));
}
