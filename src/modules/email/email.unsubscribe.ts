import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sha256 } from '../../platform/crypto.js';

/**
 * The one-click unsubscribe token of a notification email (RFC 8058): the user's id and an HMAC of
 * it, so the link works without a session and only for that user. The key comes from SECRETS_KEY;
 * without one (PostgreSQL without SECRETS_KEY) from SMTP_URL, which every sending instance shares.
 */
function keyOf(app: FastifyInstance): Buffer {
  return app.secrets.derive('email unsubscribe') ?? Buffer.from(sha256(`email unsubscribe:${app.config.email.smtpUrl ?? ''}`), 'hex');
}

const mac = (app: FastifyInstance, userId: number) => createHmac('sha256', keyOf(app)).update(`unsubscribe:${userId}`).digest('base64url');

export function unsubscribeToken(app: FastifyInstance, userId: number): string {
  return `${userId}.${mac(app, userId)}`;
}

/** The user a token is for, or null when it is not one of ours. */
export function userOfUnsubscribeToken(app: FastifyInstance, token: string): number | null {
  const m = /^([1-9][0-9]{0,17})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return null;
  const userId = Number(m[1]);
  const expected = Buffer.from(mac(app, userId));
  const given = Buffer.from(m[2]!);
  return expected.length === given.length && timingSafeEqual(expected, given) ? userId : null;
}

export const unsubscribeUrl = (app: FastifyInstance, userId: number) =>
  `${app.config.publicUrl}/email/unsubscribe?token=${encodeURIComponent(unsubscribeToken(app, userId))}`;
