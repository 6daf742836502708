import { and, eq, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { reglamentFavorites, reglamentFiles, reglamentGroups, reglamentQuestionFiles, reglamentQuestions, reglamentSpaces, reglaments, spaces } from '../../db/schema/index.js';
import type { Actor } from '../../platform/auth.js';
import type { Ctx } from '../../platform/context.js';
import type { EventType } from '../../platform/events.js';
import { AppError, notFound } from '../../platform/errors.js';
import type { FileStore } from '../../platform/files.js';
import { compact, placeAt, type OrderedScope } from '../../platform/ordering.js';
import { orderToInt } from '../../platform/schemas.js';
import { emitReglament, recordEvent } from './reglaments.events.js';
import { emitSpaceFull } from '../spaces/spaces.events.js';
import { deleteFiles } from '../files/files.service.js';
import { authorizeReglament, authorizeReglamentSpace, spaceIdsAllowing } from './reglaments.policy.js';
import { contentEtag, ifMatchAdmits } from '../../platform/content-etag.js';
import { presentReglamentCreated, presentReglamentFull, presentReglamentListItem } from './reglaments.presenter.js';
import { loadReglament, queryReglaments } from './reglaments.queries.js';
import { CONTENT_MAX_BYTES, type ReglamentCreatedDto, type ReglamentFullDto } from './reglaments.schemas.js';

/** Positions of the reglaments in one group (a group belongs to one space). */
export const placementsIn = (groupId: number): OrderedScope => ({ table: 'reglament_spaces', key: 'reglament_id', where: sql`reglament_group_id = ${groupId}` });

export const fullReglament = async (db: Queryable, actor: Actor, id: number): Promise<ReglamentFullDto> => presentReglamentFull(await loadReglament(db, actor, id));

/** Loads Reglament(full) as the route answers it and announces it (to its home space: the first of its spaceIds). */
export async function announceReglament(ctx: Ctx, type: EventType, id: number, homeSpaceId?: number): Promise<ReglamentFullDto> {
  const reglament = await fullReglament(ctx.db, ctx.actor, id);
  emitReglament(ctx, type, homeSpaceId ?? reglament.spaceIds[0]!, reglament);
  return reglament;
}

export function assertContentSize(content: string): void {
  if (Buffer.byteLength(content, 'utf8') > CONTENT_MAX_BYTES) {
    throw new AppError('VALIDATION_FAILED', 'content must not be larger than 1 MiB', [{ path: '/content', message: 'must NOT be larger than 1048576 bytes' }]);
  }
}

/** A group of the caller's organization named in a request; what space it is in decides the rest. */
export async function findGroup(db: Queryable, actor: Actor, groupId: number): Promise<{ id: number; spaceId: number } | null> {
  const [g] = await db
    .select({ id: reglamentGroups.id, spaceId: reglamentGroups.spaceId })
    .from(reglamentGroups)
    .where(and(eq(reglamentGroups.id, groupId), eq(reglamentGroups.organizationId, actor.organizationId)));
  return g ?? null;
}

export async function listSpaceReglaments(ctx: Ctx, spaceId: number, page: { limit: number; offset: number }) {
  await authorizeReglamentSpace(ctx.db, ctx.actor, spaceId, 'read');
  // A draft shows to editors of any space holding it, as a single read does (best role over its spaces).
  const draftsIn = await spaceIdsAllowing(ctx.db, ctx.actor, 'readDrafts');
  const { items, total } = await queryReglaments(ctx.db, ctx.actor, { spaceId, draftsIn, ...page });
  return { items: items.map(presentReglamentListItem), total };
}

export async function searchReglaments(ctx: Ctx, q: { q: string; spaceId?: number; draft?: boolean; limit: number; offset: number }) {
  const readable = await spaceIdsAllowing(ctx.db, ctx.actor, 'read');
  const inSpaces = q.spaceId === undefined ? readable : readable.filter((id) => id === q.spaceId);
  if (inSpaces.length === 0) return { items: [], total: 0 };
  const draftsIn = await spaceIdsAllowing(ctx.db, ctx.actor, 'readDrafts');
  // 'simple' keeps words as written (no language stemming), as content is in any language; the same
  // expression as the GIN index reglaments_search_idx, so the index serves the match.
  const doc = sql`to_tsvector('simple', r.name || ' ' || r.content)`;
  const query = sql`websearch_to_tsquery('simple', ${q.q})`;
  const { items, total } = await queryReglaments(ctx.db, ctx.actor, {
    inSpaces,
    draftsIn,
    draft: q.draft,
    spaceId: q.spaceId,
    where: sql`${doc} @@ ${query}`,
    orderBy: sql`ts_rank(${doc}, ${query}) desc`,
    limit: q.limit,
    offset: q.offset,
  });
  return { items: items.map(presentReglamentListItem), total };
}

export async function createReglament(
  ctx: Ctx,
  input: { name: string; reglamentColumnId: number; content: string; order: number | string; draft: boolean },
): Promise<ReglamentCreatedDto> {
  const { db, actor } = ctx;
  const group = await findGroup(db, actor, input.reglamentColumnId);
  if (!group) throw notFound('reglament group');
  await authorizeReglamentSpace(db, actor, group.spaceId, 'create');
  assertContentSize(input.content);
  const [row] = await db
    .insert(reglaments)
    .values({ organizationId: actor.organizationId, spaceId: group.spaceId, name: input.name.trim(), content: input.content, draft: input.draft, creatorId: actor.userId })
    .returning({ id: reglaments.id });
  const id = row!.id;
  await db.insert(reglamentSpaces).values({ organizationId: actor.organizationId, reglamentId: id, spaceId: group.spaceId, reglamentGroupId: group.id, order: 0 });
  await placeAt(db, placementsIn(group.id), id, orderToInt(input.order));
  await recordEvent(ctx, id, 'created', { name: input.name.trim(), draft: input.draft });
  const created = presentReglamentCreated(await loadReglament(db, actor, id));
  emitReglament(ctx, 'reglament.created', group.spaceId, created);
  return created;
}

export async function getReglament(ctx: Ctx, id: number): Promise<{ reglament: ReglamentFullDto; etag: string }> {
  await authorizeReglament(ctx.db, ctx.actor, id, 'read');
  const record = await loadReglament(ctx.db, ctx.actor, id);
  const reglament = presentReglamentFull(record);
  return { reglament, etag: contentEtag(record.version, reglament) };
}

/** Locks the reglament row for the rest of the transaction, so concurrent writes to it serialize. */
async function lockReglament(db: Queryable, id: number) {
  const [row] = await db.select().from(reglaments).where(eq(reglaments.id, id)).for('update');
  if (!row) throw notFound('reglament');
  return row;
}

export async function renameReglament(ctx: Ctx, id: number, name: string): Promise<ReglamentFullDto> {
  const access = await authorizeReglament(ctx.db, ctx.actor, id, 'update');
  const before = await lockReglament(ctx.db, id);
  await ctx.db.update(reglaments).set({ name: name.trim(), updatedAt: sql`now()` }).where(eq(reglaments.id, id));
  await recordEvent(ctx, id, 'renamed', { from: before.name, to: name.trim() });
  return announceReglament(ctx, 'reglament.updated', id, access.homeSpaceId);
}

export async function publishReglament(ctx: Ctx, id: number): Promise<ReglamentFullDto> {
  const access = await authorizeReglament(ctx.db, ctx.actor, id, 'update');
  const before = await lockReglament(ctx.db, id);
  if (before.draft) {
    await ctx.db.update(reglaments).set({ draft: false, updatedAt: sql`now()` }).where(eq(reglaments.id, id));
    await recordEvent(ctx, id, 'published');
    return announceReglament(ctx, 'reglament.published', id, access.homeSpaceId);
  }
  return fullReglament(ctx.db, ctx.actor, id);
}

export async function setMandatory(ctx: Ctx, id: number, mandatory: boolean): Promise<ReglamentFullDto> {
  const access = await authorizeReglament(ctx.db, ctx.actor, id, 'update');
  const before = await lockReglament(ctx.db, id);
  if (before.mandatory !== mandatory) {
    await ctx.db.update(reglaments).set({ mandatory, updatedAt: sql`now()` }).where(eq(reglaments.id, id));
    await recordEvent(ctx, id, 'mandatory', { mandatory });
    return announceReglament(ctx, 'reglament.updated', id, access.homeSpaceId);
  }
  return fullReglament(ctx.db, ctx.actor, id);
}

export async function setFavorite(ctx: Ctx, id: number, favorite: boolean): Promise<ReglamentFullDto> {
  const { db, actor } = ctx;
  await authorizeReglament(db, actor, id, 'personalize');
  if (favorite) {
    await db.insert(reglamentFavorites).values({ organizationId: actor.organizationId, reglamentId: id, userId: actor.userId }).onConflictDoNothing();
  } else {
    await db.delete(reglamentFavorites).where(and(eq(reglamentFavorites.reglamentId, id), eq(reglamentFavorites.userId, actor.userId)));
  }
  return fullReglament(db, actor, id);
}

/**
 * Writes the content. With If-Match, the write happens only if the caller saw the current revision:
 * the row is locked first, so of two editors sending the same ETag one wins and the other gets 409.
 */
export async function writeContent(ctx: Ctx, id: number, content: string, ifMatch: string | undefined): Promise<{ reglament: ReglamentFullDto; etag: string }> {
  const access = await authorizeReglament(ctx.db, ctx.actor, id, 'update');
  assertContentSize(content);
  const before = await lockReglament(ctx.db, id);
  if (!ifMatchAdmits(ifMatch, before.version)) {
    throw new AppError('STALE_VERSION', `the reglament changed since revision ${ifMatch}; reload it (current revision ${before.version})`);
  }
  const version = before.version + 1;
  await ctx.db.update(reglaments).set({ content, version, updatedAt: sql`now()` }).where(eq(reglaments.id, id));
  await recordEvent(ctx, id, 'content', { version, size: Buffer.byteLength(content, 'utf8') });
  const reglament = await announceReglament(ctx, 'reglament.updated', id, access.homeSpaceId);
  return { reglament, etag: contentEtag(version, reglament) };
}

/**
 * Moves the reglament within a group, or into another group of a space that shows it. Without a
 * group it moves within its home space's group. Editors of that space decide.
 */
export async function moveReglament(ctx: Ctx, id: number, input: { order: number | string; reglamentColumnId?: number }): Promise<ReglamentFullDto> {
  const { db, actor } = ctx;
  const access = await authorizeReglament(db, actor, id, 'update');
  const spaceId = input.reglamentColumnId === undefined ? access.homeSpaceId : (await findGroup(db, actor, input.reglamentColumnId))?.spaceId;
  const [placement] =
    spaceId === undefined
      ? []
      : await db.select().from(reglamentSpaces).where(and(eq(reglamentSpaces.reglamentId, id), eq(reglamentSpaces.spaceId, spaceId))).for('update');
  if (!placement) throw new AppError('REFERENCE_NOT_FOUND', 'reglamentColumnId is not a group of a space showing this reglament');
  await authorizeReglamentSpace(db, actor, placement.spaceId, 'update');
  const target = input.reglamentColumnId ?? placement.reglamentGroupId;
  if (target !== placement.reglamentGroupId) {
    await db.update(reglamentSpaces).set({ reglamentGroupId: target }).where(and(eq(reglamentSpaces.reglamentId, id), eq(reglamentSpaces.spaceId, placement.spaceId)));
  }
  const order = await placeAt(db, placementsIn(target), id, orderToInt(input.order));
  if (target !== placement.reglamentGroupId) await compact(db, placementsIn(placement.reglamentGroupId));
  await recordEvent(ctx, id, 'moved', { spaceId: placement.spaceId, fromGroupId: placement.reglamentGroupId, toGroupId: target, order });
  return announceReglament(ctx, 'reglament.updated', id, access.homeSpaceId);
}

/** Shows the reglament in another space too (editor of the reglament and of that space). */
export async function addToSpace(ctx: Ctx, id: number, input: { spaceId: number; reglamentColumnId?: number }): Promise<ReglamentFullDto> {
  const { db, actor } = ctx;
  const access = await authorizeReglament(db, actor, id, 'link');
  await authorizeReglamentSpace(db, actor, input.spaceId, 'link');
  const [group] = await db
    .select({ id: reglamentGroups.id })
    .from(reglamentGroups)
    .where(
      and(
        eq(reglamentGroups.spaceId, input.spaceId),
        eq(reglamentGroups.organizationId, actor.organizationId),
        input.reglamentColumnId === undefined ? undefined : eq(reglamentGroups.id, input.reglamentColumnId),
      ),
    )
    .orderBy(reglamentGroups.order, reglamentGroups.id)
    .limit(1);
  if (!group) {
    throw new AppError('REFERENCE_NOT_FOUND', input.reglamentColumnId === undefined ? 'the space has no reglament group yet' : 'reglamentColumnId is not a group of that space');
  }
  const inserted = await db
    .insert(reglamentSpaces)
    .values({ organizationId: actor.organizationId, reglamentId: id, spaceId: input.spaceId, reglamentGroupId: group.id, order: 0 })
    .onConflictDoNothing()
    .returning({ id: reglamentSpaces.reglamentId });
  if (inserted.length === 0) throw new AppError('CONFLICT', 'the reglament is already shown in that space');
  await placeAt(db, placementsIn(group.id), id, undefined);
  await recordEvent(ctx, id, 'space-added', { spaceId: input.spaceId, groupId: group.id });
  return announceReglament(ctx, 'reglament.updated', id, access.homeSpaceId);
}

/** Stops showing the reglament in a space other than its home (which it leaves only by deletion). */
export async function removeFromSpace(ctx: Ctx, id: number, spaceId: number): Promise<void> {
  const { db, actor } = ctx;
  const access = await authorizeReglament(db, actor, id, 'link');
  const [placement] = await db.select().from(reglamentSpaces).where(and(eq(reglamentSpaces.reglamentId, id), eq(reglamentSpaces.spaceId, spaceId))).for('update');
  if (!placement) throw notFound('reglament in this space');
  if (spaceId === access.homeSpaceId) throw new AppError('BAD_REQUEST', 'the home space cannot be removed; delete the reglament instead');
  await authorizeReglamentSpace(db, actor, spaceId, 'link');
  await db.delete(reglamentSpaces).where(and(eq(reglamentSpaces.reglamentId, id), eq(reglamentSpaces.spaceId, spaceId)));
  await clearIntro(ctx, id, spaceId);
  await compact(db, placementsIn(placement.reglamentGroupId));
  await recordEvent(ctx, id, 'space-removed', { spaceId });
  await announceReglament(ctx, 'reglament.updated', id, access.homeSpaceId);
}

/** A space stops offering as its intro a reglament it no longer shows, and says so (space.updated). */
async function clearIntro(ctx: Ctx, id: number, spaceId?: number): Promise<void> {
  const cleared = await ctx.db
    .update(spaces)
    .set({ introReglamentId: null, updatedAt: sql`now()` })
    .where(and(eq(spaces.organizationId, ctx.actor.organizationId), eq(spaces.introReglamentId, id), spaceId === undefined ? undefined : eq(spaces.id, spaceId)))
    .returning({ id: spaces.id });
  for (const space of cleared) await emitSpaceFull(ctx, 'space.updated', Number(space.id));
}

/** Deletes the reglament with its test, versions and history; its uploaded files and their blobs go too. */
export async function deleteReglament(ctx: Ctx, store: FileStore, id: number): Promise<void> {
  const { db, actor } = ctx;
  const access = await authorizeReglament(db, actor, id, 'delete');
  await lockReglament(db, id);
  const groups = await db.select({ groupId: reglamentSpaces.reglamentGroupId }).from(reglamentSpaces).where(eq(reglamentSpaces.reglamentId, id));
  const own = await db.select({ fileId: reglamentFiles.fileId }).from(reglamentFiles).where(eq(reglamentFiles.reglamentId, id));
  const ofQuestions = await db
    .select({ fileId: reglamentQuestionFiles.fileId })
    .from(reglamentQuestionFiles)
    .innerJoin(reglamentQuestions, eq(reglamentQuestions.id, reglamentQuestionFiles.questionId))
    .where(eq(reglamentQuestions.reglamentId, id));
  await deleteFiles(ctx, store, [...own, ...ofQuestions].map((f) => f.fileId));
  await clearIntro(ctx, id);
  await db.delete(reglaments).where(eq(reglaments.id, id));
  emitReglament(ctx, 'reglament.deleted', access.homeSpaceId, { id });
  for (const { groupId } of groups) await compact(db, placementsIn(groupId));
}

