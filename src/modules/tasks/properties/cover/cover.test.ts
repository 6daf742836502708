import { describe, expect, it, vi } from 'vitest';
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { expectProblem, fingerprint, type TestKit, type TestUser } from '../../../../test/app.js';
import { commonCases } from '../../../../test/common-cases.js';
import { blobCount, sendFile } from '../../../files/files.fixtures.js';
import { expectChange, historyCount, taskWithRoles } from '../properties.fixtures.js';
import { STORAGE_BACKENDS, useStorageTestApp } from '../../../../test/storage.js';

// Every case runs on both file storage backends (the S3 one against a local S3-compatible server).
describe.each(STORAGE_BACKENDS)('%s file storage', (storage) => {
  const t = useStorageTestApp(storage);

  type Rgb = [number, number, number];

  /** Raw RGB pixels of `width`×`height` painted by `paint(x, y)`, as sharp takes them. */
  function pixels(width: number, height: number, paint: (x: number, y: number) => Rgb) {
    const data = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) data.set(paint(x, y), (y * width + x) * 3);
    }
    return sharp(data, { raw: { width, height, channels: 3 } });
  }

  /** A PNG of `width`×`height` painted by `paint(x, y)`. */
  const png = (width: number, height: number, paint: (x: number, y: number) => Rgb) => pixels(width, height, paint).png().toBuffer();

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
      const res = await upload(w.member, w.url('cover'), await png(8, 6, solid([255, 0, 0])));
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
      const res = await upload(w.owner, w.url('cover'), await png(100, 100, (x) => (x < 70 ? [0, 0, 255] : [255, 0, 0])));
      const { task } = await expectChange(t, res, 200, w.taskId, 12, w.owner.id);
      expect(task.cover).toMatchObject({ width: 100, height: 100, dominantColor: '#0000ff' });
    });

    it('reads JPEG too', async () => {
      const w = await taskWithRoles(t);
      const jpg = await pixels(16, 16, solid([0, 128, 0])).jpeg({ quality: 100 }).toBuffer();
      const { task } = await expectChange(t, await upload(w.owner, w.url('cover'), jpg, 'image/jpeg'), 200, w.taskId, 12, w.owner.id);
      expect(task.cover).toMatchObject({ width: 16, height: 16 });
      const [r, g, b] = [1, 3, 5].map((i) => parseInt(task.cover.dominantColor.slice(i, i + 2), 16));
      // JPEG is lossy: within a few steps of the painted green.
      expect(Math.abs(r! - 0) + Math.abs(g! - 128) + Math.abs(b! - 0)).toBeLessThan(8);
    });

    it('replaces a cover and deletes the replaced upload (row and blob)', async () => {
      const w = await taskWithRoles(t);
      const first = (await upload(w.owner, w.url('cover'), await png(4, 4, solid([255, 0, 0])))).json().task.cover;
      const blobs = await blobCount(t);
      const { task, history } = await expectChange(t, await upload(w.owner, w.url('cover'), await png(5, 3, solid([0, 255, 0]))), 200, w.taskId, 12, w.owner.id);
      expect(task.cover).toMatchObject({ width: 5, height: 3, dominantColor: '#00ff00' });
      expect(task.cover.pictureUid).not.toBe(first.pictureUid);
      expect(history.state).toBe('changed the cover (5×3, #00ff00)');
      expect(await t.sql(sql`select id from files where key = ${first.pictureUid}`)).toEqual([]);
      expect(await blobCount(t)).toBe(blobs);
    });

    it('refuses a file that is not an image and an image cut short (400 INVALID_FILE), storing nothing', async () => {
      const w = await taskWithRoles(t);
      const whole = await pixels(64, 64, (x, y) => [x * 4, y * 4, 0]).jpeg().toBuffer();
      const blobs = await blobCount(t);
      const before = await fingerprint(t, [w.owner.organizationId]);
      expectProblem(await upload(w.owner, w.url('cover'), Buffer.from('just text'), 'image/png'), 400, 'INVALID_FILE');
      expectProblem(await upload(w.owner, w.url('cover'), whole.subarray(0, whole.length / 2), 'image/jpeg'), 400, 'INVALID_FILE');
      expect(await fingerprint(t, [w.owner.organizationId])).toBe(before);
      expect(await blobCount(t)).toBe(blobs);
    });

    it('reads WebP, GIF and AVIF too', async () => {
      const w = await taskWithRoles(t);
      const red = pixels(12, 10, solid([255, 0, 0]));
      for (const [type, data] of [
        ['image/webp', await red.clone().webp({ lossless: true }).toBuffer()],
        ['image/gif', await red.clone().gif().toBuffer()],
        ['image/avif', await red.clone().avif({ lossless: true }).toBuffer()],
      ] as const) {
        const res = await upload(w.owner, w.url('cover'), data, type);
        expect(res.statusCode, `${type}: ${res.body}`).toBe(200);
        expect(res.json().task.cover).toMatchObject({ width: 12, height: 10 });
        const [r, g, b] = [1, 3, 5].map((i) => parseInt(res.json().task.cover.dominantColor.slice(i, i + 2), 16));
        expect(Math.abs(r! - 255) + g! + b!, type).toBeLessThan(8);
        const [file] = await t.sql<{ mimeType: string }>(sql`select mime_type as "mimeType" from files where key = ${res.json().task.cover.pictureUid}`);
        expect(file!.mimeType).toBe(type);
      }
    });

    it('measures a photo as it is shown: EXIF orientation applied', async () => {
      const w = await taskWithRoles(t);
      // Stored 40×20 landscape, tagged "rotate 90° clockwise to show": shown 20×40 portrait.
      const photo = await pixels(40, 20, (x) => (x < 30 ? [0, 0, 255] : [255, 255, 0])).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toBuffer();
      const res = await upload(w.owner, w.url('cover'), photo, 'image/jpeg');
      expect(res.statusCode).toBe(200);
      expect(res.json().task.cover).toMatchObject({ width: 20, height: 40 });
      const [file] = await t.sql<{ width: number; height: number }>(sql`select width, height from files where key = ${res.json().task.cover.pictureUid}`);
      expect({ width: Number(file!.width), height: Number(file!.height) }).toEqual({ width: 20, height: 40 });
    });

    it('decodes a 40 MP photo off the event loop: another request answers meanwhile', async () => {
      const w = await taskWithRoles(t);
      // Noise in 8×8 blocks: a real 8000×5000 JPEG to decode, small enough for the image limit.
      const noise = await sharp({ create: { width: 1000, height: 625, channels: 3, background: '#336699', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).png().toBuffer();
      const photo = await sharp(noise).resize(8000, 5000, { kernel: 'nearest' }).jpeg({ quality: 70 }).toBuffer();
      // Whether libvips is decoding right now: its pixels are asked for with toBuffer.
      const proto = Object.getPrototypeOf(sharp()) as { toBuffer(...args: unknown[]): unknown };
      const toBuffer = proto.toBuffer;
      let decoding = 0;
      const spy = vi.spyOn(proto, 'toBuffer').mockImplementation(function (this: unknown, ...args: unknown[]) {
        const result = toBuffer.apply(this, args);
        if (result instanceof Promise) {
          decoding++;
          void result.finally(() => decoding--).catch(() => {});
        }
        return result;
      });
      try {
        let finished = false;
        const cover = upload(w.owner, w.url('cover'), photo, 'image/jpeg').finally(() => (finished = true));
        // Health checks one after another while the upload runs. A decode on the main thread lets no
        // request in until it is over; off it, checks sent during the decode answer before it ends.
        let duringDecode = 0;
        while (!finished) {
          // An injected request may complete without leaving the microtask queue: let I/O run too.
          await new Promise((resolve) => setImmediate(resolve));
          const sentWhileDecoding = decoding > 0;
          expect((await t.as(null).get('/health')).statusCode).toBe(200);
          if (sentWhileDecoding && decoding > 0) duringDecode++;
        }
        const uploaded = await cover;
        expect(uploaded.statusCode, uploaded.body).toBe(200);
        expect(uploaded.json().task.cover).toMatchObject({ width: 8000, height: 5000 });
        expect(duringDecode).toBeGreaterThan(0);
      } finally {
        spy.mockRestore();
      }
    });

    it('refuses an image of more than 40 MP before decoding it (400 INVALID_FILE)', async () => {
      const w = await taskWithRoles(t);
      const huge = await sharp({ create: { width: 8001, height: 5000, channels: 3, background: '#000000' } }).png({ compressionLevel: 9 }).toBuffer();
      expectProblem(await upload(w.owner, w.url('cover'), huge), 400, 'INVALID_FILE');
    });

    it('refuses no credential (401), another organization (404) and a reader (403), storing nothing', async () => {
      const w = await taskWithRoles(t);
      const stranger = await t.org();
      const image = await png(2, 2, solid([1, 2, 3]));
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
      const image = await sendFile(t, w.owner, 'POST', `/projects/${w.project.id}/documentation/images`, { data: await png(4, 4, solid([0, 128, 0])), contentType: 'image/png', filename: 'diagram.png' });
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
      const cover = (await upload(w.member, w.url('cover'), await png(2, 2, solid([0, 0, 255])))).json().task.cover;
      const [coverFile] = await t.sql<{ id: number }>(sql`select id from files where key = ${cover.pictureUid}`);
      const shown = (await t.as(w.member).post(`/tasks/${w.taskId}/messages`, { text: 'the cover', fileIds: [Number(coverFile!.id)] })).json();
      await upload(w.member, w.url('cover'), await png(2, 2, solid([255, 255, 0])));
      const again = (await t.as(w.reader).get(`/tasks/${w.taskId}/messages`)).json().find((m: { id: number }) => m.id === shown.id);
      expect(again.attachments).toHaveLength(1);
      expect((await t.as(w.reader).get(again.attachments[0].link)).statusCode).toBe(200);
    });
  });

  describe('PATCH /tasks/{taskId}/cover (fileId)', () => {
    it('uses an image file of the organization; the file stays while another cover shows it', async () => {
      const w = await taskWithRoles(t);
      const other = await w.f.task(w.owner, w.stageIds[0]!, { name: 'Other' });
      const shown = (await upload(w.owner, `/tasks/${other.id}/cover`, await png(3, 7, solid([0x12, 0x34, 0x56])))).json().task.cover;
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
      await upload(s.owner, s.url('cover'), await png(2, 2, solid([9, 9, 9])));
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
        const res = await sendFile(kit, w.owner, 'PATCH', `/tasks/${other.id}/cover`, { data: await png(2, 2, solid([0, 0, 0])) });
        if (res.statusCode !== 200) throw new Error(res.body);
        return { url: w.url('cover'), owner: w.owner, body: { fileId: await coverFileId(kit, Number(other.id)) }, badBody: { fileId: 'x' }, forbidden: w.reader };
      },
    });
  });

  describe('DELETE /tasks/{taskId}/cover', () => {
    it('removes the cover (history 12) and its uploaded file, row and blob', async () => {
      const w = await taskWithRoles(t);
      const cover = (await upload(w.owner, w.url('cover'), await png(2, 2, solid([255, 255, 255])))).json().task.cover;
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
        await sendFile(kit, w.owner, 'PATCH', w.url('cover'), { data: await png(2, 2, solid([0, 0, 0])) });
        return { url: w.url('cover'), owner: w.owner, forbidden: w.reader };
      },
    });
  });
});
