import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem } from '../../test/app.js';
import { linkIn } from '../../test/smtp.js';
import { useEmailTestApp } from '../email/email.fixtures.js';
import { exportOrganization, finishJob, uploadArchive } from './portability.fixtures.js';
import { INVITED_PASSWORD_HASH } from './load.js';

const { t, smtp, send } = useEmailTestApp('claims');
const CLAIM_LINK = 'https://board.example.test/app/reset-password?token=';

describe('imported members claim their accounts', () => {
  it('emails each person new here a link that sets their first password, after which they sign in', async () => {
    const owner = await t.org({ name: 'Olga Owner' });
    await t.sql(sql`update organizations set name = 'Acme' where id = ${owner.organizationId}`);
    const member = await t.member(owner, 'member');
    const { archive } = await exportOrganization(t, owner);
    // The member has no account where the archive goes: their address is free again here.
    await t.sql(sql`update users set email = ${`moved-${member.email}`} where id = ${member.id}`);

    const importer = await t.org();
    const started = await uploadArchive(t, importer, archive);
    const job = await finishJob(t, importer, `/organization/imports/${started.json().id}`);
    expect(job).toMatchObject({ status: 'succeeded', report: { counts: { usersInvited: 1 } } });
    const [invited] = await t.sql<{ id: number; password_hash: string }>(sql`select id, password_hash from users where email = ${member.email}`);
    expect(invited!.password_hash).toBe(INVITED_PASSWORD_HASH);
    // Not yet: a pending invitation cannot sign in, and the organization's member list says why.
    expect((await t.as(importer).patch('/user/organizations/active', { organizationId: job.importedOrganizationId })).statusCode).toBe(200);
    const pendingOf = async () =>
      ((await t.as(importer).get('/user/organization')).json().members as { email: string; pending: string | null }[]).map((m) => [m.email, m.pending]);
    expect(await pendingOf()).toEqual(expect.arrayContaining([[member.email, 'unclaimed'], [importer.email, null]]));
    expectProblem(await t.as(null).post('/auth/login', { email: member.email, password: 'my first password' }), 401);

    await send();
    const mails = smtp.to(member.email);
    expect(mails.map((m) => m.subject)).toEqual(['Claim your Workboard account']);
    expect(mails[0]!.text).toContain('“Acme”');
    // People matched by email got nothing.
    expect(smtp.to(owner.email)).toEqual([]);
    const token = new URL(linkIn(mails[0]!, CLAIM_LINK)).searchParams.get('token')!;
    const [expiry] = await t.sql<{ days: number }>(sql`select extract(epoch from expires_at - created_at) / 86400 as days from password_reset_tokens where user_id = ${invited!.id}`);
    expect(Number(expiry!.days)).toBeCloseTo(7, 3);

    const claimed = await t.as(null).post('/auth/password-reset/confirm', { token, password: 'my first password' });
    expect(claimed.statusCode).toBe(200);
    const login = await t.as(null).post('/auth/login', { email: member.email, password: 'my first password' });
    expect(login.statusCode).toBe(201);
    expect(login.json().user.id).toBe(Number(invited!.id));
    expect(await pendingOf()).toEqual(expect.arrayContaining([[member.email, null]]));
    expectProblem(await t.as(null).post('/auth/password-reset/confirm', { token, password: 'again and again' }), 400, 'RESET_TOKEN_INVALID');
    expect(t.logs.filter((l) => l.includes(token) || l.includes('reset-password?'))).toEqual([]);
  });
});
