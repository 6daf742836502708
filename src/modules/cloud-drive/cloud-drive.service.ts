import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { emit } from '../../platform/events.js';
import { iso } from '../../platform/http.js';
import { allowedReturnUrl, requireConfigured } from './cloud-drive.policy.js';
import { INTEGRATION_COLUMNS, presentIntegration, type IntegrationRow } from './cloud-drive.presenter.js';
import type { CallbackInput, CloudDriveIntegrationDto } from './cloud-drive.schemas.js';
import { newStateClaims, signState, verifyState } from './cloud-drive.state.js';
import { writeForDriveUser } from './cloud-drive.events.js';
import { encryptTokens, refreshTokenOf, tokenContext, type DriveDeps } from './cloud-drive.tokens.js';
import { loadOAuth } from './drive.client.js';

/**
 * Connecting and disconnecting a user's drive. Provider calls never run inside a database
 * transaction (a slow provider would hold it open, and on the embedded database stall every other
 * query): each use case reads, calls the provider, then writes in its own short transaction.
 */

/** The request's actor, and its reads and writes (routes build it; the use case decides the order). */
export interface Session {
  actor: Actor;
  read<T>(fn: (ctx: Ctx) => Promise<T>): Promise<T>;
  write<T>(fn: (ctx: Ctx) => Promise<T>): Promise<T>;
}

const I = sql.raw(INTEGRATION_COLUMNS);
const verifierContext = (nonce: string) => `cloud-drive:verifier:${nonce}`;

async function integrationOf(db: Queryable, userId: number): Promise<IntegrationRow | undefined> {
  const [row] = await queryRows<IntegrationRow>(db, sql`select ${I} from cloud_drive_integrations where user_id = ${userId}`);
  return row;
}

export async function getStatus(ctx: Ctx): Promise<CloudDriveIntegrationDto> {
  return presentIntegration(await integrationOf(ctx.db, ctx.actor.userId));
}

/**
 * A consent URL with a fresh PKCE pair: the verifier stays here (encrypted, under the state's
 * nonce), only its S256 challenge travels. Expired authorizations of anyone are swept on the way.
 */
export async function createAuthorization(ctx: Ctx, deps: DriveDeps, redirectUri: string | undefined): Promise<{ url: string; state: string; expiresAt: string }> {
  const { clientSecret } = requireConfigured(deps.app.config);
  const returnUrl = allowedReturnUrl(deps.app.config, redirectUri);
  const claims = newStateClaims(ctx.actor.userId);
  const oauth = await loadOAuth();
  const verifier = oauth.generateRandomCodeVerifier();
  await ctx.db.execute(sql`delete from cloud_drive_auth_states where expires_at < now()`);
  await ctx.db.execute(
    sql`insert into cloud_drive_auth_states (nonce, user_id, code_verifier_encrypted, redirect_uri, expires_at)
        values (${claims.nonce}, ${ctx.actor.userId}, ${deps.app.secrets.encrypt(verifier, verifierContext(claims.nonce))}, ${returnUrl}, ${claims.expiresAt})`,
  );
  const state = signState(clientSecret, claims);
  return { url: deps.client.authorizationUrl(state, await oauth.calculatePKCECodeChallenge(verifier)), state, expiresAt: iso(claims.expiresAt)! };
}

const stateInvalid = () => new AppError('CLOUD_DRIVE_STATE_INVALID', 'the authorization state is invalid, expired or already used: start the connection again');

/**
 * The provider's redirect. A state that is not ours, expired or used answers 400 and stores
 * nothing; past that, the browser always goes back to the app, told the outcome in `cloudDrive`
 * (`connected` or `error`, with `error`).
 */
