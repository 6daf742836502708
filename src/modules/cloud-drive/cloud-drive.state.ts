import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The OAuth `state`: {user, nonce, expiry} signed with HMAC-SHA256, so the public callback knows
 * whose authorization it completes without trusting anything else the browser brings. The key is
 * derived from the OAuth client secret: every instance has it, and nothing else needs configuring.
 * Single use comes from the nonce's row, deleted when the callback takes it.
 */

export const STATE_MINUTES = 10;

export interface StateClaims {
  userId: number;
  nonce: string;
  expiresAt: Date;
}

const keyOf = (clientSecret: string) => Buffer.from(hkdfSync('sha256', clientSecret, 'workboard', 'cloud-drive oauth state v1', 32));

const mac = (clientSecret: string, payload: string) => createHmac('sha256', keyOf(clientSecret)).update(payload).digest();

export function newStateClaims(userId: number): StateClaims {
  return { userId, nonce: randomBytes(18).toString('base64url'), expiresAt: new Date(Date.now() + STATE_MINUTES * 60_000) };
}

export function signState(clientSecret: string, claims: StateClaims): string {
  const payload = Buffer.from(JSON.stringify({ u: claims.userId, n: claims.nonce, e: Math.floor(claims.expiresAt.getTime() / 1000) })).toString('base64url');
  return `${payload}.${mac(clientSecret, payload).toString('base64url')}`;
}

/** The claims of a well-signed, unexpired state; null for anything else (forged, altered, old). */
export function verifyState(clientSecret: string, state: string): StateClaims | null {
  const [payload, signature, extra] = state.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  const expected = mac(clientSecret, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const { u, n, e } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { u: unknown; n: unknown; e: unknown };
    if (typeof u !== 'number' || typeof n !== 'string' || typeof e !== 'number' || e * 1000 <= Date.now()) return null;
    return { userId: u, nonce: n, expiresAt: new Date(e * 1000) };
  } catch {
    return null;
  }
}
