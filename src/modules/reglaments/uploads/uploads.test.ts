import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem } from '../../../test/app.js';
import { PNG, blobCount, multipart, sendFile } from '../../files/files.fixtures.js';
import { reglamentFactories, uploadRefusals } from '../reglaments.fixtures.js';
import { STORAGE_BACKENDS, useStorageTestApp } from '../../../test/storage.js';

// Every case runs on both file storage backends (the S3 one against a local S3-compatible server).
describe.each(STORAGE_BACKENDS)('%s file storage', (storage) => {
  const t = useStorageTestApp(storage);
  const r = reglamentFactories(t);

  describe('POST /reglaments/{reglamentId}/images', () => {
    it('stores an image for the content and answers its File', async () => {
      const w = await r.world();
      const res = await sendFile(t, w.owner, 'POST', `/reglaments/${w.reglament.id}/images`, { data: PNG, filename: 'diagram.png' });
      expect(res.statusCode).toBe(201);
      const file = res.json();
      expect(file).toMatchObject({ name: 'diagram.png', mimeType: 'image/png', size: PNG.length });
      expect(file.link).toMatch(/^\/files\/[0-9a-f-]{36}$/);
      expect(await t.sql(sql`select kind from reglament_files where file_id = ${file.id}`)).toEqual([{ kind: 'image' }]);
      const reader = await r.spaceMember(w.owner, w.space.id, 'reader');
      expect((await t.as(reader).get(file.link)).statusCode).toBe(200);
    });

    it('refuses a non-image with 400 INVALID_FILE, storing nothing', async () => {
      const w = await r.world();
      const blobs = await blobCount(t);
      expectProblem(await sendFile(t, w.owner, 'POST', `/reglaments/${w.reglament.id}/images`, { data: '<svg onload=alert(1)>', filename: 'x.png' }), 400, 'INVALID_FILE');
      expect(await blobCount(t)).toBe(blobs);
    });

    uploadRefusals(t, 'POST /reglaments/{reglamentId}/images', async () => {
      const w = await r.world();
      return { url: `/reglaments/${w.reglament.id}/images`, owner: w.owner, forbidden: await r.spaceMember(w.owner, w.space.id, 'member'), field: 'file' };
    });
  });

  describe('POST /reglaments/{reglamentId}/files', () => {
    it('stores several files and deleting the reglament removes them with their blobs', async () => {
      const w = await r.world();
      const body = multipart([
        { name: 'files[]', data: 'plain text', filename: 'a.txt', contentType: 'text/plain' },
        { name: 'files[]', data: PNG, filename: 'b.png', contentType: 'image/png' },
      ]);
      const res = await t.as(w.owner).request('POST', `/reglaments/${w.reglament.id}/files`, body.payload, body.headers);
      expect(res.statusCode).toBe(201);
      expect(res.json().map((f: { name: string }) => f.name)).toEqual(['a.txt', 'b.png']);
      const blobs = await blobCount(t);
      expect((await t.as(w.owner).delete(`/reglaments/${w.reglament.id}`)).statusCode).toBe(204);
      expect(await t.sql(sql`select id from files where id = any(${`{${res.json().map((f: { id: number }) => f.id).join(',')}}`}::bigint[])`)).toEqual([]);
      expect(await blobCount(t)).toBe(blobs - 2);
    });

    uploadRefusals(t, 'POST /reglaments/{reglamentId}/files', async () => {
      const w = await r.world();
      return { url: `/reglaments/${w.reglament.id}/files`, owner: w.owner, forbidden: await r.spaceMember(w.owner, w.space.id, 'reader'), field: 'files[]' };
    });
  });
});
