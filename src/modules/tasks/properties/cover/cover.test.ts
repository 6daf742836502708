import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PNG } from 'pngjs';
import jpeg from 'jpeg-js';
import { expectProblem, fingerprint, useTestApp, type TestKit, type TestUser } from '../../../../test/app.js';
import { commonCases } from '../../../../test/common-cases.js';
import { blobCount, sendFile } from '../../../files/files.fixtures.js';
import { expectChange, historyCount, taskWithRoles } from '../properties.fixtures.js';

const t = useTestApp();

type Rgb = [number, number, number];

/** A PNG of `width`×`height` painted by `paint(x, y)`. */
function png(width: number, height: number, paint: (x: number, y: number) => Rgb): Buffer {
  const image = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const [r, g, b] = paint(x, y);
      image.data[i] = r;
      image.data[i + 1] = g;
      image.data[i + 2] = b;
      image.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(image);
}

const solid = (rgb: Rgb) => () => rgb;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const upload = (user: TestUser | null, url: string, data: Buffer, contentType = 'image/png') =>
  sendFile(t, user, 'PATCH', url, { data, contentType, filename: contentType === 'image/png' ? 'cover.png' : 'cover.jpg' });

async function coverFileId(kit: TestKit, taskId: number): Promise<number> {
  const [row] = await kit.sql<{ fileId: number }>(sql`select file_id as "fileId" from task_covers where task_id = ${taskId}`);
  return Number(row!.fileId);
}

describe('PATCH /tasks/{taskId}/cover (upload)', () => {
  it('sets the cover from a PNG: size and dominant colour measured from its pixels, history 12', async () => {
    const w = await taskWithRoles(t);
    const res = await upload(w.member, w.url('cover'), png(8, 6, solid([255, 0, 0])));
    const { task, history } = await expectChange(t, res, 200, w.taskId, 12, w.member.id);
    expect(task.cover).toEqual({ id: expect.any(Number), width: 8, height: 6, dominantColor: '#ff0000', pictureUid: expect.stringMatching(UUID), taskId: w.taskId });
    expect(history.state).toBe('set the cover (8×6, #ff0000)');
    // The picture downloads by its uid, for anyone who can read the task's space.
    const file = await t.as(w.reader).get(`/files/${task.cover.pictureUid}`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    const [row] = await t.sql<{ purpose: string; spaceId: number }>(sql`select purpose, space_id as "spaceId" from files where key = ${task.cover.pictureUid}`);
    expect({ purpose: row!.purpose, spaceId: Number(row!.spaceId) }).toEqual({ purpose: 'cover', spaceId: w.space.id });
  });

  it('answers the most frequent colour, not the average', async () => {
    const w = await taskWithRoles(t);
    // 70% blue, 30% red: the average would be purple.
    const res = await upload(w.owner, w.url('cover'), png(100, 100, (x) => (x < 70 ? [0, 0, 255] : [255, 0, 0])));
    const { task } = await expectChange(t, res, 200, w.taskId, 12, w.owner.id);
    expect(task.cover).toMatchObject({ width: 100, height: 100, dominantColor: '#0000ff' });
  });

  it('reads JPEG too', async () => {
    const w = await taskWithRoles(t);
    const raw = Buffer.alloc(16 * 16 * 4);
    for (let i = 0; i < raw.length; i += 4) raw.set([0, 128, 0, 255], i);
    const jpg = jpeg.encode({ data: raw, width: 16, height: 16 }, 100).data;
    const { task } = await expectChange(t, await upload(w.owner, w.url('cover'), jpg, 'image/jpeg'), 200, w.taskId, 12, w.owner.id);
    expect(task.cover).toMatchObject({ width: 16, height: 16 });
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(task.cover.dominantColor.slice(i, i + 2), 16));
    // JPEG is lossy: within a few steps of the painted green.
    expect(Math.abs(r! - 0) + Math.abs(g! - 128) + Math.abs(b! - 0)).toBeLessThan(8);
  });

  it('replaces a cover and deletes the replaced upload (row and blob)', async () => {
    const w = await taskWithRoles(t);
    const first = (await upload(w.owner, w.url('cover'), png(4, 4, solid([255, 0, 0])))).json().task.cover;
    const blobs = await blobCount(t);
    const { task, history } = await expectChange(t, await upload(w.owner, w.url('cover'), png(5, 3, solid([0, 255, 0]))), 200, w.taskId, 12, w.owner.id);
    expect(task.cover).toMatchObject({ width: 5, height: 3, dominantColor: '#00ff00' });
    expect(task.cover.pictureUid).not.toBe(first.pictureUid);
    expect(history.state).toBe('changed the cover (5×3, #00ff00)');
    expect(await t.sql(sql`select id from files where key = ${first.pictureUid}`)).toEqual([]);
    expect(await blobCount(t)).toBe(blobs);
  });

  it('refuses a file that is not an image (400 INVALID_FILE) and a GIF (covers are PNG or JPEG), storing nothing', async () => {
    const w = await taskWithRoles(t);
    const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
    const blobs = await blobCount(t);
    const before = await fingerprint(t, [w.owner.organizationId]);
    expectProblem(await upload(w.owner, w.url('cover'), Buffer.from('just text'), 'image/png'), 400, 'INVALID_FILE');
    expectProblem(await upload(w.owner, w.url('cover'), gif, 'image/gif'), 400, 'INVALID_FILE');
    expect(await fingerprint(t, [w.owner.organizationId])).toBe(before);
    expect(await blobCount(t)).toBe(blobs);
  });

  it('refuses no credential (401), another organization (404) and a reader (403), storing nothing', async () => {
    const w = await taskWithRoles(t);
    const stranger = await t.org();
    const image = png(2, 2, solid([1, 2, 3]));
    const blobs = await blobCount(t);
    const before = await fingerprint(t, [w.owner.organizationId, stranger.organizationId]);
    expectProblem(await upload(null, w.url('cover'), image), 401, 'UNAUTHENTICATED');
    expectProblem(await upload(stranger, w.url('cover'), image), 404, 'NOT_FOUND');
    expectProblem(await upload(w.reader, w.url('cover'), image), 403, 'FORBIDDEN');
    expect(await fingerprint(t, [w.owner.organizationId, stranger.organizationId])).toBe(before);
    expect(await blobCount(t)).toBe(blobs);
    expect(await historyCount(t, w.taskId, 12)).toBe(0);
  });
});

