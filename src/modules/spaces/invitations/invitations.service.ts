import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { sha256 } from '../../../platform/crypto.js';
import { AppError, notFound } from '../../../platform/errors.js';
import type { SpaceRole } from '../../../platform/access.js';
import { languageOf } from '../../email/email.layout.js';
import { queueEmail, requireEmail, wakeEmail } from '../../email/email.outbox.js';
import { templates } from '../../email/email.templates.js';
import { shareSpace } from '../members/members.service.js';
import { authorizeInvitations, requirePending } from './invitations.policy.js';
import { presentInvitation, type InvitationRecord } from './invitations.presenter.js';
import type { InvitationDto } from './invitations.schemas.js';

/** An invitation link works this long after it was (last) sent. */
export const INVITATION_TTL_DAYS = 7;

type InvitedRole = InvitationDto['role'];

/** The state of `space_invitations i` by the database's clock (the one the tests move), as SQL. */
export const STATE = sql`case when i.accepted_at is not null then 'accepted' when i.revoked_at is not null then 'revoked'
  when i.expires_at <= now() then 'expired' else 'pending' end`;

async function queryInvitations(db: Queryable, where: SQL, page = { limit: 10_000, offset: 0 }) {
  const rows = await queryRows<InvitationRecord & { total: number }>(
    db,
    sql`select i.id, i.space_id as "spaceId", i.email, i.role, ${STATE} as state, i.invited_by_id as "invitedById",
          i.expires_at as "expiresAt", i.sent_at as "sentAt", i.created_at as "createdAt", count(*) over ()::int as total
        from space_invitations i where ${where}
        order by i.created_at, i.id limit ${page.limit} offset ${page.offset}`,
  );
  return { items: rows.map(presentInvitation), total: rows[0]?.total ?? 0 };
}

/** The space's open invitations (pending, or expired and not yet resent), oldest first. */
export async function listInvitations(ctx: Ctx, spaceId: number, page: { limit: number; offset: number }) {
  await authorizeInvitations(ctx.db, ctx.actor, spaceId);
  return queryInvitations(ctx.db, sql`i.space_id = ${spaceId} and i.accepted_at is null and i.revoked_at is null`, page);
}

/**
 * Creates (or, for an address with an open invitation, renews) the invitations of these addresses
 * and queues their emails in the caller's transaction. A new token each time: only its hash is
 * stored, so the emailed link is the one copy. Answers the invitation ids.
 */
async function issue(ctx: Ctx, app: FastifyInstance, spaceId: number, emails: string[], role: InvitedRole): Promise<number[]> {
  const { db, actor } = ctx;
  const [about] = await queryRows<{ space: string; organization: string | null; inviter: string; inviterLanguage: string | null }>(
    db,
    sql`select s.name as space, o.name as organization, u.name as inviter, u.language as "inviterLanguage"
        from spaces s join organizations o on o.id = s.organization_id join users u on u.id = ${actor.userId}
        where s.id = ${spaceId}`,
  );
  // The recipient's language when the address has an account; else the inviter's, who likely shares it.
  const known = new Map(
    (
      await queryRows<{ email: string; language: string | null }>(
        db,
        sql`select lower(email) as email, language from users where lower(email) in (${sql.join(emails.map((e) => sql`${e}`), sql`, `)})`,
      )
    ).map((r) => [r.email, r.language]),
  );
  const ids: number[] = [];
  const outgoing = [];
  for (const email of emails) {
    const token = randomBytes(32).toString('base64url');
    const [row] = await queryRows<{ id: number }>(
      db,
      sql`insert into space_invitations (organization_id, space_id, email, role, token_hash, invited_by_id, expires_at)
          values (${actor.organizationId}, ${spaceId}, ${email}, ${role}, ${sha256(token)}, ${actor.userId}, now() + make_interval(days => ${INVITATION_TTL_DAYS}))
          on conflict (space_id, email) where accepted_at is null and revoked_at is null
          do update set role = excluded.role, token_hash = excluded.token_hash, invited_by_id = excluded.invited_by_id,
            expires_at = excluded.expires_at, sent_at = now(), updated_at = now()
          returning id`,
    );
    ids.push(Number(row!.id));
    const url = `${app.config.publicUrl}/app/invitations/${token}`;
    const lang = languageOf(known.has(email) ? known.get(email) : about!.inviterLanguage);
    const data = { inviter: about!.inviter, space: about!.space, organization: about!.organization ?? '', role, url, days: INVITATION_TTL_DAYS };
    outgoing.push({ to: email, kind: 'space-invitation', organizationId: actor.organizationId, message: templates.spaceInvitation(lang, data, app.config.publicUrl) });
  }
  await queueEmail(app, db, outgoing);
  ctx.afterCommit(() => wakeEmail(app));
  return ids;
}

