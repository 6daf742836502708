import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PASSWORD, expectProblem, useTestApp, type TestUser } from '../../../test/app.js';
import { commonCases } from '../../../test/common-cases.js';
import { addPasskey, SoftAuthenticator } from './passkeys.fixtures.js';

// WebAuthn refuses IP addresses as relying-party ids: the service is addressed as localhost.
const ORIGIN = 'http://localhost:3999';
const t = useTestApp({ publicUrl: ORIGIN, secretsKey: randomBytes(32).toString('base64') });
const device = () => new SoftAuthenticator(ORIGIN, 'localhost');
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const stored = (user: TestUser) => t.sql<{ name: string; credential_id: string; counter: number; transports: string[]; backed_up: boolean }>(sql`select name, credential_id, counter, transports, backed_up from passkeys where user_id = ${user.id} order by id`);
const tokenOf = async (user: TestUser): Promise<TestUser> => {
  const token = (await t.as(user).post('/user/api-tokens', { name: 'CI' })).json().token as string;
  return { ...user, headers: { authorization: `Bearer ${token}` } };
};

describe('POST /user/passkeys/registration', () => {
  it('answers creation options for a discoverable credential of this relying party, the own passkeys excluded', async () => {
    const user = await t.org({ name: 'Pat Key' });
    const first = await addPasskey(t, user, device());
    const res = await t.as(user).post('/user/passkeys/registration');
    expect(res.statusCode).toBe(201);
    const { challengeId, options } = res.json();
    expect(challengeId).toMatch(/^wpk_/);
    expect(options.rp).toEqual({ name: 'Workboard', id: 'localhost' });
    expect(options.user).toEqual({ id: Buffer.from(String(user.id)).toString('base64url'), name: user.email, displayName: 'Pat Key' });
    expect(options.authenticatorSelection).toEqual({ residentKey: 'required', userVerification: 'preferred', requireResidentKey: true });
    expect(options.attestation).toBe('none');
    expect(options.pubKeyCredParams.map((p: { alg: number }) => p.alg)).toContain(-7);
    expect(options.excludeCredentials).toEqual([{ id: first.id, type: 'public-key', transports: ['internal'] }]);
    expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Kept hashed, with its expiry about 5 minutes out.
    const [row] = await t.sql<{ token_hash: string; seconds: number }>(sql`select token_hash, extract(epoch from expires_at - now())::int as seconds from passkey_challenges where user_id = ${user.id} and purpose = 'registration'`);
    expect(row!.token_hash).not.toContain(challengeId);
    expect(row!.seconds).toBeGreaterThan(280);
    expect(row!.seconds).toBeLessThanOrEqual(300);
  });

  it('answers 403 to an API token, which may not add a way to sign in', async () => {
    const user = await t.org();
    expectProblem(await t.as(await tokenOf(user)).post('/user/passkeys/registration'), 403, 'FORBIDDEN');
    expect(await t.sql(sql`select 1 from passkey_challenges where user_id = ${user.id}`)).toHaveLength(0);
  });

  commonCases(t, 'POST /user/passkeys/registration', { method: 'POST', foreignId: false, setup: async (kit) => ({ url: '/user/passkeys/registration', owner: await kit.org() }) });
});

