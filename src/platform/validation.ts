import type { FastifyInstance, FastifySchema } from 'fastify';
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';

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

/**
 * Two validators: path and query values arrive as strings and are coerced to the schema's types;
 * a JSON body is validated as sent, so `{"name": 42}` is a 400, not the string "42".
 */
export function registerValidation(app: FastifyInstance): void {
  const base: Options = { removeAdditional: true, useDefaults: true, allErrors: false, strict: false };
  const make = (coerceTypes: Options['coerceTypes']) => {
    const ajv = new Ajv({ ...base, coerceTypes });
    addFormats.default(ajv);
    return ajv;
  };
  const bodyAjv = make(false);
  const stringAjv = make('array');
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? bodyAjv.compile(closeRoot(schema as JsonSchema)) : stringAjv.compile(schema as FastifySchema & object),
  );
  // The API speaks JSON and multipart only (conventions.md); Fastify would otherwise hand a
  // text/plain body to a JSON route as a string and answer 400 instead of 415.
  app.removeContentTypeParser('text/plain');
}
