import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { expectProblem } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { factories } from '../../test/factories.js';
import { STORAGE_BACKENDS, useStorageTestApp, type StorageKit } from '../../test/storage.js';
import { taskWithRoles } from '../tasks/properties/properties.fixtures.js';
import { PNG, blobCount, keyOf, multipart, sendFile } from './files.fixtures.js';

interface FileForm {
  id: number;
  link: string;
  name: string;
  size: number;
  mimeType: string;
}

async function docsWorld(t: StorageKit) {
  const f = factories(t);
  const owner = await t.org();
  const space = await f.space(owner);
  const project = await f.project(owner, space.id);
  const reader = await f.spaceMember(owner, space.id, 'reader');
  return { owner, reader, space, project, url: `/projects/${project.id}/documentation` };
}

/** Uploads one file to a project's documentation and answers its File form. */
async function uploadDoc(t: StorageKit, w: Awaited<ReturnType<typeof docsWorld>>, data: Buffer, filename = 'data.bin'): Promise<FileForm> {
  const body = multipart([{ name: 'files[]', data, filename }]);
  const res = await t.as(w.owner).request('POST', `${w.url}/files`, body.payload, body.headers);
  if (res.statusCode !== 201) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  return (res.json() as FileForm[])[0]!;
}

describe.each(STORAGE_BACKENDS)('files on %s storage', (storage) => {
  const t = useStorageTestApp(storage);

  it('stores an upload and answers it byte-identical, with its validators and Accept-Ranges', async () => {
    const w = await docsWorld(t);
    const data = randomBytes(300_000);
    const file = await uploadDoc(t, w, data);
    expect(file).toEqual({ id: expect.any(Number), link: expect.stringMatching(/^\/files\/[0-9a-f-]{36}$/), name: 'data.bin', size: data.length, mimeType: 'application/octet-stream' });
    const res = await t.as(w.reader).get(file.link);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(data)).toBe(true);
    expect(res.headers).toMatchObject({
      'content-length': String(data.length),
      'accept-ranges': 'bytes',
      etag: `"${keyOf(file.link)}"`,
      'last-modified': expect.stringMatching(/GMT$/),
      'content-disposition': "attachment; filename*=UTF-8''data.bin",
    });
    expect(await t.app.files.backend.stat(keyOf(file.link))).toMatchObject({ size: data.length });
  });

  it('answers a Range request with 206 and exactly those bytes (closed, open-ended, suffix); past the end 416', async () => {
    const w = await docsWorld(t);
    const data = randomBytes(10_000);
    const { link } = await uploadDoc(t, w, data);
    const part = await t.as(w.owner).get(link, { range: 'bytes=100-199' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 100-199/10000');
    expect(part.headers['content-length']).toBe('100');
    expect(part.rawPayload.equals(data.subarray(100, 200))).toBe(true);
    const tail = await t.as(w.owner).get(link, { range: 'bytes=9990-' });
    expect([tail.statusCode, tail.headers['content-range']]).toEqual([206, 'bytes 9990-9999/10000']);
    expect(tail.rawPayload.equals(data.subarray(9990))).toBe(true);
    const suffix = await t.as(w.owner).get(link, { range: 'bytes=-5' });
    expect(suffix.rawPayload.equals(data.subarray(9995))).toBe(true);
    const beyond = await t.as(w.owner).get(link, { range: 'bytes=10000-10100' });
    expectProblem(beyond, 416, 'RANGE_NOT_SATISFIABLE');
    // A stale If-Range gets the whole file, as the RFC says.
    const stale = await t.as(w.owner).get(link, { range: 'bytes=0-9', 'if-range': '"other"' });
    expect([stale.statusCode, stale.rawPayload.length]).toEqual([200, 10_000]);
  });

  it('answers HEAD with the headers of the file and no body', async () => {
    const w = await docsWorld(t);
    const { link } = await uploadDoc(t, w, randomBytes(4321));
    const res = await t.app.inject({ method: 'HEAD', url: link, headers: w.owner.headers });
    expect([res.statusCode, res.headers['content-length'], res.headers['accept-ranges'], res.body]).toEqual([200, '4321', 'bytes', '']);
  });

  it('answers 304 to If-None-Match and If-Modified-Since with the file unchanged', async () => {
    const w = await docsWorld(t);
    const { link } = await uploadDoc(t, w, randomBytes(2000));
    const first = await t.as(w.owner).get(link);
    const byTag = await t.as(w.owner).get(link, { 'if-none-match': first.headers.etag as string });
    expect([byTag.statusCode, byTag.body]).toEqual([304, '']);
    const byDate = await t.as(w.owner).get(link, { 'if-modified-since': first.headers['last-modified'] as string });
    expect(byDate.statusCode).toBe(304);
    const other = await t.as(w.owner).get(link, { 'if-none-match': '"something-else"' });
    expect(other.statusCode).toBe(200);
  });

  it('checks an image by its content and measures it; a non-image is refused before anything is stored', async () => {
    const w = await docsWorld(t);
    const image = await sharp({ create: { width: 7, height: 5, channels: 3, background: '#00ff00' } }).png().toBuffer();
    const res = await sendFile(t, w.owner, 'POST', `${w.url}/images`, { data: image });
    expect(res.statusCode).toBe(201);
    const [row] = await t.sql<{ width: number; height: number; mimeType: string }>(
      sql`select width::int, height::int, mime_type as "mimeType" from files where id = ${res.json().id}`,
    );
    expect(row).toEqual({ width: 7, height: 5, mimeType: 'image/png' });
    const blobs = await blobCount(t);
    const refused = await sendFile(t, w.owner, 'POST', `${w.url}/images`, { data: Buffer.from('<html>not an image</html>'), filename: 'x.png' });
    expectProblem(refused, 400, 'INVALID_FILE');
    expect(await blobCount(t)).toBe(blobs);
  });

  it('refuses a file over the limit with 413, leaving no object and no row', async () => {
    const w = await docsWorld(t);
    const blobs = await blobCount(t);
    const rows = await t.sql(sql`select id from files where organization_id = ${w.owner.organizationId}`);
    const big = Buffer.concat([PNG, randomBytes(t.config.imageLimitBytes)]);
    expectProblem(await sendFile(t, w.owner, 'POST', `${w.url}/images`, { data: big }), 413, 'PAYLOAD_TOO_LARGE');
    expect(await blobCount(t)).toBe(blobs);
    expect(await t.sql(sql`select id from files where organization_id = ${w.owner.organizationId}`)).toEqual(rows);
  });

  it('removes the object of an upload whose change is refused (reader: 403), and of one another organization sends (404)', async () => {
    const w = await docsWorld(t);
    const blobs = await blobCount(t);
    const body = multipart([{ name: 'files[]', data: randomBytes(1000), filename: 'a.bin' }]);
    expectProblem(await t.as(w.reader).request('POST', `${w.url}/files`, body.payload, body.headers), 403, 'FORBIDDEN');
    const stranger = await t.org();
    expectProblem(await t.as(stranger).request('POST', `${w.url}/files`, body.payload, body.headers), 404);
    expectProblem(await t.as(null).request('POST', `${w.url}/files`, body.payload, body.headers), 401, 'UNAUTHENTICATED');
    expectProblem(await t.as(w.owner).post(`${w.url}/files`, { files: [] }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await blobCount(t)).toBe(blobs);
  });

  it('deletes the object with its file once the change commits, leaving no queued deletion', async () => {
    const w = await docsWorld(t);
    const res = await sendFile(t, w.owner, 'POST', `${w.url}/images`, { data: PNG });
    const { id, link } = res.json() as FileForm;
    expect(await t.app.files.backend.stat(keyOf(link))).not.toBeNull();
    expect((await t.as(w.owner).delete(`${w.url}/images/${id}`)).statusCode).toBe(204);
    expect(await t.app.files.backend.stat(keyOf(link))).toBeNull();
    expect(await t.sql(sql`select key from file_deletions where key = ${keyOf(link)}`)).toEqual([]);
    expectProblem(await t.as(w.owner).get(link), 404, 'NOT_FOUND');
  });

  it('sets a task cover from an upload: the image is read back from storage to measure it', async () => {
    const w = await taskWithRoles(t);
    const image = await sharp({ create: { width: 6, height: 4, channels: 3, background: '#ff0000' } }).png().toBuffer();
    const res = await sendFile(t, w.member, 'PATCH', w.url('cover'), { data: image, filename: 'cover.png' });
    expect(res.statusCode).toBe(200);
    expect(res.json().task.cover).toMatchObject({ width: 6, height: 4, dominantColor: '#ff0000' });
    const picture = await t.as(w.reader).get(`/files/${res.json().task.cover.pictureUid}`);
    expect(picture.rawPayload.equals(image)).toBe(true);
  });

  it('stores a user avatar and answers it to a colleague', async () => {
    const owner = await t.org();
    const res = await sendFile(t, owner, 'PATCH', '/user/avatar', { data: PNG });
    expect(res.statusCode).toBe(200);
    const link = res.json().avatar as string;
    const colleague = await t.member(owner);
    const got = await t.as(colleague).get(link);
    expect([got.statusCode, got.headers['content-type']]).toEqual([200, 'image/png']);
    expect(got.rawPayload.equals(PNG)).toBe(true);
  });

  it('replaces the organization avatar: the new one answers, the old object is gone', async () => {
    const owner = await t.org();
    const first = await sendFile(t, owner, 'PATCH', '/user/organization/avatar', { data: PNG });
    expect(first.statusCode).toBe(200);
    const oldKey = keyOf(first.json().avatar as string);
    const image = await sharp({ create: { width: 3, height: 3, channels: 3, background: '#0000ff' } }).png().toBuffer();
    const second = await sendFile(t, owner, 'PATCH', '/user/organization/avatar', { data: image });
    expect(second.statusCode).toBe(200);
    const got = await t.as(owner).get(second.json().avatar as string);
    expect([got.statusCode, got.rawPayload.equals(image)]).toEqual([200, true]);
    expect(await t.app.files.backend.stat(oldKey)).toBeNull();
    expectProblem(await t.as(owner).get(`/files/${oldKey}`), 404, 'NOT_FOUND');
  });

  commonCases(t, `GET /files/{key} (${storage})`, {
    method: 'GET',
    foreignId: true,
    async setup(kit) {
      const w = await docsWorld(kit as StorageKit);
      const { link } = await uploadDoc(kit as StorageKit, w, randomBytes(100));
      return { url: link, owner: w.owner };
    },
  });
});