describe('POST /user/passkeys', () => {
  it('verifies the attestation and keeps the credential; the first one signs the other sessions out', async () => {
    const user = await t.org();
    const other = (await t.as(null).post('/auth/login', { email: user.email, password: PASSWORD })).json().session as string;
    const { challengeId, options } = (await t.as(user).post('/user/passkeys/registration')).json();
    const { credential, response } = device().create(options, { counter: 3 });
    const res = await t.as(user).post('/user/passkeys', { name: '  Phone  ', challengeId, response });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.revokedSessions).toBe(1);
    expect(Object.keys(body.passkey).sort()).toEqual(['backedUp', 'createdAt', 'id', 'lastUsedAt', 'name', 'transports']);
    expect(body.passkey).toMatchObject({ name: 'Phone', lastUsedAt: null, backedUp: true, transports: ['internal'] });
    expect(body.passkey.createdAt).toMatch(ISO_MS);
    expect(await stored(user)).toEqual([{ name: 'Phone', credential_id: credential.id, counter: 3, transports: ['internal'], backed_up: true }]);
    expectProblem(await t.app.inject({ method: 'GET', url: '/user', headers: { 'service-session': other } }), 401, 'UNAUTHENTICATED');
    // The challenge was single use.
    expectProblem(await t.as(user).post('/user/passkeys', { name: 'Again', challengeId, response: device().create(options).response }), 400, 'PASSKEY_CHALLENGE_EXPIRED');
    // A second passkey signs nobody out.
    await addPasskey(t, user, device(), 'Key');
    expect((await t.as(user).get('/user/passkeys')).json().map((p: { name: string }) => p.name)).toEqual(['Phone', 'Key']);
  });

  it('refuses an answer made for another origin, another relying party or another challenge; nothing is kept', async () => {
    const user = await t.org();
    for (const make of [
      (o: { challenge: string; rp: { id: string }; user: { id: string } }) => device().create(o, { origin: 'http://evil.example' }).response,
      (o: { challenge: string; rp: { id: string }; user: { id: string } }) => device().create({ ...o, rp: { id: 'evil.example' } }).response,
      (o: { challenge: string; rp: { id: string }; user: { id: string } }) => device().create({ ...o, challenge: Buffer.from('another challenge').toString('base64url') }).response,
    ]) {
      const { challengeId, options } = (await t.as(user).post('/user/passkeys/registration')).json();
      const res = await t.as(user).post('/user/passkeys', { name: 'Evil', challengeId, response: make(options) });
      expectProblem(res, 400, 'PASSKEY_NOT_VERIFIED');
      // The reason is told, the challenge is not.
      expect(res.body).not.toContain(options.challenge);
      expect(t.logs.join('\n')).not.toContain(options.challenge);
    }
    expect(await stored(user)).toEqual([]);
  });

  it("a credential belongs to one user: another user's is refused with 409, and another user's challenge is not theirs", async () => {
    const owner = await t.org();
    const other = await t.org();
    const authenticator = device();
    const { challengeId, options } = (await t.as(owner).post('/user/passkeys/registration')).json();
    const { response } = authenticator.create(options);
    expect((await t.as(owner).post('/user/passkeys', { name: 'Mine', challengeId, response })).statusCode).toBe(201);
    // The same credential presented again, by another account.
    const second = (await t.as(other).post('/user/passkeys/registration')).json();
    const replay = JSON.parse(JSON.stringify(response));
    replay.response.clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: second.options.challenge, origin: ORIGIN, crossOrigin: false })).toString('base64url');
    // The attestation signs nothing with 'none': the new client data is accepted, the credential id is not.
    expectProblem(await t.as(other).post('/user/passkeys', { name: 'Stolen', challengeId: second.challengeId, response: replay }), 409, 'PASSKEY_ALREADY_REGISTERED');
    expect(await stored(other)).toEqual([]);
    // One user's challenge id is nothing to another, and is not spent by the try.
    const mine = (await t.as(owner).post('/user/passkeys/registration')).json();
    expectProblem(await t.as(other).post('/user/passkeys', { name: 'X', challengeId: mine.challengeId, response: device().create(mine.options).response }), 400, 'PASSKEY_CHALLENGE_EXPIRED');
    expect((await t.as(owner).post('/user/passkeys', { name: 'Second', challengeId: mine.challengeId, response: device().create(mine.options).response })).statusCode).toBe(201);
  });

  it('refuses an expired challenge', async () => {
    const user = await t.org();
    const { challengeId, options } = (await t.as(user).post('/user/passkeys/registration')).json();
    await t.sql(sql`update passkey_challenges set expires_at = now() - interval '1 second' where user_id = ${user.id}`);
    expectProblem(await t.as(user).post('/user/passkeys', { name: 'Late', challengeId, response: device().create(options).response }), 400, 'PASSKEY_CHALLENGE_EXPIRED');
    expect(await stored(user)).toEqual([]);
  });

  it('answers 400 to a bad body, 403 to an API token', async () => {
    const user = await t.org();
    const { challengeId, options } = (await t.as(user).post('/user/passkeys/registration')).json();
    const { response } = device().create(options);
    for (const body of [{ challengeId, response }, { name: '', challengeId, response }, { name: '   ', challengeId, response }, { name: 'x', response }, { name: 'x', challengeId, response: { ...response, type: 'other' } }, { name: 'x', challengeId, response: { ...response, id: 'not base64url!' } }]) {
      expectProblem(await t.as(user).post('/user/passkeys', body), 400, 'VALIDATION_FAILED');
    }
    expectProblem(await t.as(await tokenOf(user)).post('/user/passkeys', { name: 'Token', challengeId, response }), 403, 'FORBIDDEN');
    expect(await stored(user)).toEqual([]);
    // Refused before the challenge was read: still good.
    expect((await t.as(user).post('/user/passkeys', { name: 'Fine', challengeId, response })).statusCode).toBe(201);
  });

  commonCases(t, 'POST /user/passkeys', {
    method: 'POST',
    foreignId: false,
    setup: async (kit) => {
      const owner = await kit.org();
      const { challengeId, options } = (await kit.as(owner).post('/user/passkeys/registration')).json();
      return { url: '/user/passkeys', owner, body: { name: 'Phone', challengeId, response: device().create(options).response }, badBody: { name: 'Phone', challengeId } };
    },
  });
});

