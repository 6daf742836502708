import type OpenAI from 'openai';
import type Anthropic from '@anthropic-ai/sdk';
import type { LlmProvider } from '../../../db/schema/ai.js';
import { AppError } from '../../../platform/errors.js';
import { providerFailed, providerFetch, type ProviderHttpOptions } from './http.js';

/**
 * The three provider protocols behind one small interface. OpenAI-compatible servers (OpenAI, vLLM,
 * LM Studio, llama.cpp, Ollama's /v1) go through the official `openai` SDK and Anthropic through
 * `@anthropic-ai/sdk`, each with the settings' baseUrl and our guarded `fetch`. Ollama's native API
 * (/api/chat, /api/embed, /api/tags) is three small JSON endpoints called with the same fetch: its
 * JS client (`ollama`) adds a browser fetch polyfill and neither timeouts nor retries, so it would
 * bring a dependency and still leave us the same code.
 */

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  system: string;
  messages: ChatMessage[];
  temperature: number;
  maxTokens: number | null;
  /** Called with each piece of text as the provider streams it; without it the answer comes whole. */
  onDelta?: (text: string) => void;
}

export interface ChatResult {
  text: string;
  usage: { promptTokens: number; completionTokens: number };
}

export interface ModelInfo {
  id: string;
  name: string;
  contextWindow: number | null;
}

export interface LlmClient {
  chat(request: ChatRequest): Promise<ChatResult>;
  /** Vectors of the texts, in order; with the usage the provider reported. */
  embed(texts: string[]): Promise<{ vectors: number[][]; promptTokens: number }>;
  models(): Promise<ModelInfo[]>;
}

export interface ClientSettings {
  provider: LlmProvider;
  baseUrl: string;
  apiKey: string | null;
  model: string;
  embeddingModel: string | null;
}

/** Anthropic requires max_tokens; this is what an unset maxTokens means there. */
const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;

async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw providerFailed(err);
  }
}

/**
 * The providers' SDKs are loaded at the first call, not at start: most servers never configure a
 * model, and the two SDKs held several MB of V8 heap each for nothing (issue 42).
 */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | null = null;
  return () => (made ??= make());
}

function openAiClient(s: ClientSettings, fetch: typeof globalThis.fetch): LlmClient {
  // Local servers need no key, but the SDK insists on one: any non-empty value is sent and ignored.
  const sdk = once(async (): Promise<OpenAI> => {
    const { default: OpenAISdk } = await import('openai');
    return new OpenAISdk({ apiKey: s.apiKey ?? 'none', baseURL: s.baseUrl, fetch, maxRetries: 0 });
  });
  return {
    chat: (r) =>
      guarded(async () => {
        const messages = [{ role: 'system' as const, content: r.system }, ...r.messages];
        const base = { model: s.model, messages, temperature: r.temperature, ...(r.maxTokens ? { max_tokens: r.maxTokens } : {}) };
        if (!r.onDelta) {
          const answer = await (await sdk()).chat.completions.create({ ...base, stream: false });
          return {
            text: answer.choices[0]?.message.content ?? '',
            usage: { promptTokens: answer.usage?.prompt_tokens ?? 0, completionTokens: answer.usage?.completion_tokens ?? 0 },
          };
        }
        const stream = await (await sdk()).chat.completions.create({ ...base, stream: true, stream_options: { include_usage: true } });
        let text = '';
        const usage = { promptTokens: 0, completionTokens: 0 };
        for await (const chunk of stream) {
          const delta = chunk.choices[0]?.delta?.content;
          if (delta) {
            text += delta;
            r.onDelta(delta);
          }
          if (chunk.usage) Object.assign(usage, { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens });
        }
        return { text, usage };
      }),
    embed: (texts) =>
      guarded(async () => {
        // Floats asked for explicitly: the SDK would ask for base64, which many local servers ignore.
        const answer = await (await sdk()).embeddings.create({ model: s.embeddingModel ?? s.model, input: texts, encoding_format: 'float' });
        const vectors = [...answer.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
        return { vectors, promptTokens: answer.usage?.prompt_tokens ?? 0 };
      }),
    models: () =>
      guarded(async () => {
        const list = await (await sdk()).models.list();
        return list.data.map((m) => ({ id: m.id, name: m.id, contextWindow: contextWindowOf(m) }));
      }),
  };
}

/** Some OpenAI-compatible servers (vLLM: max_model_len, LM Studio, OpenRouter) say a model's context length. */
function contextWindowOf(model: object): number | null {
  const m = model as Record<string, unknown>;
  for (const key of ['context_window', 'context_length', 'max_model_len']) if (typeof m[key] === 'number') return m[key];
  return null;
}

function anthropicClient(s: ClientSettings, fetch: typeof globalThis.fetch): LlmClient {
  const sdk = once(async (): Promise<Anthropic> => {
    const { default: AnthropicSdk } = await import('@anthropic-ai/sdk');
    return new AnthropicSdk({ apiKey: s.apiKey ?? 'none', baseURL: s.baseUrl, fetch, maxRetries: 0 });
  });
  return {
    chat: (r) =>
      guarded(async () => {
        // Anthropic's temperature range is 0–1 (the settings allow OpenAI's 0–2).
        const base = { model: s.model, system: r.system, messages: r.messages, temperature: Math.min(r.temperature, 1), max_tokens: r.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS };
        if (!r.onDelta) {
          const answer = await (await sdk()).messages.create({ ...base, stream: false });
          const text = answer.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
          return { text, usage: { promptTokens: answer.usage.input_tokens, completionTokens: answer.usage.output_tokens } };
        }
        const stream = await (await sdk()).messages.create({ ...base, stream: true });
        let text = '';
        const usage = { promptTokens: 0, completionTokens: 0 };
        for await (const event of stream) {
          if (event.type === 'message_start') usage.promptTokens = event.message.usage.input_tokens;
          if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
            text += event.delta.text;
            r.onDelta(event.delta.text);
          }
          if (event.type === 'message_delta') usage.completionTokens = event.usage.output_tokens;
        }
        return { text, usage };
      }),
    embed: () => Promise.reject(new AppError('VALIDATION_FAILED', 'anthropic has no embeddings API: leave embeddingModel empty')),
    models: () =>
      guarded(async () => {
        const list = await (await sdk()).models.list();
        return list.data.map((m) => ({ id: m.id, name: m.display_name, contextWindow: null }));
      }),
  };
}

