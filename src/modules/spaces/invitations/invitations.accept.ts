import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../../db/client.js';
import { users } from '../../../db/schema/index.js';
import type { Ctx } from '../../../platform/context.js';
import { hashPassword, sha256 } from '../../../platform/crypto.js';
import { AppError, notFound } from '../../../platform/errors.js';
import { iso } from '../../../platform/http.js';
import { scopeEvents } from '../../../platform/events.js';
import { openSession, type ClientInfo } from '../../auth/auth.service.js';
import { assertPasswordSignIn } from '../../auth/oidc/oidc.policy.js';
import { loadOrganization } from '../../organizations/organizations.service.js';
import { INVITED_PASSWORD_HASH } from '../../../db/schema/users.js';
import { loadUser } from '../../users/users.service.js';
import { joinOrganizationAndSpace } from '../members/invite-links.service.js';
import type { SpaceMemberDto } from '../members/members.schemas.js';
import { requirePending } from './invitations.policy.js';
import type { InvitationDto, InvitationLookupDto } from './invitations.schemas.js';
import { STATE } from './invitations.service.js';

interface Found {
  id: number;
  organizationId: number;
  spaceId: number;
  spaceName: string;
  organizationName: string | null;
  email: string;
  role: InvitationDto['role'];
  state: InvitationDto['state'];
  invitedById: number | null;
  expiresAt: Date | string;
  accountId: number | null;
  accountPasswordHash: string | null;
}

/** The invitation of an emailed link's token (by its hash), with its space and the address's account, if any. */
async function findByToken(db: Queryable, token: string, lock: boolean): Promise<Found> {
  const [row] = await queryRows<Found>(
    db,
    sql`select i.id, i.organization_id as "organizationId", i.space_id as "spaceId", s.name as "spaceName", o.name as "organizationName",
          i.email, i.role, ${STATE} as state, i.invited_by_id as "invitedById", i.expires_at as "expiresAt",
          u.id as "accountId", u.password_hash as "accountPasswordHash"
        from space_invitations i
        join spaces s on s.id = i.space_id
        join organizations o on o.id = i.organization_id
        left join users u on lower(u.email) = i.email
        where i.token_hash = ${sha256(token)} ${lock ? sql`for update of i` : sql``}`,
  );
  if (!row) throw notFound('invitation');
  return row;
}

/** What a link leads to, in every state (public: the page shown before signing in says what became of it). */
export async function lookupInvitation(db: Queryable, token: string): Promise<InvitationLookupDto> {
  const found = await findByToken(db, token, false);
  return {
    spaceId: Number(found.spaceId),
    spaceName: found.spaceName,
    organizationName: found.organizationName,
    role: found.role,
    email: found.email,
    state: found.state,
    expiresAt: iso(found.expiresAt)!,
    // An imported member's account has no password yet: for them, accepting is creating it.
    accountExists: found.accountId !== null && found.accountPasswordHash !== INVITED_PASSWORD_HASH,
  };
}

/**
 * The user joins the invitation's organization (a licence seat: 400 NO_FREE_SEATS) and space, with
 * its role (a member already in the space keeps theirs), and the invitation is spent. The link
 * reached the address, so it counts as verified. Events as for a join by invite link.
 */
async function join(db: Queryable, found: Found, userId: number): Promise<SpaceMemberDto> {
  await db.execute(sql`update space_invitations set accepted_at = now(), accepted_by_id = ${userId}, updated_at = now() where id = ${found.id}`);
  await db.execute(sql`update users set email_verified_at = coalesce(email_verified_at, now()) where id = ${userId} and lower(email) = ${found.email}`);
  const target = { organizationId: Number(found.organizationId), spaceId: Number(found.spaceId), role: found.role, invitedById: found.invitedById };
  return joinOrganizationAndSpace(db, target, userId);
}

/** A signed-in user accepts: only the account with the invited address may (403 INVITATION_EMAIL_MISMATCH). */
export async function acceptInvitation(ctx: Ctx, token: string): Promise<SpaceMemberDto> {
  const found = await findByToken(ctx.db, token, true);
  requirePending(found.state);
  if (found.accountId === null || Number(found.accountId) !== ctx.actor.userId) {
    throw new AppError('INVITATION_EMAIL_MISMATCH', 'this invitation was sent to another address: sign in with the account of that address to accept it');
  }
  return join(ctx.db, found, ctx.actor.userId);
}

/**
 * Accepting without an account: creates it with the invited address (verified: the link reached it),
 * the name and the password, joins the invitation's organization (the active one) and space, and
 * opens a session. An imported member's passwordless account is claimed the same way. An address
 * that has an account with a password must sign in and accept (409 EMAIL_TAKEN). This works whatever
 * SIGNUP_MODE says: an admin's invitation is the permission.
 */
export async function registerByInvitation(
  app: FastifyInstance,
  transaction: <T>(fn: (db: Queryable) => Promise<T>) => Promise<T>,
  token: string,
  input: { name: string; password: string },
  client: ClientInfo,
) {
  // Refused links are told before the slow hash; the hash is made before the transaction opens.
  const first = await findByToken(app.database.db, token, false);
  requirePending(first.state);
  // OIDC_ONLY: no password accounts, an invited one included (sign in with the provider, then accept).
  await assertPasswordSignIn(app.database.db, app.config, first.email);
  const passwordHash = await hashPassword(input.password, app.config.passwordHashCost);
  return transaction(async (db) => {
    const found = await findByToken(db, token, true);
    requirePending(found.state);
    let userId: number;
    if (found.accountId === null) {
      const [user] = await db
        .insert(users)
        .values({ email: found.email, passwordHash, name: input.name.trim(), emailVerifiedAt: new Date() })
        .returning({ id: users.id });
      userId = user!.id;
    } else if (found.accountPasswordHash === INVITED_PASSWORD_HASH) {
      userId = Number(found.accountId);
      await db.execute(sql`update users set password_hash = ${passwordHash}, name = ${input.name.trim()}, updated_at = now() where id = ${userId}`);
    } else {
      throw new AppError('EMAIL_TAKEN', 'an account with this address exists: sign in with it to accept the invitation');
    }
    const organizationId = Number(found.organizationId);
    // The new user acted, in the invitation's organization: announced like a signed-in accept.
    scopeEvents(db, organizationId, userId);
    await join(db, found, userId);
    await db.execute(sql`update users set active_organization_id = ${organizationId} where id = ${userId}`);
    const session = await openSession(db, userId, client, app.config.sessionTtlDays);
    return { session, user: await loadUser(db, userId), organization: await loadOrganization(db, organizationId, userId) };
  });
}
