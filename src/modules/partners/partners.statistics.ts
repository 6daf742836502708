import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Ctx } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { authorizePartnerScope, type PartnerScope } from './partners.policy.js';
import type { PartnerStatisticsDto } from './partners.schemas.js';

/**
 * The partner's share of the revenue it brought: 20% of the subscription price of every organization
 * it referred that pays now. A programme term, not a per-partner setting: change it here.
 */
export const PARTNER_COMMISSION_RATE = 0.2;
/** Subscription prices carry no currency of their own; the service bills in this one. */
export const PARTNER_CURRENCY = 'USD';

type Period = 'year' | 'month' | 'week';
type Unit = 'month' | 'day';

interface Window {
  period: Period;
  from: Date;
  to: Date;
  unit: Unit;
  /** Start of every point, in order. */
  starts: Date[];
}

const DAY_MS = 86_400_000;
const dayKey = (d: Date) => d.toISOString().slice(0, 10);

function yearWindow(year: number): Window {
  const starts = Array.from({ length: 12 }, (_, m) => new Date(Date.UTC(year, m, 1)));
  return { period: 'year', from: starts[0]!, to: new Date(Date.UTC(year + 1, 0, 1)), unit: 'month', starts };
}

function monthWindow(year: number, month: number): Window {
  const from = new Date(Date.UTC(year, month - 1, 1));
  const to = new Date(Date.UTC(year, month, 1));
  const days = Math.round((to.getTime() - from.getTime()) / DAY_MS);
  return { period: 'month', from, to, unit: 'day', starts: Array.from({ length: days }, (_, i) => new Date(from.getTime() + i * DAY_MS)) };
}

/** The ISO week (Monday to Sunday, UTC) holding `date`. */
function weekWindow(date: string): Window {
  const day = new Date(`${date}T00:00:00.000Z`);
  if (Number.isNaN(day.getTime()) || dayKey(day) !== date) {
    throw new AppError('VALIDATION_FAILED', 'date is not a calendar day', [{ path: '/querystring/date', message: 'must be a calendar day' }]);
  }
  const from = new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY_MS);
  const starts = Array.from({ length: 7 }, (_, i) => new Date(from.getTime() + i * DAY_MS));
  return { period: 'week', from, to: new Date(from.getTime() + 7 * DAY_MS), unit: 'day', starts };
}

interface Bucket {
  clicks: number;
  registrations: number;
  paidOrganizations: number;
  revenueCents: number;
}

/** Counts per point, keyed by the point's first day (YYYY-MM-DD), for the partner's links in the window. */
async function aggregate(db: Queryable, scope: PartnerScope, w: Window, table: 'visits' | 'referrals' | 'paid') {
  const links = sql`l.partner_id = ${scope.partnerId} and l.organization_id = ${scope.organizationId}
                    ${scope.linkId === null ? sql`` : sql`and l.id = ${scope.linkId}`}`;
  const inWindow = (column: SQL) => sql`${column} >= ${w.from.toISOString()}::timestamptz and ${column} < ${w.to.toISOString()}::timestamptz`;
  const bucket = (column: SQL) => sql`to_char(date_trunc(${w.unit}, ${column} at time zone 'UTC'), 'YYYY-MM-DD')`;
  const query =
    table === 'visits'
      ? sql`select ${bucket(sql`v.created_at`)} as key, count(*)::int as n, '0' as revenue
            from partner_link_visits v join partner_links l on l.id = v.link_id
            where ${links} and ${inWindow(sql`v.created_at`)} group by 1`
      : table === 'referrals'
        ? sql`select ${bucket(sql`r.created_at`)} as key, count(*)::int as n, '0' as revenue
              from partner_referrals r join partner_links l on l.id = r.link_id
              where ${links} and ${inWindow(sql`r.created_at`)} group by 1`
        : // Paying organizations, counted at the time they were referred (a cohort view): the service keeps
          // the current subscription, not a payment ledger, so "when it paid" cannot be told.
          sql`select ${bucket(sql`r.created_at`)} as key, count(distinct r.referred_organization_id)::int as n, coalesce(sum(s.price), 0)::text as revenue
              from partner_referrals r join partner_links l on l.id = r.link_id
              join subscriptions s on s.organization_id = r.referred_organization_id and s.active
              where ${links} and ${inWindow(sql`r.created_at`)} group by 1`;
  return queryRows<{ key: string; n: number; revenue: string }>(db, query);
}

const commissionCents = (revenueCents: number) => Math.round(revenueCents * PARTNER_COMMISSION_RATE);
const figures = (b: Bucket) => ({
  clicks: b.clicks,
  registrations: b.registrations,
  paidOrganizations: b.paidOrganizations,
  revenue: b.revenueCents / 100,
  commission: commissionCents(b.revenueCents) / 100,
});

async function statistics(ctx: Ctx, query: { partnerId?: number; linkId?: number }, w: Window): Promise<PartnerStatisticsDto> {
  const scope = await authorizePartnerScope(ctx.db, ctx.actor, query);
  const [visits, referrals, paid] = await Promise.all([
    aggregate(ctx.db, scope, w, 'visits'),
    aggregate(ctx.db, scope, w, 'referrals'),
    aggregate(ctx.db, scope, w, 'paid'),
  ]);
  const buckets = new Map<string, Bucket>(w.starts.map((s) => [dayKey(s), { clicks: 0, registrations: 0, paidOrganizations: 0, revenueCents: 0 }]));
  for (const r of visits) buckets.get(r.key)!.clicks = Number(r.n);
  for (const r of referrals) buckets.get(r.key)!.registrations = Number(r.n);
  for (const r of paid) {
    const b = buckets.get(r.key)!;
    b.paidOrganizations = Number(r.n);
    b.revenueCents = Math.round(Number(r.revenue) * 100);
  }
  const total: Bucket = { clicks: 0, registrations: 0, paidOrganizations: 0, revenueCents: 0 };
  for (const b of buckets.values()) {
    total.clicks += b.clicks;
    total.registrations += b.registrations;
    total.paidOrganizations += b.paidOrganizations;
    total.revenueCents += b.revenueCents;
  }
  return {
    period: w.period,
    from: w.from.toISOString(),
    to: w.to.toISOString(),
    partnerId: scope.partnerId,
    linkId: scope.linkId,
    currency: PARTNER_CURRENCY,
    totals: figures(total),
    points: w.starts.map((s) => ({ from: s.toISOString(), ...figures(buckets.get(dayKey(s))!) })),
  };
}

const now = () => new Date();

export function yearStatistics(ctx: Ctx, query: { partnerId?: number; linkId?: number; year?: number }) {
  return statistics(ctx, query, yearWindow(query.year ?? now().getUTCFullYear()));
}

export function monthStatistics(ctx: Ctx, query: { partnerId?: number; linkId?: number; year?: number; month?: number }) {
  const today = now();
  return statistics(ctx, query, monthWindow(query.year ?? today.getUTCFullYear(), query.month ?? today.getUTCMonth() + 1));
}

export function weekStatistics(ctx: Ctx, query: { partnerId?: number; linkId?: number; date?: string }) {
  return statistics(ctx, query, weekWindow(query.date ?? dayKey(now())));
}
