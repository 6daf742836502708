import type { RouteOptions } from 'fastify';

/*
 * The answers each route declares, in two forms: the document's, one entry per status, and
 * Fastify's, one entry per class of status. Fastify keeps a route's `response` object and builds a
 * second one of serializers from it; keyed by status numbers (200, 400…500) each is an object with
 * array-indexed keys, which V8 backs with an array as long as the largest status (about 2.7 KB for
 * keys up to 500) instead of a few named slots. Two such objects for each of the 400-odd routes held
 * about 4 MB of the idle heap (issue 42). Keyed '2xx', '4xx' and '5xx' instead, Fastify picks the same
 * serializer for the same answers (it looks a status up, then its class), and the document is given
 * back its statuses one by one.
 */

export type RouteSchema = Record<string, unknown> & { response?: Record<string, unknown>; consumes?: string[] };

export const MULTIPART = 'multipart/form-data';

interface ProblemResponse {
  description: string;
  content: { 'application/problem+json': { schema: { $ref: string } } };
}

// One object per description: every route that can answer 401 shares the same entry.
const problems = new Map<string, ProblemResponse>();
const isProblem = new WeakSet<object>();

/** A problem-document response for a status a route adds to the ones every route lists. */
export function problemResponse(description: string): ProblemResponse {
  let response = problems.get(description);
  if (!response) {
    response = { description, content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } } };
    problems.set(description, response);
    isProblem.add(response);
  }
  return response;
}

export const takesBody = (schema: RouteSchema) => Boolean(schema.body) || Boolean(schema.consumes?.includes(MULTIPART));

// What the idempotency hook (platform/idempotency.ts) acts on: POSTs of a known caller, not uploads.
export const takesIdempotencyKey = (method: RouteOptions['method'], schema: RouteSchema, isPublic: boolean) =>
  (Array.isArray(method) ? method.includes('POST') : method === 'POST') && !isPublic && !schema.consumes?.includes(MULTIPART);

// The document's statuses of a route, kept beside Fastify's classes (not enumerable: a copy of the
// schema does not carry it along).
const DOCUMENTED = Symbol('documented responses');

/**
 * Adds the error responses every route can give, so the document lists them and the serializer knows
 * the problem shape, then hands Fastify the answers by class. Routes declare only their success
 * responses (and errors of their own).
 */
export function addErrorResponses(route: RouteOptions): void {
  const schema = (route.schema ??= {}) as RouteSchema & { [DOCUMENTED]?: Array<[string, unknown]> };
  // A schema seen before (the HEAD route Fastify adds beside a GET shares its schema) is already by class.
  const documented: Array<[string, unknown]> = [...(schema[DOCUMENTED] ?? Object.entries(schema.response ?? {}))];
  const isPublic = (route.config as { public?: boolean } | undefined)?.public === true;
  const add = (status: number, description: string) => {
    if (!documented.some(([s]) => s === String(status))) documented.push([String(status), problemResponse(description)]);
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
  if (takesIdempotencyKey(route.method, schema, isPublic)) {
    add(409, 'IDEMPOTENCY_KEY_IN_USE: a request with this Idempotency-Key is still running (Retry-After), or a conflict of the operation');
    add(422, 'IDEMPOTENCY_KEY_REUSED: this Idempotency-Key was used with another method, path or body');
  }
  add(429, 'rate limited');
  add(500, 'internal error (only requestId)');
  if (isPublic) schema.security = [];
  Object.defineProperty(schema, DOCUMENTED, { value: documented, configurable: true });
  schema.response = byClass(documented);
}

/**
 * Fastify's form: a class key stands for its statuses where they answer alike. Problem documents
 * of a class are one schema; a class's single success status is its class (a route that declares
 * 201 and answers 200 meets the same serializer either way); anything else keeps its number.
 */
function byClass(documented: Array<[string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const successes = documented.filter(([status]) => status.startsWith('2'));
  for (const [status, response] of documented) {
    const cls = `${status[0]}xx`;
    const foldable =
      /^\d+$/.test(status) &&
      ((typeof response === 'object' && response !== null && isProblem.has(response) && (cls === '4xx' || cls === '5xx')) || (cls === '2xx' && successes.length === 1));
    if (foldable) out[cls] ??= response;
    else out[status] = response;
  }
  return out;
}

/** The route's answers as the document lists them: one per status. */
export function documentedResponses(schema: object | undefined): Record<string, unknown> | undefined {
  const documented = (schema as { [DOCUMENTED]?: Array<[string, unknown]> } | undefined)?.[DOCUMENTED];
  if (documented) return Object.fromEntries(documented);
  return (schema as RouteSchema | undefined)?.response;
}
