import { and, count, desc, eq, gt, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import { webhookDeliveries, webhooks } from '../../db/schema/webhooks.js';
import { projects } from '../../db/schema/projects.js';
import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { emit } from '../../platform/events.js';
import { isEventPattern } from '../../platform/event-types.js';
import { authorizeWebhookScope, managedSpaceIds } from './webhooks.policy.js';
import { presentDelivery, presentWebhook, type WebhookRow } from './webhooks.presenter.js';
import { expectPing, type PingRequest } from './webhooks.queue.js';
import type { CreateWebhookInput, UpdateWebhookInput } from './webhooks.schemas.js';
import { assertSecret, newSecret } from './signing.js';
import { assertWebhookUrl, type RefusalLog } from './ssrf.js';

/** What the use cases need from the settings. */
export interface WebhookSettings {
  allowedHosts: readonly string[];
  /** Where a refused URL's resolved address is logged (the request's logger): never in the answer. */
  log?: RefusalLog;
}

const DELIVERIES_KEPT_DAYS = 30;

function assertEvents(events: string[]): void {
  const errors = events.flatMap((e, i) => (isEventPattern(e) ? [] : [{ path: `/events/${i}`, message: `unknown event type or pattern "${e}"` }]));
  if (errors.length) throw new AppError('VALIDATION_FAILED', errors[0]!.message, errors);
}

/** The webhook's space: the one given, or the home space of the project given (which must agree). */
async function scopeOf(ctx: Ctx, input: { spaceId?: number | null; projectId?: number | null }): Promise<number | null> {
  if (!input.projectId) return input.spaceId ?? null;
  const [project] = await ctx.db
    .select({ spaceId: projects.spaceId })
    .from(projects)
    .where(and(eq(projects.id, input.projectId), eq(projects.organizationId, ctx.actor.organizationId)));
  if (!project) throw notFound('project');
  if (input.spaceId && input.spaceId !== project.spaceId) throw new AppError('BAD_REQUEST', 'the project is not in that space');
  return project.spaceId;
}

export async function createWebhook(ctx: Ctx, input: CreateWebhookInput, settings: WebhookSettings) {
  const spaceId = await scopeOf(ctx, input);
  await authorizeWebhookScope(ctx.db, ctx.actor, spaceId, input.projectId ? 'project' : 'space');
  assertEvents(input.events);
  const url = await assertWebhookUrl(input.url, settings.allowedHosts, settings.log);
  if (input.secret !== undefined) assertSecret(input.secret);
  const secret = input.secret ?? newSecret();
  const [row] = await ctx.db
    .insert(webhooks)
    .values({
      organizationId: ctx.actor.organizationId,
      spaceId,
      projectId: input.projectId ?? null,
      url: url.href,
      events: input.events,
      secret,
      creatorId: ctx.actor.userId,
    })
    .returning();
  return { ...presentWebhook(row!), secret };
}

/** The webhook if the caller manages it: 404 when it cannot see it, 403 when it may not manage it. */
async function managedWebhook(ctx: Ctx, webhookId: number, lock: boolean): Promise<WebhookRow> {
  const query = ctx.db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.id, webhookId), eq(webhooks.organizationId, ctx.actor.organizationId)));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw notFound('webhook');
  await authorizeWebhookScope(ctx.db, ctx.actor, row.spaceId);
  return row;
}

export async function listWebhooks(ctx: Ctx, query: { spaceId?: number; limit: number; offset: number }) {
  let scope: SQL | undefined;
  if (query.spaceId) {
    await authorizeWebhookScope(ctx.db, ctx.actor, query.spaceId, 'space');
    scope = eq(webhooks.spaceId, query.spaceId);
  } else {
    const spaces = await managedSpaceIds(ctx.db, ctx.actor);
    if (spaces !== null) {
      if (spaces.length === 0) return { total: 0, items: [] };
      scope = inArray(webhooks.spaceId, spaces);
    }
  }
  const where = and(eq(webhooks.organizationId, ctx.actor.organizationId), scope);
  const [total] = await ctx.db.select({ n: count() }).from(webhooks).where(where);
  const rows = await ctx.db.select().from(webhooks).where(where).orderBy(webhooks.id).limit(query.limit).offset(query.offset);
  return { total: Number(total?.n ?? 0), items: rows.map(presentWebhook) };
}

export async function updateWebhook(ctx: Ctx, webhookId: number, input: UpdateWebhookInput, settings: WebhookSettings) {
  const current = await managedWebhook(ctx, webhookId, true);
  if (input.events) assertEvents(input.events);
  const url = input.url === undefined ? undefined : (await assertWebhookUrl(input.url, settings.allowedHosts, settings.log)).href;
  if (input.secret !== undefined) assertSecret(input.secret);
  const enabling = input.enabled === true && !current.enabled;
  const disabling = input.enabled === false && current.enabled;
  const [row] = await ctx.db
    .update(webhooks)
    .set({
      ...(url !== undefined ? { url } : {}),
      ...(input.events ? { events: input.events } : {}),
      ...(input.secret !== undefined ? { secret: input.secret } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      // Enabling again is the operator saying the receiver is fixed: start from a clean slate.
      ...(enabling ? { failureCount: 0, disabledReason: null } : {}),
      updatedAt: new Date(),
    })
    .where(eq(webhooks.id, webhookId))
    .returning();
  // Pending deliveries wait (not due) while the webhook is off, and resume at once when it is back.
  if (disabling || enabling) {
    await ctx.db
      .update(webhookDeliveries)
      .set({ nextRetryAt: enabling ? sql`now()` : null })
      .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.status, 'pending'), enabling ? isNull(webhookDeliveries.nextRetryAt) : undefined));
  }
  return presentWebhook(row!);
}

export async function deleteWebhook(ctx: Ctx, webhookId: number): Promise<void> {
  await managedWebhook(ctx, webhookId, true);
  // Its deliveries go with it (on delete cascade).
  await ctx.db.delete(webhooks).where(eq(webhooks.id, webhookId));
}

export async function listDeliveries(ctx: Ctx, webhookId: number, query: { status?: 'pending' | 'succeeded' | 'failed'; limit: number; offset: number }) {
  await managedWebhook(ctx, webhookId, false);
  const where = and(
    eq(webhookDeliveries.webhookId, webhookId),
    gt(webhookDeliveries.createdAt, sql`now() - make_interval(days => ${DELIVERIES_KEPT_DAYS})`),
    query.status ? eq(webhookDeliveries.status, query.status) : undefined,
  );
  const [total] = await ctx.db.select({ n: count() }).from(webhookDeliveries).where(where);
  const rows = await ctx.db.select().from(webhookDeliveries).where(where).orderBy(desc(webhookDeliveries.id)).limit(query.limit).offset(query.offset);
  return { total: Number(total?.n ?? 0), items: rows.map(presentDelivery) };
}

/**
 * Records a webhook.ping aimed at this webhook alone (even when it is disabled: testing the
 * receiver is how one decides to enable it again). The listener queues its delivery in this
 * transaction and fills in the id; the caller sends it once the transaction has committed.
 */
export async function queuePing(ctx: Ctx, webhookId: number): Promise<PingRequest> {
  const hook = await managedWebhook(ctx, webhookId, false);
  const request: PingRequest = { webhookId: hook.id };
  expectPing(ctx.db, request);
  // Addressed to the caller alone: a webhook's URL is admin-only data, never for every space member.
  emit(ctx, { type: 'webhook.ping', spaceId: hook.spaceId, projectId: hook.projectId, userId: ctx.actor.userId, payload: { webhookId: hook.id, url: hook.url } });
  return request;
}

export { presentDelivery };
