import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, fingerprint } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { factories } from '../../../test/factories.js';
import { PNG, blobCount, keyOf, sendFile } from '../../files/files.fixtures.js';
import { STORAGE_BACKENDS, useStorageTestApp } from '../../../test/storage.js';

// Every case runs on both file storage backends (the S3 one against a local S3-compatible server).
describe.each(STORAGE_BACKENDS)('%s file storage', (storage) => {
  const t = useStorageTestApp(storage);
  const f = factories(t);

  /** commonCases world for a settings route: the owner is the space admin, an editor may not. */
  const settingsWorld = (path: string, body?: unknown, badBody?: unknown) => async () => {
    const owner = await t.org();
    const space = await f.space(owner);
    return { url: `/spaces/${space.id}${path}`, owner, body, badBody, forbidden: await f.spaceMember(owner, space.id, 'editor') };
  };

  describe('PATCH /spaces/:id/name, /icon, /icon-color', () => {
    it('renames the space and sets or resets its icon and icon colour', async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      const renamed = await t.as(owner).patch(`/spaces/${space.id}/name`, { name: '  Marketing ' });
      expect(renamed.statusCode).toBe(200);
      expect(renamed.json()).toMatchObject({ id: space.id, name: 'Marketing', role: 'admin' });
      expect(new Date(renamed.json().updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(space.updatedAt as string).getTime());
      expect((await t.as(owner).patch(`/spaces/${space.id}/icon`, { icon: '🎯' })).json()).toMatchObject({ icon: '🎯' });
      expect((await t.as(owner).patch(`/spaces/${space.id}/icon-color`, { iconColor: '#00AA11' })).json()).toMatchObject({ icon: '🎯', iconColor: '#00AA11' });
      expect((await t.as(owner).patch(`/spaces/${space.id}/icon`, { icon: null })).json().icon).toBeNull();
      expect((await t.as(owner).patch(`/spaces/${space.id}/icon-color`, { iconColor: null })).json().iconColor).toBeNull();
    });

    it('lets an organization admin who is not in the space change it', async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      const admin = await t.member(owner, 'admin');
      expect((await t.as(admin).patch(`/spaces/${space.id}/name`, { name: 'By admin' })).json().name).toBe('By admin');
    });

    commonCases(t, 'PATCH /spaces/:id/name', { method: 'PATCH', setup: settingsWorld('/name', { name: 'N' }, { name: '' }) });
    commonCases(t, 'PATCH /spaces/:id/icon', { method: 'PATCH', setup: settingsWorld('/icon', { icon: '⭐' }, { icon: 'x'.repeat(101) }) });
    commonCases(t, 'PATCH /spaces/:id/icon-color', { method: 'PATCH', setup: settingsWorld('/icon-color', { iconColor: '#123456' }, { iconColor: 'blue' }) });
  });

  describe('PATCH /spaces/:id/archive and /restore', () => {
    it('archives (keeping the first archive time) and restores', async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      const archived = await t.as(owner).patch(`/spaces/${space.id}/archive`);
      expect(archived.statusCode).toBe(200);
      expect(archived.json()).toMatchObject({ archived: true, archivedAt: expect.any(String) });
      const again = await t.as(owner).patch(`/spaces/${space.id}/archive`);
      expect(again.json().archivedAt).toBe(archived.json().archivedAt);
      expect((await t.as(owner).get('/spaces?archived=true')).json()).toMatchObject([{ id: space.id }]);
      const restored = await t.as(owner).patch(`/spaces/${space.id}/restore`);
      expect(restored.statusCode).toBe(200);
      expect(restored.json()).toMatchObject({ archived: false, archivedAt: null });
      expect((await t.as(owner).get('/spaces')).json()).toMatchObject([{ id: space.id }]);
    });

    commonCases(t, 'PATCH /spaces/:id/archive', { method: 'PATCH', setup: settingsWorld('/archive') });
    commonCases(t, 'PATCH /spaces/:id/restore', { method: 'PATCH', setup: settingsWorld('/restore') });
  });

  describe('PATCH /spaces/:id/background and /custom-background', () => {
    it('sets a preset or a colour, and null clears it', async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      expect((await t.as(owner).patch(`/spaces/${space.id}/background`, { background: 'sunset-2' })).json()).toMatchObject({ background: 'sunset-2' });
      expect((await t.as(owner).patch(`/spaces/${space.id}/background`, { background: '#0A0B0C' })).json()).toMatchObject({ background: '#0A0B0C' });
      expect((await t.as(owner).patch(`/spaces/${space.id}/background`, { background: null })).json()).toMatchObject({ background: null, customBackground: null });
    });

    it('uploads a custom image readable by the space only; a preset then replaces it and removes the file', async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      const reader = await f.spaceMember(owner, space.id, 'reader');
      const outsider = await t.member(owner);
      await t.as(owner).patch(`/spaces/${space.id}/background`, { background: 'forest' });

      const res = await sendFile(t, owner, 'PATCH', `/spaces/${space.id}/custom-background`, { data: PNG });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ id: space.id, background: null, customBackground: expect.stringMatching(/^\/files\/[0-9a-f-]{36}$/) });
      const [row] = await t.sql<{ purpose: string; spaceId: number; organizationId: number }>(
        sql`select purpose, space_id as "spaceId", organization_id as "organizationId" from files where key = ${keyOf(body.customBackground)}`,
      );
      expect(row).toEqual({ purpose: 'space-background', spaceId: space.id, organizationId: owner.organizationId });
      expect((await t.as(reader).get(body.customBackground)).statusCode).toBe(200);
      expectProblem(await t.as(outsider).get(body.customBackground), 404);

      // A second upload replaces the first file.
      const second = (await sendFile(t, owner, 'PATCH', `/spaces/${space.id}/custom-background`, { data: PNG })).json();
      expectProblem(await t.as(owner).get(body.customBackground), 404);
      const preset = await t.as(owner).patch(`/spaces/${space.id}/background`, { background: 'ocean' });
      expect(preset.json()).toMatchObject({ background: 'ocean', customBackground: null });
      expect(await t.sql(sql`select id from files where key = ${keyOf(second.customBackground)}`)).toHaveLength(0);
    });

    it('refuses a file that is not an image (400), and a non-admin before storing anything (403)', async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      const editor = await f.spaceMember(owner, space.id, 'editor');
      const blobs = await blobCount(t);
      const before = await fingerprint(t, [owner.organizationId]);
      expectProblem(await sendFile(t, owner, 'PATCH', `/spaces/${space.id}/custom-background`, { data: 'not an image', filename: 'x.png' }), 400, 'INVALID_FILE');
      expectProblem(await sendFile(t, editor, 'PATCH', `/spaces/${space.id}/custom-background`, { data: PNG }), 403, 'FORBIDDEN');
      expectProblem(await sendFile(t, await t.org(), 'PATCH', `/spaces/${space.id}/custom-background`, { data: PNG }), 404, 'NOT_FOUND');
      expectProblem(await sendFile(t, null, 'PATCH', `/spaces/${space.id}/custom-background`, { data: PNG }), 401, 'UNAUTHENTICATED');
      expectProblem(await t.as(owner).patch(`/spaces/${space.id}/custom-background`, { file: 'json' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(await fingerprint(t, [owner.organizationId])).toBe(before);
      expect(await blobCount(t)).toBe(blobs);
    });

    it('deleting the space deletes its background file', async () => {
      const owner = await t.org();
      const space = await f.space(owner);
      const link = (await sendFile(t, owner, 'PATCH', `/spaces/${space.id}/custom-background`, { data: PNG })).json().customBackground as string;
      const blobs = await blobCount(t);
      expect((await t.as(owner).delete(`/spaces/${space.id}`)).statusCode).toBe(204);
      expect(await t.sql(sql`select id from files where key = ${keyOf(link)}`)).toHaveLength(0);
      expect(await blobCount(t)).toBe(blobs - 1);
    });

    commonCases(t, 'PATCH /spaces/:id/background', { method: 'PATCH', setup: settingsWorld('/background', { background: 'sky' }, { background: 'Not A Key!' }) });
  });
});
