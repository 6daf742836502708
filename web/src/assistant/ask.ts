import { api, ApiError, call, type Schemas } from '../api/client';
import { sseParser, type SseEvent } from './sse';
import { t } from '../i18n';

export type AiAnswer = Schemas['AiAnswer'];
export type Source = AiAnswer['sources'][number];

interface Question {
  question: string;
  spaceId: number;
  conversationId: number | null;
}

/**
 * Asks with `stream: true`: the answer's text arrives in delta events (shown as it comes), then
 * `done` carries the whole AiAnswer with its sources. A failure after the first piece arrives as
 * an `error` event holding the problem document.
 */
export async function ask(q: Question, onText: (text: string) => void): Promise<AiAnswer> {
  const stream = await call(api.POST('/ai/requests', { body: { ...q, stream: true }, parseAs: 'stream' }));
  if (!stream) throw new ApiError(502, 'EMPTY_ANSWER', 'the assistant sent no answer');
  return readAnswer(stream, onText);
}

/** The answer from the event stream: text pieces to `onText` as they come, the AiAnswer at `done`. */
export async function readAnswer(stream: ReadableStream<Uint8Array>, onText: (text: string) => void): Promise<AiAnswer> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const parser = sseParser();
  let answer: AiAnswer | null = null;
  const handle = (events: SseEvent[]) => {
    for (const e of events) {
      const data = JSON.parse(e.data) as { text?: string; status?: number; code?: string; detail?: string } & AiAnswer;
      if (e.event === 'delta' && data.text) onText(data.text);
      else if (e.event === 'done') answer = data;
      else if (e.event === 'error') throw new ApiError(data.status ?? 502, data.code ?? 'AI_PROVIDER_FAILED', data.detail ?? 'the assistant failed while answering');
    }
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    handle(parser.push(decoder.decode(value, { stream: true })));
  }
  handle(parser.push(decoder.decode()));
  handle(parser.end());
  if (!answer) throw new ApiError(502, 'INCOMPLETE_ANSWER', 'the answer broke off; ask again');
  return answer;
}

/** Where a source opens in this client (the API's `url` names the API resource, not a screen). */
export function sourceLink(source: Pick<Source, 'sourceType' | 'sourceId'>, spaceId: number): string {
  if (source.sourceType === 'page') return `/spaces/${spaceId}/docs/${source.sourceId}`;
  if (source.sourceType === 'reglament') return `/spaces/${spaceId}/reglaments/${source.sourceId}`;
  return `/projects/${source.sourceId}`;
}

/** The answer says which model wrote it; null means none did: the quoted passages themselves. */
export const answeredBy = (model: string | null) =>
  model ? t('assistant.answeredBy', { model }) : t('assistant.noModel');
