import { sql } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../db/client.js';
import { matchesTypes } from '../../platform/event-types.js';
import { envelopeOf, listenerRead, type RecordedEvent, type TransactionalListener } from '../../platform/events.js';

/**
 * Queues deliveries in the transaction that recorded the events, so a change that rolls back
 * queues nothing and one that commits cannot lose its deliveries (the sender works from the table).
 */

interface HookRow {
  id: number;
  organization_id: number;
  space_id: number | null;
  project_id: number | null;
  events: string[];
  enabled: boolean;
}

/** Where the test route learns the id of the ping delivery its transaction queued. */
export interface PingRequest {
  webhookId: number;
  deliveryId?: number;
}
const pings = new WeakMap<object, PingRequest>();

export function expectPing(db: Queryable, request: PingRequest): void {
  pings.set(db, request);
}

const pingTarget = (e: RecordedEvent): number | null => {
  const id = (e.payload as { webhookId?: unknown } | null)?.webhookId;
  return typeof id === 'number' ? id : null;
};

// An automation rule's call-webhook action names the webhooks its event is for.
const directedAt = (e: RecordedEvent): number[] => {
  const ids = (e.payload as { webhookIds?: unknown } | null)?.webhookIds;
  return Array.isArray(ids) ? ids.filter((id): id is number => typeof id === 'number') : [];
};

// A project webhook follows its project wherever the event says it is; a space webhook its space.
function targets(hook: HookRow, e: RecordedEvent): boolean {
  if (e.type === 'webhook.ping') return pingTarget(e) === Number(hook.id);
  if (e.type === 'automation.rule.triggered') return hook.enabled && directedAt(e).includes(Number(hook.id));
  if (!hook.enabled || !matchesTypes(e.type, hook.events)) return false;
  if (hook.project_id !== null) return e.projectId === Number(hook.project_id);
  if (hook.space_id !== null) return e.spaceId === Number(hook.space_id);
  return true;
}

/**
 * The transactional listener; `onQueued` hears which organizations got deliveries. `pingLeaseMs` keeps a ping's delivery away from the background sender
 * while the test route sends it itself; should that request die, the worker sends it after the lease.
 */
export function queueDeliveries(pingLeaseMs: number, onQueued: (organizationIds: number[]) => void = () => {}): TransactionalListener {
  return async (db, recorded) => {
    // notification.* events are personal: they never leave for an organization-wide receiver.
    const events = recorded.filter((e) => !e.type.startsWith('notification.'));
    if (events.length === 0) return;
    const orgs = [...new Set(events.map((e) => e.organizationId))];
    const pinged = events.filter((e) => e.type === 'webhook.ping').map(pingTarget).filter((id) => id !== null);
    // One query per round, on the partial index of enabled webhooks (a ping may target a disabled one).
    const which = pinged.length ? sql`(enabled or id = any(${idArray(pinged)}))` : sql`enabled`;
    const read = sql`select id, organization_id, space_id, project_id, events, enabled from webhooks
          where organization_id = any(${idArray(orgs)}) and ${which}`;
    // A ping may target a disabled webhook, which an organization seen quiet can still have.
    return listenerRead<HookRow>(read, async (hooks) => {
      if (hooks.length === 0) return;
      // Bodies carry the event's id and time: built once the events have them.
      return async () => {
        const rows: Array<{ organization_id: number; webhook_id: number; event_id: number; event_type: string; body: string; ping: boolean }> = [];
        for (const e of events) {
          let body: string | undefined;
          for (const hook of hooks) {
            if (Number(hook.organization_id) !== e.organizationId || !targets(hook, e)) continue;
            body ??= JSON.stringify(envelopeOf(e));
            rows.push({ organization_id: e.organizationId, webhook_id: Number(hook.id), event_id: e.id, event_type: e.type, body, ping: e.type === 'webhook.ping' });
          }
        }
        if (rows.length === 0) return;
        const inserted = await queryRows<{ id: number; webhook_id: number; event_type: string }>(
          db,
          sql`insert into webhook_deliveries (organization_id, webhook_id, event_id, event_type, body, next_retry_at)
              select r.organization_id, r.webhook_id, r.event_id, r.event_type, r.body,
                     case when r.ping then now() + make_interval(secs => ${pingLeaseMs / 1000}) else now() end
              from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
                as r(organization_id bigint, webhook_id bigint, event_id bigint, event_type text, body text, ping boolean)
              returning id, webhook_id, event_type`,
        );
        onQueued([...new Set(rows.map((r) => r.organization_id))]);
        const ping = pings.get(db);
        if (!ping) return;
        const mine = inserted.find((d) => d.event_type === 'webhook.ping' && Number(d.webhook_id) === ping.webhookId);
        if (mine) ping.deliveryId = Number(mine.id);
      };
    }, { quiet: pinged.length === 0 });
  };
}
