import { PassThrough, Transform, type Readable } from 'node:stream';
import { and, eq } from 'drizzle-orm';
import { portabilityJobs, type PortabilityKind } from '../../db/schema/portability.js';
import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import type { FileStore } from '../../platform/files.js';
import { walkArchive, type Manifest, type ReadLimits } from './archive.js';
import { MAX_ARCHIVE_BYTES, ORGANIZATION_FORMAT } from './limits.js';
import { authorizePortability } from './portability.policy.js';
import { presentPortabilityJob, type PortabilityJobRow } from './portability.presenter.js';
import type { PortabilityJobDto } from './portability.schemas.js';
import { announce } from './portability.worker.js';

function queued(ctx: Ctx, row: PortabilityJobRow, wake: () => void): PortabilityJobDto {
  announce(ctx.db, row, 'progress');
  ctx.afterCommit(wake);
  return presentPortabilityJob(row);
}

/** Queues an export of the caller's organization. */
export async function startExport(ctx: Ctx, wake: () => void): Promise<PortabilityJobDto> {
  authorizePortability(ctx.actor);
  const [row] = await ctx.db.insert(portabilityJobs).values({ organizationId: ctx.actor.organizationId, kind: 'export', creatorId: ctx.actor.userId }).returning();
  return queued(ctx, row!, wake);
}

async function loadJob(ctx: Ctx, kind: PortabilityKind, id: number): Promise<PortabilityJobRow> {
  authorizePortability(ctx.actor);
  const [row] = await ctx.db
    .select()
    .from(portabilityJobs)
    .where(and(eq(portabilityJobs.id, id), eq(portabilityJobs.kind, kind), eq(portabilityJobs.organizationId, ctx.actor.organizationId)));
  if (!row) throw notFound(kind);
  return row;
}

export async function getJob(ctx: Ctx, kind: PortabilityKind, id: number): Promise<PortabilityJobDto> {
  return presentPortabilityJob(await loadJob(ctx, kind, id));
}

/** The archive of a finished export: its key and size, or why there is none to download. */
export async function exportArchive(ctx: Ctx, id: number): Promise<{ key: string; size: number; createdAt: Date }> {
  const row = await loadJob(ctx, 'export', id);
  if (row.status === 'expired') throw new AppError('EXPORT_EXPIRED', 'the export’s archive was removed after 7 days; start a new export');
  if (row.status !== 'succeeded' || !row.archiveKey) {
    throw new AppError('EXPORT_NOT_READY', row.status === 'failed' ? `the export failed: ${row.error ?? 'no archive'}` : `the export is ${row.status}; download it once it succeeded`);
  }
  return { key: row.archiveKey, size: Number(row.archiveSize), createdAt: row.createdAt };
}

export interface ReceivedArchive {
  key: string;
  size: number;
  manifest: Manifest;
}

/**
 * Streams an uploaded archive to storage while reading it through, so that a tampered, unsafe or
 * foreign archive is refused (400) before the request ends and without a second pass: the storage
 * write completes only once the whole archive checked out, and is removed otherwise.
 */
const STALLED_MS = 5_000;

export async function storeVerifiedArchive(
  store: FileStore,
  upload: Readable & { truncated?: boolean },
  limits: ReadLimits,
  /** Settles once the whole request body has arrived. */
  bodyArrived: Promise<void> = new Promise(() => {}),
): Promise<ReceivedArchive> {
  const feed = new PassThrough();
  const verified = walkArchive(feed, ORGANIZATION_FORMAT, limits);
  // Whatever the reader leaves unread (it stops at the end of the tar) is drained.
  void verified.then(
    () => feed.resume(),
    () => feed.resume(),
  );
  const tee = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (feed.write(chunk)) done(null, chunk);
      else feed.once('drain', () => done(null, chunk));
    },
    flush(done) {
      if (upload.truncated) return done(new AppError('PAYLOAD_TOO_LARGE', `the archive is larger than ${MAX_ARCHIVE_BYTES} bytes`));
      feed.end();
      verified.then(() => done(), done);
    },
  });
  verified.catch((error: unknown) => tee.destroy(error as Error));
  // pipe() passes on neither a failing upload nor one that closes before its end (a cut-off
  // multipart body): without this the store would wait for the rest for ever.
  const cutOff = () => tee.destroy(new AppError('MALFORMED_MULTIPART', 'the multipart/form-data body ends before the archive does'));
  upload.once('error', cutOff);
  upload.once('close', () => {
    if (!upload.readableEnded) cutOff();
  });
  // A body cut off inside its last part (no closing boundary) left the reading stalled for ever
  // (fuzz: 'multipart: cut off'): what is still unread once the whole body has arrived is a few
  // buffers, so reading that has not finished 5 s later never will.
  let settled = false;
  void bodyArrived.then(() => {
    setTimeout(() => {
      if (!settled) tee.destroy(new AppError('MALFORMED_MULTIPART', 'the multipart/form-data body ends before the archive does'));
    }, STALLED_MS).unref();
  });
  upload.pipe(tee);
  try {
    const blob = await store.put(tee, { maxBytes: MAX_ARCHIVE_BYTES });
    const manifest = await verified;
    settled = true;
    return { key: blob.key, size: blob.size, manifest };
  } catch (error) {
    settled = true;
    upload.unpipe(tee);
    upload.resume();
    throw error;
  }
}

/** Queues the import of a verified archive into a new organization of the caller. */
export async function startImport(ctx: Ctx, received: ReceivedArchive, store: FileStore, wake: () => void): Promise<PortabilityJobDto> {
  authorizePortability(ctx.actor);
  ctx.onRollback(() => store.remove(received.key));
  const total = Object.values(received.manifest.tables ?? {}).reduce((sum, t) => sum + (Number(t?.rows) || 0), 0) + (Number(received.manifest.files) || 0);
  const [row] = await ctx.db
    .insert(portabilityJobs)
    .values({ organizationId: ctx.actor.organizationId, kind: 'import', creatorId: ctx.actor.userId, archiveKey: received.key, archiveSize: received.size, total })
    .returning();
  return queued(ctx, row!, wake);
}
