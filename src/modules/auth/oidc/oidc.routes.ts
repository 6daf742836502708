import type { FastifyRequest } from 'fastify';
import type { App } from '../../../platform/types.js';
import { write } from '../../../platform/context.js';
import { LoginResult } from '../auth.schemas.js';
import type { AuthSettings, ClientInfo } from '../auth.service.js';
import { OidcClient } from './oidc.client.js';
import { oidcSettingsOf, requireOidc } from './oidc.policy.js';
import * as S from './oidc.schemas.js';
import * as oidc from './oidc.service.js';

const tags = ['Authentication'];
const OFF = ' Answers 409 OIDC_NOT_CONFIGURED while OIDC_ISSUER, OIDC_CLIENT_ID or OIDC_CLIENT_SECRET is unset.';

const clientOf = (request: FastifyRequest): ClientInfo => ({
  ip: request.ip ?? null,
  userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : null,
});

export default async function oidcRoutes(app: App): Promise<void> {
  const { config } = app;
  const settings = oidcSettingsOf(config);
  const client = settings ? new OidcClient(settings, config, app.log) : null;
  const auth: AuthSettings = {
    sessionTtlDays: config.sessionTtlDays,
    passwordHashCost: config.passwordHashCost,
    signupMode: config.signupMode,
    trialDays: config.trialDays,
    trialUsers: config.trialUsers,
  };
  const deps = (): oidc.OidcDeps => {
    requireOidc(config);
    return { config, db: app.database.db, client: client!, auth };
  };
  // Counted per address like the password sign-in, before the body is read.
  const perIp = app.rateLimit({
    max: config.authRateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (r) => app.authGuard.key('auth-ip', r.ip),
    onExceeded: (r) => app.authGuard.deny(r.log, 'throttled', r.ip),
  });

  app.get(
    '/auth/oidc',
    {
      config: { public: true },
      schema: { tags, summary: 'Single sign-on: whether it is on, the button’s name, whether password sign-in is', security: [], response: { 200: S.OidcStatusSchema } },
    },
    async () => ({ enabled: settings !== null, displayName: settings?.displayName ?? null, passwordSignIn: !config.oidcOnly }),
  );

  app.get(
    '/auth/oidc/authorization-url',
    {
      config: { public: true, rateLimit: false },
      onRequest: perIp,
      schema: {
        tags,
        summary: 'Start signing in with the identity provider',
        description: 'Open `url` in this browser and keep `transaction` for the callback (10 minutes). 502 OIDC_PROVIDER_FAILED when discovery fails.' + OFF,
        security: [],
        response: { 200: S.OidcAuthorizationSchema },
      },
    },
    async (_request, reply) => reply.header('cache-control', 'no-store').send(await oidc.startSignIn(deps())),
  );

  app.post(
    '/auth/oidc/callback',
    {
      config: { public: true, rateLimit: false },
      onRequest: perIp,
      schema: {
        tags,
        summary: 'Complete signing in: redeem the provider’s code, open a session',
        description:
          'The web client’s callback page (OIDC_REDIRECT_URI) sends the redirect’s `code`, `state` (and `iss`) with the `transaction`. The ID token is validated (JWKS signature, iss, aud, exp, nonce). The first sign-in links an account with the same email only when `email_verified` is true (else 403 OIDC_EMAIL_UNVERIFIED), or creates one when the sign-up mode and OIDC_ALLOWED_DOMAINS allow (403 SIGNUP_CLOSED, OIDC_DOMAIN_NOT_ALLOWED); later ones reuse the link. 400 OIDC_STATE_INVALID for an unknown, altered or old transaction; 401 OIDC_SIGN_IN_FAILED when the provider’s answer does not validate.' +
          OFF,
        security: [],
        body: S.OidcCallbackBody,
        response: { 201: LoginResult },
      },
    },
    async (request, reply) => reply.code(201).header('cache-control', 'no-store').send(await oidc.completeSignIn(deps(), request.body, clientOf(request))),
  );

  app.post(
    '/auth/oidc/logout',
    {
      schema: {
        tags,
        summary: 'Sign out: revoke the credential used, and get the provider’s end-session URL',
        description: 'Works whether or not single sign-on is configured (`endSessionUrl` null without it).',
        response: { 200: S.OidcSignOutSchema },
      },
    },
    (request) => oidc.signOut((fn) => write(app, request, fn), client),
  );
}