async function ollamaJson<T>(fetch: typeof globalThis.fetch, url: string, apiKey: string | null, body?: unknown): Promise<Response & { json(): Promise<T> }> {
  // Ollama itself has no keys; one set is sent as a bearer token for a proxy in front of it.
  const headers: Record<string, string> = { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  const res = await fetch(url, body === undefined ? { headers } : { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw Object.assign(new Error('ollama error'), { status: res.status });
  }
  return res;
}

function ollamaClient(s: ClientSettings, fetch: typeof globalThis.fetch): LlmClient {
  const root = s.baseUrl.replace(/\/+$/, '');
  return {
    chat: (r) =>
      guarded(async () => {
        const options = { temperature: r.temperature, ...(r.maxTokens ? { num_predict: r.maxTokens } : {}) };
        const messages = [{ role: 'system', content: r.system }, ...r.messages];
        const res = await ollamaJson<{ message?: { content?: string }; prompt_eval_count?: number; eval_count?: number }>(fetch, `${root}/api/chat`, s.apiKey, {
          model: s.model,
          messages,
          options,
          stream: Boolean(r.onDelta),
        });
        if (!r.onDelta) {
          const answer = await res.json();
          return { text: answer.message?.content ?? '', usage: { promptTokens: answer.prompt_eval_count ?? 0, completionTokens: answer.eval_count ?? 0 } };
        }
        // Streamed as newline-delimited JSON objects; the last one (done: true) carries the counts.
        let text = '';
        const usage = { promptTokens: 0, completionTokens: 0 };
        let buffered = '';
        const decoder = new TextDecoder();
        const handle = (line: string) => {
          if (!line.trim()) return;
          const part = JSON.parse(line) as { message?: { content?: string }; done?: boolean; prompt_eval_count?: number; eval_count?: number; error?: string };
          if (part.error) throw Object.assign(new Error('ollama stream error'), { status: 500 });
          const delta = part.message?.content;
          if (delta) {
            text += delta;
            r.onDelta!(delta);
          }
          if (part.done) Object.assign(usage, { promptTokens: part.prompt_eval_count ?? 0, completionTokens: part.eval_count ?? 0 });
        };
        for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
          buffered += decoder.decode(bytes, { stream: true });
          const lines = buffered.split('\n');
          buffered = lines.pop()!;
          lines.forEach(handle);
        }
        handle(buffered + decoder.decode());
        return { text, usage };
      }),
    embed: (texts) =>
      guarded(async () => {
        const res = await ollamaJson<{ embeddings: number[][]; prompt_eval_count?: number }>(fetch, `${root}/api/embed`, s.apiKey, { model: s.embeddingModel ?? s.model, input: texts });
        const answer = await res.json();
        return { vectors: answer.embeddings, promptTokens: answer.prompt_eval_count ?? 0 };
      }),
    models: () =>
      guarded(async () => {
        const res = await ollamaJson<{ models: Array<{ name: string; model?: string }> }>(fetch, `${root}/api/tags`, s.apiKey);
        return (await res.json()).models.map((m: { name: string; model?: string }) => ({ id: m.model ?? m.name, name: m.name, contextWindow: null }));
      }),
  };
}

export function llmClient(settings: ClientSettings, http: ProviderHttpOptions): LlmClient {
  const fetch = providerFetch(http);
  switch (settings.provider) {
    case 'openai-compatible':
      return openAiClient(settings, fetch);
    case 'anthropic':
      return anthropicClient(settings, fetch);
    case 'ollama':
      return ollamaClient(settings, fetch);
  }
}
