import { seedDataDir } from '../../test/server-process.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../../config.js';
import { openDatabase, queryRows } from '../../db/client.js';
import { verifyPassword } from '../../platform/crypto.js';
import { PASSWORD, useTestApp, type TestKit } from '../../test/app.js';
import { createOperator } from './operator.service.js';

const t = useTestApp();
const root = path.resolve(import.meta.dirname, '../../..');
const dataDir = seedDataDir(mkdtempSync(path.join(tmpdir(), 'workboard-admin-')));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const email = () => `op-${randomUUID()}@example.test`;

async function login(kit: TestKit, address: string, password: string) {
  const res = await kit.as(null).post('/auth/login', { email: address, password });
  expect(res.statusCode, res.body).toBe(201);
  return { 'service-session': (res.json() as { session: string }).session };
}

describe('createOperator (npm run create-admin)', () => {
  it('creates an operator who owns a new organization and signs in with the one-time password', async () => {
    const address = email();
    const r = await createOperator(t.app, { email: address, name: 'Ada' });
    expect(r).toMatchObject({ created: true, role: 'owner', email: address, password: expect.any(String) });
    const headers = await login(t, address, r.password!);
    const org = await t.as(null).get('/user/organization', headers);
    expect(org.json()).toMatchObject({ id: r.organizationId, role: 'owner' });
    // A service operator: the operators-only route answers.
    expect((await t.as(null).get('/reviews', headers)).statusCode).toBe(200);
    // The session registration opened is not left behind.
    const open = await t.sql<{ n: number }>(sql`select count(*)::int as n from sessions where user_id = ${r.userId} and revoked_at is null`);
    expect(open[0]!.n).toBe(1);
  });

  it('promotes an existing member: an organization of their own, the password kept unless reset', async () => {
    const owner = await t.org();
    const member = await t.member(owner, 'member');
    // Only a member somewhere: the organization its sign-up made is left behind.
    await t.sql(sql`update organization_members set deleted_at = now() where user_id = ${member.id} and organization_id <> ${owner.organizationId}`);
    const r = await createOperator(t.app, { email: member.email.toUpperCase() });
    expect(r).toMatchObject({ created: false, role: 'owner', password: null, userId: member.id });
    expect(r.organizationId).not.toBe(owner.organizationId);
    const headers = await login(t, member.email, PASSWORD);
    expect((await t.as(null).get('/user/organization', headers)).json()).toMatchObject({ id: r.organizationId, role: 'owner' });

    // Already in charge somewhere: nothing new is created; a reset signs every session out.
    const reset = await createOperator(t.app, { email: member.email, resetPassword: true });
    expect(reset).toMatchObject({ created: false, organizationId: r.organizationId, password: expect.any(String) });
    expect((await t.as(null).get('/user', headers)).statusCode).toBe(401);
    expect((await t.as(null).post('/auth/login', { email: member.email, password: PASSWORD })).statusCode).toBe(401);
    await login(t, member.email, reset.password!);
  });
});

/** Runs `npm run create-admin -- …` as an operator would, against DATABASE_URL or a data directory. */
function runScript(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', 'create-admin', '--', ...args], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, PASSWORD_HASH_COST: '10', LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('npm run create-admin', () => {
  it('prints a one-time password that the stored account accepts', async () => {
    const address = email();
    const { code, output } = await runScript([address, '--name', 'Grace Hopper']);
    expect(code, output).toBe(0);
    expect(output).toMatch(/^created operator /m);
    const password = /one-time password: (\S+)/.exec(output)![1]!;

    const database = await openDatabase(loadConfig({ ...process.env, DATA_DIR: dataDir }, { skipMigrations: true }));
    try {
      const [user] = await queryRows<{ hash: string; isOperator: boolean; name: string }>(
        database.db,
        sql`select password_hash as hash, is_operator as "isOperator", name from users where email = ${address}`,
      );
      expect(user).toMatchObject({ isOperator: true, name: 'Grace Hopper' });
      expect(await verifyPassword(password, user!.hash)).toBe(true);

      // While another process has the embedded database open, the script refuses instead of corrupting it.
      if (database.kind === 'pglite') {
        const busy = await runScript([email()]);
        expect(busy.code).not.toBe(0);
        expect(busy.output).toContain('is in use by process');
      }
    } finally {
      await database.close();
    }
  }, 240_000);

  it('refuses a missing or malformed email with its usage', async () => {
    const { code, output } = await runScript(['not-an-email']);
    expect(code).toBe(2);
    expect(output).toContain('usage: npm run create-admin');
  }, 60_000);
});
