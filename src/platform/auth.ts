import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../db/client.js';
import { AppError } from './errors.js';
import { API_TOKEN_PREFIX, SESSION_PREFIX, sha256 } from './crypto.js';
import type { ReadCache } from './read-cache.js';
import { tooManyAttempts, type AuthGuard } from './brute-force.js';

export type OrgRole = 'owner' | 'admin' | 'member';

/** Who is calling: resolved once per request from the credential. */
export interface Actor {
  userId: number;
  organizationId: number;
  orgRole: OrgRole;
  sessionId: number | null;
  tokenId: number | null;
  /** Set when an automation rule acts: history records the rule instead of a user. */
  automation?: { ruleId: number; ruleName: string };
  /**
   * Set when the organization requires two-factor sign-in and this user, signing in with a
   * password, has not enrolled: only routes marked `twoFactorEnrolment` answer.
   */
  twoFactorEnrolmentRequired?: true;
  /** A personal API token created with the `read` scope: it may read, never write. */
  readOnly?: true;
  /** The MCP client the user acts through (its initialize name): history says "via" it. */
  via?: string;
  /**
   * An OAuth access token (src/modules/oauth): the grant it came from, the resource it was issued
   * for (its audience) and its scopes. Such a token is accepted only on routes marked `oauthResource`.
   */
  oauth?: { grantId: string; clientId: string; audience: string[]; scopes: string[] };
}

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor | null;
  }
  interface FastifyContextConfig {
    /** No credential needed (register, login, public pages, health, docs). */
    public?: boolean;
    /** The credential may come later, inside the connection (a browser's WebSocket first frame). */
    deferredCredential?: boolean;
    /** Open to a user who must enrol in two-factor sign-in before anything else (enrolment, sign-out). */
    twoFactorEnrolment?: boolean;
    /** A read-only token may call this non-GET route: it checks each action itself (the MCP endpoint). */
    readOnlyCredential?: boolean;
    /** An OAuth access token is accepted here (the MCP endpoint, which checks its audience and scopes); elsewhere it is unknown. */
    oauthResource?: boolean;
  }
}

/** The credential a request carries, from either accepted header. */
export function credentialOf(request: FastifyRequest): string | null {
  const session = request.headers['service-session'];
  if (typeof session === 'string' && session.trim()) return session.trim();
  const auth = request.headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) return m[1]!;
  }
  return null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

// Sliding expiry and activity are written at most once a minute per credential, not on every request.
const TOUCH_INTERVAL_MS = 60_000;

interface CredentialRow extends Record<string, unknown> {
  kind: 'session' | 'token' | 'oauth';
  id: number;
  user_id: number;
  organization_id: number | null;
  last_used_at: Date | string | null;
  expires_at: Date | string | null;
  role: OrgRole | null;
  active: boolean | null;
  deleted_at: Date | string | null;
  must_enrol: boolean | null;
  scope: string | null;
  grant_id?: string;
  client_id?: string;
  audience?: unknown;
}

// The organization requires two-factor sign-in, the user has not enrolled (an authenticator app, or
// a passkey), and does not sign in through single sign-on (whose provider owns the second factor).
const mustEnrol = (organization: ReturnType<typeof sql>, user: ReturnType<typeof sql>) => sql`(${organization}.two_factor_required
  and not exists (select 1 from user_two_factor f where f.user_id = ${user} and f.enabled_at is not null)
  and not exists (select 1 from passkeys p where p.user_id = ${user})
  and not exists (select 1 from oidc_identities i where i.user_id = ${user})) as must_enrol`;

// An OAuth access token (stored by its hash, as the authorization server's adapter keeps every
// token) counts while it is unexpired and its grant exists: revoking the app deletes the grant.
// `last_used_at` is the grant's, which Connected apps shows.
const oauthLookup = (hash: string) => sql`
  select 'oauth' as kind, 0 as id, t.user_id, t.organization_id, g.last_used_at, t.expires_at, m.role, m.active, m.deleted_at,
         t.payload->>'scope' as scope, t.grant_id, t.payload->>'clientId' as client_id, t.payload->'aud' as audience,
         ${mustEnrol(sql`o`, sql`t.user_id`)}
  from oauth_records t
  join oauth_records g on g.model = 'Grant' and g.id = t.grant_id and (g.expires_at is null or g.expires_at > now())
  left join organization_members m on m.organization_id = t.organization_id and m.user_id = t.user_id
  left join organizations o on o.id = t.organization_id
  where t.model = 'AccessToken' and t.id = ${hash} and t.expires_at > now()`;

