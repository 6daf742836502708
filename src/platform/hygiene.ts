import type { FastifyInstance } from 'fastify';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import etag from '@fastify/etag';
import helmet from '@fastify/helmet';
import type { Config } from '../config.js';
import { AppError } from './errors.js';

/** Both generations of rate-limit headers (`RateLimit-*` of the IETF draft and the older `X-RateLimit-*`), whichever the limiter sends. */
const RATE_LIMIT_HEADERS = ['ratelimit', 'ratelimit-policy', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

/** Answers smaller than this go uncompressed: for a few hundred bytes gzip costs more than it saves. */
const COMPRESS_THRESHOLD_BYTES = 1024;

/**
 * HTTP hygiene with the plugins made for it: security headers suited to a JSON API, CORS for the
 * origins the operator names, weak ETags with 304 for an unchanged GET, and compression of larger answers (`/openapi.json`, `/docs` assets,
 * long lists, CSV). Real-time streams hijack their reply, so they are never buffered by compression.
 */
export async function registerHygiene(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(helmet, {
    global: true,
    // Answers are JSON, files and the /docs page (whose own scripts a strict CSP would block).
    contentSecurityPolicy: false,
    // Files (avatars, covers, attachments) are fetched by web clients on other ports of the same site.
    crossOriginResourcePolicy: { policy: 'same-site' },
    crossOriginEmbedderPolicy: false,
    strictTransportSecurity: config.publicUrl.startsWith('https://') ? { maxAge: 15_552_000, includeSubDomains: true } : false,
  });
  if (config.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: config.corsOrigins.includes('*') ? true : config.corsOrigins,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: [
        'authorization', 'service-session', 'content-type', 'if-none-match', 'if-match', 'idempotency-key', 'last-event-id', 'cache-control',
        'x-request-id', 'range', 'if-range', 'if-modified-since', 'mcp-session-id', 'mcp-protocol-version',
      ],
      exposedHeaders: [
        'x-total-count', 'link', 'x-request-id', 'x-cache', 'retry-after', 'etag', 'idempotent-replayed', 'cloud-drive-revoked', 'content-range',
        'accept-ranges', 'last-modified', 'mcp-session-id', ...RATE_LIMIT_HEADERS,
      ],
      maxAge: 600,
    });
  } else {
    // No CORS_ORIGINS: no cross-origin calls. A preflight is refused in the service's one error
    // shape, before authentication (a browser's preflight never carries a credential).
    app.addHook('onRequest', async (request) => {
      if (request.method === 'OPTIONS' && request.headers.origin && request.headers['access-control-request-method']) {
        throw new AppError('FORBIDDEN', 'cross-origin requests are not allowed: CORS_ORIGINS is unset');
      }
    });
  }
  // Authenticated answers are the caller's own: browsers keep them but ask again with the ETag
  // (304 when unchanged), and shared caches never store them.
  app.addHook('onSend', async (request, reply) => {
    if (request.actor && !reply.hasHeader('cache-control') && /json/.test(String(reply.getHeader('content-type') ?? ''))) {
      reply.header('cache-control', 'private, no-cache');
    }
  });
  // Before compression, so the tag names the answer itself whatever the encoding; a GET whose
  // If-None-Match holds it answers 304 with no body.
  await app.register(etag, { weak: true });
  await app.register(compress, { global: true, threshold: COMPRESS_THRESHOLD_BYTES, encodings: ['br', 'gzip', 'deflate'] });
}
