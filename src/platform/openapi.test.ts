import { beforeAll, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { useTestApp } from '../test/app.js';
import { ERROR_CODES } from './errors.js';
import { NamedSchemas, eventOperationId, operationIdOf } from './openapi-document.js';

const t = useTestApp();

type Json = Record<string, unknown>;
interface Document {
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Json>>;
  webhooks: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json & { properties?: Json; required?: string[] }> };
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);
// Resource forms of the spec and of routes.md, each of which a client should meet as one type.
const FORMS = [
  'Task', 'TaskWithHistory', 'HistoryRecord', 'Subtask', 'ArchivedTask', 'ColorTaskWithHistory', 'Stage', 'Project', 'ProjectFull', 'Space',
  'SpaceFull', 'SpaceMember', 'Member', 'User', 'Organization', 'ReglamentFull', 'ReglamentListItem', 'ReglamentQuestion',
  'DocumentationPage', 'DocumentationPageFull', 'DocumentationGroup', 'Message', 'Notification', 'Label', 'Webhook',
  'WebhookDelivery', 'TimeRecord', 'Timer', 'Tab', 'Template', 'TableColumn', 'TableRow', 'Session', 'ApiToken', 'Review',
];

let doc: Document;
const operations: Array<[string, Json]> = [];

/** Every `$ref` target under `node`, by component name. */
function refsIn(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((item) => refsIn(item, found));
  else if (typeof node === 'object' && node !== null) {
    const ref = (node as Json).$ref;
    if (typeof ref === 'string') found.add(ref.replace('#/components/schemas/', ''));
    Object.values(node).forEach((value) => refsIn(value, found));
  }
  return found;
}

beforeAll(async () => {
  const res = await t.as(null).get('/openapi.json');
  expect(res.statusCode).toBe(200);
  doc = res.json();
  for (const [kind, items] of [['', doc.paths], ['webhook ', doc.webhooks]] as const) {
    for (const [path, item] of Object.entries(items)) {
      for (const [method, op] of Object.entries(item)) if (METHODS.has(method)) operations.push([`${kind}${method.toUpperCase()} ${path}`, op]);
    }
  }
});

describe('the OpenAPI document', () => {
  it('names the server clients call: PUBLIC_URL', () => {
    expect(doc.servers).toEqual([{ url: t.config.publicUrl, description: expect.any(String) }]);
  });

  it('gives every operation, webhooks included, a unique camelCase operationId', () => {
    const ids = operations.map(([name, op]) => [name, op.operationId] as const);
    expect(ids.filter(([, id]) => typeof id !== 'string' || !/^[a-z][a-zA-Z0-9]*$/.test(id))).toEqual([]);
    const seen = new Map<unknown, string>();
    const clashes = ids.filter(([name, id]) => seen.has(id) || !seen.set(id, name)).map(([name, id]) => `${name} and ${seen.get(id)}: ${String(id)}`);
    expect(clashes).toEqual([]);
    expect(operations.length).toBeGreaterThan(250);
  });

  it('derives an operationId from the method and the path, an item of a collection in the singular', () => {
    expect(operationIdOf('GET', '/tasks')).toBe('getTasks');
    expect(operationIdOf('GET', '/tasks/:taskId')).toBe('getTask');
    expect(operationIdOf('PATCH', '/projects/:projectId/stages/:stageId/tasks-limit')).toBe('patchProjectStageTasksLimit');
    expect(operationIdOf('DELETE', '/user/organization/members/{userId}')).toBe('deleteUserOrganizationMember');
    expect(operationIdOf('GET', '/partner-program/statistics/year')).toBe('getPartnerProgramStatisticsYear');
    expect(operationIdOf('POST', '/reglaments/:reglamentId/passed-users')).toBe('postReglamentPassedUsers');
    expect(eventOperationId('message.reaction.added')).toBe('messageReactionAddedEvent');
    const [, op] = operations.find(([name]) => name === 'GET /tasks/{taskId}')!;
    expect(op.operationId).toBe('getTask');
  });

  it('describes each resource form once, as a component the operations refer to by $ref', () => {
    const missing = FORMS.filter((name) => doc.components.schemas[name]?.type !== 'object');
    expect(missing, 'not in components.schemas').toEqual([]);
    const fromOperations = refsIn(doc.paths);
    expect(FORMS.filter((name) => !fromOperations.has(name)), 'never referred to by an operation').toEqual([]);
    const responses = (name: string) => operations.find(([n]) => n === name)![1].responses as Record<string, Json>;
    expect(responses('GET /tasks/{taskId}')['200']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/Task' } } } });
    expect(responses('GET /spaces')['200']).toMatchObject({
      content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Space' } } } },
    });
    // Forms inside forms are references too: one Stage type, wherever it appears.
    expect(refsIn(doc.components.schemas.ProjectFull)).toContain('Stage');
    expect(refsIn(doc.components.schemas.TaskWithHistory)).toEqual(new Set(['Task', 'HistoryRecord']));
  });

  it('copies no named form inline: nothing in an operation has the same fields as a component', () => {
    const byFields = new Map<string, string>();
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      const fields = Object.keys(schema.properties ?? {});
      if (fields.length >= 3) byFields.set(fields.sort().join(','), name);
    }
    const copies: string[] = [];
    const visit = (node: unknown, where: string) => {
      if (Array.isArray(node)) return node.forEach((item) => visit(item, where));
      if (typeof node !== 'object' || node === null) return;
      const properties = (node as Json).properties;
      if (typeof properties === 'object' && properties !== null) {
        const name = byFields.get(Object.keys(properties).sort().join(','));
        if (name) copies.push(`${where}: an inline copy of ${name}`);
      }
      Object.values(node).forEach((value) => visit(value, where));
    };
    for (const [name, op] of operations) visit(op, name);
    expect(copies).toEqual([]);
  });

  it('lists the error catalogue as the enum of Problem.code', () => {
    const code = (doc.components.schemas.Problem!.properties as Record<string, Json>).code;
    expect(code).toMatchObject({ type: 'string', enum: Object.keys(ERROR_CODES) });
    expect(code!.enum).toEqual(expect.arrayContaining(['VALIDATION_FAILED', 'NOT_FOUND', 'STAGE_TASKS_LIMIT', 'RATE_LIMITED', 'INTERNAL']));
  });
});

