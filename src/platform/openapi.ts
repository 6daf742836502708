import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { readFileSync } from 'node:fs';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { NamedSchemas, assertUniqueOperationIds, eventOperationId, operationIdOf } from './openapi-document.js';
import { ProblemSchema } from './schemas.js';
import { MULTIPART, addErrorResponses, documentedResponses, problemResponse, takesIdempotencyKey, type RouteSchema } from './route-responses.js';

export { problemResponse };

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

/** The header as the document shows it; the hook reads it, so no route validates it itself. */
const IDEMPOTENCY_HEADER = {
  type: 'object',
  properties: {
    'Idempotency-Key': {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description:
        'Makes a retry safe: the same key with the same body within IDEMPOTENCY_TTL_HOURS (24) answers the first answer again (`Idempotent-Replayed: true`) instead of writing twice. Per credential.',
    },
  },
};

/** The document's view of an upload route: its multipart form as the request body. */
function documentUpload(route: RouteSchema): RouteSchema {
  if (!route.consumes?.includes(MULTIPART) || route.body) return route;
  const { [UPLOAD_KEY]: spec, ...rest } = route as RouteSchema & { [UPLOAD_KEY]?: UploadSpec };
  const { field, multiple } = spec ?? { field: 'file', multiple: false };
  const binary = { type: 'string', format: 'binary' };
  return {
    ...rest,
    body: {
      type: 'object',
      required: [field],
      properties: { [field]: multiple ? { type: 'array', items: binary } : binary },
    },
  };
}

/**
 * The document's copy of a route's schema: its operationId, and its named forms as references.
 * Path and query parameters stay inline: the document lists them one by one.
 */
function documentRoute(named: NamedSchemas, schema: FastifySchema | undefined, url: string, method: RouteOptions['method']): FastifySchema {
  const route = documentUpload({ ...(schema as RouteSchema | undefined) });
  const verb = Array.isArray(method) ? method[0]! : method;
  route.operationId ??= operationIdOf(verb, url);
  const isPublic = Array.isArray(route.security) && route.security.length === 0;
  if (!route.headers && takesIdempotencyKey(verb, route, isPublic)) route.headers = IDEMPOTENCY_HEADER;
  if (route.body) route.body = named.reference(route.body);
  const responses = documentedResponses(schema);
  if (responses) route.response = named.referenceResponses(responses);
  return route;
}

/** One outgoing message (an event type) documented as an OpenAPI 3.1 webhook. */
export interface DocumentedWebhook {
  name: string;
  summary: string;
  schema: unknown;
}

// OpenAPI 3.1 `webhooks`: what the service sends rather than answers (event envelopes), added by
// the module that owns them; they show in the document next to the paths. Each module gives a
// function that lists its own, called when the document is generated: their schemas are built then
// rather than at start (issue 42). A set: every app built in a process gives the same function.
const webhookLists = new Set<() => Iterable<DocumentedWebhook>>();

/** Documents the outgoing messages `list` answers, asked when the document is generated. */
export function documentWebhooks(list: () => Iterable<DocumentedWebhook>): void {
  webhookLists.add(list);
}

function webhooks(named: NamedSchemas): Record<string, unknown> {
  const documented = new Map<string, { summary: string; schema: unknown }>();
  for (const list of webhookLists) for (const { name, summary, schema } of list()) documented.set(name, { summary, schema });
  return Object.fromEntries(
    [...documented].map(([name, { summary, schema }]) => [
      name,
      {
        post: {
          operationId: eventOperationId(name),
          summary,
          tags: ['Events'],
          requestBody: { required: true, content: { 'application/json': { schema: named.reference(schema) } } },
          responses: { '200': { description: 'any 2xx acknowledges the delivery; anything else (or no answer within the timeout) is retried' } },
        },
      },
    ]),
  );
}

// The page only loads what this service serves: no CDN, fonts or validator service; "Try it out"
// calls go to the document's server.
const docsCsp = (publicUrl: string) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    // Swagger UI sets style attributes from script.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${new URL(publicUrl).origin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

// The document states the project's licence as package.json does, so the two cannot drift apart;
// npm's `license` is an SPDX expression, as OpenAPI's `identifier` is.
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { license?: string };

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  const title = 'Workboard API';
  const named = new NamedSchemas();
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
        title,
        version,
        description: 'Team work-management backend. Errors are RFC 9457 problem documents with a stable `code`.',
        ...(pkg.license ? { license: { name: pkg.license, identifier: pkg.license } } : {}),
      },
      servers: [{ url: app.config.publicUrl, description: 'this service (PUBLIC_URL)' }],
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'header', name: 'Service-Session', description: 'session value from login/register' },
          bearer: { type: 'http', scheme: 'bearer', description: 'session value or personal API token (wmt_…)' },
        },
      },
      security: [{ session: [] }, { bearer: [] }],
    },
    // Paths are the routes' own: a PUBLIC_URL with a path must not cut matching routes short.
    stripBasePath: false,
    // OpenAPI 3.1 schemas are JSON Schema 2020-12, `const` included; the named forms keep it too.
    convertConstToEnum: false,
    transform: ({ schema, url, route }) => ({ schema: documentRoute(named, schema, url, route.method), url }),
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const document = documentObject.openapiObject;
      // Runs after the routes, which are what fills `named`; shared schemas (Problem) keep their own form.
      const hooks = webhooks(named);
      const schemas = { ...named.components(), ...document.components?.schemas };
      const result = { ...document, components: { ...document.components, schemas }, webhooks: hooks };
      assertUniqueOperationIds(result);
      return result as typeof document;
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // BaseLayout: the reference itself, without Swagger's top bar (logo and a box to load other documents).
    uiConfig: { layout: 'BaseLayout', deepLinking: true, displayOperationId: true, defaultModelsExpandDepth: 0 },
    theme: { title },
    staticCSP: docsCsp(app.config.publicUrl),
  });
}
