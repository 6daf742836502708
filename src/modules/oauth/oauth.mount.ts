import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { AppError } from '../../platform/errors.js';
import type { App } from '../../platform/types.js';
import { OAUTH_PREFIX } from './oauth.policy.js';

export type ProviderLoader = () => Promise<Provider>;

/**
 * The authorization server, built on first use: the first request that needs it imports
 * oidc-provider (with Koa and jose) and loads the signing keys; until then it costs nothing. It
 * needs SECRETS_KEY (or the embedded install's key file) for its keys and cookies.
 */
export function providerLoader(app: App): ProviderLoader {
  let loading: Promise<Provider> | null = null;
  return () => {
    if (!app.secrets.available) {
      throw new AppError('SECRETS_KEY_MISSING', 'OAuth sign-in needs SECRETS_KEY: set it (base64 of 32 random bytes, the same on every instance) and restart');
    }
    loading ??= import('./oauth.provider.js')
      .then((m) => m.buildProvider(app))
      .catch((err: unknown) => {
        loading = null;
        throw err;
      });
    return loading;
  };
}

/**
 * Hands a request to oidc-provider's Node callback. The provider works out its endpoints' URLs
 * from the request: it is told the public scheme and host (from PUBLIC_URL, whatever the client
 * sent) and, through `originalUrl`, that it is mounted under /oauth. The reply is hijacked (the
 * provider writes it), so the headers set so far (request id, rate limit) are copied over first.
 */
export async function forward(app: App, load: ProviderLoader, request: FastifyRequest, reply: FastifyReply, providerPath: string): Promise<void> {
  const provider = await load();
  const req = request.raw;
  const publicUrl = new URL(app.config.publicUrl);
  req.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
  req.headers['x-forwarded-host'] = publicUrl.host;
  Object.assign(req, { originalUrl: `${OAUTH_PREFIX}${providerPath}` });
  req.url = providerPath;
  reply.header('x-request-id', request.id);
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value as string | number | string[]);
  reply.hijack();
  await new Promise<void>((resolve) => {
    reply.raw.once('close', resolve);
    reply.raw.once('finish', resolve);
    provider.callback()(req, reply.raw);
  });
}

/**
 * oidc-provider's endpoints under /oauth (authorization, token, registration, revocation, JWKS) and
 * the RFC 8414 metadata at /.well-known/oauth-authorization-server. In a scope of their own whose
 * body parsers leave the body unread: the provider reads and limits it itself.
 */
export async function mountProvider(app: App, load: ProviderLoader): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  const hidden = { hide: true };
  app.get(
    '/.well-known/oauth-authorization-server',
    { config: { public: true }, schema: { ...hidden, summary: 'OAuth authorization server metadata (RFC 8414)' } },
    (request, reply) => forward(app, load, request, reply, '/.well-known/openid-configuration'),
  );
  // Open registration is where an anonymous caller can make the server store something: it counts against the sign-in limit.
  app.post(
    `${OAUTH_PREFIX}/reg`,
    { config: { public: true, rateLimit: { max: app.config.authRateLimitPerMinute, timeWindow: 60_000 } }, schema: hidden },
    (request, reply) => forward(app, load, request, reply, request.raw.url!.slice(OAUTH_PREFIX.length)),
  );
  app.route({
    method: ['GET', 'POST', 'OPTIONS', 'DELETE', 'PUT'],
    url: `${OAUTH_PREFIX}/*`,
    config: { public: true },
    schema: hidden,
    handler: (request, reply) => forward(app, load, request, reply, request.raw.url!.slice(OAUTH_PREFIX.length) || '/'),
  });
}