describe('NamedSchemas', () => {
  it('documents a TypeBox cyclic type as a component that refers to itself', () => {
    const named = new NamedSchemas();
    const Node = Type.Cyclic({ Node: Type.Object({ children: Type.Array(Type.Ref('Node')) }) }, 'Node');
    expect(named.reference(Type.Object({ tree: Node }))).toEqual({
      type: 'object',
      required: ['tree'],
      properties: { tree: { $ref: '#/components/schemas/Node' } },
    });
    expect(named.components().Node).toMatchObject({ properties: { children: { items: { $ref: '#/components/schemas/Node' } } } });
  });

  it('refuses two different schemas under one name', () => {
    const named = new NamedSchemas();
    named.reference(Type.Object({ a: Type.String() }, { $id: 'Thing' }));
    expect(named.reference(Type.Object({ a: Type.String() }, { $id: 'Thing' }))).toEqual({ $ref: '#/components/schemas/Thing' });
    expect(() => named.reference(Type.Object({ b: Type.String() }, { $id: 'Thing' }))).toThrow(/two different schemas are named "Thing"/);
  });
});

describe('GET /docs', () => {
  it('is self-contained: scripts, styles and icons come from this service, and its CSP allows nothing else', async () => {
    const page = await t.as(null).get('/docs');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const assets = [...page.body.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(4);
    expect(assets.filter((url) => !url.startsWith('/docs/static/'))).toEqual([]);
    for (const url of assets) {
      const asset = await t.as(null).get(url);
      expect(asset.statusCode, url).toBe(200);
      // Fonts and images would come in through the styles: none from elsewhere.
      if (url.endsWith('.css')) expect(asset.body, url).not.toMatch(/@import|url\(\s*["']?(https?:)?\/\//);
    }
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    const hosts = csp.match(/[a-z]+:\/\/[^\s;]+/g) ?? [];
    expect(hosts.filter((host) => host !== new URL(t.config.publicUrl).origin)).toEqual([]);
  });

  it('loads the document from this service and calls no validator service', async () => {
    const init = await t.as(null).get('/docs/static/swagger-initializer.js');
    expect(init.statusCode).toBe(200);
    expect(init.body).toContain('validatorUrl: null');
    expect(init.body).toContain("resolveUrl('./json')");
    expect(init.body).toContain('"layout":"BaseLayout"');
  });
});
