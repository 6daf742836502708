import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { factories } from '../../test/factories.js';
import { PNG, blobCount, keyOf, multipart, sendFile } from '../files/files.fixtures.js';
import { STORAGE_BACKENDS, useStorageTestApp } from '../../test/storage.js';

// Every case runs on both file storage backends (the S3 one against a local S3-compatible server).
describe.each(STORAGE_BACKENDS)('%s file storage', (storage) => {
  const t = useStorageTestApp(storage);
  const f = factories(t);
  const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

  async function world() {
    const owner = await t.org();
    const space = await f.space(owner);
    const project = await f.project(owner, space.id);
    return { owner, space, project, url: `/projects/${project.id}/documentation` };
  }

  async function uploadImage(w: Awaited<ReturnType<typeof world>>) {
    const res = await sendFile(t, w.owner, 'POST', `${w.url}/images`, { data: PNG });
    if (res.statusCode !== 201) throw new Error(`image upload failed: ${res.statusCode} ${res.body}`);
    return res.json() as { id: number; link: string; name: string; size: number; mimeType: string };
  }

  describe('project documentation tab', () => {
    it('reads as empty, version 0, before anything is written', async () => {
      const w = await world();
      const res = await t.as(w.owner).get(w.url);
      expect(res.statusCode).toBe(200);
      expect(res.headers.etag).toMatch(/^"0-[\w-]{16}"$/);
      expect(res.json()).toEqual({ projectId: w.project.id, content: '', images: [], files: [], version: 0, updatedById: null, updatedAt: null });
    });

    it('writes the text (version and ETag move) and a reader reads it', async () => {
      const w = await world();
      const res = await t.as(w.owner).request('PATCH', `${w.url}/content`, { content: '## Notes' }, { 'if-match': '"0"' });
      expect(res.statusCode).toBe(200);
      expect(res.headers.etag).toMatch(/^"1-[\w-]{16}"$/);
      expect(res.json()).toEqual({
        projectId: w.project.id,
        content: '## Notes',
        images: [],
        files: [],
        version: 1,
        updatedById: w.owner.id,
        updatedAt: expect.stringMatching(ISO_MS),
      });
      const reader = await f.spaceMember(w.owner, w.space.id, 'reader');
      const read = await t.as(reader).get(w.url);
      expect(read.json()).toMatchObject({ content: '## Notes', version: 1 });
      expect(read.headers.etag).toMatch(/^"1-[\w-]{16}"$/);
    });

    it('answers 409 STALE_VERSION to a stale If-Match and overwrites nothing', async () => {
      const w = await world();
      await t.as(w.owner).patch(`${w.url}/content`, { content: 'first' });
      const stale = await t.as(w.owner).request('PATCH', `${w.url}/content`, { content: 'second' }, { 'if-match': '"0"' });
      expectProblem(stale, 409, 'STALE_VERSION');
      const [row] = await t.sql<{ content: string; version: number }>(sql`select content, version from project_documentation where project_id = ${w.project.id}`);
      expect(row).toEqual({ content: 'first', version: 1 });
    });

    it('answers 404 for a project in the trash', async () => {
      const w = await world();
      await t.as(w.owner).delete(`/projects/${w.project.id}`);
      expectProblem(await t.as(w.owner).get(w.url), 404, 'NOT_FOUND');
    });

    it('uploads an image (201 File), lists it, and deletes it (204) with its blob', async () => {
      const w = await world();
      const image = await uploadImage(w);
      expect(image).toEqual({ id: expect.any(Number), link: expect.stringMatching(/^\/files\//), name: 'image.png', size: PNG.length, mimeType: 'image/png' });
      expect((await t.as(w.owner).get(w.url)).json().images).toEqual([image]);
      const reader = await f.spaceMember(w.owner, w.space.id, 'reader');
      expect((await t.as(reader).get(image.link)).statusCode).toBe(200);
      const blobs = await blobCount(t);
      const res = await t.as(w.owner).delete(`${w.url}/images/${image.id}`);
      expect(res.statusCode).toBe(204);
      expect((await t.as(w.owner).get(w.url)).json().images).toEqual([]);
      expect(await t.sql(sql`select id from files where key = ${keyOf(image.link)}`)).toHaveLength(0);
      expect(await blobCount(t)).toBe(blobs - 1);
      expectProblem(await t.as(w.owner).delete(`${w.url}/images/${image.id}`), 404, 'NOT_FOUND');
    });

    it('refuses a non-image as a documentation image (400 INVALID_FILE), storing nothing', async () => {
      const w = await world();
      const blobs = await blobCount(t);
      expectProblem(await sendFile(t, w.owner, 'POST', `${w.url}/images`, { data: 'not an image', filename: 'x.png' }), 400, 'INVALID_FILE');
      expect(await blobCount(t)).toBe(blobs);
    });

    it('uploads files (201 [File]) listed apart from images; a reader may not (403), another organization gets 404', async () => {
      const w = await world();
      const body = multipart([
        { name: 'files[]', data: 'spec', filename: 'spec.txt' },
        { name: 'files[]', data: PNG, filename: 'pic.png' },
      ]);
      const res = await t.as(w.owner).request('POST', `${w.url}/files`, body.payload, body.headers);
      expect(res.statusCode).toBe(201);
      const files = res.json() as Array<{ name: string }>;
      expect(files.map((x) => x.name)).toEqual(['spec.txt', 'pic.png']);
      expect((await t.as(w.owner).get(w.url)).json()).toMatchObject({ files, images: [] });

      const blobs = await blobCount(t);
      const reader = await f.spaceMember(w.owner, w.space.id, 'reader');
      expectProblem(await t.as(reader).request('POST', `${w.url}/files`, body.payload, body.headers), 403, 'FORBIDDEN');
      const stranger = await t.org();
      expectProblem(await t.as(stranger).request('POST', `${w.url}/files`, body.payload, body.headers), 404, 'NOT_FOUND');
      expectProblem(await sendFile(t, reader, 'POST', `${w.url}/images`, { data: PNG }), 403, 'FORBIDDEN');
      expect(await blobCount(t)).toBe(blobs);
    });

    commonCases(t, 'GET /projects/{id}/documentation', {
      method: 'GET',
      async setup() {
        const w = await world();
        return { url: w.url, owner: w.owner };
      },
    });

    commonCases(t, 'PATCH /projects/{id}/documentation/content', {
      method: 'PATCH',
      async setup() {
        const w = await world();
        return { url: `${w.url}/content`, owner: w.owner, body: { content: 'x' }, badBody: { content: null }, forbidden: await f.spaceMember(w.owner, w.space.id, 'member') };
      },
    });

    commonCases(t, 'DELETE /projects/{id}/documentation/images/{fileId}', {
      method: 'DELETE',
      async setup() {
        const w = await world();
        const image = await uploadImage(w);
        return { url: `${w.url}/images/${image.id}`, owner: w.owner, forbidden: await f.spaceMember(w.owner, w.space.id, 'reader') };
      },
    });

    // Uploads stream before the project is looked up: 403/404 are proven above with real multipart bodies.
    for (const path of ['images', 'files']) {
      commonCases(t, `POST /projects/{id}/documentation/${path}`, {
        method: 'POST',
        async setup() {
          const w = await world();
          return { url: `${w.url}/${path}`, owner: w.owner };
        },
        foreignId: false,
      });
    }
  });
});
