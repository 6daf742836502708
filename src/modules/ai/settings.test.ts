import dns from 'node:dns';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectProblem, useTestApp, type TestKit, type TestUser } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { SecretBox } from '../../platform/secrets.js';
import { AI_TEST_CONFIG, useFakeProviders } from './ai.fixtures.js';

const t = useTestApp({ ...AI_TEST_CONFIG, aiTimeoutMs: 1000 });
const fakes = useFakeProviders();
const KEY = 'sk-test-very-secret-key-9f3c';

const openAiSettings = () => ({ provider: 'openai-compatible', baseUrl: `${fakes.openai.url}/v1`, apiKey: KEY, model: 'gpt-test', temperature: 0.3, maxTokens: 500, embeddingModel: 'embed-test' });

async function configured(kit: TestKit, body: Record<string, unknown> = openAiSettings()): Promise<TestUser> {
  const owner = await kit.org();
  const res = await kit.as(owner).put('/ai/llm-settings', body);
  if (res.statusCode !== 201) throw new Error(`settings: ${res.statusCode} ${res.body}`);
  return owner;
}

describe('LLM settings', () => {
  it('PUT creates (201), replaces (200), and the key is write-only and encrypted at rest', async () => {
    const owner = await t.org();
    const created = await t.as(owner).put('/ai/llm-settings', openAiSettings());
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      provider: 'openai-compatible',
      baseUrl: `${fakes.openai.url}/v1`,
      apiKeySet: true,
      apiKeyLast4: '9f3c',
      model: 'gpt-test',
      embeddingModel: 'embed-test',
      temperature: 0.3,
      maxTokens: 500,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(created.body).not.toContain(KEY);
    const [row] = await t.sql<{ api_key_encrypted: string }>(sql`select api_key_encrypted from ai_llm_settings where organization_id = ${owner.organizationId}`);
    expect(row!.api_key_encrypted).toMatch(/^v1\./);
    expect(row!.api_key_encrypted).not.toContain('secret');

    const replaced = await t.as(owner).put('/ai/llm-settings', { provider: 'ollama', baseUrl: fakes.ollama.url, model: 'llama3:8b' });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toMatchObject({ provider: 'ollama', apiKeySet: false, apiKeyLast4: null, temperature: 0.2, maxTokens: null, embeddingModel: null });
    const read = await t.as(owner).get('/ai/llm-settings');
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(replaced.json());
  });

  it('GET answers 404 when nothing is configured', async () => {
    expectProblem(await t.as(await t.org()).get('/ai/llm-settings'), 404, 'NOT_FOUND');
  });

  it('PATCH changes some fields, keeps the key, removes it with null, and asks for it again when the host moves', async () => {
    const owner = await configured(t);
    const patched = await t.as(owner).patch('/ai/llm-settings', { model: 'gpt-other', temperature: 1.5 });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ model: 'gpt-other', temperature: 1.5, apiKeySet: true, apiKeyLast4: '9f3c' });

    const moved = await t.as(owner).patch('/ai/llm-settings', { baseUrl: `${fakes.ollama.url.replace('127.0.0.1', '127.0.0.1')}/v1` });
    expectProblem(moved, 400, 'VALIDATION_FAILED');
    expect((await t.as(owner).get('/ai/llm-settings')).json().baseUrl).toBe(`${fakes.openai.url}/v1`);

    const cleared = await t.as(owner).patch('/ai/llm-settings', { apiKey: null });
    expect(cleared.json()).toMatchObject({ apiKeySet: false, apiKeyLast4: null });
    expectProblem(await t.as(await t.org()).patch('/ai/llm-settings', { model: 'x' }), 404, 'NOT_FOUND');
  });

  it('DELETE removes the settings and the key', async () => {
    const owner = await configured(t);
    const res = await t.as(owner).delete('/ai/llm-settings');
    expect(res.statusCode).toBe(204);
    expect(await t.sql(sql`select 1 from ai_llm_settings where organization_id = ${owner.organizationId}`)).toEqual([]);
    expectProblem(await t.as(owner).delete('/ai/llm-settings'), 404, 'NOT_FOUND');
  });

  it.each([
    ['https://10.0.0.1/v1', 'baseUrl host 10.0.0.1 is a private address'],
    ['https://169.254.169.254/v1', 'baseUrl host 169.254.169.254 is a link-local address'],
    ['http://llm.example.com/v1', 'baseUrl must use https (http only for hosts on OUTBOUND_ALLOWED_HOSTS)'],
    ['https://localhost/v1', 'baseUrl host localhost is this machine'],
  ])('refuses the baseUrl %s (SSRF) with 400, saving nothing', async (baseUrl, detail) => {
    const owner = await t.org();
    const res = await t.as(owner).put('/ai/llm-settings', { ...openAiSettings(), baseUrl });
    expect(expectProblem(res, 400, 'OUTBOUND_URL_FORBIDDEN').detail).toBe(detail);
    expectProblem(await t.as(owner).get('/ai/llm-settings'), 404, 'NOT_FOUND');
  });

  it('refuses an embedding model with anthropic, which has no embeddings API', async () => {
    const owner = await t.org();
    const res = await t.as(owner).put('/ai/llm-settings', { provider: 'anthropic', baseUrl: fakes.anthropic.url, apiKey: KEY, model: 'claude-test', embeddingModel: 'x' });
    expectProblem(res, 400, 'VALIDATION_FAILED');
  });

  it('answers 409 when the stored key was saved under another SECRETS_KEY', async () => {
    const owner = await configured(t);
    // Another key's ciphertext (what a changed SECRETS_KEY makes of every stored key).
    const other = SecretBox.fromKey(Buffer.alloc(32, 7).toString('base64'));
    await t.sql(sql`update ai_llm_settings set api_key_encrypted = ${other.encrypt(KEY, `ai.llm-settings.api-key:${owner.organizationId}`)} where organization_id = ${owner.organizationId}`);
    expect(expectProblem(await t.as(owner).get('/ai/llm-settings/models'), 409, 'CONFLICT').detail).toContain('save apiKey again');
  });

  it('never writes the key to a log line', async () => {
    await configured(t);
    expect(t.logs.join('\n')).not.toContain(KEY);
  });
});

