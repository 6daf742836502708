import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { withTransaction } from '../../db/tx.js';
import { DriveUnauthorizedError, GrantRevokedError, type DriveClient, type TokenSet } from './drive.client.js';
import { reconnect, requireUsable } from './cloud-drive.policy.js';
import { writeForDriveUser } from './cloud-drive.events.js';

/**
 * The stored tokens of a user's drive and the one way to get a usable access token. Both tokens
 * are encrypted under SECRETS_KEY, bound to their user and kind, so a ciphertext copied to another
 * row does not decrypt there.
 */

export interface DriveDeps {
  app: FastifyInstance;
  client: DriveClient;
}

interface TokenRow {
  id: number;
  status: 'connected' | 'disconnected';
  accessTokenEncrypted: string | null;
  refreshTokenEncrypted: string | null;
  accessIssuedAt: Date | string | null;
  accessExpiresAt: Date | string | null;
}

const TOKEN_COLUMNS = sql.raw(`id, status, access_token_encrypted as "accessTokenEncrypted", refresh_token_encrypted as "refreshTokenEncrypted",
  access_issued_at as "accessIssuedAt", access_expires_at as "accessExpiresAt"`);

export const tokenContext = (userId: number, kind: 'access' | 'refresh') => `cloud-drive:${userId}:${kind}`;

// Google's tokens live an hour, a test server's a few seconds: a fixed margin would fit only one.
const MAX_MARGIN_MS = 5 * 60_000;

function isDue(row: TokenRow, now = Date.now()): boolean {
  if (!row.accessIssuedAt || !row.accessExpiresAt) return true;
  const issued = new Date(row.accessIssuedAt).getTime();
  const expires = new Date(row.accessExpiresAt).getTime();
  return now >= expires - Math.min((expires - issued) / 4, MAX_MARGIN_MS);
}

/** The columns a token set writes (the refresh token only when the provider sent one). */
export function encryptTokens(deps: Pick<DriveDeps, 'app'>, userId: number, tokens: TokenSet) {
  const { secrets } = deps.app;
  return {
    access: secrets.encrypt(tokens.accessToken, tokenContext(userId, 'access')),
    refresh: tokens.refreshToken === null ? null : secrets.encrypt(tokens.refreshToken, tokenContext(userId, 'refresh')),
    expiresInSec: tokens.expiresInSec,
  };
}

async function load(db: Queryable, userId: number, lock = false): Promise<TokenRow | undefined> {
  const [row] = await queryRows<TokenRow>(db, sql`select ${TOKEN_COLUMNS} from cloud_drive_integrations where user_id = ${userId} ${lock ? sql`for update` : sql``}`);
  return row;
}

/** The stored refresh token (for revocation), or null when the row keeps none. */
export async function refreshTokenOf(deps: Pick<DriveDeps, 'app'>, userId: number, row: { refreshTokenEncrypted: string | null }): Promise<string | null> {
  return row.refreshTokenEncrypted ? deps.app.secrets.decrypt(row.refreshTokenEncrypted, tokenContext(userId, 'refresh')) : null;
}

// One refresh per user at a time in this process; parallel requests wait for it and share its token.
// Per app: tests run several apps (several databases) in one process.
const inflightByApp = new WeakMap<object, Map<number, Promise<string>>>();
function inflightOf(app: object): Map<number, Promise<string>> {
  let map = inflightByApp.get(app);
  if (!map) inflightByApp.set(app, (map = new Map()));
  return map;
}

/**
 * A usable access token: the stored one while it is not due, else a refreshed one. `stale` is a
 * token the provider just refused (401): it is refreshed even if not yet due.
 */
export async function accessTokenFor(deps: DriveDeps, userId: number, stale?: string): Promise<string> {
  const row = requireUsable(await load(deps.app.database.db, userId));
  const current = row.accessTokenEncrypted ? deps.app.secrets.decrypt(row.accessTokenEncrypted, tokenContext(userId, 'access')) : null;
  if (current !== null && current !== stale && !isDue(row)) return current;
  const inflight = inflightOf(deps.app);
  let pending = inflight.get(userId);
  if (!pending) {
    pending = refresh(deps, userId, stale ?? current).finally(() => inflight.delete(userId));
    inflight.set(userId, pending);
  }
  return pending;
}

async function refresh(deps: DriveDeps, userId: number, stale: string | null): Promise<string> {
  const { database } = deps.app;
  // On PostgreSQL the row lock makes other instances wait for this refresh. The embedded database
  // is one process (the in-process map is the lock there), and a transaction held across the
  // provider call would stall every other query of that process.
  const outcome =
    database.kind === 'postgres'
      ? await withTransaction(database.db, ({ tx }) => refreshWith(deps, tx, userId, stale, true))
      : await refreshWith(deps, database.db, userId, stale, false);
  if (typeof outcome !== 'string') {
    const payload = { connected: false, accountEmail: outcome.revoked, connectedAt: null, scopes: [] };
    await writeForDriveUser(deps, userId, async (_db, announce) => announce('integration.disconnected', payload));
    throw reconnect();
  }
  return outcome;
}

async function refreshWith(deps: DriveDeps, db: Queryable, userId: number, stale: string | null, lock: boolean): Promise<string | Revoked> {
  const row = requireUsable(await load(db, userId, lock));
  const current = row.accessTokenEncrypted ? deps.app.secrets.decrypt(row.accessTokenEncrypted, tokenContext(userId, 'access')) : null;
  // Another instance refreshed while this one waited for the lock.
  if (current !== null && current !== stale && !isDue(row)) return current;
  const refreshToken = await refreshTokenOf(deps, userId, row);
  if (!refreshToken) return markRevoked(db, row.id);
  let tokens: TokenSet;
  try {
    tokens = await deps.client.refresh(refreshToken);
  } catch (err) {
    if (err instanceof GrantRevokedError) return markRevoked(db, row.id);
    throw err;
  }
  const stored = encryptTokens(deps, userId, tokens);
  await db.execute(
    sql`update cloud_drive_integrations set access_token_encrypted = ${stored.access},
          refresh_token_encrypted = coalesce(${stored.refresh}, refresh_token_encrypted),
          access_issued_at = now(), access_expires_at = now() + make_interval(secs => ${stored.expiresInSec}), updated_at = now()
        where id = ${row.id}`,
  );
  return tokens.accessToken;
}

/** The account whose grant the provider refused. */
interface Revoked {
  revoked: string | null;
}

/** The provider refused the refresh token: forget both tokens, keep the row to say why. */
async function markRevoked(db: Queryable, id: number): Promise<Revoked> {
  const [row] = await queryRows<{ email: string | null }>(
    db,
    sql`update cloud_drive_integrations set status = 'disconnected', access_token_encrypted = null, refresh_token_encrypted = null,
          disconnected_at = now(), updated_at = now() where id = ${id} returning account_email as email`,
  );
  return { revoked: row?.email ?? null };
}

/**
 * Runs a Drive call with the user's token; on the provider's 401 refreshes once and tries again.
 * (An upload's stream cannot be sent twice: it gets a token that is not due instead.)
 */
export async function withDrive<T>(deps: DriveDeps, userId: number, call: (accessToken: string) => Promise<T>): Promise<T> {
  const token = await accessTokenFor(deps, userId);
  try {
    return await call(token);
  } catch (err) {
    if (!(err instanceof DriveUnauthorizedError)) throw err;
    return call(await accessTokenFor(deps, userId, token));
  }
}
