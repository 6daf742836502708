import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import { read, write } from '../../../platform/context.js';
import { withTransaction } from '../../../db/tx.js';
import { AppError } from '../../../platform/errors.js';
import { completeSignIn, type AuthSettings } from '../auth.service.js';
import { signInHooks } from '../auth.hooks.js';
import { signInAddressLimit } from '../auth.limits.js';
import { LoginResult } from '../auth.schemas.js';
import * as S from './two-factor.schemas.js';
import * as twoFactor from './two-factor.service.js';

const tags = ['Authentication'];
// Reachable by a member who must enrol before anything else (platform/auth.ts).
const enrolment = { twoFactorEnrolment: true };

const clientOf = (request: FastifyRequest) => ({
  ip: request.ip ?? null,
  userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : null,
});

export default async function twoFactorRoutes(app: App): Promise<void> {
  const { config, secrets } = app;
  const settings: AuthSettings = { ...config };
  const issuer = `Workboard (${new URL(config.publicUrl).host})`;
  signInHooks.secondFactor = twoFactor.challengeFor;


  app.post(
    '/auth/login/two-factor',
    {
      config: { public: true, rateLimit: false },
      onRequest: signInAddressLimit(app),
      schema: {
        tags,
        summary: 'Second step of a sign-in: the challenge from POST /auth/login and a code; opens the session',
        security: [],
        body: S.TwoFactorSignInBody,
        response: { 201: LoginResult },
      },
    },
    async (request, reply) => {
      const db = app.database.db;
      const challenge = await twoFactor.openChallenge(db, request.body.challenge);
      const attempts = app.authGuard.signInAttempts(request.log, request.ip, reply);
      attempts.check(challenge.email);
      const signedIn = await withTransaction(db, async ({ tx }) =>
        (await twoFactor.answerChallenge(tx, secrets, challenge, request.body.code)) ? completeSignIn(tx, { id: challenge.userId, activeOrganizationId: challenge.activeOrganizationId }, clientOf(request), settings) : null,
      );
      if (!signedIn) {
        await twoFactor.failChallenge(db, challenge.id);
        await attempts.failed(challenge.email);
        throw new AppError('INVALID_CREDENTIALS', 'the code is wrong or was used already');
      }
      return reply.code(201).send(signedIn);
    },
  );

  app.get(
    '/user/two-factor',
    { config: enrolment, schema: { tags, summary: 'Whether own two-factor sign-in is on, recovery codes left, and whether the organization requires it', response: { 200: S.TwoFactorStatusSchema } } },
    (request) => read(app, request, (ctx) => twoFactor.twoFactorStatus(ctx)),
  );

  app.post(
    '/user/two-factor/enrolment',
    {
      config: enrolment,
      schema: { tags, summary: 'Start enrolment: a new TOTP secret and its otpauth:// URI (for a QR code); confirm with a first code', response: { 201: S.TwoFactorEnrolmentSchema } },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => twoFactor.startEnrolment(ctx, secrets, issuer))),
  );

  app.post(
    '/user/two-factor/enrolment/confirm',
    {
      config: enrolment,
      schema: {
        tags,
        summary: 'Confirm enrolment with a first code: two-factor sign-in is on, 10 recovery codes are shown once, other sessions are signed out',
        body: S.ConfirmEnrolmentBody,
        response: { 200: S.RecoveryCodesSchema },
      },
    },
    (request) => write(app, request, (ctx) => twoFactor.confirmEnrolment(ctx, secrets, request.body.code)),
  );

  app.delete(
    '/user/two-factor',
    { schema: { tags, summary: 'Turn two-factor sign-in off: needs the password and a code (or a recovery code)', body: S.DisableBody, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await read(app, request, (ctx) => twoFactor.checkPassword(ctx, request.body.password));
      await write(app, request, (ctx) => twoFactor.disableTwoFactor(ctx, secrets, request.body.code));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/user/two-factor/recovery-codes',
    {
      schema: {
        tags,
        summary: 'Issue 10 new recovery codes (every earlier one stops working): needs the password and a code (or a recovery code)',
        body: S.RegenerateBody,
        response: { 200: S.RegeneratedRecoveryCodesSchema },
      },
    },
    async (request) => {
      await read(app, request, (ctx) => twoFactor.checkPassword(ctx, request.body.password));
      return write(app, request, (ctx) => twoFactor.regenerateRecoveryCodes(ctx, secrets, request.body.code));
    },
  );

  app.get(
    '/user/organization/two-factor-required',
    { schema: { tags, summary: 'Whether the organization requires two-factor sign-in of its members', response: { 200: S.RequirementSchema } } },
    (request) => read(app, request, (ctx) => twoFactor.readRequirement(ctx)),
  );

  app.patch(
    '/user/organization/two-factor-required',
    {
      schema: {
        tags,
        summary: 'Require two-factor sign-in of members (admin): one without it can only enrol until they do; single sign-on users are exempt',
        body: S.RequirementBody,
        response: { 200: S.RequirementSchema },
      },
    },
    (request) => write(app, request, (ctx) => twoFactor.setRequirement(ctx, request.body.twoFactorRequired)),
  );
}
