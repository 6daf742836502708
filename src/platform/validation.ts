import type { FastifyInstance, FastifySchema } from 'fastify';
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';

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
    (httpPart === 'body' ? bodyAjv : stringAjv).compile(schema as FastifySchema & object),
  );
}
