import type { FastifyReply, FastifyRequest } from 'fastify';
import { tooManyAttempts } from '../../../platform/brute-force.js';
import type { App } from '../../../platform/types.js';
import { PasswordResetAccepted, PasswordResetBody, PasswordResetConfirmBody, PasswordResetConfirmResult } from './password-reset.schemas.js';
import { confirmPasswordReset, requestPasswordReset } from './password-reset.service.js';

const tags = ['Authentication'];
/** Reset emails one address may be sent per hour, whoever asks: enough to retry, too few to flood an inbox. */
export const RESETS_PER_EMAIL_PER_HOUR = 5;
export const ACCEPTED = 'if an account has this address, a reset link is on its way';

export default async function passwordResetRoutes(app: App): Promise<void> {
  const { config } = app;
  // Per client address before the body is read, in a budget of its own beside sign-in's.
  const perAddress = app.rateLimit({
    max: config.authRateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (r) => app.authGuard.key('reset-ip', r.ip),
    onExceeded: (r) => app.authGuard.deny(r.log, 'throttled', r.ip),
  });
  // Per address asked about (a keyed hash: no email in the store), once the body is read. A second
  // limiter on one request must be asked directly: the plugin runs one rateLimit hook per request.
  const emailLimit = app.createRateLimit({
    max: RESETS_PER_EMAIL_PER_HOUR,
    timeWindow: 3600_000,
    keyGenerator: (r) => app.authGuard.key('reset-email', String((r.body as { email?: unknown } | undefined)?.email ?? '').trim().toLowerCase()),
  });
  const perEmail = async (request: FastifyRequest, reply: FastifyReply) => {
    const limit = await emailLimit(request);
    if (!limit.isAllowed && limit.isExceeded) throw tooManyAttempts(reply, limit.ttl, 'too many reset links asked for this address, retry later');
  };

  app.post(
    '/auth/password-reset',
    {
      config: { public: true, rateLimit: false },
      onRequest: perAddress,
      preHandler: perEmail,
      schema: {
        tags,
        summary: 'Ask for a password-reset link by email; 202 whether or not the address has an account',
        security: [],
        body: PasswordResetBody,
        response: { 202: PasswordResetAccepted },
      },
    },
    async (request, reply) => {
      await requestPasswordReset(app, request.body.email);
      return reply.code(202).send({ message: ACCEPTED });
    },
  );

  app.post(
    '/auth/password-reset/confirm',
    {
      config: { public: true, rateLimit: false },
      onRequest: perAddress,
      schema: {
        tags,
        summary: 'Set a new password with the emailed link’s token; signs out every session of the account',
        security: [],
        body: PasswordResetConfirmBody,
        response: { 200: PasswordResetConfirmResult },
      },
    },
    (request) => confirmPasswordReset(app, request.body),
  );
}