describe('GET /ai/llm-settings/models', () => {
  it('lists an OpenAI-compatible server’s models, sending the key as a bearer token', async () => {
    const owner = await configured(t);
    const res = await t.as(owner).get('/ai/llm-settings/models');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: 'gpt-test', name: 'gpt-test', contextWindow: 8192 },
      { id: 'embed-test', name: 'embed-test', contextWindow: null },
    ]);
    const call = fakes.openai.requests.at(-1)!;
    expect(call).toMatchObject({ method: 'GET', path: '/v1/models' });
    expect(call.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('lists Anthropic’s models (with the key) and Ollama’s (/api/tags)', async () => {
    const a = await configured(t, { provider: 'anthropic', baseUrl: fakes.anthropic.url, apiKey: KEY, model: 'claude-test' });
    expect((await t.as(a).get('/ai/llm-settings/models')).json()).toEqual([{ id: 'claude-test', name: 'Claude Test', contextWindow: null }]);
    // The SDK sends the key as x-api-key or, since its 1.x, as a bearer token; and its API version.
    const headers = fakes.anthropic.requests.at(-1)!.headers;
    expect(headers['x-api-key'] ?? headers.authorization?.replace(/^Bearer /, '')).toBe(KEY);
    expect(headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const o = await configured(t, { provider: 'ollama', baseUrl: fakes.ollama.url, model: 'llama3:8b' });
    expect((await t.as(o).get('/ai/llm-settings/models')).json()).toEqual([{ id: 'llama3:8b', name: 'llama3:8b', contextWindow: null }]);
  });

  it('answers 502 AI_PROVIDER_FAILED with the provider status and never the key', async () => {
    const owner = await configured(t);
    fakes.openai.failures.push({ status: 401 });
    const res = await t.as(owner).get('/ai/llm-settings/models');
    expect(expectProblem(res, 502, 'AI_PROVIDER_FAILED').detail).toBe('the LLM provider answered HTTP 401');
    expect(res.body).not.toContain('sk-test');
  });

  it('retries once on 429 honouring retry-after, and once only on 5xx', async () => {
    const owner = await configured(t);
    const before = fakes.openai.requests.length;
    fakes.openai.failures.push({ status: 429, headers: { 'retry-after': '0.2' } });
    const started = Date.now();
    expect((await t.as(owner).get('/ai/llm-settings/models')).statusCode).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(fakes.openai.requests.length - before).toBe(2);

    fakes.openai.failures.push({ status: 503 }, { status: 500 }, { status: 500 });
    const failed = await t.as(owner).get('/ai/llm-settings/models');
    expect(expectProblem(failed, 502, 'AI_PROVIDER_FAILED').detail).toBe('the LLM provider answered HTTP 500');
    expect(fakes.openai.requests.length - before).toBe(4);
    fakes.openai.failures.length = 0;

    // A wait longer than AI_MAX_RETRY_AFTER_MS is not waited for.
    fakes.openai.failures.push({ status: 429, headers: { 'retry-after': '3600' } });
    expect(expectProblem(await t.as(owner).get('/ai/llm-settings/models'), 502, 'AI_PROVIDER_FAILED').detail).toBe('the LLM provider answered HTTP 429');
    expect(fakes.openai.requests.length - before).toBe(5);
  });

  it('gives up on a provider that does not answer within AI_TIMEOUT_MS', async () => {
    const owner = await configured(t, { provider: 'ollama', baseUrl: fakes.ollama.url, model: 'llama3:8b' });
    fakes.ollama.delayMs = 1500;
    try {
      const res = await t.as(owner).get('/ai/llm-settings/models');
      expect(expectProblem(res, 502, 'AI_PROVIDER_FAILED').detail).toBe('the LLM provider did not answer within 1000 ms');
    } finally {
      fakes.ollama.delayMs = 0;
    }
  });
});

describe('the outbound guard at call time', () => {
  afterEach(() => vi.restoreAllMocks());

  it('refuses a provider host that resolved to a public address when saved but to loopback when called (DNS rebinding)', async () => {
    vi.spyOn(dns.promises, 'lookup').mockResolvedValue([{ address: '93.184.215.14', family: 4 }] as never);
    const owner = await configured(t, { provider: 'openai-compatible', baseUrl: 'https://llm.example.com/v1', apiKey: KEY, model: 'gpt-test' });
    vi.spyOn(dns, 'lookup').mockImplementation(((_h: string, _o: unknown, cb: (e: null, a: dns.LookupAddress[]) => void) =>
      cb(null, [{ address: '127.0.0.1', family: 4 }])) as never);
    const res = await t.as(owner).get('/ai/llm-settings/models');
    expect(expectProblem(res, 502, 'AI_PROVIDER_FAILED').detail).toBe(
      'the LLM provider could not be reached: llm.example.com resolves to an address LLM providers may not target (loopback, private, link-local or reserved)',
    );
    expect(res.body).not.toContain('127.0.0.1');
  });
});

const refusals = (method: 'GET' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, badBody?: unknown) =>
  commonCases(t, `${method} ${url}`, {
    method,
    foreignId: false,
    setup: async (kit) => {
      const owner = await configured(kit);
      return { url, owner, body, badBody, forbidden: await kit.member(owner, 'member') };
    },
  });

refusals('GET', '/ai/llm-settings');
refusals('GET', '/ai/llm-settings/models');
refusals('PUT', '/ai/llm-settings', { provider: 'ollama', baseUrl: 'http://127.0.0.1:9', model: 'm' }, { provider: 'gpt', baseUrl: 'x', model: 'm' });
refusals('PATCH', '/ai/llm-settings', { temperature: 1 }, { temperature: 3 });
refusals('DELETE', '/ai/llm-settings');
