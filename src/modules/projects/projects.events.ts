import { sql } from 'drizzle-orm';
import { idArray, queryRows } from '../../db/client.js';
import { emit, type Completer, type EventType } from '../../platform/events.js';
import type { Ctx } from '../../platform/context.js';

/**
 * Fills the home space of events about a project's parts (columns, table), which their use cases
 * authorize on the project without reading its row: one query for every such event of the transaction.
 */
export const projectSpace: Completer = {
  name: 'project-space',
  async complete(db, organizationId, events) {
    const ids = [...new Set(events.map((e) => e.projectId!))];
    const rows = await queryRows<{ id: number; spaceId: number }>(
      db,
      sql`select id, space_id as "spaceId" from projects where id = any(${idArray(ids)}) and organization_id = ${organizationId}`,
    );
    const spaceOf = new Map(rows.map((r) => [Number(r.id), Number(r.spaceId)]));
    for (const event of events) event.spaceId = spaceOf.get(event.projectId!) ?? null;
  },
};

/** An event about something inside a project, addressed to the project and its home space. */
export function emitInProject(ctx: Ctx, type: EventType, projectId: number, payload: unknown): void {
  emit(ctx, { type, projectId, payload, completer: projectSpace });
}