describe('GET /user/passkeys', () => {
  it('lists own passkeys only, never their keys; an API token may list', async () => {
    const user = await t.org();
    const other = await t.org();
    await addPasskey(t, user, device(), 'Laptop');
    await addPasskey(t, other, device(), 'Theirs');
    const res = await t.as(user).get('/user/passkeys');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toHaveLength(1);
    expect(res.json()[0]).toMatchObject({ name: 'Laptop', backedUp: true, transports: ['internal'], lastUsedAt: null });
    expect(res.body).not.toContain('publicKey');
    expect((await t.as(await tokenOf(user)).get('/user/passkeys')).json()).toHaveLength(1);
  });

  commonCases(t, 'GET /user/passkeys', { method: 'GET', foreignId: false, setup: async (kit) => ({ url: '/user/passkeys', owner: await kit.org() }) });
});

describe('PATCH /user/passkeys/{id}', () => {
  it("renames one; another user's answers 404, an API token 403, a blank name 400", async () => {
    const user = await t.org();
    const { passkeyId } = await addPasskey(t, user, device(), 'Old');
    const res = await t.as(user).patch(`/user/passkeys/${passkeyId}`, { name: 'Work laptop' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: passkeyId, name: 'Work laptop' });
    const colleague = await t.member(user, 'admin');
    expectProblem(await t.as(colleague).patch(`/user/passkeys/${passkeyId}`, { name: 'Mine now' }), 404, 'NOT_FOUND');
    expectProblem(await t.as(await tokenOf(user)).patch(`/user/passkeys/${passkeyId}`, { name: 'Token' }), 403, 'FORBIDDEN');
    expectProblem(await t.as(user).patch(`/user/passkeys/${passkeyId}`, { name: ' ' }), 400, 'VALIDATION_FAILED');
    expect((await stored(user)).map((p) => p.name)).toEqual(['Work laptop']);
  });

  commonCases(t, 'PATCH /user/passkeys/{id}', {
    method: 'PATCH',
    setup: async (kit) => {
      const owner = await kit.org();
      const { passkeyId } = await addPasskey(kit, owner, device());
      return { url: `/user/passkeys/${passkeyId}`, owner, body: { name: 'Renamed' }, badBody: { name: '' } };
    },
  });
});

describe('DELETE /user/passkeys/{id}', () => {
  it("removes one: it signs in no more; another user's answers 404 and an API token 403", async () => {
    const user = await t.org();
    const { passkeyId } = await addPasskey(t, user, device());
    const stranger = await t.org();
    expectProblem(await t.as(stranger).delete(`/user/passkeys/${passkeyId}`), 404, 'NOT_FOUND');
    expectProblem(await t.as(await tokenOf(user)).delete(`/user/passkeys/${passkeyId}`), 403, 'FORBIDDEN');
    expect(await stored(user)).toHaveLength(1);
    const res = await t.as(user).delete(`/user/passkeys/${passkeyId}`);
    expect([res.statusCode, res.body]).toEqual([204, '']);
    expect(await stored(user)).toEqual([]);
    expectProblem(await t.as(user).delete(`/user/passkeys/${passkeyId}`), 404, 'NOT_FOUND');
    // With no second factor left, the password alone signs in again.
    expect((await t.as(null).post('/auth/login', { email: user.email, password: PASSWORD })).statusCode).toBe(201);
  });

  commonCases(t, 'DELETE /user/passkeys/{id}', {
    method: 'DELETE',
    setup: async (kit) => {
      const owner = await kit.org();
      const { passkeyId } = await addPasskey(kit, owner, device());
      return { url: `/user/passkeys/${passkeyId}`, owner };
    },
  });
});
