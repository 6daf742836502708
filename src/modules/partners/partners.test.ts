import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PASSWORD, expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';

const PUBLIC_URL = 'https://work.example.test';
const t = useTestApp({ publicUrl: PUBLIC_URL });
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function link(name = 'Blog') {
  const partner = await t.org();
  const res = await t.as(partner).post('/partner-program/links', { name });
  return { partner, res, link: res.json() as { id: number; code: string; url: string } };
}

const register = (extra: Record<string, unknown>) =>
  t.as(null).post('/auth/register', { email: `ref-${Math.random().toString(36).slice(2)}@example.test`, password: PASSWORD, name: 'Referred', ...extra });

describe('partner links', () => {
  it('creates a link (201) with a random code and its tracking URL', async () => {
    const { partner, res } = await link(' Blog ');
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: expect.any(Number),
      partnerId: partner.id,
      name: 'Blog',
      code: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/),
      url: `${PUBLIC_URL}/public/partner-links/${body.code}`,
      clicks: 0,
      createdAt: expect.stringMatching(ISO_MS),
    });
  });

  it("lists only the caller's own links, paged", async () => {
    const { partner, link: first } = await link('One');
    await t.as(partner).post('/partner-program/links', { name: 'Two' });
    const colleague = await t.member(partner, 'admin');
    await t.as(colleague).post('/partner-program/links', { name: 'Not mine' });
    const res = await t.as(partner).get('/partner-program/links?limit=1');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([expect.objectContaining({ id: first.id, name: 'One' })]);
    expect(res.headers['x-total-count']).toBe('2');
    expect(res.headers.link).toContain('offset=1');
  });

  it('counts a followed link without a credential and redirects (302) to the service with the code', async () => {
    const { partner, link: l } = await link();
    const res = await t.as(null).get(`/public/partner-links/${l.code}`);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`${PUBLIC_URL}/?ref=${l.code}`);
    await t.as(null).get(`/public/partner-links/${l.code}`);
    expect((await t.as(partner).get('/partner-program/links')).json()[0].clicks).toBe(2);
  });

  it('answers 404 to an unknown code, counting nothing', async () => {
    const [before] = await t.sql<{ n: number }>(sql`select count(*)::int as n from partner_link_visits`);
    expectProblem(await t.as(null).get('/public/partner-links/unknown-code'), 404, 'NOT_FOUND');
    const [after] = await t.sql<{ n: number }>(sql`select count(*)::int as n from partner_link_visits`);
    expect(after!.n).toBe(before!.n);
  });

  commonCases(t, 'GET /partner-program/links', {
    method: 'GET',
    async setup() {
      const { partner } = await link();
      return { url: '/partner-program/links', owner: partner };
    },
  });

  commonCases(t, 'POST /partner-program/links', {
    method: 'POST',
    async setup() {
      const partner = await t.org();
      return { url: '/partner-program/links', owner: partner, body: { name: 'Site' }, badBody: { name: '' } };
    },
  });
});

describe('registration attribution', () => {
  it('attributes a registration with a referral code to the link, with the organization it created', async () => {
    const { link: l } = await link();
    const res = await register({ referralCode: l.code });
    expect(res.statusCode).toBe(201);
    const { user, organization } = res.json();
    const rows = await t.sql(sql`select link_id, referred_user_id, referred_organization_id from partner_referrals where referred_user_id = ${user.id}`);
    expect(rows).toEqual([{ link_id: l.id, referred_user_id: user.id, referred_organization_id: organization.id }]);
  });

  it('ignores an unknown referral code: the user registers, nothing is attributed', async () => {
    const res = await register({ referralCode: 'no-such-code' });
    expect(res.statusCode).toBe(201);
    expect(await t.sql(sql`select 1 from partner_referrals where referred_user_id = ${res.json().user.id}`)).toHaveLength(0);
  });

  it('refuses a malformed referral code (400) and creates no user', async () => {
    const email = `bad-ref-${Date.now()}@example.test`;
    expectProblem(await t.as(null).post('/auth/register', { email, password: PASSWORD, name: 'X', referralCode: 'x'.repeat(65) }), 400, 'VALIDATION_FAILED');
    expect(await t.sql(sql`select 1 from users where email = ${email}`)).toHaveLength(0);
  });
});
