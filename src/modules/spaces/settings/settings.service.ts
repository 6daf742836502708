import { and, eq, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { spaces } from '../../../db/schema/index.js';
import type { Ctx } from '../../../platform/context.js';
import type { FileStore } from '../../../platform/files.js';
import { deleteFiles, recordFile, type ReceivedFile } from '../../files/files.service.js';
import { authorizeSpace } from '../spaces.policy.js';
import { emit, type EventType } from '../../../platform/events.js';
import { loadSpace } from '../spaces.queries.js';
import type { SpaceDto } from '../spaces.schemas.js';

type SpaceChange = Pick<PgUpdateSetSource<typeof spaces>, 'name' | 'icon' | 'iconColor' | 'background' | 'customBackgroundFileId' | 'archivedAt'>;

/** Applies one settings change as a space admin; returns the space row as it was, locked. */
async function changeSpace(ctx: Ctx, spaceId: number, change: SpaceChange) {
  const { db, actor } = ctx;
  await authorizeSpace(db, actor, spaceId, 'update');
  const where = and(eq(spaces.id, spaceId), eq(spaces.organizationId, actor.organizationId));
  const [before] = await db.select().from(spaces).where(where).for('update');
  await db.update(spaces).set({ ...change, updatedAt: new Date() }).where(where);
  return before!;
}

/** The space as the settings routes answer it, announced with the kind of change. */
async function loadAndEmit(ctx: Ctx, spaceId: number, type: EventType = 'space.updated'): Promise<SpaceDto> {
  const space = await loadSpace(ctx.db, ctx.actor, spaceId);
  emit(ctx, { type, spaceId, payload: space });
  return space;
}

const thenLoad = async (ctx: Ctx, spaceId: number, change: SpaceChange, type?: EventType): Promise<SpaceDto> => {
  await changeSpace(ctx, spaceId, change);
  return loadAndEmit(ctx, spaceId, type);
};

export const renameSpace = (ctx: Ctx, spaceId: number, name: string) => thenLoad(ctx, spaceId, { name: name.trim() });
export const setSpaceIcon = (ctx: Ctx, spaceId: number, icon: string | null) => thenLoad(ctx, spaceId, { icon });
export const setSpaceIconColor = (ctx: Ctx, spaceId: number, iconColor: string | null) => thenLoad(ctx, spaceId, { iconColor });
export const restoreSpace = (ctx: Ctx, spaceId: number) => thenLoad(ctx, spaceId, { archivedAt: null }, 'space.restored');

/** Archiving an archived space keeps the time it was first archived. */
export const archiveSpace = (ctx: Ctx, spaceId: number) => thenLoad(ctx, spaceId, { archivedAt: sql`coalesce(${spaces.archivedAt}, now())` }, 'space.archived');

/** The replaced custom image goes: its row now, its blob once the change commits. */
async function dropCustomBackground(ctx: Ctx, store: FileStore, fileId: number | null): Promise<void> {
  if (fileId) await deleteFiles(ctx, store, [fileId]);
}

/** A space shows one background: a preset or colour set here replaces a custom image, and null clears both. */
export async function setSpaceBackground(ctx: Ctx, store: FileStore, spaceId: number, background: string | null): Promise<SpaceDto> {
  const before = await changeSpace(ctx, spaceId, { background, customBackgroundFileId: null });
  await dropCustomBackground(ctx, store, before.customBackgroundFileId);
  return loadAndEmit(ctx, spaceId);
}

/** An uploaded image becomes the background (replacing a preset); the file is readable by the space's readers. */
export async function setSpaceCustomBackground(ctx: Ctx, store: FileStore, spaceId: number, received: ReceivedFile): Promise<SpaceDto> {
  // Recorded first for its id; if the caller may not change the space, the transaction (and blob) is undone.
  const file = await recordFile(ctx, store, received, { purpose: 'space-background', organizationId: ctx.actor.organizationId, spaceId });
  const before = await changeSpace(ctx, spaceId, { background: null, customBackgroundFileId: file.id });
  await dropCustomBackground(ctx, store, before.customBackgroundFileId);
  return loadAndEmit(ctx, spaceId);
}
