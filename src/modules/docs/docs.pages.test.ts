import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { blobCount, multipart } from '../files/files.fixtures.js';
import { docsFactories } from './docs.fixtures.js';
import { STORAGE_BACKENDS, useStorageTestApp } from '../../test/storage.js';

// Every case runs on both file storage backends (the S3 one against a local S3-compatible server).
describe.each(STORAGE_BACKENDS)('%s file storage', (storage) => {
  const t = useStorageTestApp(storage);
  const f = docsFactories(t);
  const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

  describe('create and read a page', () => {
    it('creates a page (201, full form) and reads it back with its version as ETag', async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      const group = await f.group(owner, space.id);
      const res = await t.as(owner).post('/pages', { spaceId: space.id, documentationGroupId: group.id, name: ' Handbook ', icon: '📘', content: '# Hello' });
      expect(res.statusCode).toBe(201);
      const page = res.json();
      expect(page).toEqual({
        id: expect.any(Number),
        spaceId: space.id,
        documentationGroupId: group.id,
        parentPageId: null,
        name: 'Handbook',
        icon: '📘',
        order: '0',
        public: false,
        publicUrl: null,
        archived: false,
        version: 1,
        creatorId: owner.id,
        updatedById: owner.id,
        createdAt: expect.stringMatching(ISO_MS),
        updatedAt: expect.stringMatching(ISO_MS),
        collapsed: false,
        content: '# Hello',
        files: [],
      });
      expect(res.headers.etag).toMatch(/^"1-[\w-]{16}"$/);

      const read = await t.as(owner).get(`/pages/${page.id}`);
      expect(read.statusCode).toBe(200);
      expect(read.headers.etag).toMatch(/^"1-[\w-]{16}"$/);
      expect(read.json()).toEqual(page);
    });

    it('never answers 304 with a stale form: publishing changes the ETag, not the content version If-Match compares', async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      const group = await f.group(owner, space.id);
      const page = (await t.as(owner).post('/pages', { spaceId: space.id, documentationGroupId: group.id, name: 'Handbook', content: '# Hello' })).json();
      const before = (await t.as(owner).get(`/pages/${page.id}`)).headers.etag as string;
      expect((await t.as(owner).request('GET', `/pages/${page.id}`, undefined, { 'if-none-match': before })).statusCode).toBe(304);

      expect((await t.as(owner).patch(`/pages/${page.id}/public`, { public: true })).statusCode).toBe(200);
      const fresh = await t.as(owner).request('GET', `/pages/${page.id}`, undefined, { 'if-none-match': before });
      expect(fresh.statusCode).toBe(200);
      expect(fresh.json()).toMatchObject({ version: 1, public: true, publicUrl: expect.any(String) });
      expect(fresh.headers.etag).toMatch(/^"1-[\w-]{16}"$/);
      expect(fresh.headers.etag).not.toBe(before);
      // The content did not change: a save with the tag read before publishing is not stale.
      const saved = await t.as(owner).request('PATCH', `/pages/${page.id}/content`, { content: '# Hello again' }, { 'if-match': before });
      expect(saved.statusCode).toBe(200);
      expect(saved.json().version).toBe(2);
      const stale = await t.as(owner).request('PATCH', `/pages/${page.id}/content`, { content: 'lost' }, { 'if-match': before });
      expectProblem(stale, 409, 'STALE_VERSION');
    });

    it('lets a reader read and refuses it (403) to write', async () => {
      const { owner, space, page } = await f.docs();
      const reader = await f.spaceMember(owner, space.id, 'reader');
      expect((await t.as(reader).get(`/pages/${page.id}`)).json()).toMatchObject({ id: page.id, content: '<p>hello</p>' });
      expectProblem(await t.as(reader).patch(`/pages/${page.id}/content`, { content: 'x' }), 403, 'FORBIDDEN');
    });

    it('hides pages of a space the caller is not in (404)', async () => {
      const { owner, page } = await f.docs();
      const outsider = await t.member(owner, 'member');
      expectProblem(await t.as(outsider).get(`/pages/${page.id}`), 404, 'NOT_FOUND');
    });

    it('places a new page at the given order among its siblings, under a parent when given', async () => {
      const { owner, space, group, page } = await f.docs();
      const first = await f.page(owner, space.id, group.id, { name: 'First', order: 0 });
      const child = await f.page(owner, space.id, group.id, { name: 'Child', parentPageId: page.id });
      expect(first.order).toBe('0');
      expect((await t.as(owner).get(`/pages/${page.id}`)).json().order).toBe('1');
      expect(child).toMatchObject({ parentPageId: page.id, order: '0' });
    });

    it('refuses a group of another space and a parent in another group (400, nothing created)', async () => {
      const { owner, space, group, page } = await f.docs();
      const other = await f.space(owner, 'Other');
      const otherGroup = await f.group(owner, other.id);
      const secondGroup = await f.group(owner, space.id, 'Second');
      const [before] = await t.sql<{ n: number }>(sql`select count(*)::int as n from pages where space_id = ${space.id}`);
      expectProblem(await t.as(owner).post('/pages', { spaceId: space.id, documentationGroupId: otherGroup.id, name: 'X' }), 400, 'REFERENCE_NOT_FOUND');
      expectProblem(await t.as(owner).post('/pages', { spaceId: space.id, documentationGroupId: secondGroup.id, parentPageId: page.id, name: 'X' }), 400, 'VALIDATION_FAILED');
      const [after] = await t.sql<{ n: number }>(sql`select count(*)::int as n from pages where space_id = ${space.id}`);
      expect(after!.n).toBe(before!.n);
      expect(group.id).toBeGreaterThan(0);
    });

    commonCases(t, 'POST /pages', {
      method: 'POST',
      async setup() {
        const { owner, space, group } = await f.docs();
        const member = await f.spaceMember(owner, space.id, 'member');
        return {
          url: '/pages',
          owner,
          body: { spaceId: space.id, documentationGroupId: group.id, name: 'New' },
          badBody: { spaceId: space.id, documentationGroupId: group.id, name: '' },
          forbidden: member,
        };
      },
      foreignId: true,
    });

    commonCases(t, 'GET /pages/{id}', {
      method: 'GET',
      async setup() {
        const { owner, space, page } = await f.docs();
        const outsider = await t.member(owner, 'member');
        void space;
        return { url: `/pages/${page.id}`, owner, userIds: [outsider.id] };
      },
    });
  });

  describe('write content', () => {
    it('writes content, bumps the version and ETag, and records the change in the history', async () => {
      const { owner, page } = await f.docs();
      const res = await t.as(owner).request('PATCH', `/pages/${page.id}/content`, { content: 'v2' }, { 'if-match': '"1"' });
      expect(res.statusCode).toBe(200);
      expect(res.headers.etag).toMatch(/^"2-[\w-]{16}"$/);
      expect(res.json()).toMatchObject({ id: page.id, content: 'v2', version: 2, updatedById: owner.id });
      const versions = await t.as(owner).get(`/pages/${page.id}/versions`);
      expect(versions.statusCode).toBe(200);
      // Creation and this write are by one author within 5 minutes: one merged entry.
      expect(versions.json()).toEqual([{ id: expect.any(Number), pageId: page.id, version: 2, userId: owner.id, size: 2, createdAt: expect.stringMatching(ISO_MS) }]);
      expect(versions.headers['x-total-count']).toBe('1');
    });

    it('answers 409 STALE_VERSION to a stale If-Match and overwrites nothing', async () => {
      const { owner, space, page } = await f.docs();
      const editor = await f.spaceMember(owner, space.id, 'editor');
      expect((await t.as(editor).request('PATCH', `/pages/${page.id}/content`, { content: 'editor wins' }, { 'if-match': '"1"' })).statusCode).toBe(200);
      const stale = await t.as(owner).request('PATCH', `/pages/${page.id}/content`, { content: 'owner loses' }, { 'if-match': '"1"' });
      expectProblem(stale, 409, 'STALE_VERSION');
      const [row] = await t.sql<{ content: string; version: number }>(sql`select content, version from pages where id = ${page.id}`);
      expect(row).toEqual({ content: 'editor wins', version: 2 });
      // Without If-Match the last writer wins.
      expect((await t.as(owner).patch(`/pages/${page.id}/content`, { content: 'last' })).json().version).toBe(3);
    });

    it('keeps separate history entries for different authors and for writes more than 5 minutes apart', async () => {
      const { owner, space, page } = await f.docs();
      const editor = await f.spaceMember(owner, space.id, 'editor');
      await t.as(editor).patch(`/pages/${page.id}/content`, { content: 'by editor' });
      await t.as(editor).patch(`/pages/${page.id}/content`, { content: 'by editor again' });
      await t.sql(sql`update page_versions set created_at = created_at - interval '6 minutes' where page_id = ${page.id}`);
      await t.as(editor).patch(`/pages/${page.id}/content`, { content: 'later' });
      const versions = (await t.as(owner).get(`/pages/${page.id}/versions`)).json() as Array<{ version: number; userId: number; size: number }>;
      expect(versions.map((v) => [v.version, v.userId, v.size])).toEqual([
        [4, editor.id, 5],
        [3, editor.id, 15],
        [1, owner.id, 12],
      ]);
    });

    it('refuses content over 1 MiB in bytes (413) and changes nothing', async () => {
      const { owner, page } = await f.docs();
      const res = await t.as(owner).patch(`/pages/${page.id}/content`, { content: 'é'.repeat(600_000) });
      expectProblem(res, 413, 'PAYLOAD_TOO_LARGE');
      const [row] = await t.sql<{ version: number }>(sql`select version from pages where id = ${page.id}`);
      expect(row!.version).toBe(1);
    });

    commonCases(t, 'PATCH /pages/{id}/content', {
      method: 'PATCH',
      async setup() {
        const { owner, space, page } = await f.docs();
        return { url: `/pages/${page.id}/content`, owner, body: { content: 'new' }, badBody: { content: 42 }, forbidden: await f.spaceMember(owner, space.id, 'reader') };
      },
    });

    commonCases(t, 'GET /pages/{id}/versions', {
      method: 'GET',
      async setup() {
        const { owner, page } = await f.docs();
        return { url: `/pages/${page.id}/versions`, owner };
      },
    });
  });

  describe('page properties', () => {
    it('renames, sets and clears the icon without moving the version', async () => {
      const { owner, page } = await f.docs();
      const renamed = await t.as(owner).patch(`/pages/${page.id}/name`, { name: 'Renamed' });
      expect(renamed.statusCode).toBe(200);
      expect(renamed.json()).toMatchObject({ id: page.id, name: 'Renamed', version: 1 });
      expect(renamed.json()).not.toHaveProperty('content');
      expect((await t.as(owner).patch(`/pages/${page.id}/icon`, { icon: '🚀' })).json().icon).toBe('🚀');
      expect((await t.as(owner).patch(`/pages/${page.id}/icon`, { icon: null })).json().icon).toBeNull();
    });

    it("keeps each caller's own collapsed flag, and readers may set theirs", async () => {
      const { owner, space, page } = await f.docs();
      const reader = await f.spaceMember(owner, space.id, 'reader');
      const res = await t.as(reader).patch(`/pages/${page.id}/collapsed`, { collapsed: true });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: page.id, collapsed: true });
      expect((await t.as(owner).get(`/pages/${page.id}`)).json().collapsed).toBe(false);
    });

    for (const [path, body, badBody] of [
      ['name', { name: 'New name' }, { name: '' }],
      ['icon', { icon: '⭐' }, { icon: 5 }],
    ] as const) {
      commonCases(t, `PATCH /pages/{id}/${path}`, {
        method: 'PATCH',
        async setup() {
          const { owner, space, page } = await f.docs();
          return { url: `/pages/${page.id}/${path}`, owner, body, badBody, forbidden: await f.spaceMember(owner, space.id, 'member') };
        },
      });
    }

    commonCases(t, 'PATCH /pages/{id}/collapsed', {
      method: 'PATCH',
      async setup() {
        const { owner, page } = await f.docs();
        return { url: `/pages/${page.id}/collapsed`, owner, body: { collapsed: true }, badBody: { collapsed: 'yes' } };
      },
    });
  });

  describe('page files', () => {
    it('uploads files (201 [File]) that then appear on the page and are readable by space readers', async () => {
      const { owner, space, page } = await f.docs();
      const body = multipart([
        { name: 'files[]', data: 'first file', filename: 'a.txt', contentType: 'text/plain' },
        { name: 'files[]', data: 'second', filename: 'b.txt', contentType: 'text/plain' },
      ]);
      const res = await t.as(owner).request('POST', `/pages/${page.id}/files`, body.payload, body.headers);
      expect(res.statusCode).toBe(201);
      const files = res.json() as Array<{ id: number; link: string; name: string; size: number; mimeType: string }>;
      expect(files.map((x) => [x.name, x.size])).toEqual([['a.txt', 10], ['b.txt', 6]]);
      expect(files[0]!.link).toMatch(/^\/files\/[0-9a-f-]{36}$/);
      const [row] = await t.sql<{ purpose: string; space_id: number }>(sql`select purpose, space_id from files where id = ${files[0]!.id}`);
      expect(row).toEqual({ purpose: 'page', space_id: space.id });
      expect((await t.as(owner).get(`/pages/${page.id}`)).json().files).toEqual(files);
      const reader = await f.spaceMember(owner, space.id, 'reader');
      const download = await t.as(reader).get(files[0]!.link);
      expect(download.statusCode).toBe(200);
      expect(download.body).toBe('first file');
    });

    it('stores nothing when a reader (403) or another organization (404) uploads', async () => {
      const { owner, space, page } = await f.docs();
      const reader = await f.spaceMember(owner, space.id, 'reader');
      const blobs = await blobCount(t);
      const body = multipart([{ name: 'files[]', data: 'x', filename: 'a.txt' }]);
      expectProblem(await t.as(reader).request('POST', `/pages/${page.id}/files`, body.payload, body.headers), 403, 'FORBIDDEN');
      expect(await blobCount(t)).toBe(blobs);
      const stranger = await t.org();
      expectProblem(await t.as(stranger).request('POST', `/pages/${page.id}/files`, body.payload, body.headers), 404, 'NOT_FOUND');
      expect(await blobCount(t)).toBe(blobs);
      expect(await t.sql(sql`select 1 from page_files where page_id = ${page.id}`)).toHaveLength(0);
    });

    commonCases(t, 'POST /pages/{id}/files', {
      method: 'POST',
      async setup() {
        const { owner, space, page } = await f.docs();
        void space;
        return { url: `/pages/${page.id}/files`, owner };
      },
      // Uploads are streamed before the page is looked up, so 404/403 are proven above with real multipart bodies.
      foreignId: false,
    });
  });
});
