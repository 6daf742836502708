import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';
import { PASSWORD, useTestApp } from '../test/app.js';

/**
 * The document is only as good as the client it yields: types are generated from the live
 * document, a small client written against them must type-check (strict), and then it runs.
 */

const t = useTestApp();

// Under the repository, so the client resolves openapi-fetch from its node_modules.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cache = path.join(root, 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const dir = mkdtempSync(path.join(cache, 'openapi-client-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Register, create a space, read it back: typed paths, bodies, parameters and answers.
const CLIENT = `import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type Space = components['schemas']['SpaceFull'];
type ErrorCode = components['schemas']['Problem']['code'];

export async function scenario(baseUrl: string, fetch: typeof globalThis.fetch, email: string, password: string): Promise<Space> {
  const api = createClient<paths>({ baseUrl, fetch });
  const registered = await api.POST('/auth/register', { body: { email, password, name: 'Typed Client' } });
  if (registered.error) throw new Error(registered.error.code);
  const headers = { 'Service-Session': registered.data.session };
  const created = await api.POST('/spaces', { headers, body: { name: 'Typed space', icon: null } });
  if (created.error) throw new Error(created.error.code);
  const spaceId: number = created.data.id;
  const read = await api.GET('/spaces/{spaceId}', { headers, params: { path: { spaceId } } });
  if (read.error) throw new Error(read.error.code);
  const missing = await api.GET('/spaces/{spaceId}', { headers, params: { path: { spaceId: 999_999_999 } } });
  const code: ErrorCode | undefined = missing.error?.code;
  if (code !== 'NOT_FOUND') throw new Error('expected NOT_FOUND, got ' + String(code));
  return read.data;
}

// The types are precise, not \`any\`: each of these must fail to compile.
export async function misuse(api: ReturnType<typeof createClient<paths>>): Promise<void> {
  // @ts-expect-error no such path
  await api.GET('/spaces/{spaceId}/nothing', { params: { path: { spaceId: 1 } } });
  // @ts-expect-error the path parameter is a number
  await api.GET('/spaces/{spaceId}', { params: { path: { spaceId: 'one' } } });
  // @ts-expect-error a space needs a name
  await api.POST('/spaces', { body: { icon: null } });
  // @ts-expect-error not a code of the catalogue
  const code: ErrorCode = 'NO_SUCH_CODE';
  const task = (await api.GET('/tasks/{taskId}', { params: { path: { taskId: 1 } } })).data;
  // @ts-expect-error a task's stages are objects, not ids
  const stageId: number | undefined = task?.stages[0];
  void code;
  void stageId;
}
`;

/** openapi-fetch's fetch, answered by the app in process. */
async function injectFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const url = new URL(request.url);
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  const res = await t.app.inject({
    method: request.method as 'GET',
    url: url.pathname + url.search,
    headers: Object.fromEntries(request.headers),
    ...(body ? { payload: body } : {}),
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, String(value));
  return new Response(res.statusCode === 204 ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, headers });
}

it('yields a client that type-checks strictly and works against the service', { timeout: 120_000 }, async () => {
  const document = (await t.as(null).get('/openapi.json')).json();
  writeFileSync(path.join(dir, 'api.d.ts'), astToString(await openapiTS(document, { silent: true })));
  const client = path.join(dir, 'client.ts');
  writeFileSync(client, CLIENT);

  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    noUnusedLocals: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
  };
  const program = ts.createProgram([client], options);
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.formatDiagnostic(d, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => '\n' }));
  expect(diagnostics).toEqual([]);

  // The same client, run: the document's paths and forms are the ones the service answers.
  const runnable = path.join(dir, 'client.mjs');
  writeFileSync(runnable, ts.transpileModule(CLIENT, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).outputText);
  const { scenario } = (await import(pathToFileURL(runnable).href)) as {
    scenario: (baseUrl: string, fetch: typeof globalThis.fetch, email: string, password: string) => Promise<{ name: string; id: number }>;
  };
  const space = await scenario(t.config.publicUrl, injectFetch, `client-${randomUUID()}@example.test`, PASSWORD);
  expect(space).toMatchObject({ name: 'Typed space', id: expect.any(Number) });
});
