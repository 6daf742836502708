import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { organizationMembers, sessions, users } from '../../db/schema/index.js';
import { unscopedWrite, writeForUser } from '../../platform/context.js';
import { hashPassword, sha256 } from '../../platform/crypto.js';
import { createOrganization } from '../organizations/organizations.service.js';
import { register, type AuthSettings } from './auth.service.js';
import { resetTwoFactor } from './two-factor/two-factor.service.js';

export interface OperatorResult {
  userId: number;
  email: string;
  /** False: the account existed and was promoted. */
  created: boolean;
  /** An organization the operator owns or administers (new if they had none). */
  organizationId: number;
  role: 'owner' | 'admin';
  /** The one-time password to sign in with, or null when the existing one was kept. */
  password: string | null;
}

// 24 random bytes: 192 bits, typed once and then changed by its owner.
const oneTimePassword = () => randomBytes(24).toString('base64url');

/**
 * `npm run create-admin`: the first operator of a fresh service, or an existing account made one.
 * A new account goes through registration itself (user, organization it owns, trial licence),
 * whatever SIGNUP_MODE says; either way the user becomes a service operator and administers at
 * least one organization. An existing account keeps its password unless `resetPassword`, which
 * also signs out its sessions, as a password change does.
 */
export async function createOperator(app: FastifyInstance, input: { email: string; name?: string; resetPassword?: boolean }): Promise<OperatorResult> {
  const { config } = app;
  const email = input.email.trim().toLowerCase();
  const settings: AuthSettings = { ...config, signupMode: 'open' };
  const write = <T>(fn: (db: Queryable) => Promise<T>) => unscopedWrite(app, app.log, fn);

  const [existing] = await app.database.db.select({ id: users.id, name: users.name }).from(users).where(sql`lower(${users.email}) = ${email}`);
  if (!existing) {
    const password = oneTimePassword();
    const name = input.name?.trim() || email.split('@')[0]!;
    const result = await register(write, { email, password, name }, { ip: null, userAgent: 'create-admin' }, settings);
    await writeForUser(app, result.user.id, async (db) => {
      await db.update(users).set({ isOperator: true }).where(eq(users.id, result.user.id));
      // Registration signs in; nobody holds that session, so it is closed at once.
      await db.update(sessions).set({ revokedAt: new Date() }).where(eq(sessions.tokenHash, sha256(result.session)));
    });
    return { userId: result.user.id, email, created: true, organizationId: result.organization.id, role: 'owner', password };
  }

  const password = input.resetPassword ? oneTimePassword() : null;
  const passwordHash = password ? await hashPassword(password, config.passwordHashCost) : null;
  return writeForUser(app, existing.id, async (db) => {
    await db.update(users).set({ isOperator: true, ...(passwordHash ? { passwordHash, updatedAt: new Date() } : {}) }).where(eq(users.id, existing.id));
    if (passwordHash) {
      await db.update(sessions).set({ revokedAt: new Date() }).where(and(eq(sessions.userId, existing.id), isNull(sessions.revokedAt)));
    }
    const [managed] = await db
      .select({ organizationId: organizationMembers.organizationId, role: organizationMembers.role })
      .from(organizationMembers)
      .where(
        and(
          eq(organizationMembers.userId, existing.id),
          inArray(organizationMembers.role, ['owner', 'admin']),
          eq(organizationMembers.active, true),
          isNull(organizationMembers.deletedAt),
        ),
      )
      .orderBy(organizationMembers.id)
      .limit(1);
    if (managed) return { userId: existing.id, email, created: false, organizationId: managed.organizationId, role: managed.role as 'owner' | 'admin', password };
    // A member nowhere in charge gets an organization of their own rather than rights in someone else's.
    const organizationId = await createOrganization(db, existing.id, `${existing.name}'s organization`, config);
    await db.update(users).set({ activeOrganizationId: organizationId }).where(eq(users.id, existing.id));
    return { userId: existing.id, email, created: false, organizationId, role: 'owner', password };
  });
}

/**
 * `npm run create-admin -- <email> --reset-2fa`: for a user who lost both their authenticator and
 * their recovery codes. Two-factor sign-in is turned off and every session signed out; the account
 * is not promoted. Every instance forgets what it cached of the user.
 */
export async function resetOperatorTwoFactor(app: FastifyInstance, email: string): Promise<{ userId: number; email: string; hadTwoFactor: boolean; revokedSessions: number }> {
  const normalized = email.trim().toLowerCase();
  const [user] = await app.database.db.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = ${normalized}`);
  if (!user) throw new Error(`no account with the email ${normalized}`);
  const result = await writeForUser(app, user.id, (db) => resetTwoFactor(db, user.id));
  return { userId: user.id, email: normalized, ...result };
}