export async function completeAuthorization(deps: DriveDeps, query: CallbackInput): Promise<string> {
  const { clientSecret } = requireConfigured(deps.app.config);
  const claims = verifyState(clientSecret, query.state);
  if (!claims) throw stateInvalid();
  // Taken before anything else: a replay of this state finds nothing, whatever happens next.
  const [pending] = await queryRows<{ verifier: string; returnUrl: string }>(
    deps.app.database.db,
    sql`delete from cloud_drive_auth_states where nonce = ${claims.nonce} and user_id = ${claims.userId} and expires_at > now()
        returning code_verifier_encrypted as "verifier", redirect_uri as "returnUrl"`,
  );
  if (!pending) throw stateInvalid();
  const back = (outcome: Record<string, string>) => {
    const url = new URL(pending.returnUrl);
    for (const [k, v] of Object.entries(outcome)) url.searchParams.set(k, v);
    return url.href;
  };
  const answer = deps.client.codeOf(new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => typeof e[1] === 'string')));
  if ('error' in answer) return back({ cloudDrive: 'error', error: answer.error });
  const verifier = deps.app.secrets.decrypt(pending.verifier, verifierContext(claims.nonce));
  let tokens;
  try {
    tokens = await deps.client.exchangeCode(answer.params, verifier);
  } catch (err) {
    const reason = (err as { error?: unknown }).error;
    deps.app.log.warn({ reason: typeof reason === 'string' ? reason : (err as Error).message }, 'cloud drive: code exchange failed');
    // The provider's OAuth error code (invalid_grant, …) when it is one; it ends up in a URL.
    return back({ cloudDrive: 'error', error: typeof reason === 'string' && /^[\w.-]{1,64}$/.test(reason) ? reason : 'exchange_failed' });
  }
  // Without a refresh token the drive would stop working within the hour: refuse now, clearly.
  if (!tokens.refreshToken) return back({ cloudDrive: 'error', error: 'no_refresh_token' });
  const email = await deps.client.accountEmail(tokens.accessToken).catch(() => null);
  await storeConnection(deps, claims.userId, { ...tokens, email });
  return back({ cloudDrive: 'connected' });
}

async function storeConnection(deps: DriveDeps, userId: number, tokens: Parameters<typeof encryptTokens>[2] & { email: string | null }): Promise<void> {
  const stored = encryptTokens(deps, userId, tokens);
  const scopes = `{${tokens.scopes.map((s) => `"${s.replace(/["\\]/g, '')}"`).join(',')}}`;
  await writeForDriveUser(deps, userId, async (db, announce) => {
    const [row] = await queryRows<IntegrationRow>(
      db,
      sql`insert into cloud_drive_integrations (user_id, status, account_email, scopes, access_token_encrypted, refresh_token_encrypted,
            access_issued_at, access_expires_at, connected_at)
          values (${userId}, 'connected', ${tokens.email}, ${scopes}::text[],
            ${stored.access}, ${stored.refresh}, now(), now() + make_interval(secs => ${stored.expiresInSec}), now())
          on conflict (user_id) do update set status = 'connected', account_email = excluded.account_email, scopes = excluded.scopes,
            access_token_encrypted = excluded.access_token_encrypted, refresh_token_encrypted = excluded.refresh_token_encrypted,
            access_issued_at = excluded.access_issued_at, access_expires_at = excluded.access_expires_at,
            connected_at = now(), disconnected_at = null, updated_at = now()
          returning ${I}`,
    );
    announce('integration.connected', presentIntegration(row));
  });
}

/**
 * Revokes the grant at the provider, then forgets it here. A provider that cannot be reached does
 * not keep the user connected against their will: the row goes anyway, and `revoked` says false.
 */
export async function disconnect(deps: DriveDeps, session: Session): Promise<{ revoked: boolean }> {
  const userId = session.actor.userId;
  const row = await session.read(async (ctx) => {
    const [found] = await queryRows<{ refreshTokenEncrypted: string | null; accessTokenEncrypted: string | null }>(
      ctx.db,
      sql`select refresh_token_encrypted as "refreshTokenEncrypted", access_token_encrypted as "accessTokenEncrypted" from cloud_drive_integrations where user_id = ${userId}`,
    );
    if (!found) throw notFound('cloud-drive integration');
    return found;
  });
  const token =
    (await refreshTokenOf(deps, userId, row)) ?? (row.accessTokenEncrypted ? deps.app.secrets.decrypt(row.accessTokenEncrypted, tokenContext(userId, 'access')) : null);
  let revoked = true;
  if (token) {
    try {
      await deps.client.revoke(token);
    } catch (err) {
      // A token the provider no longer knows is as revoked as it gets.
      revoked = err instanceof (await loadOAuth()).ResponseBodyError && err.error === 'invalid_token';
      if (!revoked) deps.app.log.warn({ reason: (err as Error).message }, 'cloud drive: revocation at the provider failed; the integration is deleted here anyway');
    }
  }
  await session.write(async (ctx) => {
    const [gone] = await queryRows<IntegrationRow>(ctx.db, sql`delete from cloud_drive_integrations where user_id = ${userId} returning ${I}`);
    if (gone) emit(ctx, { type: 'integration.disconnected', userId, payload: { ...presentIntegration(undefined), accountEmail: gone.accountEmail } });
  });
  return { revoked };
}
