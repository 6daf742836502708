import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { TestKit, TestUser } from '../../test/app.js';

/** A key for the test apps (PostgreSQL has no generated one). */
export const TEST_SECRETS_KEY = randomBytes(32).toString('base64');
export const AI_TEST_CONFIG = { outboundAllowedHosts: ['127.0.0.1'], secretsKey: TEST_SECRETS_KEY, aiTimeoutMs: 3000, aiMaxRetryAfterMs: 2000 };

export interface Recorded {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

interface Failure {
  status: number;
  headers?: Record<string, string>;
}

/**
 * A small fake of a provider on 127.0.0.1 that speaks the real wire format of one protocol
 * (OpenAI Chat Completions/Embeddings/Models, Anthropic Messages/Models, Ollama's native API),
 * records every request, and fails the next calls on demand.
 */
export interface FakeProvider {
  url: string;
  requests: Recorded[];
  /** Answers the next requests with these statuses first. */
  failures: Failure[];
  /** The text the model answers (streamed in three pieces). */
  answer: string;
  /** Answer headers only after this many ms. */
  delayMs: number;
  /** A streamed answer breaks off (the connection is destroyed) after its first piece. */
  breakStream: boolean;
  close(): Promise<void>;
}

/** A deterministic embedding: words hashed into 16 dimensions. */
export function fakeEmbedding(text: string): number[] {
  const v = new Array<number>(16).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 0;
    for (const c of word) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    v[h % 16]! += 1;
  }
  return v;
}

const pieces = (text: string) => {
  const third = Math.ceil(text.length / 3);
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)].filter(Boolean);
};

type Handler = (req: Recorded, res: http.ServerResponse, fake: FakeProvider) => void;

async function fakeServer(handler: Handler): Promise<FakeProvider> {
  const fake = { requests: [] as Recorded[], failures: [] as Failure[], answer: 'The deploy window is Friday [1].', delayMs: 0, breakStream: false } as FakeProvider;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const recorded: Recorded = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: raw ? JSON.parse(raw) : null };
      fake.requests.push(recorded);
      setTimeout(() => {
        const failure = fake.failures.shift();
        if (failure) {
          res.writeHead(failure.status, { 'content-type': 'application/json', ...failure.headers });
          res.end(JSON.stringify({ error: { message: 'Incorrect API key provided: sk-test-...cret', type: 'fake' } }));
          return;
        }
        handler(recorded, res, fake);
      }, fake.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

const json = (res: http.ServerResponse, body: unknown, status = 200) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const sse = (res: http.ServerResponse, events: Array<{ event?: string; data: unknown }>) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`);
  res.end();
};

export const fakeOpenAi = () =>
  fakeServer((req, res, fake) => {
    if (req.method === 'GET' && req.path === '/v1/models') {
      return json(res, { object: 'list', data: [{ id: 'gpt-test', object: 'model', created: 0, owned_by: 'fake', context_window: 8192 }, { id: 'embed-test', object: 'model', created: 0, owned_by: 'fake' }] });
    }
    if (req.method === 'POST' && req.path === '/v1/embeddings') {
      const input: string[] = Array.isArray(req.body.input) ? req.body.input : [req.body.input];
      return json(res, { object: 'list', model: req.body.model, data: input.map((t, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(t) })), usage: { prompt_tokens: input.length * 5, total_tokens: input.length * 5 } });
    }
    if (req.method === 'POST' && req.path === '/v1/chat/completions') {
      const base = { id: 'chatcmpl-1', created: 0, model: req.body.model };
      if (!req.body.stream) {
        return json(res, { ...base, object: 'chat.completion', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: fake.answer } }], usage: { prompt_tokens: 120, completion_tokens: 12, total_tokens: 132 } });
      }
      const chunk = (delta: object, extra: object = {}) => ({ data: { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }], ...extra } });
      if (fake.breakStream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify(chunk({ content: 'The deploy' }).data)}\n\n`);
        setTimeout(() => res.destroy(), 50);
        return;
      }
      return sse(res, [
        chunk({ role: 'assistant', content: '' }),
        ...pieces(fake.answer).map((p) => chunk({ content: p })),
        { data: { ...base, object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 120, completion_tokens: 12, total_tokens: 132 } } },
        { data: '[DONE]' },
      ]);
    }
    json(res, { error: { message: 'not found' } }, 404);
  });

