import { beforeAll, describe, expect, it } from 'vitest';
import { compileErrors, validate } from '@readme/openapi-parser';
import { EVENT_TYPES } from '../platform/event-types.js';
import { useTestApp } from './app.js';

const t = useTestApp();

interface Operation {
  tags?: string[];
  security?: unknown[];
  requestBody?: { content: Record<string, { schema?: Record<string, unknown> }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}
type Document = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Record<string, unknown>>; schemas: Record<string, unknown> };
  security: unknown[];
};

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);
// The foundation's operations that need no credential.
const PUBLIC = ['GET /health', 'GET /ready', 'POST /auth/register', 'POST /auth/login'];
// Every exception conventions.md allows: register, login, invite-link data, public documentation
// pages, the messenger/cloud-drive callbacks (their own secret), health and readiness.
const MAY_BE_PUBLIC = [
  /^GET \/(health|ready)$/,
  /^POST \/auth\/(register|login)$/,
  // The second step of a password sign-in: the challenge it carries stands in for the password just given.
  /^POST \/auth\/login\/two-factor$/,
  // Passkeys (issue 41) are a way to log in too: a sign-in with one alone, or as a password sign-in's second step.
  /^POST \/auth\/passkey(\/options)?$/,
  /^POST \/auth\/login\/two-factor\/passkey(\/options)?$/,
  // Single sign-on (issue 41) is the other way to log in: its status, start and callback come before any credential.
  /^GET \/auth\/oidc(\/authorization-url)?$/,
  /^POST \/auth\/oidc\/callback$/,
  // Where an MCP client learns how to authorize (RFC 9728): asked before it has any credential.
  /^GET \/\.well-known\/oauth-protected-resource$/,
  // Email (issue 44): a forgotten password, an address to confirm and a one-click unsubscribe come
  // before any credential; the emailed token stands in for one (and asking for a reset link is rate-limited).
  /^POST \/auth\/password-reset(\/confirm)?$/,
  /^POST \/auth\/verify-email$/,
  /^POST \/email\/unsubscribe$/,
  /^GET \/invite-links\/\{[^}]+\}$/,
  // An emailed invitation (issue 44) is invite-link data sent to one address: what it leads to, and
  // accepting it by creating the account (the token stands in for a credential; rate-limited as sign-up).
  /^GET \/invitations\/\{[^}]+\}$/,
  /^POST \/invitations\/\{[^}]+\}\/register$/,
  /^GET \/public\//,
  /^POST \/integrations\/messenger\/bot-login$/,
  /^GET \/integrations\/cloud-drive\/callback$/,
];
const isPublic = (op: Operation) => Array.isArray(op.security) && op.security.length === 0;

let doc: Document;
let operations: Array<[string, Operation]>;

