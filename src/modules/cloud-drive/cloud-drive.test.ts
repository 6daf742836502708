import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { Value } from 'typebox/value';
import type { EventType } from '../../platform/event-types.js';
import { eventPayloadSchemas } from '../events/events.catalogue.js';
import { expectProblem, useTestApp } from '../../test/app.js';
import { multipart } from '../files/files.fixtures.js';
import { chat } from '../tasks/messages/messages.fixtures.js';
import { APP_URL, connect, record, seen, useFakeDrive } from './cloud-drive.fixtures.js';

const { fake, overrides } = useFakeDrive();
const t = useTestApp(overrides);
const CD = '/integrations/cloud-drive';

const integrationRow = async (userId: number) =>
  (await t.sql<Record<string, unknown>>(sql`select status, access_token_encrypted as access, refresh_token_encrypted as refresh from cloud_drive_integrations where user_id = ${userId}`))[0];

describe('cloud drive: the whole flow against the fake provider', () => {
  it('connects, refreshes, uploads 5 MB and downloads it byte-identical, attaches it to a message, disconnects with a revocation', async () => {
    const c = await chat(t);
    const me = t.as(c.member);
    expect(record(await me.get(CD)).json()).toEqual({ connected: false, accountEmail: null, connectedAt: null, scopes: [] });

    // The consent URL: code flow, offline access, PKCE S256, our redirect URI and the minimal scopes.
    const start = record(await me.get(`${CD}/authorization-url`)).json();
    const url = new URL(start.url);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code', access_type: 'offline', code_challenge_method: 'S256', client_id: fake.clientId, state: start.state,
      redirect_uri: 'http://localhost:3000/integrations/cloud-drive/callback',
      scope: 'https://www.googleapis.com/auth/drive.file https://www.googleapis.com/auth/drive.metadata.readonly',
    });
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    const minutes = (new Date(start.expiresAt).getTime() - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(9);
    expect(minutes).toBeLessThanOrEqual(10);

    fake.accessLifetimeSec = 2;
    const callback = record(await t.as(null).get(`${CD}/callback?${fake.consent(start.url, 'member@drive.test')}`));
    expect(callback.statusCode).toBe(302);
    expect(callback.headers.location).toBe(`${APP_URL}/?cloudDrive=connected`);
    const status = record(await me.get(CD)).json();
    expect(status).toEqual({ connected: true, accountEmail: 'member@drive.test', connectedAt: expect.any(String), scopes: url.searchParams.get('scope')!.split(' ') });
    const events = await t.sql<{ type: string; userId: number }>(
      sql`select type, user_id::int as "userId" from events where organization_id = ${c.owner.organizationId} and type like 'integration.%' order by id`,
    );
    expect(events).toEqual([{ type: 'integration.connected', userId: c.member.id }]);

    // Browsing: a folder, files in it, search, and the provider's paging.
    const folder = fake.addFile('member@drive.test', { name: 'Specs', mimeType: 'application/vnd.google-apps.folder' });
    fake.addFile('member@drive.test', { name: 'alpha.txt', content: 'a', parents: [folder] });
    fake.addFile('member@drive.test', { name: 'beta.txt', content: 'bb', parents: [folder] });
    fake.addFile('member@drive.test', { name: "gamma's.txt", content: 'ccc', parents: [folder] });
    const first = record(await me.get(`${CD}/files?folderId=${folder}&limit=2`));
    expect(first.statusCode).toBe(200);
    expect(first.json().map((f: { name: string }) => f.name)).toEqual(['alpha.txt', 'beta.txt']);
    expect(first.json()[0]).toEqual({ id: expect.any(String), name: 'alpha.txt', mimeType: 'text/plain', size: 1, isFolder: false, modifiedAt: expect.any(String), webUrl: expect.stringMatching(/^https:\/\//) });
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.link as string)![1]!;
    expect(record(await me.get(next)).json().map((f: { name: string }) => f.name)).toEqual(["gamma's.txt"]);
    expect(record(await me.get(`${CD}/files?q=${encodeURIComponent("a's")}`)).json().map((f: { name: string }) => f.name)).toEqual(["gamma's.txt"]);
    expect(record(await me.get(`${CD}/files?q=Specs`)).json()[0]).toMatchObject({ isFolder: true, size: null });

    // Refresh ahead of expiry: the 2 s token is due after 1.5 s.
    expect(fake.refreshes).toBe(0);
    await new Promise((r) => setTimeout(r, 1600));
    expect(record(await me.get(`${CD}/files?limit=1`)).statusCode).toBe(200);
    expect(fake.refreshes).toBe(1);
    // The provider's 401 for a token the service thought valid: one refresh for six parallel requests.
    fake.accessLifetimeSec = 60;
    expect(record(await me.get(`${CD}/files?limit=1`)).statusCode).toBe(200);
    const before = fake.refreshes;
    fake.expireAccessTokens();
    const parallel = await Promise.all(Array.from({ length: 6 }, () => me.get(`${CD}/files?limit=1`)));
    expect(parallel.map((r) => record(r).statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(fake.refreshes).toBe(before + 1);

    // Upload 5 MB, streamed through; download it back byte for byte.
    const data = randomBytes(5 * 1024 * 1024);
    const form = multipart([{ name: 'folderId', data: folder }, { name: 'files[]', data, filename: 'big report.bin', contentType: 'application/x-thing' }]);
    const uploaded = record(await me.request('POST', `${CD}/files`, form.payload, form.headers));
    expect(uploaded.statusCode).toBe(201);
    const [file] = uploaded.json();
    expect(file).toMatchObject({ name: 'big report.bin', mimeType: 'application/x-thing', size: data.length, isFolder: false });
    expect(fake.fileContent('member@drive.test', file.id)!.equals(data)).toBe(true);
    const download = await me.get(`${CD}/files/${file.id}/content`);
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/x-thing');
    expect(download.headers['content-disposition']).toBe(`attachment; filename="big report.bin"; filename*=UTF-8''big%20report.bin`);
    expect(download.rawPayload.equals(data)).toBe(true);

    // Attached to a task message: every reader sees the reference, no token.
    const sent = record(await me.post(`${CD}/tasks/${c.taskId}/messages`, { text: 'the report', driveFileIds: [file.id] }));
    expect(sent.statusCode).toBe(201);
    const attachment = { id: expect.any(Number), name: 'big report.bin', size: data.length, mimeType: 'application/x-thing', link: file.webUrl, source: 'cloud-drive', driveFileId: file.id };
    expect(sent.json()).toMatchObject({ taskId: c.taskId, authorId: c.member.id, text: 'the report', attachments: [attachment] });
    const listed = record(await t.as(c.reader).get(`/tasks/${c.taskId}/messages`));
    expect(listed.json()[0]).toMatchObject({ id: sent.json().id, attachments: [attachment] });
    // The author edits: text only, then the attachments.
    const edited = record(await me.patch(`${CD}/tasks/${c.taskId}/messages/${sent.json().id}`, { text: 'the report, final' }));
    expect(edited.json()).toMatchObject({ text: 'the report, final', attachments: [attachment], editedAt: expect.any(String) });
    const swapped = record(await me.patch(`${CD}/tasks/${c.taskId}/messages/${sent.json().id}`, { driveFileIds: [first.json()[1].id] }));
    expect(swapped.json().attachments).toEqual([expect.objectContaining({ name: 'beta.txt', size: 2, source: 'cloud-drive' })]);
    expectProblem(await me.patch(`${CD}/tasks/${c.taskId}/messages/${sent.json().id}`, { text: '', driveFileIds: [] }), 400, 'VALIDATION_FAILED');

    // Disconnect: revoked at the provider (the refresh token), deleted here, announced.
    const refreshToken = fake.issued.find((tok) => tok.startsWith('1//'))!;
    const gone = record(await me.delete(CD));
    expect(gone.statusCode).toBe(204);
    expect(gone.headers['cloud-drive-revoked']).toBe('true');
    expect(fake.revocations).toContain(refreshToken);
    expect(await integrationRow(c.member.id)).toBeUndefined();
    expect(record(await me.get(CD)).json()).toEqual({ connected: false, accountEmail: null, connectedAt: null, scopes: [] });
    expectProblem(await me.get(`${CD}/files`), 409, 'CLOUD_DRIVE_NOT_CONNECTED');
    expectProblem(await me.delete(CD), 404, 'NOT_FOUND');
    const announced = await t.sql<{ type: EventType; userId: number; payload: unknown }>(
      sql`select type, user_id::int as "userId", payload from events where organization_id = ${c.owner.organizationId} and type like 'integration.%' order by id`,
    );
    expect(announced.map((e) => [e.type, e.userId])).toEqual([['integration.connected', c.member.id], ['integration.disconnected', c.member.id]]);
    for (const e of announced) expect(Value.Check(eventPayloadSchemas()[e.type], e.payload)).toBe(true);
    expect(announced[1]!.payload).toEqual({ connected: false, accountEmail: 'member@drive.test', connectedAt: null, scopes: [] });
    // The message keeps its reference after the drive is gone.
    expect(record(await t.as(c.reader).get(`/tasks/${c.taskId}/messages`)).json()[0].attachments).toHaveLength(1);
  }, 30_000);
});

describe('cloud drive: state, PKCE and provider errors', () => {
  it('a replayed, forged or expired state connects nothing (400); a denied consent redirects with the error', async () => {
    const { owner } = await chat(t);
    const start = (await t.as(owner).get(`${CD}/authorization-url`)).json();
    const back = fake.consent(start.url, owner.email);
    expect((await t.as(null).get(`${CD}/callback?${back}`)).statusCode).toBe(302);
    await t.sql(sql`delete from cloud_drive_integrations where user_id = ${owner.id}`);
    // Replayed: the same state (and code) again.
    expectProblem(await t.as(null).get(`${CD}/callback?${back}`), 400, 'CLOUD_DRIVE_STATE_INVALID');
    // Forged: another user's id in a fresh state's payload, or a signature that is not ours.
    const other = (await t.as(owner).get(`${CD}/authorization-url`)).json().state as string;
    const [payload, signature] = other.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = `${Buffer.from(JSON.stringify({ ...claims, u: claims.u + 1 })).toString('base64url')}.${signature}`;
    for (const state of [forged, `${payload}.${randomBytes(32).toString('base64url')}`, 'nonsense']) {
      const q = new URLSearchParams({ code: 'whatever', state });
      expectProblem(await t.as(null).get(`${CD}/callback?${q}`), 400, 'CLOUD_DRIVE_STATE_INVALID');
    }
    // Expired: the row outlived its ten minutes.
    await t.sql(sql`update cloud_drive_auth_states set expires_at = now() - interval '1 second' where user_id = ${owner.id}`);
    expectProblem(await t.as(null).get(`${CD}/callback?${new URLSearchParams({ code: 'x', state: other })}`), 400, 'CLOUD_DRIVE_STATE_INVALID');
    expect(await integrationRow(owner.id)).toBeUndefined();

    // Denied at the provider: back to the app with the error, nothing stored.
    const denied = (await t.as(owner).get(`${CD}/authorization-url`)).json();
    const res = await t.as(null).get(`${CD}/callback?${fake.consent(denied.url, owner.email, true)}`);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`${APP_URL}/?cloudDrive=error&error=access_denied`);
    expect(await integrationRow(owner.id)).toBeUndefined();
  });

  it('a code exchanged with another authorization’s verifier fails PKCE at the provider: nothing stored', async () => {
    const { owner } = await chat(t);
    const a = (await t.as(owner).get(`${CD}/authorization-url`)).json();
    const b = (await t.as(owner).get(`${CD}/authorization-url?redirectUri=${encodeURIComponent(`${APP_URL}/settings`)}`)).json();
    const code = fake.consent(a.url, owner.email).get('code')!;
    const res = await t.as(null).get(`${CD}/callback?${new URLSearchParams({ code, state: b.state })}`);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`${APP_URL}/settings?cloudDrive=error&error=invalid_grant`);
    expect(await integrationRow(owner.id)).toBeUndefined();
    // Only the app's origin may be the way back.
    expectProblem(await t.as(owner).get(`${CD}/authorization-url?redirectUri=${encodeURIComponent('https://evil.test/')}`), 400, 'VALIDATION_FAILED');
  });

  it('a refresh token revoked at the provider marks the drive disconnected: 409 CLOUD_DRIVE_RECONNECT', async () => {
    const c = await chat(t);
    await connect(t, fake, c.member, 'revoked@drive.test');
    fake.revokeAll();
    expectProblem(await t.as(c.member).get(`${CD}/files`), 409, 'CLOUD_DRIVE_RECONNECT');
    expect(await integrationRow(c.member.id)).toEqual({ status: 'disconnected', access: null, refresh: null });
    const told = await t.sql<{ type: string; payload: unknown }>(
      sql`select type, payload from events where organization_id = ${c.owner.organizationId} and user_id = ${c.member.id} order by id desc limit 1`,
    );
    expect(told).toEqual([{ type: 'integration.disconnected', payload: { connected: false, accountEmail: 'revoked@drive.test', connectedAt: null, scopes: [] } }]);
    expect((await t.as(c.member).get(CD)).json()).toEqual({ connected: false, accountEmail: 'revoked@drive.test', connectedAt: null, scopes: [] });
    expectProblem(await t.as(c.member).post(`${CD}/tasks/${c.taskId}/messages`, { driveFileIds: ['abc'] }), 409, 'CLOUD_DRIVE_RECONNECT');
    // Deleting still works (nothing left to revoke).
    expect((await t.as(c.member).delete(CD)).statusCode).toBe(204);
  });

  it('a provider that cannot be reached at disconnect: deleted here all the same, and the answer says so', async () => {
    const c = await chat(t);
    await connect(t, fake, c.member, 'down@drive.test');
    fake.revokeDown = true;
    try {
      const res = await t.as(c.member).delete(CD);
      expect(res.statusCode).toBe(204);
      expect(res.headers['cloud-drive-revoked']).toBe('false');
    } finally {
      fake.revokeDown = false;
    }
    expect(await integrationRow(c.member.id)).toBeUndefined();
  });
});
