import { Type, type TSchema } from 'typebox';
import { ERROR_CODES } from './errors.js';

// Building blocks reused by every module's schemas.
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const Id = (description = 'identifier') => Type.Integer({ minimum: 1, maximum: 9007199254740991, description });
export const DateTime = (description = 'ISO 8601 UTC date-time with milliseconds') =>
  Type.String({ format: 'date-time', description });
export const DateOnly = (description = 'date, YYYY-MM-DD') => Type.String({ format: 'date', description });
export const Name = (description = 'name, 1-500 characters') =>
  Type.String({ minLength: 1, maxLength: 500, pattern: '\\S', description });
/** `order` in requests: an integer, or a numeric string (both are accepted per conventions.md). */
export const OrderIn = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]{1,9}$' })], {
  description: 'position, 0-based; an integer or a numeric string',
});
export const OrderOut = Type.String({ pattern: '^[0-9]+$', description: 'position, a numeric string' });
export const Color = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'colour #RRGGBB' });

export const IdParams = <K extends string>(...names: K[]) =>
  Type.Object(Object.fromEntries(names.map((n) => [n, Id()])) as { [P in K]: ReturnType<typeof Id> });

export const FieldErrorSchema = Type.Object({ path: Type.String(), message: Type.String() });
export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.Optional(Type.String()),
    // From the catalogue, so a new code is documented the moment it exists.
    code: Type.String({ enum: Object.keys(ERROR_CODES), description: 'stable UPPER_SNAKE_CASE error code (platform/errors.ts)' }),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
    requestId: Type.String(),
  },
  { $id: 'Problem', description: 'RFC 9457 problem document' },
);

// No $id: a response holding two lists of files (project documentation) would name it twice, which
// the serializer refuses.
export const FileSchema = Type.Object({
  id: Type.Integer(),
  link: Type.String({ description: 'authenticated download path' }),
  name: Type.String(),
  size: Type.Integer(),
  mimeType: Type.String(),
});

export const orderToInt = (order: number | string | undefined | null): number | undefined =>
  order === undefined || order === null ? undefined : Number(order);
