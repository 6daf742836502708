import { sql } from 'drizzle-orm';
import { Value } from 'typebox/value';
import type { TestKit } from '../../test/app.js';
import type { EventType } from '../../platform/event-types.js';
import { eventPayloadSchemas } from './events.catalogue.js';

export interface LoggedEvent {
  type: string;
  spaceId: number | null;
  projectId: number | null;
  taskId: number | null;
  actorId: number | null;
  /** Asserted field by field, so left untyped. */
  payload: any;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/**
 * Reads an organization's change log as a test goes: each call answers the events recorded since
 * the previous call for that organization, so a step asserts only what it caused.
 */
export function changeLog(t: TestKit) {
  const seen = new Map<number, number>();
  return async function newEvents(organizationId: number): Promise<LoggedEvent[]> {
    const rows = await t.sql<{ id: unknown; type: string; space_id: unknown; project_id: unknown; task_id: unknown; actor_id: unknown; payload: unknown }>(
      sql`select id, type, space_id, project_id, task_id, actor_id, payload from events
          where organization_id = ${organizationId} and id > ${seen.get(organizationId) ?? 0} order by id`,
    );
    if (rows.length > 0) seen.set(organizationId, Number(rows.at(-1)!.id));
    const events = rows.map((r) => ({
      type: r.type,
      spaceId: num(r.space_id),
      projectId: num(r.project_id),
      taskId: num(r.task_id),
      actorId: num(r.actor_id),
      payload: typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload,
    }));
    // Every payload a test sees must be what the catalogue publishes for its type.
    for (const e of events) {
      const schema = eventPayloadSchemas()[e.type as EventType];
      if (!schema) throw new Error(`${e.type} is not in the catalogue`);
      if (!Value.Check(schema, e.payload)) {
        throw new Error(`${e.type} payload does not match the catalogue: ${JSON.stringify([...Value.Errors(schema, e.payload)].slice(0, 3))}`);
      }
    }
    return events;
  };
}

/** The events of a step without the task.* ones the task writers already announce. */
export const withoutTaskEvents = (events: LoggedEvent[]) => events.filter((e) => !e.type.startsWith('task.'));
