import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { oauthRecords } from '../../db/schema/index.js';
import { sha256 } from '../../platform/crypto.js';

/**
 * oidc-provider's storage adapter on the service's database (table oauth_records). The provider
 * makes one adapter per model (Client, Grant, Session, Interaction, AuthorizationCode, AccessToken,
 * RefreshToken, …) and calls upsert/find/consume/destroy/revokeByGrantId on it.
 *
 * Ids that are bearer secrets (codes, tokens, sessions, interactions) are stored as their SHA-256
 * and the payload's copy of the id (`jti`) is dropped, so the table never holds a usable
 * credential: a database dump cannot be replayed. Clients and grants keep their ids, which other
 * rows and the Connected apps routes refer to.
 */

type Payload = Record<string, unknown> & { grantId?: string; uid?: string; accountId?: string; jti?: string };

const PLAIN_IDS = new Set(['Client', 'Grant']);

/** An account id is `<userId>:<organizationId>`: the user, acting in the organization active when they consented. */
export function parseAccountId(accountId: unknown): { userId: number; organizationId: number } | null {
  const m = typeof accountId === 'string' ? /^(\d+):(\d+)$/.exec(accountId) : null;
  return m ? { userId: Number(m[1]), organizationId: Number(m[2]) } : null;
}

export const accountIdOf = (userId: number, organizationId: number): string => `${userId}:${organizationId}`;

/** The stored key of a model's id. */
export const storedId = (model: string, id: string): string => (PLAIN_IDS.has(model) ? id : sha256(id));

export function adapterFor(db: Db) {
  return class DatabaseAdapter {
    constructor(private readonly model: string) {}

    private key(id: string) {
      return and(eq(oauthRecords.model, this.model), eq(oauthRecords.id, storedId(this.model, id)));
    }

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const stored: Payload = { ...payload };
      if (!PLAIN_IDS.has(this.model)) delete stored.jti;
      const account = parseAccountId(payload.accountId);
      const row = {
        payload: stored,
        grantId: this.model === 'Grant' ? null : (payload.grantId ?? null),
        uid: payload.uid ?? null,
        userId: account?.userId ?? null,
        organizationId: account?.organizationId ?? null,
        expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
      };
      await db
        .insert(oauthRecords)
        .values({ model: this.model, id: storedId(this.model, id), ...row })
        .onConflictDoUpdate({ target: [oauthRecords.model, oauthRecords.id], set: row });
    }

    private async findWhere(where: ReturnType<typeof and>, id?: string): Promise<Payload | undefined> {
      const [row] = await db
        .select({ id: oauthRecords.id, payload: oauthRecords.payload, consumedAt: oauthRecords.consumedAt })
        .from(oauthRecords)
        .where(and(where, or(isNull(oauthRecords.expiresAt), gt(oauthRecords.expiresAt, sql`now()`))));
      if (!row) return undefined;
      const payload = { ...(row.payload as Payload) };
      if (id !== undefined && !PLAIN_IDS.has(this.model)) payload.jti = id;
      // The provider reads `consumed` to refuse a code or refresh token used twice.
      if (row.consumedAt) payload.consumed = Math.floor(row.consumedAt.getTime() / 1000);
      return payload;
    }

    find(id: string): Promise<Payload | undefined> {
      return this.findWhere(this.key(id), id);
    }

    /** Sessions by their uid (the provider asks when a token is bound to a session, which ours are not). */
    async findByUid(uid: string): Promise<Payload | undefined> {
      const [row] = await db
        .select({ payload: oauthRecords.payload })
        .from(oauthRecords)
        .where(and(eq(oauthRecords.model, this.model), eq(oauthRecords.uid, uid), or(isNull(oauthRecords.expiresAt), gt(oauthRecords.expiresAt, sql`now()`))));
      return row ? (row.payload as Payload) : undefined;
    }

    // Device flow is off: no user codes are ever stored.
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }

    async consume(id: string): Promise<void> {
      await db.update(oauthRecords).set({ consumedAt: new Date() }).where(this.key(id));
    }

    async destroy(id: string): Promise<void> {
      await db.delete(oauthRecords).where(this.key(id));
    }

    /** Every code and token of the grant, whatever their model: a revoked grant leaves nothing usable. */
    async revokeByGrantId(grantId: string): Promise<void> {
      await db.delete(oauthRecords).where(eq(oauthRecords.grantId, grantId));
    }
  };
}
