import { createHmac, randomBytes } from 'node:crypto';
import { AppError } from '../../platform/errors.js';

/**
 * Standard Webhooks signing (standardwebhooks.com): a receiver can verify with any of its libraries.
 * A secret `whsec_<base64>` carries its key in base64, as those libraries expect. A secret chosen
 * by the user without that prefix is used as its UTF-8 bytes: people paste passwords, not base64,
 * and reading them as base64 would silently lose bits. (Such a receiver passes the raw bytes to its
 * library, e.g. `new Webhook(Buffer.from(secret), { format: 'raw' })`.)
 */
export const SECRET_PREFIX = 'whsec_';

export const newSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

export function signingKey(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX) ? Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** Refuses a `whsec_` secret whose key is not strict base64 of 24–64 bytes. */
export function assertSecret(secret: string): void {
  if (!secret.startsWith(SECRET_PREFIX)) return;
  const key = secret.slice(SECRET_PREFIX.length);
  const bytes = Buffer.from(key, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || bytes.toString('base64') !== key || bytes.length < 24 || bytes.length > 64) {
    throw new AppError('WEBHOOK_SECRET_INVALID', 'a whsec_ secret must hold 24 to 64 bytes in base64');
  }
}

/** The id a receiver deduplicates on: the same for every retry of one event to one webhook. */
export const messageId = (organizationId: number, eventId: number): string => `evt_${organizationId}_${eventId}`;

/** The headers of one attempt; the timestamp is the attempt's, so a receiver can refuse replays. */
export function signedHeaders(secret: string, id: string, body: string, at: Date = new Date()): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signature = createHmac('sha256', signingKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signature}`,
  };
}
