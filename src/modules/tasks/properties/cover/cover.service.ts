import { and, eq, sql } from 'drizzle-orm';
import { queryRows } from '../../../../db/client.js';
import { files } from '../../../../db/schema/index.js';
import type { Ctx } from '../../../../platform/context.js';
import { AppError } from '../../../../platform/errors.js';
import type { FileStore } from '../../../../platform/files.js';
import { canReadFile } from '../../../files/files.policy.js';
import { deleteFiles, recordFile, type FileRow, type ReceivedFile } from '../../../files/files.service.js';
import { HISTORY } from '../../history/history.service.js';
import { authorizeProperty } from '../properties.policy.js';
import { beginTaskChange, finishTaskChange, type TaskWithHistory } from '../task-change.js';
import { analyzeImage, MAX_COVER_BYTES, type ImageFacts } from './cover.image.js';

/** Where a new cover comes from: a fresh upload, or an image file the organization already holds. */
export type CoverSource = { upload: ReceivedFile; facts: ImageFacts } | { fileId: number; facts: ImageFacts };

/** Refuses before an upload is read, so a caller who may not change the task cannot make the server store an image. */
export async function authorizeCoverChange(ctx: Ctx, taskId: number): Promise<void> {
  await authorizeProperty(ctx.db, ctx.actor, taskId, 'changeCover');
}

const noSuchFile = (fileId: number) =>
  new AppError('REFERENCE_NOT_FOUND', `file ${fileId} does not exist in this organization`, [{ path: '/fileId', message: 'must name an image file you can read' }]);

/** A file of the caller's organization that it can read (another space's private file does not exist for it). */
async function readableFile(ctx: Ctx, fileId: number, lock: boolean): Promise<FileRow> {
  const query = ctx.db.select().from(files).where(and(eq(files.id, fileId), eq(files.organizationId, ctx.actor.organizationId)));
  const [file] = lock ? await query.for('key share') : await query;
  if (!file || !(await canReadFile(ctx.db, ctx.actor, file))) throw noSuchFile(fileId);
  return file;
}

/**
 * Checks an existing file as a cover and measures it, before the write transaction opens (decoding
 * takes time that no transaction should wait on).
 */
export async function inspectCoverFile(ctx: Ctx, store: FileStore, taskId: number, fileId: number): Promise<CoverSource> {
  await authorizeCoverChange(ctx, taskId);
  const file = await readableFile(ctx, fileId, false);
  const facts = await analyzeImage(() => store.readAll(file.key, MAX_COVER_BYTES), file.mimeType);
  return { fileId, facts };
}

/** Measures an upload received for a cover (its bytes are already stored, its type checked). */
export async function inspectCoverUpload(store: FileStore, upload: ReceivedFile): Promise<CoverSource> {
  return { upload, facts: await analyzeImage(() => store.readAll(upload.key, MAX_COVER_BYTES), upload.mimeType) };
}

/**
 * A replaced or removed cover's file goes with it when it was uploaded as a cover and no other
 * task's cover shows it: the row now, the blob once the change commits.
 */
async function dropCoverFile(ctx: Ctx, store: FileStore, fileId: number | null): Promise<void> {
  if (fileId !== null) await deleteFiles(ctx, store, [fileId], 'cover');
}

/** Sets or replaces the cover. pictureUid is the file's key, so the picture downloads at /files/{pictureUid}. */
export async function setTaskCover(ctx: Ctx, store: FileStore, taskId: number, source: CoverSource): Promise<TaskWithHistory> {
  const { db, actor } = ctx;
  const task = await beginTaskChange(ctx, taskId, 'changeCover');
  const file =
    'upload' in source
      ? await recordFile(ctx, store, source.upload, { purpose: 'cover', organizationId: actor.organizationId, spaceId: task.spaceId })
      : await readableFile(ctx, source.fileId, true);
  const [old] = await queryRows<{ fileId: number }>(db, sql`select file_id as "fileId" from task_covers where task_id = ${taskId} for update`);
  const { width, height, dominantColor } = source.facts;
  await db.execute(
    sql`insert into task_covers (organization_id, task_id, file_id, width, height, dominant_color, picture_uid)
        values (${actor.organizationId}, ${taskId}, ${file.id}, ${width}, ${height}, ${dominantColor}, ${file.key})
        on conflict (task_id) do update set file_id = excluded.file_id, width = excluded.width, height = excluded.height,
          dominant_color = excluded.dominant_color, picture_uid = excluded.picture_uid`,
  );
  const oldFileId = old ? Number(old.fileId) : null;
  if (oldFileId !== file.id) await dropCoverFile(ctx, store, oldFileId);
  return finishTaskChange(ctx, task, {
    type: HISTORY.cover,
    state: `${old ? 'changed' : 'set'} the cover (${width}×${height}, ${dominantColor})`,
    changed: true,
  });
}

export async function removeTaskCover(ctx: Ctx, store: FileStore, taskId: number): Promise<TaskWithHistory> {
  const task = await beginTaskChange(ctx, taskId, 'changeCover');
  const [old] = await queryRows<{ fileId: number }>(ctx.db, sql`delete from task_covers where task_id = ${taskId} returning file_id as "fileId"`);
  if (old) await dropCoverFile(ctx, store, Number(old.fileId));
  return finishTaskChange(ctx, task, { type: HISTORY.cover, state: old ? 'removed the cover' : 'the task had no cover', changed: Boolean(old) });
}