describe('a cover shown from a file uploaded elsewhere', () => {
  it('outlives the documentation image it was taken from, and a cover change keeps a file a message still shows', async () => {
    const w = await taskWithRoles(t);
    const image = await sendFile(t, w.owner, 'POST', `/projects/${w.project.id}/documentation/images`, { data: png(4, 4, solid([0, 128, 0])), contentType: 'image/png', filename: 'diagram.png' });
    expect(image.statusCode).toBe(201);
    await expectChange(t, await t.as(w.member).patch(w.url('cover'), { fileId: image.json().id }), 200, w.taskId, 12, w.member.id);
    const blobs = await blobCount(t);
    expect((await t.as(w.owner).delete(`/projects/${w.project.id}/documentation/images/${image.json().id}`)).statusCode).toBe(204);
    expect((await t.as(w.owner).get(`/projects/${w.project.id}/documentation`)).json().images).toEqual([]);
    const task = (await t.as(w.reader).get(`/tasks/${w.taskId}`)).json();
    expect(task.cover).toMatchObject({ width: 4, height: 4, dominantColor: '#008000' });
    expect((await t.as(w.reader).get(`/files/${task.cover.pictureUid}`)).statusCode).toBe(200);
    expect(await blobCount(t)).toBe(blobs);

    // The other way round: an uploaded cover attached to a message stays when the cover is replaced.
    const cover = (await upload(w.member, w.url('cover'), png(2, 2, solid([0, 0, 255])))).json().task.cover;
    const [coverFile] = await t.sql<{ id: number }>(sql`select id from files where key = ${cover.pictureUid}`);
    const shown = (await t.as(w.member).post(`/tasks/${w.taskId}/messages`, { text: 'the cover', fileIds: [Number(coverFile!.id)] })).json();
    await upload(w.member, w.url('cover'), png(2, 2, solid([255, 255, 0])));
    const again = (await t.as(w.reader).get(`/tasks/${w.taskId}/messages`)).json().find((m: { id: number }) => m.id === shown.id);
    expect(again.attachments).toHaveLength(1);
    expect((await t.as(w.reader).get(again.attachments[0].link)).statusCode).toBe(200);
  });
});

