import type { FastifyInstance } from 'fastify';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import etag from '@fastify/etag';
import helmet from '@fastify/helmet';
import type { Config } from '../config.js';

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
  await app.register(cors, {
    // No CORS_ORIGINS: no cross-origin reads (preflights answer without an allow-origin).
    origin: config.corsOrigins.includes('*') ? true : config.corsOrigins.length > 0 ? config.corsOrigins : false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['authorization', 'service-session', 'content-type', 'if-none-match', 'idempotency-key', 'last-event-id', 'cache-control', 'x-request-id', 'range', 'if-range', 'if-modified-since'],
    exposedHeaders: ['x-total-count', 'link', 'x-request-id', 'x-cache', 'retry-after', 'etag', 'idempotent-replayed', 'cloud-drive-revoked', 'content-range', 'accept-ranges', 'last-modified'],
    maxAge: 600,
  });
  // Before compression, so the tag names the answer itself whatever the encoding; a GET whose
  // If-None-Match holds it answers 304 with no body.
  await app.register(etag, { weak: true });
  await app.register(compress, { global: true, threshold: COMPRESS_THRESHOLD_BYTES, encodings: ['br', 'gzip', 'deflate'] });
}
