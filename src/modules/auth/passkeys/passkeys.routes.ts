import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../../platform/types.js';
import type { Queryable } from '../../../db/client.js';
import { read, write } from '../../../platform/context.js';
import { IdParams } from '../../../platform/schemas.js';
import type { AuthSettings, ClientInfo } from '../auth.service.js';
import { signInAddressLimit } from '../auth.limits.js';
import { LoginResult } from '../auth.schemas.js';
import { assertPasswordSignIn } from '../oidc/oidc.policy.js';
import { relyingPartyOf } from './passkeys.challenges.js';
import * as S from './passkeys.schemas.js';
import * as passkeys from './passkeys.service.js';
import * as signIn from './passkeys.sign-in.js';

const tags = ['Authentication'];
// A member whose organization requires two-factor sign-in may enrol a passkey instead of an app.
const enrolment = { twoFactorEnrolment: true };
const signInRoute = { public: true, rateLimit: false } as const;

const clientOf = (request: FastifyRequest): ClientInfo => ({
  ip: request.ip ?? null,
  userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : null,
});

export default async function passkeyRoutes(app: App): Promise<void> {
  const { config } = app;
  const settings: AuthSettings = { ...config };
  const rp = relyingPartyOf(config.publicUrl);
  const limited = signInAddressLimit(app);
  const db = () => app.database.db;
  const providerGate = (tx: Queryable, email: string) => assertPasswordSignIn(tx, config, email);

  app.get('/user/passkeys', { config: enrolment, schema: { tags, summary: 'List own passkeys', response: { 200: Type.Array(S.PasskeySchema) } } }, (request) =>
    read(app, request, (ctx) => passkeys.listPasskeys(ctx)),
  );

  app.post(
    '/user/passkeys/registration',
    {
      config: enrolment,
      schema: {
        tags,
        summary: 'Start adding a passkey: options for navigator.credentials.create() (a discoverable credential) and the id to answer them with',
        response: { 201: S.RegistrationChallengeSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => passkeys.startRegistration(ctx, rp))),
  );

  app.post(
    '/user/passkeys',
    {
      config: enrolment,
      schema: {
        tags,
        summary: 'Add a passkey: the authenticator’s answer to the registration options; the first second factor signs the other sessions out',
        body: S.RegisterPasskeyBody,
        response: { 201: S.RegisteredPasskeySchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => passkeys.registerPasskey(ctx, rp, request.body))),
  );

  app.patch(
    '/user/passkeys/:passkeyId',
    { schema: { tags, summary: 'Rename one of own passkeys', params: IdParams('passkeyId'), body: S.RenamePasskeyBody, response: { 200: S.PasskeySchema } } },
    (request) => write(app, request, (ctx) => passkeys.renamePasskey(ctx, request.params.passkeyId, request.body.name)),
  );

  app.delete(
    '/user/passkeys/:passkeyId',
    { schema: { tags, summary: 'Remove one of own passkeys (from a signed-in session)', params: IdParams('passkeyId'), response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => passkeys.removePasskey(ctx, request.params.passkeyId));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/auth/passkey/options',
    {
      config: signInRoute,
      onRequest: limited,
      schema: { tags, summary: 'Start a sign-in with a passkey alone: options for navigator.credentials.get() without allowCredentials', security: [], response: { 201: S.AuthenticationChallengeSchema } },
    },
    async (_request, reply) => reply.code(201).send(await signIn.startPasskeySignIn(db(), rp)),
  );

  app.post(
    '/auth/passkey',
    {
      config: signInRoute,
      onRequest: limited,
      schema: { tags, summary: 'Sign in with a passkey alone: opens a session, no code asked (the passkey is the second factor)', security: [], body: S.PasskeySignInBody, response: { 201: LoginResult } },
    },
    async (request, reply) =>
      reply.code(201).send(await signIn.signInWithPasskey(db(), rp, request.body, clientOf(request), settings, app.authGuard.signInAttempts(request.log, request.ip, reply), providerGate)),
  );

  app.post(
    '/auth/login/two-factor/passkey/options',
    {
      config: signInRoute,
      onRequest: limited,
      schema: {
        tags,
        summary: 'Second step of a password sign-in with a passkey instead of a code: options for navigator.credentials.get(), limited to the account’s passkeys',
        security: [],
        body: S.SecondFactorOptionsBody,
        response: { 201: S.AuthenticationChallengeSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await signIn.startPasskeySecondFactor(db(), rp, request.body.challenge)),
  );

  app.post(
    '/auth/login/two-factor/passkey',
    {
      config: signInRoute,
      onRequest: limited,
      schema: {
        tags,
        summary: 'Second step of a password sign-in answered with a passkey: the challenge from POST /auth/login and the authenticator’s answer; opens the session',
        security: [],
        body: S.SecondFactorPasskeyBody,
        response: { 201: LoginResult },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await signIn.answerWithPasskey(db(), rp, request.body, clientOf(request), settings, app.authGuard.signInAttempts(request.log, request.ip, reply))),
  );
}
