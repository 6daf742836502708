import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import { ProblemSchema } from './schemas.js';

/** A problem-document response for a status a route adds to the ones every route lists. */
export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } },
});

const MULTIPART = 'multipart/form-data';
const UPLOAD_KEY = 'x-upload';

interface UploadSpec {
  field: string;
  multiple: boolean;
}

/**
 * Schema keys of a multipart upload route. The handler streams the parts itself (no body schema, so
 * nothing is buffered or validated as JSON); the document still shows the form it expects.
 */
export const upload = (field = 'file', multiple = false) => ({ consumes: [MULTIPART], [UPLOAD_KEY]: { field, multiple } as UploadSpec });

type RouteSchema = Record<string, unknown> & { response?: Record<string, unknown>; consumes?: string[] };

const takesBody = (schema: RouteSchema) => Boolean(schema.body) || Boolean(schema.consumes?.includes(MULTIPART));

/**
 * Adds the error responses every route can give to its schema, so the OpenAPI document lists them
 * and the serializer knows the problem shape. Routes declare only their success responses.
 */
function addErrorResponses(route: RouteOptions): void {
  const schema = (route.schema ??= {}) as RouteSchema;
  // Copied: routes of a module often share one `response` object, and each route's errors differ.
  const response: Record<string, unknown> = (schema.response = { ...schema.response });
  const isPublic = (route.config as { public?: boolean } | undefined)?.public === true;
  const add = (status: number, description: string) => {
    if (!(status in response)) response[status] = problemResponse(description);
  };
  if (schema.body || schema.querystring || schema.params || takesBody(schema)) add(400, 'invalid input (VALIDATION_FAILED or a domain rule)');
  if (!isPublic) {
    add(401, 'no credential, or an unknown, expired or revoked one');
    add(403, 'the role does not allow this action');
  }
  if (schema.params || !isPublic) add(404, 'not found, or not visible to the caller');
  if (takesBody(schema)) {
    add(413, 'the body or a file is too large');
    add(415, 'unsupported content type');
  }
  add(429, 'rate limited');
  add(500, 'internal error (only requestId)');
  if (isPublic) schema.security = [];
}

/** The document's view of an upload route: its multipart form as the request body. */
function documentUpload({ schema, url }: { schema: FastifySchema; url: string }): { schema: FastifySchema; url: string } {
  const route = schema as RouteSchema | undefined;
  if (!route?.consumes?.includes(MULTIPART) || route.body) return { schema, url };
  const { [UPLOAD_KEY]: spec, ...rest } = route as RouteSchema & { [UPLOAD_KEY]?: UploadSpec };
  const { field, multiple } = spec ?? { field: 'file', multiple: false };
  const binary = { type: 'string', format: 'binary' };
  return {
    url,
    schema: {
      ...rest,
      body: {
        type: 'object',
        required: [field],
        properties: { [field]: multiple ? { type: 'array', items: binary } : binary },
      },
    },
  };
}

// Scalar's page loads its script by a relative path and so only works at /docs/; served at /docs
// too (routes.md: GET /docs → 200 text/html) it needs the script by absolute path.
const DOCS_SCRIPT = '/docs/js/scalar.js';
const docsPage = (title: string) => `<!doctype html>
<html>
  <head>
    <title>${title}</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" data-url="/openapi.json"></script>
    <script src="${DOCS_SCRIPT}"></script>
  </body>
</html>
`;

// OpenAPI 3.1 `webhooks`: what the service sends rather than answers (event envelopes), added by
// the module that owns them; they show in the document next to the paths.
const documentedWebhooks = new Map<string, unknown>();

/** Documents one outgoing message (an event type) as an OpenAPI 3.1 webhook. */
export function documentWebhook(name: string, summary: string, bodySchema: unknown): void {
  // Plain JSON, without $id: the same module schemas also stand in the components.
  const schema = JSON.parse(JSON.stringify(bodySchema), (key, value: unknown) => (key === '$id' ? undefined : value)) as unknown;
  documentedWebhooks.set(name, {
    post: {
      operationId: `event:${name}`,
      summary,
      tags: ['Events'],
      requestBody: { required: true, content: { 'application/json': { schema } } },
      responses: { '200': { description: 'any 2xx acknowledges the delivery; anything else (or no answer within the timeout) is retried' } },
    },
  });
}

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  const title = 'Workboard API';
  app.addSchema(ProblemSchema);
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) {
      // The reference page and its assets are public, like the document they render.
      route.config = { ...(route.config as object), public: true };
      // Scalar answers /docs with a redirect to /docs/; the page itself is what clients ask for.
      if (route.url === '/docs') route.handler = (_request, reply) => reply.type('text/html; charset=utf-8').send(docsPage(title));
      return;
    }
    addErrorResponses(route);
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title,
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
    transform: documentUpload,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => ({
    ...app.swagger(),
    webhooks: Object.fromEntries(documentedWebhooks),
  }));
  await app.register(scalar, {
    routePrefix: '/docs',
    configuration: { url: '/openapi.json', title, cdn: DOCS_SCRIPT },
    hooks: {},
  });
}
