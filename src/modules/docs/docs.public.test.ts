import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { docsFactories } from './docs.fixtures.js';

const t = useTestApp({ publicUrl: 'https://work.example.test' });
const f = docsFactories(t);
const XSS = '<script>alert(1)</script><img src=x onerror=alert(1)><a href="javascript:alert(2)">go</a><p onclick="x()">safe text</p>';

async function published(content = XSS) {
  const { owner, space, group, page } = await f.docs();
  await t.as(owner).patch(`/pages/${page.id}/content`, { content });
  const res = await t.as(owner).patch(`/pages/${page.id}/public`, { public: true });
  const token = (res.json().publicUrl as string).split('/').pop()!;
  return { owner, space, group, page, res, token };
}

describe('publishing', () => {
  it('gives a published page an unguessable public URL, kept when published again', async () => {
    const { owner, page, res, token } = await published();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: page.id, public: true, publicUrl: `https://work.example.test/public/pages/${token}` });
    // 24 random bytes, base64url: 192 bits.
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const again = await t.as(owner).patch(`/pages/${page.id}/public`, { public: true });
    expect(again.json().publicUrl).toBe(res.json().publicUrl);
  });

  it('serves the page without a credential, sanitized, with its published children', async () => {
    const { owner, space, group, page, token } = await published();
    const child = await f.page(owner, space.id, group.id, { name: 'Child', parentPageId: page.id });
    await f.page(owner, space.id, group.id, { name: 'Unpublished child', parentPageId: page.id });
    const childToken = ((await t.as(owner).patch(`/pages/${child.id}/public`, { public: true })).json().publicUrl as string).split('/').pop();
    const res = await t.as(null).get(`/public/pages/${token}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      name: 'Start',
      icon: null,
      content: expect.any(String),
      updatedAt: expect.stringMatching(/Z$/),
      children: [{ publicToken: childToken, name: 'Child' }],
    });
    expect(body.content).not.toMatch(/<script|onerror|onclick|javascript:/i);
    expect(body.content).toContain('<img src="x" />');
    expect(body.content).toContain('<p>safe text</p>');
    // The source is stored as sent; editors read it back unchanged.
    expect((await t.as(owner).get(`/pages/${page.id}`)).json().content).toBe(XSS);
  });

  it('renders a Markdown source to sanitized HTML', async () => {
    const { token } = await published('# Title\n\nSome **bold** [link](javascript:alert(1)) <img src=x onerror=alert(1)>');
    const content = (await t.as(null).get(`/public/pages/${token}`)).json().content as string;
    expect(content).toContain('<h1>Title</h1>');
    expect(content).toContain('<strong>bold</strong>');
    expect(content).not.toMatch(/onerror|javascript:/i);
  });

  it('answers 404 the moment a page is unpublished (the old token dies) or archived', async () => {
    const { owner, page, token } = await published();
    await t.as(owner).patch(`/pages/${page.id}/archive`);
    expectProblem(await t.as(null).get(`/public/pages/${token}`), 404, 'NOT_FOUND');
    await t.as(owner).patch(`/pages/${page.id}/restore`);
    expect((await t.as(null).get(`/public/pages/${token}`)).statusCode).toBe(200);
    const off = await t.as(owner).patch(`/pages/${page.id}/public`, { public: false });
    expect(off.json()).toMatchObject({ public: false, publicUrl: null });
    expectProblem(await t.as(null).get(`/public/pages/${token}`), 404, 'NOT_FOUND');
    const [row] = await t.sql<{ public_token: string | null }>(sql`select public_token from pages where id = ${page.id}`);
    expect(row!.public_token).toBeNull();
    const republished = (await t.as(owner).patch(`/pages/${page.id}/public`, { public: true })).json().publicUrl as string;
    expect(republished.endsWith(token)).toBe(false);
  });

  it('answers 404 to an unknown token and 400 to a malformed one', async () => {
    expectProblem(await t.as(null).get(`/public/pages/${'A'.repeat(32)}`), 404, 'NOT_FOUND');
    expectProblem(await t.as(null).get('/public/pages/x'), 400, 'VALIDATION_FAILED');
  });

  commonCases(t, 'PATCH /pages/{id}/public', {
    method: 'PATCH',
    async setup() {
      const { owner, space, page } = await f.docs();
      return { url: `/pages/${page.id}/public`, owner, body: { public: true }, badBody: { public: 'yes' }, forbidden: await f.spaceMember(owner, space.id, 'member') };
    },
  });
});
