import { SerializerSelector, type RouteDefinition, type Serializer, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

/*
 * Compiling the routes' schemas is most of what building the app costs (about 2 s of CPU here). A
 * process that builds the app more than once (the tests build one per file, in workers that keep
 * their modules) compiles each schema object once: the route schemas are module constants, so the
 * same object always compiles to the same code. A schema object made anew per build simply misses.
 */

const defaultSerializers = SerializerSelector();
const serializers = new WeakMap<object, Array<{ key: string; externals: unknown[]; serialize: Serializer }>>();

/** Fastify's serializer factory (fast-json-stringify), remembering what it compiled across app builds. */
export const cachedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = defaultSerializers(externalSchemas, options);
  // The shared schemas ($ref targets) a serializer was compiled against must be the same objects too.
  const externals = Object.values((externalSchemas ?? {}) as Record<string, unknown>);
  const settings = JSON.stringify(options ?? {});
  return (route: RouteDefinition & { contentType?: string }): Serializer => {
    if (typeof route.schema !== 'object' || route.schema === null) return compile(route);
    const key = `${route.httpStatus ?? ''}|${route.contentType ?? ''}|${settings}`;
    let compiled = serializers.get(route.schema);
    if (!compiled) serializers.set(route.schema, (compiled = []));
    const hit = compiled.find((c) => c.key === key && c.externals.length === externals.length && c.externals.every((e, i) => e === externals[i]));
    if (hit) return hit.serialize;
    const serialize = compile(route);
    compiled.push({ key, externals, serialize });
    return serialize;
  };
};
