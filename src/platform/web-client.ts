import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built web client (`npm run web:build`); the same path from src/platform and dist/platform. */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

// The client's own code only: everything it loads comes from this service; the API and the
// real-time stream are same-origin. Markdown is sanitized as well, this is the second line.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const NOT_BUILT = '<!doctype html><title>Workboard</title><p>The web client is not built. Run <code>npm run web:build</code> (or <code>npm start</code>, which builds it) and reload.</p>';

/**
 * Serves the web client under /app/: hashed assets for a year (immutable), index.html never from a
 * cache, and index.html for every other /app/ path so the client's routes survive a reload. The
 * routes are public and stay out of the OpenAPI document: they are not part of the API.
 */
export async function registerWebClient(app: FastifyInstance, dir = WEB_DIST): Promise<void> {
  app.get('/', { config: { public: true }, schema: { hide: true } }, (_request, reply) => reply.redirect('/app/'));
  await app.register(async (web) => {
    web.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), public: true };
      route.schema = { ...route.schema, hide: true };
    });
    const index = existsSync(`${dir}index.html`) ? readFileSync(`${dir}index.html`, 'utf8') : null;
    const sendIndex = (reply: FastifyReply) =>
      reply
        .header('cache-control', 'no-cache')
        .header('content-security-policy', CSP)
        .type('text/html; charset=utf-8')
        .code(index ? 200 : 503)
        .send(index ?? NOT_BUILT);
    if (index) {
      await web.register(fastifyStatic, {
        root: dir,
        prefix: '/app/',
        // One route per built file; paths that are no file fall through to the client's routes below.
        wildcard: false,
        index: false,
        cacheControl: false,
        // index.html goes out with its CSP below; the build stamp is no business of browsers.
        globIgnore: ['index.html', '.build-stamp'],
        setHeaders: (reply, file) => {
          reply.header('cache-control', file.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
        },
      });
    }
    web.get('/app', (_request, reply) => reply.redirect('/app/'));
    // An asset of another build (this process started before a rebuild) is missing, not a page.
    web.get('/app/assets/*', (_request, reply) => reply.callNotFound());
    web.get('/app/', (_request, reply) => sendIndex(reply));
    web.get('/app/*', (_request, reply) => sendIndex(reply));
    // The pages of emailed links carry their token in the URL (a reset, an address to confirm, an
    // invitation): no access-log line (info) for them, so no token is written to a log.
    for (const page of ['/app/reset-password', '/app/verify-email', '/app/invitations/*']) {
      web.get(page, { logLevel: 'warn' }, (_request, reply) => sendIndex(reply));
    }
  });
}
