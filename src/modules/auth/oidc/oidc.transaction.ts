import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { SignInChecks } from './oidc.client.js';

/**
 * A sign-in in flight: state, nonce and PKCE verifier, sealed (AES-256-GCM) for the browser that
 * started it. The web client keeps it in its session storage and brings it back with the callback,
 * so the sign-in completes only in the browser that began it (no login CSRF), and nothing is stored
 * here until someone has signed in. The key is derived from the client secret, which every
 * instance has. Replays are refused by the provider: a code is redeemed once.
 */

export const TRANSACTION_MINUTES = 10;

const keyOf = (clientSecret: string) => Buffer.from(hkdfSync('sha256', clientSecret, 'workboard', 'oidc sign-in transaction v1', 32));

export function newTransaction(clientSecret: string): { checks: SignInChecks; sealed: string; expiresAt: Date } {
  // 32 random bytes each, base64url: what openid-client's randomState/randomNonce/randomPKCECodeVerifier make.
  const random = () => randomBytes(32).toString('base64url');
  const checks = { state: random(), nonce: random(), codeVerifier: random() };
  const expiresAt = new Date(Date.now() + TRANSACTION_MINUTES * 60_000);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(clientSecret), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify({ ...checks, e: Math.floor(expiresAt.getTime() / 1000) }), 'utf8'), cipher.final()]);
  return { checks, sealed: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url'), expiresAt };
}

/** The checks of a well-sealed, unexpired transaction; null for anything else (forged, altered, old). */
export function openTransaction(clientSecret: string, sealed: string): SignInChecks | null {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    if (raw.length < 29) return null;
    const decipher = createDecipheriv('aes-256-gcm', keyOf(clientSecret), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    const { state, nonce, codeVerifier, e } = JSON.parse(text) as Record<string, unknown>;
    if (typeof state !== 'string' || typeof nonce !== 'string' || typeof codeVerifier !== 'string' || typeof e !== 'number') return null;
    if (e * 1000 <= Date.now()) return null;
    return { state, nonce, codeVerifier };
  } catch {
    return null;
  }
}
