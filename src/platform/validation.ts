import type { FastifyInstance, FastifySchema } from 'fastify';
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import { AppError } from './errors.js';
import { compiledOnFirstUse } from './compiled-schemas.js';

type JsonSchema = Record<string, unknown>;

// Compiled once per body schema object: a schema with an $id may be shared by several routes.
const closedBodies = new WeakMap<object, JsonSchema>();

/**
 * A body's top-level object drops properties its schema does not name. TypeBox objects allow extra
 * properties by default, and `removeAdditional` strips only where `additionalProperties: false` is
 * set, so without this `{"name": "x", "isOperator": true}` would reach a service that spreads the
 * body into an update. Only the root is closed: closing union branches would strip fields a later
 * branch needs.
 */
function closeRoot(schema: JsonSchema): JsonSchema {
  const isPlainObject = schema.type === 'object' && typeof schema.properties === 'object' && schema.properties !== null;
  if (!isPlainObject || 'additionalProperties' in schema || 'patternProperties' in schema) return schema;
  let closed = closedBodies.get(schema);
  if (!closed) {
    closed = { ...schema, additionalProperties: false };
    closedBodies.set(schema, closed);
  }
  return closed;
}

const makeAjv = (coerceTypes: Options['coerceTypes']) => {
  const ajv = new Ajv({ removeAdditional: true, useDefaults: true, allErrors: false, strict: false, coerceTypes });
  addFormats.default(ajv);
  return ajv;
};
// One pair per process, whatever the number of apps built: Ajv keeps what it compiled per schema
// object, and the route schemas are module constants (see compiled-schemas.ts).
let validators: { bodyAjv: Ajv; stringAjv: Ajv } | undefined;

/**
 * Two validators: path and query values arrive as strings and are coerced to the schema's types;
 * a JSON body is validated as sent, so `{"name": 42}` is a 400, not the string "42".
 */
export function registerValidation(app: FastifyInstance): void {
  const { bodyAjv, stringAjv } = (validators ??= { bodyAjv: makeAjv(false), stringAjv: makeAjv('array') });
  // Compiled at first use (compiled-schemas.ts): most routes' schemas are rarely validated.
  app.setValidatorCompiler(({ schema, httpPart }) =>
    compiledOnFirstUse(() => (httpPart === 'body' ? bodyAjv.compile(closeRoot(schema as JsonSchema)) : stringAjv.compile(schema as FastifySchema & object))),
  );
  // Before the schema, so it covers every string the request carries, properties the schema would
  // strip included: PostgreSQL answers a stored NUL with an encoding error, not a 400.
  app.addHook('preValidation', async (request) => {
    const bad =
      unstorableTextIn(request.params, '/params') ?? unstorableTextIn(request.query, '/querystring') ?? unstorableTextIn(request.body, '');
    if (bad !== null) throw unstorableText(bad || '/');
    // A body schema keyed by content type (JSON or multipart) is skipped by Fastify when the request
    // has no body at all, so the handler would meet `undefined`.
    const bodySchema = request.routeOptions.schema?.body as { content?: unknown } | undefined;
    if (bodySchema?.content && request.body === undefined && !request.isMultipart()) {
      throw new AppError('VALIDATION_FAILED', 'a body is required: JSON or multipart/form-data', [{ path: '/', message: 'is required' }]);
    }
  });
  // The API speaks JSON and multipart only (conventions.md); Fastify would otherwise hand a
  // text/plain body to a JSON route as a string and answer 400 instead of 415.
  app.removeContentTypeParser('text/plain');
}

/**
 * Text PostgreSQL cannot store as sent: U+0000 (refused by the server's UTF-8 check) and a lone
 * surrogate (no UTF-8 form; the drivers would silently turn it into U+FFFD).
 */
export function isUnstorableText(value: string): boolean {
  return UNSTORABLE.test(value);
}
// Matched by UTF-16 code unit (no `u` flag): NUL, a high surrogate without its low half, a low one alone.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function unstorableText(path: string): AppError {
  const message = 'must not contain NUL (U+0000) or unpaired surrogate characters';
  return new AppError('VALIDATION_FAILED', `${path} ${message}`, [{ path, message }]);
}

/** Refuses a multipart field or file name the same way a JSON string is refused. */
export function assertStorableText(value: string | undefined, path: string): void {
  if (value !== undefined && isUnstorableText(value)) throw unstorableText(path);
}

/**
 * The JSON-pointer path of the first unstorable string (keys included) in a parsed request part,
 * or null. Iterative: a deeply nested body must not overflow the stack.
 */
function unstorableTextIn(root: unknown, rootPath: string): string | null {
  const stack: Array<[unknown, string]> = [[root, rootPath]];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (isUnstorableText(value)) return path;
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${path}/${i}`]);
    } else if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
      for (const key of Object.keys(value)) {
        const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        if (isUnstorableText(key)) return at;
        stack.push([(value as Record<string, unknown>)[key], at]);
      }
    }
  }
  return null;
}
