import type { FastifyRequest } from 'fastify';
import type { App } from '../../platform/types.js';
import { Type } from 'typebox';
import { read, write } from '../../platform/context.js';
import { IdParams } from '../../platform/schemas.js';
import * as S from './auth.schemas.js';
import * as auth from './auth.service.js';
import { signInAddressLimit } from './auth.limits.js';
import { TwoFactorChallengeSchema } from './two-factor/two-factor.schemas.js';
import { unscopedWrite } from '../../platform/context.js';
import { assertPasswordSignIn } from './oidc/oidc.policy.js';

const tags = ['Authentication'];

const clientOf = (request: FastifyRequest): auth.ClientInfo => ({
  ip: request.ip ?? null,
  userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : null,
});

export default async function authRoutes(app: App): Promise<void> {
  const { config } = app;
  const settings: auth.AuthSettings = {
    sessionTtlDays: config.sessionTtlDays,
    passwordHashCost: config.passwordHashCost,
    signupMode: config.signupMode,
    trialDays: config.trialDays,
    trialUsers: config.trialUsers,
    mailer: app,
  };
  const limited = { onRequest: signInAddressLimit(app) };
  // OIDC_ONLY: the password routes are for operators only (oidc.policy.ts).
  const passwordGate = async (request: FastifyRequest) => assertPasswordSignIn(app.database.db, config, (request.body as { email: string }).email);
  // The first unknown email must not be the one answer that takes longer (it would make the stand-in hash).
  void auth.standInHash(config.passwordHashCost);

  app.post(
    '/auth/register',
    {
      config: { public: true, rateLimit: false },
      ...limited,
      preHandler: passwordGate,
      schema: { tags, summary: 'Register: creates the user and its first organization (or joins an invite link’s)', security: [], body: S.RegisterBody, response: { 201: S.RegisterResult } },
    },
    async (request, reply) => reply.code(201).send(await auth.register((fn) => unscopedWrite(app, request.log, fn), request.body, clientOf(request), settings)),
  );

  app.post(
    '/auth/login',
    {
      config: { public: true, rateLimit: false },
      ...limited,
      preHandler: passwordGate,
      schema: {
        tags,
        summary: 'Log in: opens a session, or (202) with two-factor sign-in on, answers a challenge for POST /auth/login/two-factor',
        security: [],
        body: S.LoginBody,
        response: { 201: S.LoginResult, 202: TwoFactorChallengeSchema },
      },
    },
    async (request, reply) => {
      const result = await auth.login(app.database.db, request.body, clientOf(request), settings, app.authGuard.signInAttempts(request.log, request.ip, reply));
      return reply.code('challenge' in result ? 202 : 201).send(result);
    },
  );

  app.post('/auth/logout', { config: { twoFactorEnrolment: true }, schema: { tags, summary: 'Log out: revokes the credential used', response: { 204: Type.Null() } } }, async (request, reply) => {
    await write(app, request, (ctx) => auth.logout(ctx));
    return reply.code(204).send(null);
  });

  app.post(
    '/user/api-tokens',
    { schema: { tags, summary: 'Create a personal API token (the secret is shown once)', body: S.CreateApiTokenBody, response: { 201: S.CreatedApiTokenSchema } } },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => auth.createApiToken(ctx, request.body))),
  );

  app.get('/user/api-tokens', { schema: { tags, summary: 'List own API tokens', response: { 200: Type.Array(S.ApiTokenSchema) } } }, (request) =>
    read(app, request, (ctx) => auth.listApiTokens(ctx)),
  );

  app.delete(
    '/user/api-tokens/:tokenId',
    { schema: { tags, summary: 'Revoke an API token', params: IdParams('tokenId'), response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => auth.revokeApiToken(ctx, request.params.tokenId));
      return reply.code(204).send(null);
    },
  );
}
