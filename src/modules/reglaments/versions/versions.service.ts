import { and, count, desc, eq, max, sql } from 'drizzle-orm';
import { reglamentEvents, reglamentVersions, reglaments } from '../../../db/schema/index.js';
import type { Ctx } from '../../../platform/context.js';
import { notFound } from '../../../platform/errors.js';
import { emitReglament, recordEvent } from '../reglaments.events.js';
import { authorizeReglament } from '../reglaments.policy.js';
import { contentEtag } from '../../../platform/content-etag.js';
import { announceReglament } from '../reglaments.service.js';
import type { ReglamentFullDto } from '../reglaments.schemas.js';
import { presentEvent, presentVersion, presentVersionWithContent } from './versions.presenter.js';
import type { ReglamentVersionDto } from './versions.schemas.js';

const versionColumns = {
  id: reglamentVersions.id,
  reglamentId: reglamentVersions.reglamentId,
  number: reglamentVersions.number,
  name: reglamentVersions.name,
  userId: reglamentVersions.userId,
  createdAt: reglamentVersions.createdAt,
  size: sql<number>`octet_length(${reglamentVersions.content})`,
};

/**
 * Snapshots the current content as the next numbered version. The reglament row is locked first, so
 * two snapshots at once get distinct numbers and match the content they saw.
 */
async function snapshot(ctx: Ctx, reglamentId: number, homeSpaceId: number, name: string | null): Promise<number> {
  const [r] = await ctx.db.select({ content: reglaments.content }).from(reglaments).where(eq(reglaments.id, reglamentId)).for('update');
  if (!r) throw notFound('reglament');
  const [last] = await ctx.db.select({ n: max(reglamentVersions.number) }).from(reglamentVersions).where(eq(reglamentVersions.reglamentId, reglamentId));
  const [row] = await ctx.db
    .insert(reglamentVersions)
    .values({ organizationId: ctx.actor.organizationId, reglamentId, number: Number(last?.n ?? 0) + 1, name, content: r.content, userId: ctx.actor.userId })
    .returning(versionColumns);
  await recordEvent(ctx, reglamentId, 'version', { versionId: row!.id, number: row!.number, name });
  emitReglament(ctx, 'reglament.version.created', homeSpaceId, presentVersion(row!));
  return row!.id;
}

async function loadVersion(ctx: Ctx, reglamentId: number, versionId: number) {
  const [v] = await ctx.db
    .select({ ...versionColumns, content: reglamentVersions.content })
    .from(reglamentVersions)
    .where(and(eq(reglamentVersions.id, versionId), eq(reglamentVersions.reglamentId, reglamentId)));
  if (!v) throw notFound('version');
  return v;
}

export async function writeVersion(ctx: Ctx, reglamentId: number, name: string | null): Promise<ReglamentVersionDto> {
  const access = await authorizeReglament(ctx.db, ctx.actor, reglamentId, 'update');
  const id = await snapshot(ctx, reglamentId, access.homeSpaceId, name?.trim() || null);
  return presentVersion(await loadVersion(ctx, reglamentId, id));
}

export async function listVersions(ctx: Ctx, reglamentId: number, page: { limit: number; offset: number }) {
  await authorizeReglament(ctx.db, ctx.actor, reglamentId, 'readVersions');
  const where = eq(reglamentVersions.reglamentId, reglamentId);
  const rows = await ctx.db.select(versionColumns).from(reglamentVersions).where(where).orderBy(desc(reglamentVersions.number)).limit(page.limit).offset(page.offset);
  const [total] = await ctx.db.select({ n: count() }).from(reglamentVersions).where(where);
  return { items: rows.map(presentVersion), total: Number(total?.n ?? 0) };
}

export async function getVersion(ctx: Ctx, reglamentId: number, versionId: number) {
  await authorizeReglament(ctx.db, ctx.actor, reglamentId, 'readVersions');
  return presentVersionWithContent(await loadVersion(ctx, reglamentId, versionId));
}

/**
 * Writes a version's content back as the current content (a new revision, so stale If-Match writers
 * get 409) and snapshots the result as a new version: restoring never rewrites history.
 */
export async function restoreVersion(ctx: Ctx, reglamentId: number, versionId: number): Promise<{ reglament: ReglamentFullDto; etag: string }> {
  const access = await authorizeReglament(ctx.db, ctx.actor, reglamentId, 'update');
  const [current] = await ctx.db.select({ version: reglaments.version }).from(reglaments).where(eq(reglaments.id, reglamentId)).for('update');
  const source = await loadVersion(ctx, reglamentId, versionId);
  const version = current!.version + 1;
  await ctx.db.update(reglaments).set({ content: source.content, version, updatedAt: sql`now()` }).where(eq(reglaments.id, reglamentId));
  await recordEvent(ctx, reglamentId, 'restored', { versionId, number: source.number, version });
  await snapshot(ctx, reglamentId, access.homeSpaceId, `Restored from version ${source.number}`);
  const reglament = await announceReglament(ctx, 'reglament.updated', reglamentId, access.homeSpaceId);
  return { reglament, etag: contentEtag(version, reglament) };
}

/** The full history, newest first. */
export async function listEvents(ctx: Ctx, reglamentId: number, page: { limit: number; offset: number }) {
  await authorizeReglament(ctx.db, ctx.actor, reglamentId, 'readHistory');
  const where = eq(reglamentEvents.reglamentId, reglamentId);
  const rows = await ctx.db.select().from(reglamentEvents).where(where).orderBy(desc(reglamentEvents.id)).limit(page.limit).offset(page.offset);
  const [total] = await ctx.db.select({ n: count() }).from(reglamentEvents).where(where);
  return { items: rows.map(presentEvent), total: Number(total?.n ?? 0) };
}