export const fakeAnthropic = () =>
  fakeServer((req, res, fake) => {
    if (req.method === 'GET' && req.path.startsWith('/v1/models')) {
      return json(res, { data: [{ type: 'model', id: 'claude-test', display_name: 'Claude Test', created_at: '2026-01-01T00:00:00Z' }], has_more: false, first_id: 'claude-test', last_id: 'claude-test' });
    }
    if (req.method === 'POST' && req.path === '/v1/messages') {
      const message = { id: 'msg_1', type: 'message', role: 'assistant', model: req.body.model, stop_reason: null, stop_sequence: null };
      if (!req.body.stream) {
        return json(res, { ...message, stop_reason: 'end_turn', content: [{ type: 'text', text: fake.answer }], usage: { input_tokens: 150, output_tokens: 15 } });
      }
      return sse(res, [
        { event: 'message_start', data: { type: 'message_start', message: { ...message, content: [], usage: { input_tokens: 150, output_tokens: 1 } } } },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
        ...pieces(fake.answer).map((p) => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: p } } })),
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 15 } } },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ]);
    }
    json(res, { type: 'error', error: { type: 'not_found_error', message: 'not found' } }, 404);
  });

export const fakeOllama = () =>
  fakeServer((req, res, fake) => {
    if (req.method === 'GET' && req.path === '/api/tags') return json(res, { models: [{ name: 'llama3:8b', model: 'llama3:8b' }] });
    if (req.method === 'POST' && req.path === '/api/embed') {
      return json(res, { model: req.body.model, embeddings: (req.body.input as string[]).map(fakeEmbedding), prompt_eval_count: 7 });
    }
    if (req.method === 'POST' && req.path === '/api/chat') {
      if (!req.body.stream) return json(res, { model: req.body.model, message: { role: 'assistant', content: fake.answer }, done: true, prompt_eval_count: 90, eval_count: 9 });
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      for (const p of pieces(fake.answer)) res.write(JSON.stringify({ model: req.body.model, message: { role: 'assistant', content: p }, done: false }) + '\n');
      res.end(JSON.stringify({ model: req.body.model, message: { role: 'assistant', content: '' }, done: true, prompt_eval_count: 90, eval_count: 9 }) + '\n');
      return;
    }
    json(res, { error: 'not found' }, 404);
  });

/** Starts the fakes for a test file and stops them after it. */
export function useFakeProviders(): { openai: FakeProvider; anthropic: FakeProvider; ollama: FakeProvider } {
  const fakes = {} as { openai: FakeProvider; anthropic: FakeProvider; ollama: FakeProvider };
  beforeAll(async () => {
    Object.assign(fakes, { openai: await fakeOpenAi(), anthropic: await fakeAnthropic(), ollama: await fakeOllama() });
  });
  afterAll(async () => {
    await Promise.all(Object.values(fakes).map((f) => f.close()));
  });
  return fakes;
}

type Json = Record<string, any> & { id: number };

function made(res: { statusCode: number; body: string; json(): unknown }, what: string): Json {
  if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`${what} failed: ${res.statusCode} ${res.body}`);
  return res.json() as Json;
}

/** Builders of what the assistant reads, all through the HTTP API. */
export function knowledgeFactories(t: TestKit) {
  return {
    async space(owner: TestUser, name: string) {
      return made(await t.as(owner).post('/spaces', { name }), 'space');
    },
    async docGroup(owner: TestUser, spaceId: number) {
      return made(await t.as(owner).post(`/spaces/${spaceId}/documentation-groups`, { name: 'Guides' }), 'documentation group');
    },
    async page(owner: TestUser, spaceId: number, groupId: number, name: string, content: string, parentPageId?: number) {
      return made(await t.as(owner).post('/pages', { spaceId, documentationGroupId: groupId, name, content, ...(parentPageId ? { parentPageId } : {}) }), 'page');
    },
    async reglament(owner: TestUser, spaceId: number, name: string, content: string, draft = false) {
      const group = made(await t.as(owner).post(`/spaces/${spaceId}/reglament-groups`, { name: 'Rules' }), 'reglament group');
      return made(await t.as(owner).post('/reglaments', { name, reglamentColumnId: group.id, content, order: 0, draft }), 'reglament');
    },
    async projectDoc(owner: TestUser, spaceId: number, name: string, content: string) {
      const project = made(await t.as(owner).post('/projects', { spaceId, name }), 'project');
      made(await t.as(owner).patch(`/projects/${project.id}/documentation/content`, { content }), 'project documentation');
      return project;
    },
    /** A member of the organization added to the space with the role. */
    async member(owner: TestUser, spaceId: number, role: 'admin' | 'editor' | 'member' | 'reader') {
      const user = await t.member(owner, 'member');
      made(await t.as(owner).post(`/spaces/${spaceId}/members`, { userIds: [user.id], role }), 'share');
      return user;
    },
  };
}
