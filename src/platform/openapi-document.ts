/**
 * How route schemas become the OpenAPI document's operations and components. The TypeBox schemas
 * stay the only description of the API: this file names what they already say, it adds nothing.
 */

type Json = Record<string, unknown>;

const COMPONENTS = '#/components/schemas/';

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isPathParameter = (segment: string) => segment.startsWith(':') || segment.startsWith('{') || segment === '*';
const pascal = (words: string) =>
  words
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');

/** `tasks` → `task`: a collection segment followed by an id names one item of it. */
function singular(word: string): string {
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(ss|x|z|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/**
 * The operationId of a route that names none: the method, then the path's fixed segments, each
 * collection that is followed by an id in the singular. `GET /tasks` → `getTasks`,
 * `PATCH /projects/{projectId}/stages/{stageId}/color` → `patchProjectStageColor`. Derived from
 * the route alone, so ids only change when the path does; a clash fails the document (see below).
 */
export function operationIdOf(method: string, url: string): string {
  const segments = url.split('/').filter(Boolean);
  let id = method.toLowerCase();
  segments.forEach((segment, i) => {
    if (isPathParameter(segment)) return;
    const next = segments[i + 1];
    id += pascal(next !== undefined && isPathParameter(next) ? singular(segment) : segment);
  });
  return id;
}

/** `task.created` → `taskCreatedEvent`: webhooks are operations too and need ids of the same form. */
export function eventOperationId(eventType: string): string {
  const name = pascal(eventType);
  return `${name[0]!.toLowerCase()}${name.slice(1)}Event`;
}

/**
 * The named forms (schemas with an `$id`) met in route and webhook schemas. Each is documented once
 * under `components.schemas` and referred to by `$ref` wherever a route uses it, so generated
 * clients get one `Task` type instead of fifty structurally equal ones.
 *
 * The route schemas themselves are never changed: Fastify compiles its validators and serializers
 * from them, and those must not notice the document exists.
 */
export class NamedSchemas {
  private readonly forms = new Map<string, Json>();
  // The object each name was first taken from, and its JSON, to tell a reuse from a clash.
  private readonly origins = new Map<string, { schema: object; json: string }>();

  /** A copy of `node` in which every named form is a `$ref` to its component. */
  reference(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((item) => this.reference(item));
    if (!isObject(node)) return node;
    const id = node.$id;
    if (typeof id === 'string' && !id.startsWith('#')) {
      this.collect(id, node);
      return { $ref: COMPONENTS + id };
    }
    const copy: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$defs' && isObject(value)) {
        // TypeBox's cyclic types carry their parts in $defs and refer to them by bare name.
        for (const [name, part] of Object.entries(value)) if (isObject(part)) this.collect(typeof part.$id === 'string' ? part.$id : name, part);
      } else if (key === '$ref' && typeof value === 'string' && /^[A-Za-z][\w.-]*$/.test(value)) {
        copy.$ref = COMPONENTS + value;
      } else {
        copy[key] = this.reference(value);
      }
    }
    return copy;
  }

  /**
   * A route's responses, by status, with their named forms referenced. A response takes its
   * description from its schema's, so a named one keeps it beside the $ref.
   */
  referenceResponses(responses: Record<string, unknown>): Record<string, unknown> {
    return Object.fromEntries(
      Object.entries(responses).map(([status, schema]) => {
        const ref = this.reference(schema);
        const description = isObject(schema) && schema.$id !== undefined ? schema.description : undefined;
        return [status, typeof description === 'string' ? { ...(ref as Json), description } : ref];
      }),
    );
  }

  /** The collected forms, by name, in a stable (alphabetical) order. */
  components(): Record<string, Json> {
    return Object.fromEntries([...this.forms].sort(([a], [b]) => a.localeCompare(b)));
  }

  private collect(id: string, schema: Json): void {
    const origin = this.origins.get(id);
    if (origin) {
      if (origin.schema === schema) return;
      // Two schemas under one name would make the document lie about one of them.
      if (origin.json !== JSON.stringify(schema)) throw new Error(`OpenAPI: two different schemas are named "${id}"; give one of them another $id`);
      return;
    }
    // Recorded before the walk, so a form that contains itself ends instead of recursing.
    this.origins.set(id, { schema, json: JSON.stringify(schema) });
    const { $id: _id, ...rest } = schema;
    this.forms.set(id, this.reference(rest) as Json);
  }
}

const OPERATION_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Fails on an operationId used twice: a generated client would silently lose one operation. */
export function assertUniqueOperationIds(document: { paths?: Json; webhooks?: Json }): void {
  const seen = new Map<string, string>();
  const items = [...Object.entries(document.paths ?? {}), ...Object.entries(document.webhooks ?? {})];
  for (const [path, item] of items) {
    if (!isObject(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (!OPERATION_METHODS.has(method) || !isObject(operation) || typeof operation.operationId !== 'string') continue;
      const where = `${method.toUpperCase()} ${path}`;
      const previous = seen.get(operation.operationId);
      if (previous) throw new Error(`OpenAPI: operationId "${operation.operationId}" of ${where} is already used by ${previous}; set schema.operationId on one of them`);
      seen.set(operation.operationId, where);
    }
  }
}