beforeAll(async () => {
  const res = await t.as(null).get('/openapi.json');
  expect(res.statusCode).toBe(200);
  doc = res.json();
  operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]),
  );
});

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document that validates', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    // validate() dereferences in place: give it a copy.
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('declares both credentials: the Service-Session header and a bearer token', () => {
    expect(doc.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'header', name: 'Service-Session' });
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ session: [] }, { bearer: [] }]);
  });

  it('documents the foundation’s operations', () => {
    const names = operations.map(([name]) => name);
    for (const name of [
      ...PUBLIC,
      'GET /user',
      'PATCH /user/avatar',
      'PATCH /user/password',
      'GET /user/organization',
      'PATCH /user/organization/owner',
      'DELETE /user/organization/members/{userId}',
      'POST /reviews',
      'GET /files/{key}',
    ]) {
      expect(names).toContain(name);
    }
    expect(names).not.toContain('GET /openapi.json');
    expect(names.filter((n) => n.startsWith('GET /docs'))).toEqual([]);
  });

  it('gives every operation tags and a success response with a schema (or 204, or a described redirect)', () => {
    const missing: string[] = [];
    for (const [name, op] of operations) {
      if (!op.tags?.length) missing.push(`${name}: no tags`);
      const ok = Object.entries(op.responses).filter(([status]) => /^[23]\d\d$/.test(status));
      const described = ok.some(
        ([status, r]) => status === '204' || /^3\d\d$/.test(status) || Object.values(r.content ?? {}).some((m) => m.schema !== undefined),
      );
      if (!described) missing.push(`${name}: no 2xx response schema`);
    }
    expect(missing).toEqual([]);
  });

  it('lists the problem responses of every operation; only the allowed exceptions are public', () => {
    const problems: string[] = [];
    for (const [name, op] of operations) {
      const open = isPublic(op);
      if (open && !MAY_BE_PUBLIC.some((pattern) => pattern.test(name))) problems.push(`${name}: public, but conventions.md allows no credential-free access`);
      if (!open && op.security !== undefined) problems.push(`${name}: overrides the document's security`);
      const expected = open ? ['429', '500'] : ['401', '403', '404', '429', '500'];
      for (const status of expected) {
        const media = op.responses[status]?.content?.['application/problem+json'];
        if (!media?.schema) problems.push(`${name}: no ${status} problem response`);
      }
      if (open && op.responses['401']) problems.push(`${name}: public, yet lists 401`);
      if ((op.requestBody || name.includes('{')) && !op.responses['400']) problems.push(`${name}: takes input but lists no 400`);
      if (op.requestBody && !op.responses['415']) problems.push(`${name}: takes a body but lists no 415`);
    }
    expect(problems).toEqual([]);
    const open = operations.filter(([, op]) => isPublic(op)).map(([name]) => name);
    expect(open).toEqual(expect.arrayContaining(PUBLIC));
  });

  it('describes the Problem schema once and refers to it', () => {
    expect(doc.components.schemas.Problem).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['type', 'title', 'status', 'code', 'requestId']),
    });
    const [, op] = operations.find(([name]) => name === 'GET /user')!;
    expect(op.responses['401']!.content!['application/problem+json']!.schema).toEqual({ $ref: '#/components/schemas/Problem' });
  });

  it('lists only the errors a route can give: a route without input has no 400', () => {
    const [, me] = operations.find(([name]) => name === 'GET /user')!;
    expect(me.responses['400']).toBeUndefined();
    const [, health] = operations.find(([name]) => name === 'GET /health')!;
    expect(Object.keys(health.responses).sort()).toEqual(['200', '429', '500']);
  });

  it('shows an upload route’s multipart form', () => {
    for (const name of ['PATCH /user/avatar', 'PATCH /user/organization/avatar']) {
      const [, op] = operations.find(([n]) => n === name)!;
      expect(op.requestBody?.content['multipart/form-data']?.schema, name).toMatchObject({
        type: 'object',
        required: ['file'],
        properties: { file: { type: 'string', format: 'binary' } },
      });
      expect(op.responses['413'], name).toBeDefined();
    }
  });
});

describe('GET /docs', () => {
  it('answers 200 text/html without a credential, at /docs and /docs/', async () => {
    for (const url of ['/docs', '/docs/']) {
      const res = await t.as(null).get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('swagger-ui-bundle.js');
    }
  });

  it('serves the reference script it loads and the document it renders', async () => {
    const script = await t.as(null).get('/docs/static/swagger-ui-bundle.js');
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    const json = await t.as(null).get('/docs/json');
    expect(json.statusCode).toBe(200);
    expect(json.json()).toEqual(doc);
  });

  it('documents every event type as an OpenAPI webhook with its envelope and payload schema', () => {
    type Narrowed = { $ref?: string; properties?: Record<string, { const?: string }> };
    const webhooks = (doc as unknown as { webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: { allOf: Narrowed[] } }> } } }> }).webhooks;
    expect(Object.keys(webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    expect(Object.keys((doc.components.schemas.EventEnvelope as { properties: object }).properties).sort()).toEqual(
      ['actorId', 'at', 'id', 'organizationId', 'payload', 'projectId', 'spaceId', 'taskId', 'type'],
    );
    for (const type of EVENT_TYPES) {
      // The shared envelope, narrowed to this event's type and payload.
      const [envelope, narrowed] = webhooks[type]!.post.requestBody.content['application/json']!.schema.allOf;
      expect(envelope).toEqual({ $ref: '#/components/schemas/EventEnvelope' });
      expect(narrowed!.properties!.type).toMatchObject({ const: type });
      expect(Object.keys(narrowed!.properties!).sort()).toEqual(['payload', 'type']);
    }
  });
});
