import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PASSWORD, expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';

const t = useTestApp();
const zero = { clicks: 0, registrations: 0, paidOrganizations: 0, revenue: 0, commission: 0 };

async function newLink(partner: Awaited<ReturnType<typeof t.org>>, name: string) {
  return (await t.as(partner).post('/partner-program/links', { name })).json() as { id: number; code: string };
}

/** A referred registration at a given time, its organization paying `price` (or not paying, null). */
async function referral(code: string, at: string, price: number | null) {
  const res = await t.as(null).post('/auth/register', { email: `s-${Math.random().toString(36).slice(2)}@example.test`, password: PASSWORD, name: 'R', referralCode: code });
  const { user, organization } = res.json() as { user: { id: number }; organization: { id: number } };
  await t.sql(sql`update partner_referrals set created_at = ${at}::timestamptz where referred_user_id = ${user.id}`);
  if (price !== null) await t.sql(sql`update subscriptions set active = true, price = ${price} where organization_id = ${organization.id}`);
}

const clicks = (linkId: number, organizationId: number, times: string[]) =>
  Promise.all(times.map((at) => t.sql(sql`insert into partner_link_visits (organization_id, link_id, created_at) values (${organizationId}, ${linkId}, ${at}::timestamptz)`)));

/** Seeded series in 2025: link A has clicks in Jan and Mar and three referrals; link B one click in Mar. */
async function seeded() {
  const partner = await t.org();
  const a = await newLink(partner, 'A');
  const b = await newLink(partner, 'B');
  await clicks(a.id, partner.organizationId, ['2025-01-15T10:00:00Z', '2025-03-03T00:00:00Z', '2025-03-05T23:59:59Z', '2025-03-05T12:00:00Z', '2024-12-31T23:59:59Z']);
  await clicks(b.id, partner.organizationId, ['2025-03-09T23:00:00Z']);
  await referral(a.code, '2025-03-05T08:00:00Z', 100);
  await referral(a.code, '2025-03-05T09:00:00Z', 49.99);
  await referral(a.code, '2025-06-30T23:00:00Z', null);
  return { partner, a, b };
}

describe('partner statistics', () => {
  it('answers a year as 12 monthly points checked against the seeded series', async () => {
    const { partner } = await seeded();
    const res = await t.app.inject({ method: 'GET', url: '/partner-program/statistics/year?year=2025', headers: { authorization: `Bearer ${partner.session}` } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ period: 'year', from: '2025-01-01T00:00:00.000Z', to: '2026-01-01T00:00:00.000Z', partnerId: partner.id, linkId: null, currency: 'USD' });
    expect(body.totals).toEqual({ clicks: 5, registrations: 3, paidOrganizations: 2, revenue: 149.99, commission: 30 });
    expect(body.points).toHaveLength(12);
    expect(body.points.map((p: { from: string }) => p.from.slice(0, 10))).toEqual(Array.from({ length: 12 }, (_, m) => `2025-${String(m + 1).padStart(2, '0')}-01`));
    expect(body.points[0]).toEqual({ from: '2025-01-01T00:00:00.000Z', ...zero, clicks: 1 });
    expect(body.points[2]).toEqual({ from: '2025-03-01T00:00:00.000Z', clicks: 4, registrations: 2, paidOrganizations: 2, revenue: 149.99, commission: 30 });
    expect(body.points[5]).toEqual({ from: '2025-06-01T00:00:00.000Z', ...zero, registrations: 1 });
    expect(body.points[1]).toEqual({ from: '2025-02-01T00:00:00.000Z', ...zero });
  });

  it('narrows to one link with linkId', async () => {
    const { partner, b } = await seeded();
    const body = (await t.as(partner).get(`/partner-program/statistics/year?year=2025&linkId=${b.id}&partnerId=${partner.id}`)).json();
    expect(body.linkId).toBe(b.id);
    expect(body.totals).toEqual({ ...zero, clicks: 1 });
  });

  it('answers a month as daily points', async () => {
    const { partner } = await seeded();
    const body = (await t.as(partner).get('/partner-program/statistics/month?year=2025&month=3')).json();
    expect(body).toMatchObject({ period: 'month', from: '2025-03-01T00:00:00.000Z', to: '2025-04-01T00:00:00.000Z' });
    expect(body.points).toHaveLength(31);
    const byDay = Object.fromEntries(body.points.filter((p: { clicks: number; registrations: number }) => p.clicks || p.registrations).map((p: { from: string }) => [p.from.slice(0, 10), p]));
    expect(Object.keys(byDay)).toEqual(['2025-03-03', '2025-03-05', '2025-03-09']);
    expect(byDay['2025-03-05']).toMatchObject({ clicks: 2, registrations: 2, paidOrganizations: 2, revenue: 149.99, commission: 30 });
    expect(body.totals).toMatchObject({ clicks: 4, registrations: 2 });
    expect((await t.as(partner).get('/partner-program/statistics/month?year=2024&month=2')).json().points).toHaveLength(29);
  });

  it('answers the ISO week (Monday first) holding the date as 7 points', async () => {
    const { partner } = await seeded();
    const body = (await t.as(partner).get('/partner-program/statistics/week?date=2025-03-09')).json();
    expect(body).toMatchObject({ period: 'week', from: '2025-03-03T00:00:00.000Z', to: '2025-03-10T00:00:00.000Z' });
    expect(body.points.map((p: { clicks: number }) => p.clicks)).toEqual([1, 0, 2, 0, 0, 0, 1]);
    expect(body.totals).toEqual({ clicks: 4, registrations: 2, paidOrganizations: 2, revenue: 149.99, commission: 30 });
  });

  it('defaults to the current period (UTC)', async () => {
    const partner = await t.org();
    const body = (await t.as(partner).get('/partner-program/statistics/year')).json();
    expect(body.from).toBe(`${new Date().getUTCFullYear()}-01-01T00:00:00.000Z`);
    expect(body.totals).toEqual(zero);
  });

  it("answers 404 to another partner's id or link, and 400 to a bad period", async () => {
    const { partner, a } = await seeded();
    const other = await t.org();
    expectProblem(await t.as(other).get(`/partner-program/statistics/year?partnerId=${partner.id}`), 404, 'NOT_FOUND');
    expectProblem(await t.as(other).get(`/partner-program/statistics/month?linkId=${a.id}`), 404, 'NOT_FOUND');
    const colleague = await t.member(partner, 'admin');
    expectProblem(await t.as(colleague).get(`/partner-program/statistics/week?linkId=${a.id}`), 404, 'NOT_FOUND');
    expectProblem(await t.as(partner).get('/partner-program/statistics/month?month=13'), 400, 'VALIDATION_FAILED');
    expectProblem(await t.as(partner).get('/partner-program/statistics/week?date=2025-02-30'), 400, 'VALIDATION_FAILED');
  });

  for (const period of ['year', 'month', 'week']) {
    commonCases(t, `GET /partner-program/statistics/${period}`, {
      method: 'GET',
      async setup() {
        const partner = await t.org();
        const l = await newLink(partner, 'A');
        return { url: `/partner-program/statistics/${period}?linkId=${l.id}`, owner: partner };
      },
    });
  }

  it('marks the year statistics as developing in the OpenAPI document', async () => {
    const doc = (await t.as(null).get('/openapi.json')).json();
    expect(doc.paths['/partner-program/statistics/year'].get['x-developing']).toBe(true);
  });
});
