import { describe, expect, it } from 'vitest';
import { expectProblem, fingerprint, useTestApp } from './app.js';
import { factories } from './factories.js';
import { multipart } from '../modules/files/files.fixtures.js';

// The reproductions of issue 12: text PostgreSQL cannot store, and body-less multi-type routes.
const kit = useTestApp();
const make = factories(kit);

describe('text PostgreSQL cannot store', () => {
  it('refuses a NUL in a registration without a credential, naming the field, and creates nobody', async () => {
    const email = `nul-${Date.now()}@example.test`;
    const res = await kit.as(null).post('/auth/register', { email, password: 'a long password', name: 'a\u0000b' });
    const body = expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(body.errors).toEqual([{ path: '/name', message: expect.stringContaining('NUL') }]);
    const login = await kit.as(null).post('/auth/login', { email, password: 'a long password' });
    expect(login.statusCode).toBe(401);
  });

  it('refuses a NUL in query strings with the parameter named', async () => {
    const owner = await kit.org();
    for (const url of ['/labels?q=%00', '/tasks/search?q=%00', '/reglaments/search?q=%00', '/notifications?type=%00']) {
      const res = await kit.as(owner).get(url);
      const body = expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(body.errors, url).toEqual([{ path: expect.stringMatching(/^\/querystring\/(q|type)$/), message: expect.any(String) }]);
    }
  });

  it('refuses NUL and lone surrogates in body strings, nested values and keys, changing nothing', async () => {
    const { owner, space, stages } = await make.board(1);
    const task = await make.task(owner, stages[0]!.id);
    const before = await fingerprint(kit, [owner.organizationId], [owner.id]);
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/labels', { name: '\u0000', color: '#112233' }, '/name'],
      ['PATCH', `/tasks/${task.id}/name`, { name: 'x\u0000' }, '/name'],
      ['PATCH', `/tasks/${task.id}/name`, { name: 'half \ud83d' }, '/name'],
      ['PATCH', `/tasks/${task.id}/name`, { name: '\udc00 low' }, '/name'],
      ['POST', '/spaces', { name: 'ok', 'extra\u0000key': 1 }, '/extra\u0000key'],
      ['PATCH', `/spaces/${space.id}/name`, { name: 'S\u0000' }, '/name'],
      ['PATCH', '/user/name', { name: 'me\u0000' }, '/name'],
      ['POST', '/user/api-tokens', { name: 't\u0000' }, '/name'],
    ];
    for (const [method, url, payload, path] of cases) {
      const res = await kit.as(owner).request(method as 'POST', url, payload);
      const body = expectProblem(res, 400, 'VALIDATION_FAILED');
      expect((body.errors as Array<{ path: string }>)[0]!.path, `${method} ${url}`).toBe(path);
    }
    expect(await fingerprint(kit, [owner.organizationId], [owner.id])).toBe(before);
  });

  it('keeps well-formed unicode, paired surrogates included', async () => {
    const { owner, stages } = await make.board(1);
    const task = await make.task(owner, stages[0]!.id);
    const res = await kit.as(owner).patch(`/tasks/${task.id}/name`, { name: 'Ship 🚀 — ünïcödé' });
    expect(res.statusCode).toBe(200);
    expect((res.json() as { task: { name: string } }).task.name).toBe('Ship 🚀 — ünïcödé');
  });

  it('refuses a NUL in a multipart text field and keeps no uploaded file', async () => {
    const { owner, stages } = await make.board(1);
    const task = await make.task(owner, stages[0]!.id);
    const before = await fingerprint(kit, [owner.organizationId], [owner.id]);
    const form = multipart([
      { name: 'files[]', data: Buffer.from('hello'), filename: 'a.txt', contentType: 'text/plain' },
      { name: 'text', data: Buffer.from('hi\u0000there') },
    ]);
    const res = await kit.app.inject({ method: 'POST', url: `/tasks/${task.id}/messages`, headers: { ...owner.headers, ...form.headers }, payload: form.payload });
    const body = expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(body.errors).toEqual([{ path: '/text', message: expect.stringContaining('NUL') }]);
    expect(await fingerprint(kit, [owner.organizationId], [owner.id])).toBe(before);
  });
});

describe('routes that take JSON or multipart', () => {
  it('answer 400 to a request with no body, changing nothing', async () => {
    const { owner, stages } = await make.board(1);
    const task = await make.task(owner, stages[0]!.id);
    const before = await fingerprint(kit, [owner.organizationId], [owner.id]);
    for (const [method, url] of [
      ['PATCH', `/tasks/${task.id}/cover`],
      ['POST', `/tasks/${task.id}/messages`],
    ] as const) {
      const res = await kit.app.inject({ method, url, headers: owner.headers });
      const body = expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(body.detail, url).toContain('body is required');
    }
    expect(await fingerprint(kit, [owner.organizationId], [owner.id])).toBe(before);
  });
});
