import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp } from '../../test/app.js';
import { multipart } from '../files/files.fixtures.js';
import { chat } from '../tasks/messages/messages.fixtures.js';
import { codes, connect, record, seen, useFakeDrive } from './cloud-drive.fixtures.js';

// A small file limit, so the 413 of a streamed upload is cheap to reach.
const { fake, overrides } = useFakeDrive({ fileLimitBytes: 1024 * 1024 });
const t = useTestApp(overrides);
const CD = '/integrations/cloud-drive';

describe('cloud drive: one user’s drive is theirs alone', () => {
  it('another user can neither see nor use my integration, nor edit my drive message', async () => {
    const c = await chat(t);
    await connect(t, fake, c.member, 'mine@drive.test');
    const mine = fake.addFile('mine@drive.test', { name: 'private.txt', content: 'secret plans' });
    const sent = await t.as(c.member).post(`${CD}/tasks/${c.taskId}/messages`, { text: 'mine', driveFileIds: [mine] });
    expect(sent.statusCode).toBe(201);

    const other = t.as(c.editor);
    expect((await other.get(CD)).json()).toEqual({ connected: false, accountEmail: null, connectedAt: null, scopes: [] });
    expectProblem(await other.get(`${CD}/files`), 409, 'CLOUD_DRIVE_NOT_CONNECTED');
    expectProblem(await other.get(`${CD}/files/${mine}/content`), 409, 'CLOUD_DRIVE_NOT_CONNECTED');
    expectProblem(await other.delete(CD), 404, 'NOT_FOUND');
    // With a drive of their own, my file is not in it.
    await connect(t, fake, c.editor, 'theirs@drive.test');
    expect((await other.get(`${CD}/files`)).json()).toEqual([]);
    expectProblem(await other.get(`${CD}/files/${mine}/content`), 404, 'NOT_FOUND');
    expectProblem(await other.post(`${CD}/tasks/${c.taskId}/messages`, { driveFileIds: [mine] }), 400, 'VALIDATION_FAILED');
    // Even a space editor may not edit my message (author only).
    expectProblem(await other.patch(`${CD}/tasks/${c.taskId}/messages/${sent.json().id}`, { text: 'hijacked' }), 403, 'FORBIDDEN');
    // Their disconnect removes theirs, not mine.
    expect((await other.delete(CD)).statusCode).toBe(204);
    expect((await t.as(c.member).get(CD)).json()).toMatchObject({ connected: true, accountEmail: 'mine@drive.test' });
    // A user of another organization sees nothing of the task or its drive files.
    const stranger = await t.org();
    expectProblem(await t.as(stranger).post(`${CD}/tasks/${c.taskId}/messages`, { text: 'x', driveFileIds: [] }), 404, 'NOT_FOUND');
  });

  it('no token appears in any response, log line, or in plain text in the database files', async () => {
    const c = await chat(t);
    fake.accessLifetimeSec = 60;
    await connect(t, fake, c.member, 'leak@drive.test');
    const me = t.as(c.member);
    const id = fake.addFile('leak@drive.test', { name: 'a.txt', content: 'hello' });
    fake.expireAccessTokens();
    record(await me.get(`${CD}/files`));
    record(await me.get(`${CD}/files/${id}/content`));
    record(await me.post(`${CD}/tasks/${c.taskId}/messages`, { driveFileIds: [id] }));
    record(await t.as(c.reader).get(`/tasks/${c.taskId}/messages`));
    record(await me.get(CD));
    const stored = await t.sql<{ access: string; refresh: string }>(
      sql`select access_token_encrypted as access, refresh_token_encrypted as refresh from cloud_drive_integrations where user_id = ${c.member.id}`,
    );
    expect(stored[0]!.access).toMatch(/^v1\./);
    expect(stored[0]!.refresh).toMatch(/^v1\./);
    const tokens = fake.issued.filter((tok) => tok.includes('fake-'));
    expect(tokens.length).toBeGreaterThanOrEqual(3);

    const rows = await t.sql<{ dump: string }>(
      sql`select coalesce(string_agg(x::text, ' '), '') as dump from (
            select to_jsonb(i) as x from cloud_drive_integrations i union all select to_jsonb(s) from cloud_drive_auth_states s
            union all select to_jsonb(e) from events e where type like 'integration.%' union all select to_jsonb(m) from message_drive_attachments m) all_rows`,
    );
    // The embedded database's files themselves (pages, WAL), where it runs on PGlite.
    const client = (t.database.db as unknown as { $client?: { dumpDataDir?: (c: 'none') => Promise<Blob>; query(q: string): Promise<unknown> } }).$client;
    let files = '';
    if (t.database.kind === 'pglite') {
      if (!client?.dumpDataDir) throw new Error('the embedded database cannot be dumped');
      await client.query('checkpoint');
      files = Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer()).toString('latin1');
      expect(files).toContain('leak@drive.test');
    }
    // Nor the one-time authorization codes (the callback's URL is not access-logged).
    expect(codes.length).toBeGreaterThan(0);
    for (const code of codes) expect(t.logs.some((line) => line.includes(code))).toBe(false);
    expect(t.logs.some((line) => line.includes('"url":"/integrations/cloud-drive/files'))).toBe(true);
    for (const token of tokens) {
      expect(seen.some((s) => s.includes(token))).toBe(false);
      expect(t.logs.some((line) => line.includes(token))).toBe(false);
      expect(rows[0]!.dump.includes(token)).toBe(false);
      expect(files.includes(token)).toBe(false);
    }
    await me.delete(CD);
  });
});

