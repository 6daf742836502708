import type { FastifyInstance, RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import { ProblemSchema } from './schemas.js';

const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } },
});

/**
 * Adds the error responses every route can give to its schema, so the OpenAPI document lists them
 * and the serializer knows the problem shape. Routes declare only their success responses.
 */
function addErrorResponses(route: RouteOptions): void {
  const schema = (route.schema ??= {}) as Record<string, unknown> & { response?: Record<string, unknown> };
  const response = (schema.response ??= {});
  const isPublic = (route.config as { public?: boolean } | undefined)?.public === true;
  const add = (status: number, description: string) => {
    if (!(status in response)) response[status] = problemResponse(description);
  };
  if (schema.body || schema.querystring || schema.params) add(400, 'invalid input (VALIDATION_FAILED or a domain rule)');
  if (!isPublic) {
    add(401, 'no credential, or an unknown, expired or revoked one');
    add(403, 'the role does not allow this action');
  }
  if (schema.params || !isPublic) add(404, 'not found, or not visible to the caller');
  add(429, 'rate limited');
  add(500, 'internal error (only requestId)');
  if (isPublic) schema.security = [];
}

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  app.addSchema(ProblemSchema);
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) {
      // The reference page and its assets are public, like the document they render.
      route.config = { ...(route.config as object), public: true };
      return;
    }
    addErrorResponses(route);
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Workboard API',
        version,
        description: 'Team work-management backend. Errors are RFC 9457 problem documents with a stable `code`.',
      },
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'header', name: 'Service-Session', description: 'session value from login/register' },
          bearer: { type: 'http', scheme: 'bearer', description: 'session value or personal API token (wmt_…)' },
        },
      },
      security: [{ session: [] }, { bearer: [] }],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  await app.register(scalar, {
    routePrefix: '/docs',
    configuration: { url: '/openapi.json', title: 'Workboard API' },
    hooks: {},
  });
}
