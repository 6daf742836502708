import type { Ctx } from '../../../platform/context.js';
import type { FileStore } from '../../../platform/files.js';
import { reglamentFiles } from '../../../db/schema/index.js';
import { recordFile, type ReceivedFile } from '../../files/files.service.js';
import { presentFile } from '../../files/files.presenter.js';
import { recordEvent } from '../reglaments.events.js';
import { authorizeReglament } from '../reglaments.policy.js';

/**
 * Runs the use case recording several received uploads. If it fails, even before recordFile (a
 * refused role, a missing row), every blob is deleted: nothing refers to them.
 */
export async function withUploads<T>(store: FileStore, received: ReceivedFile[], run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    await Promise.all(received.map((r) => store.remove(r.key).catch(() => {})));
    throw error;
  }
}

/** Stores images or files for the reglament's content (the client puts their links into it). */
export async function addReglamentFiles(ctx: Ctx, store: FileStore, reglamentId: number, received: ReceivedFile[], kind: 'image' | 'file') {
  const access = await authorizeReglament(ctx.db, ctx.actor, reglamentId, 'update');
  const out = [];
  for (const file of received) {
    const row = await recordFile(ctx, store, file, { purpose: `reglament-${kind}`, organizationId: ctx.actor.organizationId, spaceId: access.homeSpaceId });
    await ctx.db.insert(reglamentFiles).values({ organizationId: ctx.actor.organizationId, reglamentId, fileId: row.id, kind });
    out.push(presentFile(row));
  }
  await recordEvent(ctx, reglamentId, 'file', { change: 'added', kind, fileIds: out.map((f) => f.id) });
  return out;
}