describe('cloud drive: downloads', () => {
  it('serve any name and type as a safe attachment: no header injection, no sniffing', async () => {
    const c = await chat(t);
    await connect(t, fake, c.member, 'names@drive.test');
    const html = fake.addFile('names@drive.test', { name: 'évil"; x=1\r\nSet-Cookie: a=b.html', mimeType: 'text/html', content: '<script>alert(1)</script>' });
    const res = await t.as(c.member).get(`${CD}/files/${html}/content`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="_vil__ x=1__Set-Cookie: a=b.html"; filename*=UTF-8''%C3%A9vil%22%3B%20x%3D1%0D%0ASet-Cookie%3A%20a%3Db.html`,
    );
    expect(res.body).toBe('<script>alert(1)</script>');
    const folder = fake.addFile('names@drive.test', { name: 'dir', mimeType: 'application/vnd.google-apps.folder' });
    expectProblem(await t.as(c.member).get(`${CD}/files/${folder}/content`), 400, 'VALIDATION_FAILED');
    expectProblem(await t.as(c.member).get(`${CD}/files/nosuchfile/content`), 404, 'NOT_FOUND');
  });
});

describe('cloud drive: uploads', () => {
  it('refuses a file over FILE_LIMIT_BYTES with 413 and leaves nothing in the drive', async () => {
    const c = await chat(t);
    await connect(t, fake, c.member, 'big@drive.test');
    const before = fake.uploads;
    const form = multipart([{ name: 'files[]', data: randomBytes(2 * 1024 * 1024), filename: 'big.bin' }]);
    expectProblem(await t.as(c.member).request('POST', `${CD}/files`, form.payload, form.headers), 413, 'PAYLOAD_TOO_LARGE');
    expect(fake.uploads).toBe(before);
    expect((await t.as(c.member).get(`${CD}/files`)).json()).toEqual([]);
  });

  it('answers 400 to uploads without files, with unknown fields, or with folderId after the files; 415 to JSON', async () => {
    const c = await chat(t);
    await connect(t, fake, c.member, 'forms@drive.test');
    const me = t.as(c.member);
    const send = (parts: Parameters<typeof multipart>[0]) => {
      const form = multipart(parts);
      return me.request('POST', `${CD}/files`, form.payload, form.headers);
    };
    expectProblem(await send([{ name: 'folderId', data: 'abc' }]), 400, 'VALIDATION_FAILED');
    expectProblem(await send([{ name: 'colour', data: 'red' }]), 400, 'VALIDATION_FAILED');
    expectProblem(await send([{ name: 'folderId', data: "x' or '1'='1" }]), 400, 'VALIDATION_FAILED');
    expectProblem(await send([{ name: 'files[]', data: 'a', filename: 'a.txt' }, { name: 'folderId', data: 'abc' }]), 400, 'VALIDATION_FAILED');
    expectProblem(await me.post(`${CD}/files`, { files: [] }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    // A body that breaks off mid-file, or has no boundary: the request's fault, not the provider's.
    const whole = multipart([{ name: 'files[]', data: randomBytes(64 * 1024), filename: 'cut.bin' }]);
    const cut = await me.request('POST', `${CD}/files`, whole.payload.subarray(0, 40 * 1024), whole.headers);
    expectProblem(cut, 400, 'MALFORMED_MULTIPART');
    expectProblem(await me.request('POST', `${CD}/files`, 'x', { 'content-type': 'multipart/form-data' }), 400, 'MALFORMED_MULTIPART');
    expect((await me.get(`${CD}/files`)).json()).toEqual([]);
  });

  it('answers 400 to bad queries and ids on every route that takes them', async () => {
    const c = await chat(t);
    const me = t.as(c.member);
    expectProblem(await me.get(`${CD}/files?limit=0`), 400, 'VALIDATION_FAILED');
    expectProblem(await me.get(`${CD}/files?folderId=${encodeURIComponent("a' in parents or '")}`), 400, 'VALIDATION_FAILED');
    expectProblem(await me.get(`${CD}/files/${encodeURIComponent('../about')}/content`), 400, 'VALIDATION_FAILED');
    expectProblem(await me.get(`${CD}/authorization-url?redirectUri=${encodeURIComponent('javascript:alert(1)')}`), 400, 'VALIDATION_FAILED');
    expectProblem(await t.as(null).get(`${CD}/callback?code=abc`), 400, 'VALIDATION_FAILED');
    expectProblem(await me.post(`${CD}/tasks/${c.taskId}/messages`, { text: 'no files', driveFileIds: ['bad id!'] }), 400, 'VALIDATION_FAILED');
    expectProblem(await me.post(`${CD}/tasks/${c.taskId}/messages`, { driveFileIds: [] }), 400, 'VALIDATION_FAILED');
    // Text alone needs no drive: the reference list may be empty.
    expect((await me.post(`${CD}/tasks/${c.taskId}/messages`, { text: 'just text', driveFileIds: [] })).statusCode).toBe(201);
  });
});
