import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, fingerprint, useTestApp, type TestKit, type TestUser } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { PNG, blobCount, keyOf, multipart, sendFile } from '../files/files.fixtures.js';
import { STORAGE_BACKENDS, useStorageTestApp } from '../../test/storage.js';

// Every case runs on both file storage backends (the S3 one against a local S3-compatible server).
describe.each(STORAGE_BACKENDS)('%s file storage', (storage) => {
  const t = useStorageTestApp(storage);
  const LINK = /^\/files\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

  const setAvatar = (kit: TestKit, user: TestUser, data: Buffer | string = PNG, filename = 'me.png') =>
    sendFile(kit, user, 'PATCH', '/user/avatar', { data, filename });

  /** Everything an avatar change touches: the user's row, its file rows and the stored blobs. */
  async function avatarState(kit: TestKit, user: TestUser) {
    const rows = await kit.sql(sql`select id, key, purpose from files where uploader_id = ${user.id} order by id`);
    return { user: await fingerprint(kit, [user.organizationId], [user.id]), rows, blobs: await blobCount(kit) };
  }

  describe('PATCH /user/avatar', () => {
    it('stores an image sent as multipart/form-data and answers the User with its link', async () => {
      const user = await t.org();
      const res = await setAvatar(t, user);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ id: user.id, email: user.email });
      expect(body.avatar).toMatch(LINK);
      expect((await t.as(user).get('/user')).json().avatar).toBe(body.avatar);
      const [file] = await t.sql(sql`select organization_id, purpose, mime_type, size, width, height, name from files where key = ${keyOf(body.avatar)}::uuid`);
      expect(file).toEqual({ organization_id: null, purpose: 'avatar', mime_type: 'image/png', size: PNG.length, width: 1, height: 1, name: 'me.png' });
    });

    it('replaces the previous avatar, whose link then answers 404 and whose blob is gone', async () => {
      const user = await t.org();
      const first = (await setAvatar(t, user)).json().avatar as string;
      const blobs = await blobCount(t);
      const second = (await setAvatar(t, user)).json().avatar as string;
      expect(second).toMatch(LINK);
      expect(second).not.toBe(first);
      expectProblem(await t.as(user).get(first), 404, 'NOT_FOUND');
      expect((await t.as(user).get(second)).statusCode).toBe(200);
      expect(await blobCount(t)).toBe(blobs);
    });

    it('refuses a non-image named .png with 400 INVALID_FILE, changing nothing', async () => {
      const user = await t.org();
      await setAvatar(t, user);
      const before = await avatarState(t, user);
      const res = await setAvatar(t, user, '<html><script>alert(1)</script></html>', 'evil.png');
      expectProblem(res, 400, 'INVALID_FILE');
      expect(await avatarState(t, user)).toEqual(before);
    });

    it('refuses a form without a file part with 400', async () => {
      const user = await t.org();
      const body = multipart([{ name: 'note', data: 'no file here' }]);
      const problem = expectProblem(await t.as(user).request('PATCH', '/user/avatar', body.payload, body.headers), 400, 'VALIDATION_FAILED');
      expect(problem.errors).toEqual([{ path: '/file', message: 'is required' }]);
      expect((await t.as(user).get('/user')).json().avatar).toBeNull();
    });

    it('refuses a malformed multipart body with 400, leaving no blob behind', async () => {
      const user = await t.org();
      const before = await avatarState(t, user);
      const boundary = '----cut';
      const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`;
      const bodies: Array<[string, Buffer]> = [
        [`multipart/form-data; boundary=${boundary}`, Buffer.concat([Buffer.from(head), PNG])], // never closed
        [`multipart/form-data; boundary=${boundary}`, Buffer.from('not a multipart body at all')],
        ['multipart/form-data', Buffer.from('no boundary given')],
      ];
      for (const [type, payload] of bodies) {
        expectProblem(await t.as(user).request('PATCH', '/user/avatar', payload, { 'content-type': type }), 400, 'MALFORMED_MULTIPART');
      }
      expect(await avatarState(t, user)).toEqual(before);
    });

    it('refuses a JSON body with 415', async () => {
      const user = await t.org();
      expectProblem(await t.as(user).patch('/user/avatar', { file: 'x' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    commonCases(t, 'PATCH /user/avatar', { method: 'PATCH', setup: async (kit) => ({ url: '/user/avatar', owner: await kit.org() }) });
  });

  describe('DELETE /user/avatar', () => {
    it('removes the avatar: User.avatar null, the link 404, the blob gone', async () => {
      const user = await t.org();
      const link = (await setAvatar(t, user)).json().avatar as string;
      const blobs = await blobCount(t);
      const res = await t.as(user).delete('/user/avatar');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: user.id, avatar: null });
      expectProblem(await t.as(user).get(link), 404);
      expect(await t.sql(sql`select id from files where key = ${keyOf(link)}::uuid`)).toHaveLength(0);
      expect(await blobCount(t)).toBe(blobs - 1);
    });

    it('answers 200 when there is no avatar', async () => {
      const user = await t.org();
      const res = await t.as(user).delete('/user/avatar');
      expect(res.statusCode).toBe(200);
      expect(res.json().avatar).toBeNull();
    });

    commonCases(t, 'DELETE /user/avatar', {
      method: 'DELETE',
      setup: async (kit) => {
        const owner = await kit.org();
        await setAvatar(kit, owner);
        return { url: '/user/avatar', owner };
      },
    });
  });

  describe('clearing personal data removes the avatar', () => {
    it('drops the file row and the blob', async () => {
      const user = await t.org();
      const link = (await setAvatar(t, user)).json().avatar as string;
      expect((await t.as(user).patch('/user/clear-personal-data')).json().avatar).toBeNull();
      expectProblem(await t.as(user).get(link), 404);
    });
  });

  describe('GET /files/{key} for an avatar', () => {
    it('downloads the bytes with their content type, for the user and for members of their organization', async () => {
      const owner = await t.org();
      const colleague = await t.member(owner);
      const link = (await setAvatar(t, owner)).json().avatar as string;
      for (const reader of [owner, colleague]) {
        const res = await t.as(reader).get(link);
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('image/png');
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.rawPayload.equals(PNG)).toBe(true);
      }
    });

    it('answers 404 to a malformed or unknown key', async () => {
      const user = await t.org();
      expectProblem(await t.as(user).get('/files/not-a-key'), 404, 'NOT_FOUND');
      expectProblem(await t.as(user).get('/files/00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
    });

    commonCases(t, 'GET /files/{key}', {
      method: 'GET',
      foreignId: true,
      setup: async (kit) => {
        const owner = await kit.org();
        return { url: (await setAvatar(kit, owner)).json().avatar as string, owner };
      },
    });
  });

  describe('avatar size limit', () => {
    const small = useTestApp({ imageLimitBytes: 2048 });

    it('answers 413 to an image over the limit, storing nothing', async () => {
      const user = await small.org();
      const before = await avatarState(small, user);
      const big = Buffer.concat([PNG, Buffer.alloc(4096)]);
      expectProblem(await setAvatar(small, user, big), 413, 'PAYLOAD_TOO_LARGE');
      expect(await avatarState(small, user)).toEqual(before);
      expect((await small.as(user).get('/user')).json().avatar).toBeNull();
    });

    it('accepts an image under the limit', async () => {
      const user = await small.org();
      expect((await setAvatar(small, user)).statusCode).toBe(200);
    });
  });
});
