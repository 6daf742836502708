import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';

const OPERATOR_EMAIL = `operator-${randomUUID()}@example.test`;
const t = useTestApp({ operatorEmails: [OPERATOR_EMAIL] });
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const REVIEW_KEYS = ['category', 'createdAt', 'id', 'organizationId', 'page', 'rating', 'text', 'userId'];

let operator: Awaited<ReturnType<typeof t.org>> | undefined;
const theOperator = async () => (operator ??= await t.org({ email: OPERATOR_EMAIL, name: 'Operator' }));

const countReviews = async (userId: number) => (await t.sql<{ n: number }>(sql`select count(*)::int as n from reviews where user_id = ${userId}`))[0]!.n;

describe('POST /reviews', () => {
  it('stores a review from any member and answers 201 Review', async () => {
    const owner = await t.org();
    const member = await t.member(owner);
    const res = await t.as(member).post('/reviews', { rating: 5, text: 'Lovely board', category: 'praise', page: '/projects/1' });
    expect(res.statusCode).toBe(201);
    const review = res.json();
    expect(Object.keys(review).sort()).toEqual(REVIEW_KEYS);
    expect(review).toMatchObject({ userId: member.id, organizationId: owner.organizationId, rating: 5, text: 'Lovely board', category: 'praise', page: '/projects/1' });
    expect(review.createdAt).toMatch(ISO_MS);
    expect(await countReviews(member.id)).toBe(1);
  });

  it('defaults the category to other and the page to null; accepts 1 and 5000 characters', async () => {
    const user = await t.org();
    const res = await t.as(user).post('/reviews', { rating: 1, text: 'x'.repeat(5000) });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ rating: 1, category: 'other', page: null });
    expect(res.json().text).toHaveLength(5000);
  });

  it('refuses out-of-range ratings, empty or long text and unknown categories with 400, storing nothing', async () => {
    const user = await t.org();
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ rating: 0, text: 'x' }, '/rating'],
      [{ rating: 6, text: 'x' }, '/rating'],
      [{ rating: 3.5, text: 'x' }, '/rating'],
      [{ rating: '5', text: 'x' }, '/rating'],
      [{ text: 'x' }, '/rating'],
      [{ rating: 3, text: '' }, '/text'],
      [{ rating: 3, text: 'x'.repeat(5001) }, '/text'],
      [{ rating: 3 }, '/text'],
      [{ rating: 3, text: 'x', category: 'rant' }, '/category'],
    ];
    for (const [body, path] of bad) {
      const problem = expectProblem(await t.as(user).post('/reviews', body), 400, 'VALIDATION_FAILED');
      expect((problem.errors as Array<{ path: string }>)[0]!.path, JSON.stringify(body)).toBe(path);
    }
    expect(await countReviews(user.id)).toBe(0);
  });

  commonCases(t, 'POST /reviews', {
    method: 'POST',
    setup: async (kit) => ({ url: '/reviews', owner: await kit.org(), body: { rating: 4, text: 'ok' }, badBody: { rating: 9, text: 'ok' } }),
  });
});

describe('GET /reviews', () => {
  it('lists every organization’s reviews, newest first, for a service operator', async () => {
    const a = await t.org();
    const b = await t.org();
    const first = (await t.as(a).post('/reviews', { rating: 2, text: 'slow', category: 'bug' })).json();
    const second = (await t.as(b).post('/reviews', { rating: 4, text: 'nice', category: 'idea' })).json();
    const res = await t.as(await theOperator()).get('/reviews');
    expect(res.statusCode).toBe(200);
    const list = res.json() as Array<{ id: number }>;
    expect(Number(res.headers['x-total-count'])).toBeGreaterThanOrEqual(2);
    expect(list[0]).toEqual(second);
    expect(list[1]).toEqual(first);
  });

  it('pages with limit and offset', async () => {
    const user = await t.org();
    for (const rating of [1, 2, 3]) await t.as(user).post('/reviews', { rating, text: 'page' });
    const res = await t.as(await theOperator()).get('/reviews?limit=2');
    expect(res.json()).toHaveLength(2);
    expect(res.headers.link).toBe('</reviews?limit=2&offset=2>; rel="next"');
    expectProblem(await t.as(await theOperator()).get('/reviews?limit=501'), 400, 'VALIDATION_FAILED');
  });

  it('refuses everyone else with 403, organization owners included', async () => {
    const owner = await t.org();
    await t.as(owner).post('/reviews', { rating: 3, text: 'mine' });
    expectProblem(await t.as(owner).get('/reviews'), 403, 'FORBIDDEN');
  });

  commonCases(t, 'GET /reviews', {
    method: 'GET',
    setup: async (kit) => {
      const owner = await theOperator();
      return { url: '/reviews', owner, forbidden: await kit.member(owner) };
    },
  });
});