/** An admin invites one address; 409 ALREADY_SPACE_MEMBER when its account is in the space already. */
export async function createInvitation(ctx: Ctx, app: FastifyInstance, spaceId: number, input: { email: string; role: InvitedRole }): Promise<InvitationDto> {
  requireEmail(app.config);
  await authorizeInvitations(ctx.db, ctx.actor, spaceId);
  const email = input.email.trim().toLowerCase();
  const [member] = await queryRows<{ id: number }>(
    ctx.db,
    sql`select sm.id from space_members sm join users u on u.id = sm.user_id where sm.space_id = ${spaceId} and lower(u.email) = ${email}`,
  );
  if (member) throw new AppError('ALREADY_SPACE_MEMBER', 'the account with this address is a member of the space already');
  const [id] = await issue(ctx, app, spaceId, [email], input.role);
  return (await queryInvitations(ctx.db, sql`i.id = ${id!}`)).items[0]!;
}

/** One open invitation of the space, locked; 404 for any other (another space's, another organization's). */
async function lockInvitation(ctx: Ctx, spaceId: number, invitationId: number) {
  const [row] = await queryRows<{ email: string; role: InvitedRole; state: InvitationDto['state'] }>(
    ctx.db,
    sql`select i.email, i.role, ${STATE} as state from space_invitations i
        where i.id = ${invitationId} and i.space_id = ${spaceId} and i.organization_id = ${ctx.actor.organizationId} for update`,
  );
  if (!row) throw notFound('invitation');
  return row;
}

/** Sends the invitation again with a new link (the old one stops working) and a new 7-day expiry. */
export async function resendInvitation(ctx: Ctx, app: FastifyInstance, spaceId: number, invitationId: number): Promise<InvitationDto> {
  requireEmail(app.config);
  await authorizeInvitations(ctx.db, ctx.actor, spaceId);
  const row = await lockInvitation(ctx, spaceId, invitationId);
  if (row.state !== 'expired') requirePending(row.state);
  await issue(ctx, app, spaceId, [row.email], row.role);
  return (await queryInvitations(ctx.db, sql`i.id = ${invitationId}`)).items[0]!;
}

/** Withdraws an invitation: its link then says so. Revoking twice is no error; an accepted one is 409. */
export async function revokeInvitation(ctx: Ctx, spaceId: number, invitationId: number): Promise<void> {
  await authorizeInvitations(ctx.db, ctx.actor, spaceId);
  const row = await lockInvitation(ctx, spaceId, invitationId);
  if (row.state === 'accepted') requirePending(row.state);
  await ctx.db.execute(sql`update space_invitations set revoked_at = coalesce(revoked_at, now()), updated_at = now() where id = ${invitationId}`);
}

/**
 * The share route: organization users join at once (members.service); with email on, every other
 * address is invited by email with the role as well. Without email it answers as it always did: the
 * other addresses come back in `emailed` for the caller to pass on the invite link. Either way
 * `emailed` lists those addresses, so the answer's shape does not depend on the setting.
 */
export async function shareAndInvite(
  ctx: Ctx,
  app: FastifyInstance,
  spaceId: number,
  input: { userIds?: number[]; emails?: string[]; role: SpaceRole },
): Promise<{ members: Awaited<ReturnType<typeof shareSpace>>['members']; emailed: string[] }> {
  const result = await shareSpace(ctx, spaceId, input);
  if (!app.config.email.smtpUrl || result.emailed.length === 0) return result;
  if (input.role === 'admin') {
    // As for the invite link: admin is given to people already in the organization, never by email.
    throw new AppError('VALIDATION_FAILED', 'an invitation by email gives the role editor, member or reader, never admin', [
      { path: '/role', message: 'must be editor, member or reader when emails name people outside the organization' },
    ]);
  }
  await issue(ctx, app, spaceId, result.emailed, input.role);
  return result;
}
