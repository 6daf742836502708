import { SerializerSelector, type RouteDefinition, type Serializer, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

/*
 * Compiling the routes' schemas is most of what building the app costs (about 2 s of CPU here). A
 * process that builds the app more than once (the tests build one per file, in workers that keep
 * their modules) compiles each schema object once: the route schemas are module constants, so the
 * same object always compiles to the same code. A schema object made anew per build simply misses.
 */

const defaultSerializers = SerializerSelector();
const serializers = new WeakMap<object, Array<{ key: string; externals: unknown[]; serialize: Serializer }>>();

/**
 * Fastify's serializer factory (fast-json-stringify), remembering what it compiled across app
 * builds, and compiling each answer's serializer when it is first used rather than when its route
 * is registered (issue 42): most of the 400-odd routes' answers are rarely sent, and compiling them
 * all held about 7 MB of the heap and a second or two of every start's CPU. The first answer of a
 * kind pays its compilation (milliseconds) once per process.
 */
export const cachedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = defaultSerializers(externalSchemas, options);
  // The shared schemas ($ref targets) a serializer was compiled against must be the same objects too.
  const externals = Object.values((externalSchemas ?? {}) as Record<string, unknown>);
  const settings = JSON.stringify(options ?? {});
  const compiled = (route: RouteDefinition & { contentType?: string }): Serializer => {
    if (typeof route.schema !== 'object' || route.schema === null) return compile(route);
    const key = `${route.httpStatus ?? ''}|${route.contentType ?? ''}|${settings}`;
    let done = serializers.get(route.schema);
    if (!done) serializers.set(route.schema, (done = []));
    const hit = done.find((c) => c.key === key && c.externals.length === externals.length && c.externals.every((e, i) => e === externals[i]));
    if (hit) return hit.serialize;
    const serialize = compile(route);
    done.push({ key, externals, serialize });
    return serialize;
  };
  return (route) => {
    let serialize: Serializer | undefined;
    return (data) => (serialize ??= compiled(route))(data);
  };
};

/**
 * A validator compiled at its first call (issue 42, as the serializers above). Ajv's function is
 * called with Fastify's context (its root may be coerced in place: Fastify passes the parent when
 * the function has `schemaEnv`) and its `errors` are handed on.
 */
export function compiledOnFirstUse<F extends (...args: never[]) => unknown>(compile: () => F): F {
  let validate: (F & { errors?: unknown }) | undefined;
  const lazy = ((...args: Parameters<F>) => {
    validate ??= compile();
    const result = validate(...args);
    lazy.errors = validate.errors;
    return result;
  }) as unknown as F & { errors?: unknown; schemaEnv?: unknown };
  lazy.schemaEnv = true;
  return lazy;
}