describe('PATCH /tasks/{taskId}/cover (fileId)', () => {
  it('uses an image file of the organization; the file stays while another cover shows it', async () => {
    const w = await taskWithRoles(t);
    const other = await w.f.task(w.owner, w.stageIds[0]!, { name: 'Other' });
    const shown = (await upload(w.owner, `/tasks/${other.id}/cover`, png(3, 7, solid([0x12, 0x34, 0x56])))).json().task.cover;
    const fileId = await coverFileId(t, Number(other.id));
    const { task } = await expectChange(t, await t.as(w.member).patch(w.url('cover'), { fileId }), 200, w.taskId, 12, w.member.id);
    expect(task.cover).toMatchObject({ width: 3, height: 7, dominantColor: '#123456', pictureUid: shown.pictureUid, taskId: w.taskId });
    // Removing one of the two covers keeps the file the other still shows.
    await expectChange(t, await t.as(w.owner).delete(`/tasks/${other.id}/cover`), 200, Number(other.id), 12, w.owner.id);
    expect(await t.sql(sql`select id from files where id = ${fileId}`)).toHaveLength(1);
  });

  it("refuses another organization's file (400 REFERENCE_NOT_FOUND) and a file that is not an image (400 INVALID_FILE)", async () => {
    const w = await taskWithRoles(t);
    const s = await taskWithRoles(t);
    await upload(s.owner, s.url('cover'), png(2, 2, solid([9, 9, 9])));
    const foreign = await coverFileId(t, s.taskId);
    const [text] = await t.sql<{ id: number }>(
      sql`insert into files (organization_id, uploader_id, purpose, name, size, mime_type) values (${w.owner.organizationId}, ${w.owner.id}, 'attachment', 'a.txt', 3, 'text/plain') returning id`,
    );
    const before = await fingerprint(t, [w.owner.organizationId]);
    expectProblem(await t.as(w.owner).patch(w.url('cover'), { fileId: foreign }), 400, 'REFERENCE_NOT_FOUND');
    expectProblem(await t.as(w.owner).patch(w.url('cover'), { fileId: Number(text!.id) }), 400, 'INVALID_FILE');
    expect(await fingerprint(t, [w.owner.organizationId])).toBe(before);
  });

  commonCases(t, 'PATCH /tasks/{taskId}/cover', {
    method: 'PATCH',
    async setup(kit) {
      const w = await taskWithRoles(kit);
      const other = await w.f.task(w.owner, w.stageIds[0]!, { name: 'Other' });
      const res = await sendFile(kit, w.owner, 'PATCH', `/tasks/${other.id}/cover`, { data: png(2, 2, solid([0, 0, 0])) });
      if (res.statusCode !== 200) throw new Error(res.body);
      return { url: w.url('cover'), owner: w.owner, body: { fileId: await coverFileId(kit, Number(other.id)) }, badBody: { fileId: 'x' }, forbidden: w.reader };
    },
  });
});

describe('DELETE /tasks/{taskId}/cover', () => {
  it('removes the cover (history 12) and its uploaded file, row and blob', async () => {
    const w = await taskWithRoles(t);
    const cover = (await upload(w.owner, w.url('cover'), png(2, 2, solid([255, 255, 255])))).json().task.cover;
    const blobs = await blobCount(t);
    const { task, history } = await expectChange(t, await t.as(w.member).delete(w.url('cover')), 200, w.taskId, 12, w.member.id);
    expect(task.cover).toBeNull();
    expect(history.state).toBe('removed the cover');
    expect(await t.sql(sql`select id from files where key = ${cover.pictureUid}`)).toEqual([]);
    expect(await blobCount(t)).toBe(blobs - 1);
  });

  commonCases(t, 'DELETE /tasks/{taskId}/cover', {
    method: 'DELETE',
    async setup(kit) {
      const w = await taskWithRoles(kit);
      await sendFile(kit, w.owner, 'PATCH', w.url('cover'), { data: png(2, 2, solid([0, 0, 0])) });
      return { url: w.url('cover'), owner: w.owner, forbidden: w.reader };
    },
  });
});
