import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { PASSWORD, expectProblem, useTestApp, type TestUser } from '../test/app.js';
import { sha256 } from './crypto.js';
import { runJob } from './jobs.js';

const t = useTestApp();

const post = (user: TestUser, url: string, body: unknown, key?: string) =>
  t.as(user).request('POST', url, body, key === undefined ? {} : { 'idempotency-key': key });

const spaceCount = async (user: TestUser) =>
  (await t.sql<{ n: number }>(sql`select count(*)::int as n from spaces where organization_id = ${user.organizationId}`))[0]!.n;

describe('Idempotency-Key on POST', () => {
  it('answers three identical requests with one key once: one space, the same answer, replays marked', async () => {
    const owner = await t.org();
    const before = await spaceCount(owner);
    const key = randomUUID();
    const [first, second, third] = [await post(owner, '/spaces', { name: 'Once' }, key), await post(owner, '/spaces', { name: 'Once' }, key), await post(owner, '/spaces', { name: 'Once' }, key)];
    expect(first!.statusCode).toBe(201);
    expect(first!.headers['idempotent-replayed']).toBeUndefined();
    for (const replay of [second!, third!]) {
      expect(replay.statusCode).toBe(201);
      expect(replay.body).toBe(first!.body);
      expect(replay.headers['content-type']).toBe(first!.headers['content-type']);
      expect(replay.headers['idempotent-replayed']).toBe('true');
    }
    expect(await spaceCount(owner)).toBe(before + 1);
  });

  it('takes the same body with its fields in another order as the same request', async () => {
    const owner = await t.org();
    const key = randomUUID();
    const first = await post(owner, '/spaces', { name: 'Ordered', iconColor: '#112233' }, key);
    const again = await post(owner, '/spaces', { iconColor: '#112233', name: 'Ordered' }, key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
  });

  it('refuses the key with another body or another path (422), creating nothing', async () => {
    const owner = await t.org();
    const key = randomUUID();
    expect((await post(owner, '/spaces', { name: 'First' }, key)).statusCode).toBe(201);
    const count = await spaceCount(owner);
    expectProblem(await post(owner, '/spaces', { name: 'Second' }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expectProblem(await post(owner, '/projects', { spaceId: 1, name: 'P' }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await spaceCount(owner)).toBe(count);
  });

  it('keeps keys apart per credential: two users (and two sessions) with one key each get their own answer', async () => {
    const a = await t.org();
    const b = await t.org();
    const key = 'shared-key';
    const ra = await post(a, '/spaces', { name: 'Same' }, key);
    const rb = await post(b, '/spaces', { name: 'Same' }, key);
    expect([ra.statusCode, rb.statusCode]).toEqual([201, 201]);
    expect(rb.headers['idempotent-replayed']).toBeUndefined();
    expect(rb.json().id).not.toBe(ra.json().id);
    const login = await t.as(null).post('/auth/login', { email: a.email, password: PASSWORD });
    const otherSession = { ...a, headers: { 'service-session': login.json().session as string } };
    const rc = await post(otherSession, '/spaces', { name: 'Same' }, key);
    expect(rc.statusCode).toBe(201);
    expect(rc.json().id).not.toBe(ra.json().id);
  });

  it('changes nothing without a key: two identical requests create two spaces', async () => {
    const owner = await t.org();
    const before = await spaceCount(owner);
    const [one, two] = [await post(owner, '/spaces', { name: 'Twice' }), await post(owner, '/spaces', { name: 'Twice' })];
    expect([one.statusCode, two.statusCode]).toEqual([201, 201]);
    expect(two.headers['idempotent-replayed']).toBeUndefined();
    expect(await spaceCount(owner)).toBe(before + 2);
  });

  it('refuses a key longer than 255 characters or empty (400) and takes one of 255', async () => {
    const owner = await t.org();
    const problem = expectProblem(await post(owner, '/spaces', { name: 'Long' }, 'k'.repeat(256)), 400, 'VALIDATION_FAILED');
    expect(problem.errors).toEqual([{ path: '/headers/idempotency-key', message: expect.any(String) }]);
    expectProblem(await post(owner, '/spaces', { name: 'Empty' }, ' '), 400, 'VALIDATION_FAILED');
    expect((await post(owner, '/spaces', { name: 'Long' }, 'k'.repeat(255))).statusCode).toBe(201);
  });

  it('answers 409 with Retry-After while the first request with the key still runs', async () => {
    const owner = await t.org();
    const key = randomUUID();
    // What the first request leaves while its handler runs (decided on another instance, say).
    const fingerprint = sha256(`POST /spaces\n{"name":"Busy"}`);
    await t.sql(sql`insert into idempotency_keys (credential_hash, key, fingerprint) values (${sha256(owner.session)}, ${key}, ${fingerprint})`);
    const before = await spaceCount(owner);
    const busy = await post(owner, '/spaces', { name: 'Busy' }, key);
    expectProblem(busy, 409, 'IDEMPOTENCY_KEY_IN_USE');
    expect(busy.headers['retry-after']).toBe('1');
    expect(await spaceCount(owner)).toBe(before);
    // A first attempt that died with its instance frees the key after a while.
    await t.sql(sql`update idempotency_keys set created_at = now() - interval '6 minutes' where key = ${key}`);
    expect((await post(owner, '/spaces', { name: 'Busy' }, key)).statusCode).toBe(201);
    expect(await spaceCount(owner)).toBe(before + 1);
  });

  it('lets two simultaneous requests with one key create one space', async () => {
    const owner = await t.org();
    const before = await spaceCount(owner);
    const key = randomUUID();
    const answers = await Promise.all([post(owner, '/spaces', { name: 'Race' }, key), post(owner, '/spaces', { name: 'Race' }, key)]);
    const statuses = answers.map((a) => a.statusCode).sort();
    // The second either finds the first still running (409) or its answer kept (a replay).
    expect([[201, 201], [201, 409]]).toContainEqual(statuses);
    if (statuses[1] === 201) expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(1);
    expect(await spaceCount(owner)).toBe(before + 1);
  });

  it('replays a kept 4xx answer too (the same request gets the same refusal)', async () => {
    const owner = await t.org();
    const key = randomUUID();
    const refused = await post(owner, '/spaces', { name: 'X', spaceGroupId: 999_999_999 }, key);
    expectProblem(refused, 400, 'REFERENCE_NOT_FOUND');
    const again = await post(owner, '/spaces', { name: 'X', spaceGroupId: 999_999_999 }, key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(refused.body);
  });

  it('keeps an answer encrypted: a new API token is replayed to its caller but never stored readable', async () => {
    const owner = await t.org();
    const key = randomUUID();
    const created = await post(owner, '/user/api-tokens', { name: 'CI' }, key);
    expect(created.statusCode).toBe(201);
    const token = created.json().token as string;
    const [row] = await t.sql<{ response: string; credential_hash: string }>(sql`select response, credential_hash from idempotency_keys where key = ${key}`);
    expect(row!.credential_hash).toBe(sha256(owner.session));
    expect(row!.response).not.toContain(token);
    expect(Buffer.from(row!.response, 'base64').toString('latin1')).not.toContain(token);
    const replay = await post(owner, '/user/api-tokens', { name: 'CI' }, key);
    expect(replay.json().token).toBe(token);
  });

  it('keeps an answer without a body (204)', async () => {
    const owner = await t.org();
    const key = randomUUID();
    expect((await post(owner, '/auth/logout', undefined, key)).statusCode).toBe(204);
    const [row] = await t.sql<{ status: number }>(sql`select status from idempotency_keys where key = ${key}`);
    expect(row?.status).toBe(204);
  });

  it('forgets keys after their retention: the request runs again, and the purge job deletes them', async () => {
    const owner = await t.org();
    const key = randomUUID();
    const first = await post(owner, '/spaces', { name: 'Old' }, key);
    await t.sql(sql`update idempotency_keys set created_at = now() - interval '25 hours' where key = ${key}`);
    const second = await post(owner, '/spaces', { name: 'Old' }, key);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.json().id).not.toBe(first.json().id);
    await t.sql(sql`update idempotency_keys set created_at = now() - interval '25 hours' where key = ${key}`);
    await runJob(t.app, 'idempotency.purge', { force: true });
    expect(await t.sql(sql`select 1 from idempotency_keys where key = ${key}`)).toEqual([]);
  });

  it('ignores the key on requests without a credential (sign-up): each runs', async () => {
    const key = randomUUID();
    const register = (email: string) => t.app.inject({ method: 'POST', url: '/auth/register', headers: { 'idempotency-key': key }, payload: { email, password: PASSWORD, name: 'N' } });
    expect((await register(`a-${key}@example.test`)).statusCode).toBe(201);
    expect((await register(`b-${key}@example.test`)).statusCode).toBe(201);
    expect(await t.sql(sql`select 1 from idempotency_keys where key = ${key}`)).toEqual([]);
  });
});