async function lookup(db: Db, credential: string, hash: string, oauth: boolean): Promise<CredentialRow | undefined> {
  // Sessions and API tokens carry their prefix; anything else can only be an OAuth access token, and only where one is accepted.
  if (oauth && !credential.startsWith(API_TOKEN_PREFIX) && !credential.startsWith(SESSION_PREFIX)) {
    return (await queryRows<CredentialRow>(db, oauthLookup(hash)))[0];
  }
  const rows = credential.startsWith(API_TOKEN_PREFIX)
    ? await queryRows<CredentialRow>(db, sql`
        select 'token' as kind, t.id, t.user_id, t.organization_id, t.last_used_at, t.expires_at, m.role, m.active, m.deleted_at, t.scope,
               ${mustEnrol(sql`o`, sql`t.user_id`)}
        from api_tokens t
        left join organization_members m on m.organization_id = t.organization_id and m.user_id = t.user_id
        left join organizations o on o.id = t.organization_id
        where t.token_hash = ${hash} and t.revoked_at is null and (t.expires_at is null or t.expires_at > now())`, { prepare: 'credential' })
    : await queryRows<CredentialRow>(db, sql`
        select 'session' as kind, s.id, s.user_id, u.active_organization_id as organization_id, s.last_used_at, s.expires_at,
               m.role, m.active, m.deleted_at, null as scope, ${mustEnrol(sql`o`, sql`s.user_id`)}
        from sessions s
        join users u on u.id = s.user_id
        left join organization_members m on m.organization_id = u.active_organization_id and m.user_id = s.user_id
        left join organizations o on o.id = u.active_organization_id
        where s.token_hash = ${hash} and s.revoked_at is null and s.expires_at > now()`, { prepare: 'credential' });
  return rows[0];
}

async function touch(db: Db, row: CredentialRow, sessionTtlDays: number): Promise<void> {
  if (row.kind === 'oauth') {
    await db.execute(sql`update oauth_records set last_used_at = now() where model = 'Grant' and id = ${row.grant_id}`);
  } else {
    const table = row.kind === 'session' ? sql`sessions` : sql`api_tokens`;
    const expiry = row.kind === 'session' ? sql`, expires_at = now() + make_interval(days => ${sessionTtlDays})` : sql``;
    await db.execute(sql`update ${table} set last_used_at = now() ${expiry} where id = ${row.id}`);
  }
  await db.execute(sql`
    insert into user_activity_days (organization_id, user_id, day)
    values (${row.organization_id}, ${row.user_id}, (now() at time zone 'utc')::date) on conflict do nothing`);
  await db.execute(sql`
    update organization_members set last_activity_at = now()
    where organization_id = ${row.organization_id} and user_id = ${row.user_id}`);
}

/**
 * The actor a credential stands for. With a cache, a credential resolved within the last minute
 * is answered from memory unless anything changed since in its organization or by its user (a
 * revocation, a role change, a removal), so revocation stays immediate. `beforeLookup` runs when
 * the database must be asked, and may refuse by throwing.
 */
