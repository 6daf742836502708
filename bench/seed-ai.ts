import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, pool } from './seed.js';

/**
 * The AI workloads' corpus, seeded through the HTTP API: one space of `pages` documentation pages,
 * each of `sections` headed sections of about 60 words (one indexed chunk each, so 1,000 × 10 =
 * 10,000 chunks), drawn from a vocabulary of 3,000 made-up words so that a question's words select
 * a realistic slice of the index. Indexed by the service's own background job.
 */
export interface Knowledge {
  spaceId: number;
  chunks: number;
  questions: string[];
  indexSeconds: number;
}

// A deterministic pseudo-random sequence (the same corpus every run).
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'shi', 'pe', 'da', 'gu', 'zo', 'bri', 'fen', 'tor', 'lum'];
const random = rng(42);
const word = () => Array.from({ length: 2 + Math.floor(random() * 2) }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join('');
const VOCABULARY = Array.from(new Set(Array.from({ length: 6000 }, word))).slice(0, 3000);
const pickWord = () => VOCABULARY[Math.floor(random() ** 1.5 * VOCABULARY.length)]!;
const sentence = (n: number) => Array.from({ length: n }, pickWord).join(' ');

export async function seedKnowledge(base: string, session: string, pages: number, sections: number): Promise<Knowledge> {
  await call(base, session, 'PATCH', '/user/organization/ai-enabled', { aiEnabled: true });
  const space = await call(base, session, 'POST', '/spaces', { name: 'Knowledge base' });
  const group = await call(base, session, 'POST', `/spaces/${space.id}/documentation-groups`, { name: 'Handbook' });
  await pool(
    Array.from({ length: pages }, (_, i) => i),
    8,
    async (i) => {
      const content = Array.from({ length: sections }, () => `## ${sentence(3)}\n\n${sentence(60)}.`).join('\n\n');
      await call(base, session, 'POST', '/pages', { spaceId: space.id, documentationGroupId: group.id, name: `Page ${i} ${sentence(2)}`, content });
    },
  );
  const indexSeconds = await indexSpace(base, session, space.id, false);
  let chunks = 0;
  for (let offset = 0; offset < pages; offset += 500) {
    const documents = (await call(base, session, 'GET', `/ai/documents?spaceId=${space.id}&limit=500&offset=${offset}`)) as Array<{ chunks: number }>;
    chunks += documents.reduce((n, d) => n + d.chunks, 0);
  }
  const questions = Array.from({ length: 200 }, () => `What do we know about ${sentence(3)}?`);
  return { spaceId: space.id, chunks, questions, indexSeconds };
}

/** Queues an indexing job and waits for it; answers the seconds it took. */
export async function indexSpace(base: string, session: string, spaceId: number, full: boolean): Promise<number> {
  const started = performance.now();
  let job = await call(base, session, 'POST', '/ai/indexing-jobs', { spaceId, full });
  while (job.status === 'queued' || job.status === 'running') {
    await new Promise((r) => setTimeout(r, 200));
    job = await call(base, session, 'GET', `/ai/indexing-jobs/${job.id}`);
  }
  if (job.status !== 'succeeded' || job.failed > 0) throw new Error(`indexing ended ${job.status} with ${job.failed} failed`);
  return (performance.now() - started) / 1000;
}

/**
 * An OpenAI-compatible server on 127.0.0.1 that answers at once: embeddings of `dims` dimensions
 * (hashed words, so related texts are near) and a short chat completion. The hybrid workload then
 * measures the service's own work: the embedding round trip, vector and text ranking over the
 * index, the prompt, and recording the turn.
 */
export async function fakeModelServer(dims: number): Promise<{ url: string; close(): void }> {
  const embed = (text: string) => {
    const v = new Array<number>(dims).fill(0);
    for (const w of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
      let h = 2166136261;
      for (const c of w) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
      v[h % dims]! += 1;
    }
    return v;
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      res.setHeader('content-type', 'application/json');
      if (req.url === '/v1/embeddings') {
        const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
        res.end(JSON.stringify({ object: 'list', data: input.map((t, index) => ({ object: 'embedding', index, embedding: embed(t) })), usage: { prompt_tokens: 10, total_tokens: 10 } }));
      } else if (req.url === '/v1/chat/completions') {
        res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 0, model: body.model, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'From the sources [1].' } }], usage: { prompt_tokens: 900, completion_tokens: 8, total_tokens: 908 } }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}