export async function resolveActor(
  db: Db,
  credential: string,
  sessionTtlDays: number,
  cache?: ReadCache,
  beforeLookup?: () => void,
  options: { oauth?: boolean } = {},
): Promise<Actor> {
  const hash = sha256(credential);
  const cached = cache?.credential(hash);
  if (cached) return cached;
  beforeLookup?.();
  const begin = cache?.begin() ?? null;
  const row = await lookup(db, credential, hash, options.oauth === true);
  if (!row) throw new AppError('UNAUTHENTICATED', 'the credential is unknown, expired or revoked');
  if (!row.organization_id || !row.role || !row.active || row.deleted_at) {
    // Deactivated or removed members lose access at once, whatever credential they hold.
    throw new AppError('ACCOUNT_DEACTIVATED', 'the account has no active membership in this organization');
  }
  const last = row.last_used_at ? new Date(row.last_used_at).getTime() : 0;
  if (Date.now() - last > TOUCH_INTERVAL_MS) await touch(db, row, sessionTtlDays);
  const actor: Actor = {
    userId: Number(row.user_id),
    organizationId: Number(row.organization_id),
    orgRole: row.role,
    sessionId: row.kind === 'session' ? Number(row.id) : null,
    tokenId: row.kind === 'token' ? Number(row.id) : null,
  };
  if (row.must_enrol) actor.twoFactorEnrolmentRequired = true;
  if (row.kind === 'oauth') {
    const scopes = (row.scope ?? '').split(' ').filter(Boolean);
    const audience = Array.isArray(row.audience) ? row.audience.map(String) : typeof row.audience === 'string' ? [row.audience] : [];
    actor.oauth = { grantId: row.grant_id!, clientId: row.client_id ?? '', audience, scopes };
    if (!scopes.includes('tasks:write')) actor.readOnly = true;
    // Not kept in the cache: the authorization server rotates and revokes tokens without telling it.
    return actor;
  }
  if (row.scope === 'read') actor.readOnly = true;
  cache?.keepCredential(hash, begin, actor, row.expires_at ? new Date(row.expires_at).getTime() : null);
  return actor;
}

/**
 * Every route needs a credential unless its config says `public: true`. An address that sent too
 * many requests without a valid credential is refused (429) before its next credential is looked
 * up; a credential known from the read cache is still served, so a caller behind the same address
 * as a guesser keeps working.
 */
export function registerAuthentication(app: FastifyInstance, db: Db, sessionTtlDays: number, guard: AuthGuard, cache?: ReadCache): void {
  app.decorateRequest('actor', null);
  app.addHook('onRequest', async (request, reply) => {
    // Unknown routes answer 404, not 401: there is nothing to authenticate for.
    if (request.routeOptions.config.public || !request.routeOptions.url) return;
    // Such a route authenticates inside the connection and answers a bad credential its own way.
    if (request.routeOptions.config.deferredCredential) return;
    const { ip } = request;
    const refuse = (wait: number) => {
      guard.deny(request.log, 'throttled', ip);
      return tooManyAttempts(reply, wait, 'too many requests without a valid credential from this address, retry later');
    };
    const admit = () => {
      const wait = guard.lookupWait(ip);
      if (wait > 0) throw refuse(wait);
    };
    const credential = credentialOf(request);
    let leave = () => {};
    try {
      if (!credential) {
        admit();
        throw new AppError('UNAUTHENTICATED', 'a credential is required: Service-Session or Authorization: Bearer');
      }
      request.actor = await resolveActor(
        db,
        credential,
        sessionTtlDays,
        cache,
        () => {
          admit();
          leave = guard.enter(ip);
        },
        { oauth: request.routeOptions.config.oauthResource === true },
      );
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 401) throw error;
      // The lookup is over: counted as a failure from here on, not as one under way too.
      leave();
      const wait = await guard.failed(ip);
      if (wait > 0) throw refuse(wait);
      guard.deny(request.log, credential ? 'invalid_credential' : 'missing_credential', ip);
      throw error;
    } finally {
      leave();
    }
    if (request.actor.twoFactorEnrolmentRequired && !request.routeOptions.config.twoFactorEnrolment) {
      throw new AppError('TWO_FACTOR_ENROLMENT_REQUIRED', 'this organization requires two-factor sign-in: enrol first (POST /user/two-factor/enrolment)');
    }
    if (request.actor.readOnly && !SAFE_METHODS.has(request.method) && !request.routeOptions.config.readOnlyCredential) {
      throw new AppError('TOKEN_READ_ONLY', 'this API token has the read scope: it cannot change anything');
    }
  });
  // RFC 6750: a 401 names the scheme it wants, and says when the credential sent was the trouble.
  app.addHook('onSend', async (request, reply) => {
    if (reply.statusCode !== 401 || reply.hasHeader('www-authenticate')) return;
    reply.header('www-authenticate', credentialOf(request) ? 'Bearer error="invalid_token"' : 'Bearer');
  });
}

/** The authenticated caller of a non-public route. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new AppError('UNAUTHENTICATED', 'a credential is required');
  return request.actor;
}
